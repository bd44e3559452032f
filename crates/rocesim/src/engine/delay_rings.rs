//! FIFO rings, one per common delay, beside the event wheel (`engine/queue.rs`).
//!
//! Most events of a packet network are due a constant delay after the moment they are
//! scheduled: a frame's arrival one serialization plus one propagation after it starts to
//! leave, the end of its serialization one serialization after. Events scheduled with the
//! same delay `d` from a clock that never goes back come due in the order they were
//! scheduled, so a FIFO ring per delay holds them already sorted by time: a push appends, a
//! pop takes the head, and nothing is sorted. One ring per delay serves events of every
//! class: at a tie the key orders classes, in a ring as between rings. On S1-none five
//! delays (two arrival delays, three serializations) carry 97 % of the events, on S1 with
//! HPCC and on S4 88–90 % (docs/performance.md, "Rings for the common delays").
//!
//! - **Which delays get a ring.** A small table, hashed by the delay, counts the delays of
//!   the events that go to the wheel (a majority vote per bucket, Misra & Gries 1982): a
//!   delay seen [`PROMOTE_AFTER`] times more than its rivals in its bucket gets one of the
//!   [`RINGS`] rings for the rest of the run. Which delays get rings depends only on the
//!   events scheduled, so it is deterministic; which structure holds an event never changes
//!   the order in which events run.
//! - **Ties.** Events due at the same picosecond run in [`Event::tie_key`] order (the key
//!   with the time's mask). Two events of one ring due at the same picosecond were
//!   scheduled at the same picosecond; a push that ties with the ring's tail moves before
//!   it if its key orders first, so a ring stays in (time, key) order.
//! - **Merging.** A tournament tree (a winner tree over the rings' heads, Knuth TAOCP 5.4.1)
//!   names the ring whose head runs first; a pop replays only the popped ring's path (three
//!   comparisons), a push only when it changes a ring's head. The queue compares that head
//!   with the wheel's.

use super::Event;
use crate::engine::handle;

/// Rings (a power of two: the leaves of the tournament tree).
pub(super) const RINGS: usize = 8;
/// Buckets of the table that maps a delay to its ring (a power of two).
const BUCKETS: usize = 256;
/// log2 of [`BUCKETS`].
const BUCKET_BITS: u32 = 8;
/// Net votes a delay needs in its bucket to get a ring.
pub(super) const PROMOTE_AFTER: u32 = 32;
/// Delays a ring may have are below this (4.29 ms): an entry keeps only the low 32 bits of
/// its time, which with the clock give the rest (an entry is due between now and now plus
/// its ring's delay). Longer delays are timers, and a time at
/// [`crate::units::Time::NEVER`] (a saturated sum) never joins a ring.
const LONGEST: u64 = 1 << 32;
/// A ring's head time when it is empty.
const EMPTY: u64 = u64::MAX;
/// A bucket's ring when it has none.
const NO_RING: u8 = u8::MAX;
/// Entries a ring starts with (it doubles when full, so a run's rings stop growing once
/// they hold the most events ever in flight with their delay).
const FIRST_CAPACITY: usize = 64;

/// An entry of a ring, 16 bytes: the event and the low 32 bits of its time, ps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ringed {
    lo: u32,
    event: Event,
}

/// The full time of an entry whose time's low bits are `lo`, due between `now` and
/// `now + 2^32` ps.
#[inline(always)]
fn time_of(lo: u32, now: u64) -> u64 {
    now + u64::from(lo.wrapping_sub(now as u32))
}

/// The rings, the table that gives a delay its ring, and the tree that merges their heads.
/// Each ring is a power-of-two buffer read at `head` and written at `tail` (both count up,
/// wrapping, and are masked to index); its entries are in (time, key) order.
#[derive(Debug)]
pub(super) struct DelayRings {
    /// Each ring's head time, [`EMPTY`] when it has no entry (and for rings not given yet).
    head_time: [u64; RINGS],
    /// The tournament tree: node 1 is the root, nodes `RINGS..2 * RINGS` the rings; each
    /// inner node holds the ring whose head runs first among those below it.
    tree: [u8; 2 * RINGS],
    /// Per ring: where its next pop reads, its next push writes, and its buffer's length
    /// minus one.
    head: [u32; RINGS],
    tail: [u32; RINGS],
    mask: [u32; RINGS],
    /// Per ring: the low 32 bits of its last entry's time (meaningless while it is empty),
    /// so that a push tests for a tie with the tail without reading the tail's entry.
    tail_lo: [u32; RINGS],
    /// Per ring: its buffer.
    buf: [Box<[Ringed]>; RINGS],
    /// Per ring: the first entry not yet given to `draining`, and to `ahead`
    /// ([`DelayRings::hint`]; counts like `head`, never behind it once used).
    drain_hinted: [u32; RINGS],
    ahead_hinted: [u32; RINGS],
    /// Rings given a delay (the first `given`).
    given: usize,
    /// Per bucket: the delay that has its ring, or a delay that cannot hash to the bucket.
    key: [u64; BUCKETS],
    /// Per bucket: the ring of `key`.
    ring: [u8; BUCKETS],
    /// Per bucket: the delay in the running for a ring, and its net votes.
    candidate: [u64; BUCKETS],
    votes: [u16; BUCKETS],
    /// Net votes that give a delay its ring (more than a bucket can count: never).
    promote_after: u32,
}

