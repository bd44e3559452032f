//! The event queue, ordered by (time, event key): events at the same picosecond run in the
//! order of [`Event::tie_key`] (class, then component and detail, permuted by the time so no
//! component always wins ties), whatever order they were scheduled in, so runs are
//! deterministic and the order needs no global sequence counter (which a run split over
//! threads could not share).
//!
//! Three structures hold the pending events, and a pop takes the earliest of their heads:
//!
//! - **Rings for the common delays** (`engine/delay_rings.rs`). Most events are due a
//!   constant delay after they are scheduled (a frame's arrival one serialization plus one
//!   propagation after it starts to leave; the end of its serialization), and events of one
//!   delay come due in the order they were scheduled. A FIFO ring per common delay (up to
//!   eight, given to the delays the run schedules most) holds them already in order, and a
//!   tournament tree names the ring whose head runs first. On S1-none 97 % of events go to
//!   rings, on S1 with HPCC and S4 88–90 %. A pop whose ring head is due before anything in
//!   the wheel and by the run's limit (`wheel_at`, which is kept no later than the limit's
//!   successor: one comparison) looks no further.
//! - **A timing wheel for the rest** (Varghese & Lauck 1987): a power of two of slots of
//!   `2^shift` ps each (1.024 ns, or 2.048 ns in a fabric small enough for the cache:
//!   [`EventQueue::with_horizon_and_width`]) cover the near future, the earliest non-empty
//!   slot is kept at hand (a bitmap finds the next one when it empties), and the slot being
//!   drained is sorted once by (time, key) and read from a cursor (an event scheduled into
//!   it is inserted in order). A slot's entries hold the event and the bits of its time
//!   below the slot (16 bytes; the slot number gives the rest); the key is computed only to
//!   order entries of equal time. A slot's entries, sort and prefetch are in
//!   `engine/wheel_slot.rs`, the turn to the next slot in `engine/wheel_turn.rs`.
//! - **A binary heap** for events beyond the wheel's horizon (`engine/far_events.rs`:
//!   retransmission timers, pause expiries, flow starts), which move into the wheel as it
//!   turns; the heap's earliest slot is kept at hand, so a turn looks at it only when it must.
//!
//! Which structure holds an event never changes when it runs: each keeps (time, key) order,
//! and the heads are compared by (time, key).
//!
//! The wheel is as small as the fabric allows ([`EventQueue::with_horizon`]): its horizon
//! covers the longest link delay plus a largest frame's serialization, so that every arrival
//! and transmit end lands in it, and no more. Each slot keeps its own buffer, and the wheel
//! visits them all once a turn, so a wheel four times too long (8,192 slots for 1 µs links)
//! kept four times the buffers warm and ran S1 about 20 % slower than one that fits
//! (docs/performance.md, "A wheel the size of the fabric").
//!
//! Rings were first measured with the order of that time, (time, global sequence): they
//! cost more instructions and misses per hop than the wheel (docs/performance.md, "The event
//! core with today's order kept"). With the order by key, a slot's sort cost about 50
//! instructions an event and its network a chain of dependent steps; rings need neither
//! (docs/performance.md, "Rings for the common delays").

use super::event::Event;
use crate::units::Time;

#[path = "delay_rings.rs"]
mod delay_rings;
#[path = "far_events.rs"]
mod far_events;
#[path = "wheel_bitmap.rs"]
mod wheel_bitmap;
#[path = "wheel_network.rs"]
mod wheel_network;
#[path = "wheel_slot.rs"]
mod wheel_slot;
#[path = "wheel_turn.rs"]
mod wheel_turn;
use delay_rings::{DelayRings, PROMOTE_AFTER};
use far_events::{Entry, FarEvents};
use wheel_bitmap::SlotBitmap;
use wheel_slot::{push_fields, slot, slot_mut, Slotted};
#[cfg(test)]
use wheel_slot::{sort_slot, INSERTION_MAX};

