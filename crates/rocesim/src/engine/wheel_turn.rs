//! The wheel's turn (`engine/queue.rs`): moving to the next non-empty slot when the one
//! being drained is finished (its sort, and the prefetch hints of what follows), finding that
//! slot in the bitmap, and bringing the overflow heap's events into the wheel as its horizon
//! passes them.

use super::wheel_slot::{prefetch_slot, slot, slot_mut, sort_slot};
use super::{EventQueue, HINT_AHEAD};
use crate::engine::event::Event;
use crate::units::Time;

impl EventQueue {
    /// Bring overflow events that now fall inside the wheel into it (slots that were beyond
    /// the horizon until now).
    #[inline(always)]
    pub(super) fn refill(&mut self) {
        if self.far.first_slot() <= self.cur + self.mask {
            self.refill_from_heap();
        }
    }
    /// The moving part of `refill` (out of line: it runs once per far event).
    #[inline(never)]
    fn refill_from_heap(&mut self) {
        let horizon = self.cur + self.mask + 1;
        while let Some(e) = self.far.pop_before(horizon, self.shift) {
            self.put(e.time, e.event);
        }
    }
    /// Absolute slot of the first non-empty wheel slot at or after `cur`, `u64::MAX` if none.
    pub(super) fn next_slot(&self) -> u64 {
        let start = (self.cur & self.mask) as usize;
        self.slot_at(self.bits.first_from(start))
    }
    /// [`EventQueue::next_slot`], the slot of index `skip` taken as empty.
    pub(super) fn next_slot_but(&self, skip: usize) -> u64 {
        let start = (self.cur & self.mask) as usize;
        self.slot_at(self.bits.first_from_but(start, skip))
    }
    /// The absolute slot of wheel index `i` (one of `cur .. cur + slots`), `u64::MAX` for none.
    fn slot_at(&self, i: Option<usize>) -> u64 {
        i.map_or(u64::MAX, |i| {
            self.cur + ((i as u64).wrapping_sub(self.cur) & self.mask)
        })
    }
    /// Start draining the wheel's next non-empty slot (sort it, hint its own and its
    /// successor's events), turning the wheel to the overflow heap's first event when the
    /// wheel is empty; called when that slot starts no later than the rings' first event,
    /// due at `rt`. False when nothing is due by `end` (nothing changes then, but the
    /// slot's sort: events scheduled meanwhile are appended to it, and it is sorted again
    /// when time reaches it).
    #[inline(always)]
    pub(super) fn start_next_slot(
        &mut self,
        end: Time,
        rt: u64,
        ahead: &impl Fn(Event),
        draining: &impl Fn(Event),
    ) -> bool {
        let mut slot = self.next;
        if slot == u64::MAX {
            let Some(t) = self.far.first_time() else {
                return false;
            };
            if t > end.0 && rt > end.0 {
                return false;
            }
            // The wheel is empty: turn it to the heap's first event.
            self.cur = self.slot_of(t);
            self.refill_from_heap();
            slot = self.next;
        }
        let i = (slot & self.mask) as usize;
        let v = slot_mut(&mut self.slots, i);
        // The slot being drained is empty, so this one is not it: sort it.
        sort_slot(v, slot << self.shift, self.shift);
        let t = slot << self.shift | u64::from(v[0].lo);
        if t > end.0 && rt > end.0 {
            return false;
        }
        let m = self.mask as usize;
        let v = self::slot(&self.slots, i);
        for s in &v[..v.len().min(HINT_AHEAD)] {
            draining(s.event);
        }
        let next = self::slot(&self.slots, (i + 1) & m);
        for s in &next[..next.len().min(HINT_AHEAD)] {
            ahead(s.event);
        }
        prefetch_slot(self::slot(&self.slots, (i + 2) & m));
        // Drained from here on: the slot is sorted, and time reaches it (its first event
        // or the rings' first, which is no earlier than the slot's start, runs next).
        self.draining = slot;
        self.drain_i = i;
        self.head = 0;
        if slot != self.cur {
            self.cur = slot;
            self.refill();
        }
        true
    }
    /// The slot being drained (index `i`) is finished (its last entry was popped): empty it,
    /// and find the next non-empty slot.
    #[inline(always)]
    pub(super) fn drained(&mut self, i: usize) {
        slot_mut(&mut self.slots, i).clear();
        self.head = 0;
        self.bits.clear(i);
        // The next slot is usually busy too: one bit says so without a scan.
        let j = (i + 1) & self.mask as usize;
        self.next = if self.bits.is_set(j) {
            self.draining + 1
        } else {
            self.next_slot()
        };
    }
}