/// The bucket of delay `d`: the top bits of a Fibonacci hash.
#[inline(always)]
fn bucket(d: u64) -> usize {
    (d.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - BUCKET_BITS)) as usize
}

/// A buffer of `n` entries (their contents are never read before they are written).
fn buffer(n: usize) -> Box<[Ringed]> {
    vec![
        Ringed {
            lo: 0,
            event: Event::Sample,
        };
        n
    ]
    .into_boxed_slice()
}

impl DelayRings {
    /// No rings given yet; a delay gets one after `promote_after` net votes.
    pub(super) fn new(promote_after: u32) -> Self {
        let mut key = [0u64; BUCKETS];
        for (b, k) in key.iter_mut().enumerate() {
            // A value that hashes elsewhere can never be looked up in this bucket.
            let mut s = u64::MAX;
            while bucket(s) == b {
                s -= 1;
            }
            *k = s;
        }
        let mut tree = [0u8; 2 * RINGS];
        for (r, t) in tree[RINGS..].iter_mut().enumerate() {
            *t = r as u8;
        }
        // Every node names a ring below it (all empty: the leftmost).
        for n in (1..RINGS).rev() {
            tree[n] = tree[2 * n];
        }
        DelayRings {
            head_time: [EMPTY; RINGS],
            tree,
            head: [0; RINGS],
            tail: [0; RINGS],
            mask: [0; RINGS],
            tail_lo: [0; RINGS],
            buf: std::array::from_fn(|_| buffer(1)),
            drain_hinted: [0; RINGS],
            ahead_hinted: [0; RINGS],
            given: 0,
            key,
            ring: [NO_RING; BUCKETS],
            // No delay's: the first vote in a bucket names its candidate.
            candidate: key,
            votes: [0; BUCKETS],
            promote_after: promote_after.max(1),
        }
    }

    /// Entry `k` (a count, masked here) of ring `r` (below [`RINGS`]).
    #[inline(always)]
    fn at(&self, r: usize, k: u32) -> &Ringed {
        let i = (k & *handle::at(&self.mask, r)) as usize;
        // The mask is the buffer's length minus one (a power of two).
        handle::at(&handle::at(&self.buf, r)[..], i)
    }

    /// [`DelayRings::at`], to write.
    #[inline(always)]
    fn at_mut(&mut self, r: usize, k: u32) -> &mut Ringed {
        let i = (k & *handle::at(&self.mask, r)) as usize;
        handle::at_mut(&mut handle::at_mut(&mut self.buf, r)[..], i)
    }

    /// Put `event`, due at `time` = `now` + `d`, in the ring of delay `d` if it has one.
    /// False when it has none: the caller keeps it, and the vote is counted.
    #[inline(always)]
    pub(super) fn push(&mut self, d: u64, time: u64, event: Event) -> bool {
        let b = bucket(d) % BUCKETS;
        if self.key[b] != d {
            self.vote(b, d);
            return false;
        }
        // A bucket's ring, when it has one, is below `RINGS` (`vote` gives it).
        let r = usize::from(self.ring[b]);
        let (head, tail) = (*handle::at(&self.head, r), *handle::at(&self.tail, r));
        if tail.wrapping_sub(head) > *handle::at(&self.mask, r) {
            self.grow(r);
        }
        // Read again: `grow` rebases them.
        let (head, tail) = (*handle::at(&self.head, r), *handle::at(&self.tail, r));
        *handle::at_mut(&mut self.tail, r) = tail.wrapping_add(1);
        let lo = time as u32;
        let mut j = tail;
        // Due at the same picosecond as the tail (entries of a ring are due within 2^32 ps
        // of each other, so equal low bits are equal times). An empty ring's `tail_lo` is
        // stale, and the rare false match costs only `tie_place`'s first test.
        if *handle::at(&self.tail_lo, r) == lo {
            j = self.tie_place(r, j, time, event);
        }
        *handle::at_mut(&mut self.tail_lo, r) = lo;
        *self.at_mut(r, j) = Ringed { lo, event };
        if j == head {
            *handle::at_mut(&mut self.head_time, r) = time;
            self.replay(r);
        }
        true
    }

