//! Events due beyond the wheel's horizon: retransmission and congestion-control timers,
//! pause expiries, flow starts, samples. They are few and far between, so a binary heap holds
//! them in (time, key) order, and the slot of the earliest is kept at hand: the wheel, as it
//! turns, compares that one number with its horizon and moves the events that now fall
//! inside it into its slots (`EventQueue::refill`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Event;

/// A pending event and its time, ps (the heap's entries, and what a wheel slot's entries
/// stand for). Entries order by time, then (only between events due at the same picosecond)
/// by [`Event::tie_key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) time: u64,
    pub(super) event: Event,
}

impl Entry {
    /// The order among entries of the same time.
    #[inline(always)]
    pub(super) fn tie_key(&self) -> u64 {
        self.event.tie_key(self.time)
    }
}

impl PartialOrd for Entry {
    #[inline(always)]
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Entry {
    #[inline(always)]
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.time.cmp(&o.time)).then_with(|| self.tie_key().cmp(&o.tie_key()))
    }
}

/// The events beyond the wheel's horizon.
#[derive(Debug)]
pub(super) struct FarEvents {
    heap: BinaryHeap<Reverse<Entry>>,
    /// Wheel slot of the earliest entry, `u64::MAX` when there is none (kept by `push` and
    /// `pop_before`).
    first_slot: u64,
}

impl FarEvents {
    /// None pending.
    pub(super) fn new() -> Self {
        FarEvents {
            heap: BinaryHeap::new(),
            first_slot: u64::MAX,
        }
    }

    /// Add `e`, due in wheel slot `slot`.
    pub(super) fn push(&mut self, e: Entry, slot: u64) {
        self.first_slot = self.first_slot.min(slot);
        self.heap.push(Reverse(e));
    }

    /// The wheel slot of the earliest entry (`u64::MAX` when there is none).
    #[inline(always)]
    pub(super) fn first_slot(&self) -> u64 {
        self.first_slot
    }

    /// The time of the earliest entry, ps.
    pub(super) fn first_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    /// Take the earliest entry if its slot (`time >> shift`) is before `horizon`; otherwise
    /// (or when none is left) record the earliest slot and take nothing.
    pub(super) fn pop_before(&mut self, horizon: u64, shift: u32) -> Option<Entry> {
        let Some(&Reverse(e)) = self.heap.peek() else {
            self.first_slot = u64::MAX;
            return None;
        };
        let slot = e.time >> shift;
        if slot >= horizon {
            self.first_slot = slot;
            return None;
        }
        self.heap.pop();
        Some(e)
    }

    /// Every entry, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.heap.iter().map(|Reverse(e)| e)
    }
}