/// log2 of a slot's width in picoseconds in a wheel made without a width (1.024 ns).
const SLOT_SHIFT: u32 = 10;
/// log2 of the widest slots a wheel may have (4.096 ns).
const MAX_SLOT_SHIFT: u32 = 12;
/// Slots of a wheel made without a horizon ([`EventQueue::new`]): 8.4 µs.
const DEFAULT_SLOTS: usize = 8192;
/// Fewest slots of a wheel (a horizon of 1.05 µs).
const MIN_SLOTS: usize = 1024;
/// Most slots of a wheel (a horizon of 67 µs: longer links wait in the heap).
const MAX_SLOTS: usize = 1 << 16;

/// Bits of a time below its slot number, in slots of 1.024 ns.
#[cfg(test)]
const IN_SLOT: u64 = (1 << SLOT_SHIFT) - 1;
/// Events of the next slot handed to the caller as prefetch hints. S1's slots hold about six
/// events, S4's (k = 16) about 27: 16 left S4's later arrivals without a hint
/// (docs/performance.md, "Slots of a large fabric and routing one hop ahead").
const HINT_AHEAD: usize = 32;
/// Unless hints are batched, a ring's pop hints (`ahead`) the entry this many places behind
/// the popped one.
const RING_AHEAD: u32 = 4;
/// Unless hints are batched, a ring's pop hints (`draining`) the entry this many places
/// behind the popped one.
const RING_DRAINING: u32 = 2;

