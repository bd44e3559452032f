//! A slot of the event wheel (`engine/queue.rs`): its entries (an event and the bits of
//! its time below the slot), their order, the sort a slot gets when it starts draining, the
//! append that writes an entry in place, and the prefetch of a slot's lines.

use super::wheel_network::{network_max, network_sort};
use super::{Entry, Event};

/// Entries of the slot after next whose lines are prefetched (4 to a line).
pub(super) const PREFETCH_ENTRIES: usize = 48;
/// Longest slot sorted by insertion; longer ones take the general sort. A slot is mostly in
/// time order, and at S4's 27 entries the general sort's partition and merges cost 7 % of
/// the run where insertion moves a few entries.
pub(super) const INSERTION_MAX: usize = 48;

/// An entry of a wheel slot, 16 bytes (an [`Entry`] is 24): the event and the bits of its
/// time below the slot, which gives the rest. Entries of one slot order as [`Entry`]s do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slotted {
    /// The bits of its time below the slot, ps.
    pub(super) lo: u32,
    /// The event.
    pub(super) event: Event,
}

impl Slotted {
    /// The slot entry of `e` in slots whose time bits below the slot are `in_slot`.
    #[inline(always)]
    pub(super) fn of(e: Entry, in_slot: u64) -> Self {
        Slotted {
            lo: (e.time & in_slot) as u32,
            event: e.event,
        }
    }
    /// Does `self` run before `o`, both due in the slot that starts at `base` ps?
    #[inline(always)]
    pub(super) fn before(&self, o: &Self, base: u64) -> bool {
        self.lo < o.lo || self.lo == o.lo && self.wins_tie(o, base)
    }
    /// Between entries due at the same picosecond: does `self`'s key order first? Out of
    /// line and cold (ties are rare in a long slot, and inlined it cost 18 M instructions on
    /// S1-none's first 400 µs), so that sorting a slot does not compute every entry's key
    /// ahead of the comparison that needs it.
    #[cold]
    #[inline(never)]
    fn wins_tie(&self, o: &Self, base: u64) -> bool {
        let t = base | u64::from(self.lo);
        self.event.tie_key(t) < o.event.tie_key(t)
    }
}

/// Slot `i` of the wheel `slots`, `i` a slot number masked by the wheel's mask, so below
/// `slots.len()` (the mask is the length minus one from construction on, and the boxed slice
/// never changes length). Unchecked: with the wheel's size chosen at run time the compiler
/// cannot see that bound, and a check at each of a hop's wheel accesses cost about 25
/// instructions a hop. Debug builds (the tests) check it.
#[inline(always)]
pub(super) fn slot(slots: &[Vec<Slotted>], i: usize) -> &Vec<Slotted> {
    debug_assert!(i < slots.len());
    // SAFETY: `i` is masked by `len - 1` (see above).
    unsafe { slots.get_unchecked(i) }
}

/// [`slot`], mutable.
#[inline(always)]
pub(super) fn slot_mut(slots: &mut [Vec<Slotted>], i: usize) -> &mut Vec<Slotted> {
    debug_assert!(i < slots.len());
    // SAFETY: as in `slot`.
    unsafe { slots.get_unchecked_mut(i) }
}

/// Start loading the entries of the slot two after the one being drained (up to
/// [`PREFETCH_ENTRIES`] of them): at large fabrics a slot's buffer was last written a
/// propagation delay ago and has left the L2 by the time it is drained, and the next slot's
/// entries are read (for [`EventQueue::pop_limited_with`]'s hint) when this one starts. A hint
/// only.
#[inline(always)]
pub(super) fn prefetch_slot(v: &[Slotted]) {
    // Four 16-byte entries a cache line.
    let n = v.len().min(PREFETCH_ENTRIES);
    let mut k = 0;
    while k < n {
        crate::engine::prefetch::prefetch(v.as_ptr().wrapping_add(k));
        k += 4;
    }
}

/// Append an entry to a slot, each field written straight into the slot's buffer.
///
/// `v.push(Slotted { .. })` built the entry on the stack with narrow stores and copied it
/// with one 16-byte load, which cannot be forwarded from those stores: the load waited for
/// every older store to reach the cache, many of them misses. On S4 (k = 16) that one load
/// held 13 % of the run's samples (docs/performance.md, "Store forwarding").
#[inline(always)]
pub(super) fn push_fields(v: &mut Vec<Slotted>, lo: u32, event: Event) {
    v.reserve(1);
    let len = v.len();
    // SAFETY: `reserve` made room for one more entry; both fields are written before the
    // length covers it.
    unsafe {
        let dst = v.as_mut_ptr().add(len);
        std::ptr::addr_of_mut!((*dst).lo).write(lo);
        std::ptr::addr_of_mut!((*dst).event).write(event);
        v.set_len(len + 1);
    }
}

/// Sort the entries of the slot that starts at `base` ps by (time, key); the times below
/// the slot take `shift` bits (the slot is `2^shift` ps wide). A slot of up to 32 entries (16
/// in 4.096 ns slots: [`network_max`]) is sorted by a sorting network on vectors, without a
/// branch on the order its entries arrived in (`engine/wheel_network.rs`). Longer slots hold
/// entries mostly pushed in time order: an insertion sort moves little then, and is cheaper
/// than the general sort's setup. Entries with equal keys are the same event, so stability
/// does not matter.
#[inline]
pub(super) fn sort_slot(v: &mut [Slotted], base: u64, shift: u32) {
    if v.len() <= network_max(shift) {
        if v.len() > 1 {
            network_sort(v, base, shift);
        }
        return;
    }
    if v.len() > INSERTION_MAX {
        v.sort_unstable_by(|a, b| {
            if a.before(b, base) {
                std::cmp::Ordering::Less
            } else if b.before(a, base) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        return;
    }
    // The run already in order (strictly, by time alone) needs no look at keys or moves.
    let mut first = 1;
    while first < v.len() && v[first - 1].lo < v[first].lo {
        first += 1;
    }
    for i in first..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && x.before(&v[j - 1], base) {
            v[j] = v[j - 1];
            j -= 1;
        }
        // Most entries are in place: no store then.
        if j != i {
            v[j] = x;
        }
    }
}