    /// Where `event`, due at `time` like the entry before `j` (the old tail) of ring `r`,
    /// goes: later entries of its time whose key orders after its own move up one (ties
    /// are about one event in ten).
    #[cold]
    #[inline(never)]
    fn tie_place(&mut self, r: usize, mut j: u32, time: u64, event: Event) -> u32 {
        let k = event.tie_key(time);
        let lo = time as u32;
        while j != self.head[r] {
            let prev = *self.at(r, j.wrapping_sub(1));
            if prev.lo != lo || prev.event.tie_key(time) < k {
                break;
            }
            *self.at_mut(r, j) = prev;
            j = j.wrapping_sub(1);
        }
        j
    }

    /// Double ring `r`'s buffer, its entries kept in order from index 0.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, r: usize) {
        let n = (self.mask[r] as usize + 1).max(FIRST_CAPACITY / 2) * 2;
        let mut buf = buffer(n);
        let len = self.tail[r].wrapping_sub(self.head[r]);
        for k in 0..len {
            buf[k as usize] = *self.at(r, self.head[r].wrapping_add(k));
        }
        let head = self.head[r];
        let rebase = |c: u32| c.wrapping_sub(head).min(len);
        self.drain_hinted[r] = rebase(self.drain_hinted[r]);
        self.ahead_hinted[r] = rebase(self.ahead_hinted[r]);
        self.buf[r] = buf;
        self.mask[r] = n as u32 - 1;
        self.head[r] = 0;
        self.tail[r] = len;
    }

    /// A vote for delay `d` in bucket `b` (an event that went to the wheel); a ring for it
    /// once it has enough.
    #[cold]
    #[inline(never)]
    fn vote(&mut self, b: usize, d: u64) {
        if self.ring[b] != NO_RING || self.given == RINGS || d >= LONGEST {
            return;
        }
        if self.candidate[b] == d {
            self.votes[b] = self.votes[b].saturating_add(1);
            if u32::from(self.votes[b]) >= self.promote_after {
                self.ring[b] = self.given as u8;
                self.key[b] = d;
                self.given += 1;
            }
        } else if self.votes[b] == 0 {
            self.candidate[b] = d;
            self.votes[b] = 1;
        } else {
            self.votes[b] -= 1;
        }
    }

    /// The ring whose head runs first, and that head's time ([`u64::MAX`] when every ring
    /// is empty).
    #[inline(always)]
    pub(super) fn first(&self) -> (usize, u64) {
        // The root names a ring: below `RINGS` by construction.
        let r = usize::from(self.tree[1]);
        (r, *handle::at(&self.head_time, r))
    }

    /// The event at the head of ring `r` (which has one).
    #[inline(always)]
    pub(super) fn head_event(&self, r: usize) -> Event {
        self.at(r, self.head[r]).event
    }

    /// The event `k` places after the head of ring `r`, if the ring holds it.
    #[inline(always)]
    pub(super) fn ahead(&self, r: usize, k: u32) -> Option<Event> {
        let h = self.head[r].wrapping_add(k);
        (self.tail[r].wrapping_sub(h) as i32 > 0).then(|| self.at(r, h).event)
    }

    /// Whatever ring `r` holds `k` places after its head: the entry there if the ring holds
    /// one, else an entry popped before or the buffer's filler. For prefetch hints only
    /// (no test of the ring's length: a stale hint costs a useless load, the test cost more
    /// than that on every pop).
    #[inline(always)]
    pub(super) fn peek(&self, r: usize, k: u32) -> Event {
        self.at(r, handle::at(&self.head, r).wrapping_add(k)).event
    }

    /// Prefetch hints, given in one batch so that their loads overlap: `draining` on each
    /// entry due before `drain_until` ps, and `ahead` on each due before `ahead_until`, that
    /// has not had that hint yet.
    #[inline(always)]
    pub(super) fn hint(
        &mut self,
        drain_until: u64,
        ahead_until: u64,
        draining: &impl Fn(Event),
        ahead: &impl Fn(Event),
    ) {
        for r in 0..self.given.min(RINGS) {
            let c = self.hint_ring(r, self.drain_hinted[r], drain_until, draining);
            self.drain_hinted[r] = c;
            let c = self.hint_ring(r, self.ahead_hinted[r], ahead_until, ahead);
            self.ahead_hinted[r] = c;
        }
    }

    /// [`DelayRings::hint`] for one ring and one hint, from entry `c` on (or the head, if
    /// `c` is behind it): returns the first entry not hinted.
    #[inline(always)]
    fn hint_ring(&self, r: usize, c: u32, until: u64, hint: &impl Fn(Event)) -> u32 {
        let (head, tail, ht) = (self.head[r], self.tail[r], self.head_time[r]);
        let mut c = if (c.wrapping_sub(head) as i32) < 0 {
            head
        } else {
            c
        };
        while c != tail {
            let e = self.at(r, c);
            if time_of(e.lo, ht) >= until {
                break;
            }
            hint(e.event);
            c = c.wrapping_add(1);
        }
        c
    }

    /// Take the head of ring `r` (which has one), due at `t` (its head time, which is now).
    #[inline(always)]
    pub(super) fn pop(&mut self, r: usize, t: u64) -> Event {
        let h = *handle::at(&self.head, r);
        let event = self.at(r, h).event;
        let h = h.wrapping_add(1);
        *handle::at_mut(&mut self.head, r) = h;
        *handle::at_mut(&mut self.head_time, r) = if h != *handle::at(&self.tail, r) {
            time_of(self.at(r, h).lo, t)
        } else {
            EMPTY
        };
        self.replay(r);
        event
    }

    /// Recompute the tree's path from ring `r` (whose head changed) to the root: at each
    /// level the winner so far meets the winner of the sibling subtree (at the first, the
    /// sibling ring). Which ring wins is as good as random, so the choice is made without a
    /// branch (selected by a mask); only heads due at the same picosecond, which are rarer,
    /// branch to compare keys.
    #[inline(always)]
    fn replay(&mut self, r: usize) {
        const { assert!(RINGS == 8, "the replay climbs three levels") };
        debug_assert!(r < RINGS, "ring {r}");
        let (mut w, mut tw) = (r, *handle::at(&self.head_time, r));
        self.meet(&mut w, &mut tw, r ^ 1);
        let n = (RINGS + r) >> 1;
        self.tree[n % (2 * RINGS)] = w as u8;
        self.meet(
            &mut w,
            &mut tw,
            usize::from(self.tree[(n ^ 1) % (2 * RINGS)]),
        );
        let n = n >> 1;
        self.tree[n % (2 * RINGS)] = w as u8;
        self.meet(
            &mut w,
            &mut tw,
            usize::from(self.tree[(n ^ 1) % (2 * RINGS)]),
        );
        self.tree[1] = w as u8;
    }

    /// One level of [`DelayRings::replay`]: the winner so far, ring `w` whose head is due
    /// at `tw`, meets ring `s`; `w` and `tw` become the winner's.
    #[inline(always)]
    fn meet(&self, w: &mut usize, tw: &mut u64, s: usize) {
        // `s` names a ring (a tree node's or a sibling's): below `RINGS` by construction.
        let ts = *handle::at(&self.head_time, s);
        if ts == *tw {
            // Two empty rings (or subtrees) meet at every level above a ring that is rarely
            // used: that tie needs no keys.
            if ts != EMPTY && self.sibling_wins_tie(s, *w, ts) {
                *w = s;
            }
        } else {
            // All ones when the sibling's head runs first.
            let m = 0usize.wrapping_sub(usize::from(ts < *tw));
            *w ^= (*w ^ s) & m;
            *tw = (*tw).min(ts);
        }
    }

    /// Heads of rings `s` and `w` due at the same picosecond `t`: does `s`'s run first (the
    /// lower key)?
    #[cold]
    #[inline(never)]
    fn sibling_wins_tie(&self, s: usize, w: usize, t: u64) -> bool {
        self.head_event(s).tie_key(t) < self.head_event(w).tie_key(t)
    }

    /// Every entry of every ring with its time, in no particular order (an entry is due
    /// between its ring's head time and that plus the ring's delay).
    pub(super) fn pending(&self) -> impl Iterator<Item = (u64, Event)> + '_ {
        (0..self.given).flat_map(move |r| {
            let len = self.tail[r].wrapping_sub(self.head[r]);
            (0..len).map(move |k| {
                let e = self.at(r, self.head[r].wrapping_add(k));
                (time_of(e.lo, self.head_time[r]), e.event)
            })
        })
    }

    /// The delay of each ring given out, in the order they were given (for tests).
    #[cfg(test)]
    pub(super) fn delays(&self) -> Vec<u64> {
        let mut v = vec![0; self.given];
        for b in 0..BUCKETS {
            if self.ring[b] != NO_RING {
                v[usize::from(self.ring[b])] = self.key[b];
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::tie_mask;

    /// Events due `d` after `now`, `n` of them at 1 ns steps, pushed as the queue would
    /// (the wheel takes those `push` refuses); returns how many went to a ring.
    fn push_many(rings: &mut DelayRings, d: u64, n: u64) -> u64 {
        (0..n)
            .filter(|&k| rings.push(d, k * 1_000 + d, Event::TxDone(k as u32)))
            .count() as u64
    }

    /// A delay gets a ring once it has `PROMOTE_AFTER` votes, and the events after that go
    /// to it; a timer's delay (beyond `LONGEST`) never does; no more than `RINGS` are given.
    #[test]
    fn common_delays_get_rings_and_long_ones_never() {
        let mut r = DelayRings::new(PROMOTE_AFTER);
        let n = u64::from(PROMOTE_AFTER) + 10;
        // The first vote sets the candidate, the next PROMOTE_AFTER - 1 reach the count.
        assert_eq!(push_many(&mut r, 86_560, n), n - u64::from(PROMOTE_AFTER));
        assert_eq!(push_many(&mut r, LONGEST, n), 0);
        for k in 0..20 {
            push_many(&mut r, 1_000 + k, n);
        }
        assert_eq!(r.delays().len(), RINGS);
        assert_eq!(r.delays()[0], 86_560);
        assert!(!r.delays().contains(&LONGEST));
    }

    /// Pops come in (time, key) order across rings, ties within a ring and across rings
    /// included, and each ring's entries keep their full times through a wrap of the low
    /// 32 bits and through the buffer's growth.
    #[test]
    fn pops_merge_rings_in_time_then_key_order() {
        let mut r = DelayRings::new(1);
        let base = (1u64 << 32) - 5_000;
        let mut want = Vec::new();
        // Two delays (rings after their first two events, which go to the wheel), three
        // events per picosecond step, keys out of order within a step.
        for &d in &[0u64, 700, 0, 700] {
            r.push(d, base + d, Event::TxDone(999));
        }
        assert_eq!(r.delays(), vec![0, 700]);
        for step in 0..100u64 {
            let now = base + step * 100;
            for &d in &[0u64, 700] {
                for id in [7u32, 3, 5] {
                    let id = id + 10 * (d as u32 / 700);
                    assert!(r.push(d, now + d, Event::TxDone(id)));
                    want.push((now + d, Event::TxDone(id).key() ^ tie_mask(now + d), id));
                }
            }
            // Pop what is due by now (the clock never passes a pending event).
            while r.first().1 <= now {
                let (ring, t) = r.first();
                let e = r.pop(ring, t);
                want.sort_unstable();
                let (wt, _, wid) = want.remove(0);
                assert_eq!((t, e), (wt, Event::TxDone(wid)));
            }
        }
        want.sort_unstable();
        for (wt, _, wid) in want {
            let (ring, t) = r.first();
            assert_eq!((t, r.pop(ring, t)), (wt, Event::TxDone(wid)));
        }
        assert_eq!(r.first().1, EMPTY);
    }

    /// A batch of hints names each entry due before its bound once, ring by ring, and
    /// nothing after it; the next batch goes on from there.
    #[test]
    fn batched_hints_name_each_entry_once() {
        let mut r = DelayRings::new(1);
        r.push(500, 500, Event::TxDone(0));
        r.push(500, 500, Event::TxDone(0));
        for k in 1..=10u32 {
            assert!(r.push(500, 500 + u64::from(k) * 100, Event::TxDone(k)));
        }
        let seen = std::cell::RefCell::new(Vec::new());
        let drained = std::cell::RefCell::new(Vec::new());
        let ahead = |e: Event| seen.borrow_mut().push(e);
        let draining = |e: Event| drained.borrow_mut().push(e);
        r.hint(700, 1_000, &draining, &ahead);
        assert_eq!(drained.take(), vec![Event::TxDone(1)]);
        assert_eq!(seen.take(), (1..=4).map(Event::TxDone).collect::<Vec<_>>());
        r.hint(1_000, 1_300, &draining, &ahead);
        assert_eq!(
            drained.take(),
            (2..=4).map(Event::TxDone).collect::<Vec<_>>()
        );
        assert_eq!(seen.take(), (5..=7).map(Event::TxDone).collect::<Vec<_>>());
    }
}