/// Pending events.
#[derive(Debug)]
pub struct EventQueue {
    /// The slots, a power of two of them (at least 64).
    slots: Box<[Vec<Slotted>]>,
    /// log2 of a slot's width in picoseconds (10: 1.024 ns).
    shift: u32,
    /// Bits of a time below its slot number (`2^shift - 1`).
    in_slot: u64,
    /// One bit per slot: non-empty.
    bits: SlotBitmap,
    /// The number of slots minus one: a slot number masked by it is its index.
    mask: u64,
    /// Absolute slot number of the wheel's current position; the wheel holds slots
    /// `cur .. cur + slots`.
    cur: u64,
    /// Absolute slot number of the earliest non-empty slot, `u64::MAX` when the wheel is
    /// empty (kept up to date by `put` and when a slot empties, so a pop reads it directly).
    next: u64,
    /// Absolute slot number of the slot being drained: the one holding the entry popped
    /// last, `u64::MAX` before the first pop. It is sorted, and an entry scheduled into it
    /// is inserted in order (after `head`). Once its last entry has been popped it is
    /// "finished": it keeps its entries and its bit until the next pop finds nothing at
    /// `head` and empties it ([`EventQueue::drained`]), so that a pop tests only for an
    /// entry at `head`, not also whether it was the last.
    draining: u64,
    /// First entry of the slot being drained not yet popped (its length when finished, 0
    /// when emptied), `usize::MAX` before the first pop (so that the first pop starts a
    /// slot).
    head: usize,
    /// Index of the slot being drained (`draining` masked; 0 before the first pop), kept so
    /// that a pop need not mask it again.
    drain_i: usize,
    /// Events beyond the wheel's horizon (`engine/far_events.rs`).
    far: FarEvents,
    /// Events of the common delays, one FIFO ring per delay (`engine/delay_rings.rs`).
    rings: DelayRings,
    /// No event in the wheel or the overflow heap is due before this time, ps (lowered by
    /// every push there, raised when the wheel is looked at), and it is no later than
    /// `limit + 1`: a rings' event due earlier pops without a look at the wheel or the
    /// limit.
    wheel_at: u64,
    /// Events due after this time, ps, stay queued ([`EventQueue::set_limit`]).
    limit: u64,
    /// Ring events are hinted a slot at a time ([`EventQueue::with_batched_hints`]).
    batch_hints: bool,
    /// The slot whose ring events were last hinted (`u64::MAX` before the first).
    hinted: u64,
    now: Time,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    /// An empty queue at time zero, its wheel 8.4 µs long.
    pub fn new() -> Self {
        Self::with_slots(DEFAULT_SLOTS, SLOT_SHIFT)
    }
    /// An empty queue at time zero whose wheel covers at least `horizon` ahead of now (the
    /// longest delay between an event and its cause that is common: a link's propagation plus
    /// a largest frame's serialization), between 1.05 µs and 67 µs. Later events wait in the
    /// overflow heap.
    pub fn with_horizon(horizon: Time) -> Self {
        Self::with_horizon_and_width(horizon, SLOT_SHIFT)
    }
    /// [`EventQueue::with_horizon`] with slots of `2^shift` ps (10 to 12: 1.024 to 4.096
    /// ns). Wider slots mean fewer slot changes (a sort, the hints, the bitmap) for the same
    /// events, and longer sorts: in a small fabric, where a 1.024 ns slot holds three or four
    /// events, 2.048 ns slots run faster; in one whose state outgrows the cache, where it
    /// holds dozens, they run slower (docs/performance.md, "Slots as wide as the fabric
    /// allows"). The order of events is the same whatever the width.
    pub fn with_horizon_and_width(horizon: Time, shift: u32) -> Self {
        assert!(
            (SLOT_SHIFT..=MAX_SLOT_SHIFT).contains(&shift),
            "slot shift {shift}"
        );
        // One slot more than the horizon spans, for the part of the current slot gone by.
        let need = (horizon.0 >> shift) as usize + 2;
        let min = MIN_SLOTS >> (shift - SLOT_SHIFT);
        Self::with_slots(need.next_power_of_two().clamp(min, MAX_SLOTS), shift)
    }
    /// An empty queue whose wheel has `n` slots (a power of two, at least 64) of `2^shift` ps.
    fn with_slots(n: usize, shift: u32) -> Self {
        assert!(n.is_power_of_two() && n >= 64, "{n} slots");
        EventQueue {
            slots: (0..n).map(|_| Vec::new()).collect(),
            shift,
            in_slot: (1 << shift) - 1,
            bits: SlotBitmap::new(n),
            mask: n as u64 - 1,
            cur: 0,
            next: u64::MAX,
            draining: u64::MAX,
            head: usize::MAX,
            drain_i: 0,
            far: FarEvents::new(),
            rings: DelayRings::new(PROMOTE_AFTER),
            wheel_at: u64::MAX,
            limit: u64::MAX,
            batch_hints: false,
            hinted: u64::MAX,
            now: Time::ZERO,
        }
    }
    /// The queue, its rings given to a delay after `n` net votes instead of
    /// [`PROMOTE_AFTER`] (tests: rings from the first few events, or none with `u32::MAX`).
    #[cfg(test)]
    fn with_promotion(mut self, n: u32) -> Self {
        self.rings = DelayRings::new(n);
        self
    }
    /// The queue, its ring events hinted a slot at a time when `on` (each slot's first ring
    /// event hints the rings' events of that slot and of the next, in one batch) rather
    /// than one at a time (each ring pop hints the entries a few places behind it). In a
    /// fabric that outgrows the cache the hints' loads chain (a port's location, its
    /// switch, its port) and miss: a batch overlaps them, where one at a time each waits
    /// on its own, and S4 ran 15–20 % slower (docs/performance.md, "Rings for the common
    /// delays"). In a small fabric the batch costs more than it saves. Hints only: the
    /// order of events is the same either way.
    pub fn with_batched_hints(mut self, on: bool) -> Self {
        self.batch_hints = on;
        self
    }
    /// The slot of time `t` ps.
    #[inline(always)]
    fn slot_of(&self, t: u64) -> u64 {
        t >> self.shift
    }
    /// Slots in the wheel.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }
    /// The current simulated time (the time of the last popped event).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Schedule `event` at absolute time `at` (never earlier than now: panics if it is).
    ///
    /// Time now lies in slot `cur` (the slot being drained), so an event due in the past
    /// falls either before `cur`, where the unsigned distance to it exceeds the horizon and
    /// it takes the far path, or in the slot being drained: both cold paths check it, and
    /// the common push pays no test of its own. Only [`EventQueue::advance_to`] (a run's
    /// end) moves time past the current slot without an event; debug builds (the tests)
    /// check every push, so that case is covered there too.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        // Due a common delay from now: at the tail of that delay's ring. (An event due in
        // the past gives a delay beyond any ring's and goes on to the wheel's checks.)
        if self.rings.push(at.0.wrapping_sub(self.now.0), at.0, event) {
            return;
        }
        if (at.0 >> self.shift).wrapping_sub(self.cur) <= self.mask {
            self.put(at.0, event);
        } else {
            self.push_far(at.0, event);
        }
    }
    /// [`EventQueue::schedule`] beyond the wheel's horizon: into the overflow heap. Out of
    /// line, so that the common push builds no entry on the stack for it.
    #[cold]
    #[inline(never)]
    fn push_far(&mut self, time: u64, event: Event) {
        assert!(time >= self.now.0, "event scheduled in the past");
        self.far.push(Entry { time, event }, self.slot_of(time));
        self.wheel_at = self.wheel_at.min(time);
    }
    #[inline(always)]
    fn put(&mut self, time: u64, event: Event) {
        let slot = time >> self.shift;
        if slot == self.draining {
            self.put_draining(Entry { time, event });
            return;
        }
        let i = (slot & self.mask) as usize;
        push_fields(
            slot_mut(&mut self.slots, i),
            (time & self.in_slot) as u32,
            event,
        );
        self.bits.set(i);
        self.next = self.next.min(slot);
        self.wheel_at = self.wheel_at.min(time);
    }
    /// [`EventQueue::put`] into the slot being drained (an event due within a slot of now,
    /// which is rare): among the entries not yet popped, in order. Out of line, so that the
    /// common push builds no entry on the stack for it.
    #[cold]
    #[inline(never)]
    fn put_draining(&mut self, e: Entry) {
        assert!(e.time >= self.now.0, "event scheduled in the past");
        let slot = self.slot_of(e.time);
        let i = (slot & self.mask) as usize;
        let v = slot_mut(&mut self.slots, i);
        let s = Slotted::of(e, self.in_slot);
        // Usually the latest time so far, so the search ends at the back.
        let base = slot << self.shift;
        let at = self.head + v[self.head..].partition_point(|x| !s.before(x, base));
        v.insert(at, s);
        self.bits.set(i);
        self.next = self.next.min(slot);
        self.wheel_at = self.wheel_at.min(e.time);
    }
    /// Schedule `event` after `delay`.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: Event) {
        self.schedule(self.now + delay, event);
    }
    /// Remove the earliest event if it is due no later than `end`, and advance time to it.
    /// An event after `end` stays queued and time does not move.
    #[inline]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, Event)> {
        self.pop_until_with(end, |_| {}, |_| {})
    }
    /// Events due after `end` stay queued by [`EventQueue::pop_limited_with`] until the next
    /// call.
    #[inline]
    pub fn set_limit(&mut self, end: Time) {
        self.limit = end.0;
        self.wheel_at = self.wheel_at.min(end.0.saturating_add(1));
    }
    /// `wheel_at` set to `t`, a bound the wheel's earliest event has just been found to be
    /// no earlier than, or to the limit's successor if that comes first.
    #[inline(always)]
    fn raise_wheel_at(&mut self, t: u64) {
        self.wheel_at = t.min(self.limit.saturating_add(1));
    }
    /// [`EventQueue::pop_limited_with`] up to `end` (it sets the limit).
    #[inline(always)]
    pub fn pop_until_with(
        &mut self,
        end: Time,
        ahead: impl Fn(Event),
        draining: impl Fn(Event),
    ) -> Option<(Time, Event)> {
        self.set_limit(end);
        self.pop_limited_with(ahead, draining)
    }
    /// [`EventQueue::pop_until`] up to the limit of the last [`EventQueue::set_limit`] (a
    /// run loop sets it once, and each pop of a ring's event then tests it with the wheel's
    /// bound in one comparison), with two prefetch hints:
    /// - `ahead` on events that will run soon, so the caller can start loading what they
    ///   will touch first (a frame's packet, its egress port): when a wheel slot starts
    ///   draining, on each event of the slot after it (unsorted, up to `HINT_AHEAD`; the slot
    ///   may still change, or be another turn's); when a ring's head is popped, on what the
    ///   ring holds `RING_AHEAD` (4) places behind it (past the ring's tail, an event popped
    ///   before or a filler: no test of the length on every pop), or with batched hints
    ///   ([`EventQueue::with_batched_hints`]) at a slot's first ring pop, on the rings'
    ///   events of the next slot not yet named.
    /// - `draining` on events about to run, whose first lines `ahead` loaded before: what
    ///   they name (a packet's INT record) can start loading too. When a wheel slot starts
    ///   draining, on each of its events in the order they will run, before the first of
    ///   them does; when a ring's head is popped, on the entry `RING_DRAINING` (2) places
    ///   behind it, or with batched hints at a slot's first ring pop, on the rings' events
    ///   of that slot not yet named.
    ///
    /// Hints only: what they do changes no result.
    #[inline(always)]
    pub fn pop_limited_with(
        &mut self,
        ahead: impl Fn(Event),
        draining: impl Fn(Event),
    ) -> Option<(Time, Event)> {
        let (r, rt) = self.rings.first();
        // The rings' first event runs before anything in the wheel or the heap, and is due
        // by the limit: the common case, decided by one comparison.
        if rt < self.wheel_at {
            return Some(self.pop_ring_due(r, rt, &ahead, &draining));
        }
        self.pop_compared(Time(self.limit), &ahead, &draining)
    }
    /// [`EventQueue::pop_limited_with`] when the wheel (or the heap) may hold the earliest
    /// event: find the wheel's earliest, compare it with the rings' first, and pop the one
    /// that runs first; `wheel_at` is brought up to the wheel's earliest time (or a bound
    /// on it).
    #[inline(always)]
    fn pop_compared(
        &mut self,
        end: Time,
        ahead: &impl Fn(Event),
        draining: &impl Fn(Event),
    ) -> Option<(Time, Event)> {
        loop {
            let (r, rt) = self.rings.first();
            // The slot being drained has entries left: its next one is the wheel's earliest
            // event (nothing is due before now, and now lies in that slot or after it).
            let i = self.drain_i;
            let v = slot_mut(&mut self.slots, i);
            if let Some(&e) = v.get(self.head) {
                let t = self.draining << self.shift | u64::from(e.lo);
                if t < rt || t == rt && self.wheel_wins_tie(e.event, r, t) {
                    if t > end.0 {
                        return None;
                    }
                    self.head += 1;
                    // The next entry's time if there is one; the one popped bounds the rest.
                    let base = self.draining << self.shift;
                    let v = self::slot(&self.slots, i);
                    let next = v.get(self.head).map_or(t, |n| base | u64::from(n.lo));
                    self.raise_wheel_at(next);
                    self.now = Time(t);
                    return Some((self.now, e.event));
                }
                self.raise_wheel_at(t);
                return self.pop_ring(r, rt, end, ahead, draining);
            }
            if self.head != 0 && self.head != usize::MAX {
                // Finished: its last entry was popped before.
                self.drained(i);
            }
            // The wheel's next slot, or the overflow heap's, starts no earlier than this.
            let bound = if self.next != u64::MAX {
                self.next << self.shift
            } else {
                self.far.first_slot().saturating_mul(1 << self.shift)
            };
            self.raise_wheel_at(bound);
            if bound > rt {
                return self.pop_ring(r, rt, end, ahead, draining);
            }
            if !self.start_next_slot(end, rt, ahead, draining) {
                return None;
            }
        }
    }
    /// Between the wheel's earliest event `e` and ring `r`'s head, both due at `t`: does
    /// the wheel's run first (the lower key)?
    #[cold]
    #[inline(never)]
    fn wheel_wins_tie(&self, e: Event, r: usize, t: u64) -> bool {
        e.tie_key(t) < self.rings.head_event(r).tie_key(t)
    }
    /// Pop ring `r`'s head, due at `rt` (the earliest pending event), unless it is due after
    /// `end`; hint the entries behind it.
    #[inline(always)]
    fn pop_ring(
        &mut self,
        r: usize,
        rt: u64,
        end: Time,
        ahead: &impl Fn(Event),
        draining: &impl Fn(Event),
    ) -> Option<(Time, Event)> {
        if rt > end.0 {
            return None;
        }
        Some(self.pop_ring_due(r, rt, ahead, draining))
    }
    /// [`EventQueue::pop_ring`] of an event due by the limit.
    #[inline(always)]
    fn pop_ring_due(
        &mut self,
        r: usize,
        rt: u64,
        ahead: &impl Fn(Event),
        draining: &impl Fn(Event),
    ) -> (Time, Event) {
        let event = self.rings.pop(r, rt);
        if self.batch_hints {
            let slot = rt >> self.shift;
            if slot != self.hinted {
                // The first ring event of a slot: hint the rings' events of this slot and
                // the next, as a wheel slot does when it starts draining.
                self.hinted = slot;
                let (next, after) = ((slot + 1) << self.shift, (slot + 2) << self.shift);
                self.rings.hint(next, after, draining, ahead);
            }
        } else {
            ahead(self.rings.peek(r, RING_AHEAD - 1));
            if let Some(h) = self.rings.ahead(r, RING_DRAINING - 1) {
                draining(h);
            }
        }
        self.now = Time(rt);
        (self.now, event)
    }
    /// Remove the earliest event and advance time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::NEVER)
    }
    /// Every pending event with its time, in no particular order (end-of-run accounting:
    /// the frames still on the wires are their pending arrivals).
    pub fn pending(&self) -> impl Iterator<Item = (Time, Event)> + '_ {
        let drained = (self.draining != u64::MAX).then_some((self.draining & self.mask) as usize);
        let wheel = self.slots.iter().enumerate().flat_map(move |(i, v)| {
            // The slot being drained holds its popped entries before `head`.
            let from = if drained == Some(i) { self.head } else { 0 };
            // Index i holds the one slot of cur .. cur + slots that it names.
            let slot = self.cur + ((i as u64).wrapping_sub(self.cur) & self.mask);
            v[from..]
                .iter()
                .map(move |s| (Time(slot << self.shift | u64::from(s.lo)), s.event))
        });
        let far = self.far.iter().map(|e| (Time(e.time), e.event));
        let rings = self.rings.pending().map(|(t, e)| (Time(t), e));
        wheel.chain(far).chain(rings)
    }
    /// A time no pending event is due before: the start of the earliest non-empty slot,
    /// the far events' first, or the rings' first (`Time::NEVER` when nothing is pending).
    /// A run split across threads skips the windows in which no part has anything to do.
    pub fn next_bound(&self) -> Time {
        let far = self.far.first_time().unwrap_or(u64::MAX);
        let near = match self.next {
            u64::MAX => u64::MAX,
            // A finished slot waiting to be emptied holds nothing pending.
            slot if slot == self.draining && self.finished() => {
                match self.next_slot_but((slot & self.mask) as usize) {
                    u64::MAX => u64::MAX,
                    s => s << self.shift,
                }
            }
            slot => slot << self.shift,
        };
        Time(near.min(far).min(self.rings.first().1))
    }
    /// Is the slot being drained finished: its last entry popped, not yet emptied?
    fn finished(&self) -> bool {
        self.head != 0 && self.head != usize::MAX && self.head >= self.slots[self.drain_i].len()
    }
    /// Number of pending events (counted: a visit of every slot).
    pub fn len(&self) -> usize {
        self.pending().count()
    }
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Move the clock to `t` without an event (end of run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "queue_hint_tests.rs"]
mod hint_tests;
