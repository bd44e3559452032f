//! Tests of the event queue: its order against reference heaps and lists, the wheel's turn
//! and its overflow heap, wheels of any size, and the rings of common delays beside them
//! (given from the first events or never, so that both paths meet every case).

use super::*;
use crate::engine::event::tie_mask;
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[test]
fn pops_in_time_then_class_order() {
    let mut q = EventQueue::new();
    q.schedule(Time(5), Event::TxDone(1));
    q.schedule(Time(3), Event::TxDone(2));
    q.schedule(Time(5), Event::Sample);
    // Scheduled after the sample, popped before it: frames, then transmissions, then
    // what observes them.
    q.schedule(
        Time(5),
        Event::LinkArrive {
            port: 5,
            pkt: 9,
            out: 3,
        },
    );
    q.schedule(
        Time(5),
        Event::Fault {
            index: 0,
            start: true,
        },
    );
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(
        order,
        vec![
            (Time(3), Event::TxDone(2)),
            (
                Time(5),
                Event::Fault {
                    index: 0,
                    start: true
                }
            ),
            (
                Time(5),
                Event::LinkArrive {
                    port: 5,
                    pkt: 9,
                    out: 3
                }
            ),
            (Time(5), Event::TxDone(1)),
            (Time(5), Event::Sample),
        ]
    );
    assert_eq!(q.now(), Time(5));
}

/// Ties between components of one class go either way: over 2,000 picoseconds (one
/// after another, a 1,500-byte frame's 10G serialization apart, as synchronized senders
/// tie, or 2^20 ps apart), port 1's event comes before port 2's at about half of them, and the same order
/// whichever was scheduled first.
#[test]
fn ties_favour_no_component() {
    for step in [1, 1_200_000, 1 << 20] {
        let (first, ports_1_and_9) = ties_won(step);
        assert!((900..1100).contains(&first), "{first} of 2000, step {step}");
        assert!(
            (900..1100).contains(&ports_1_and_9),
            "{ports_1_and_9} of 2000"
        );
    }
}

/// Of 2,000 ties `step` ps apart: how often port 1's event went before port 2's, and
/// before port 9's.
fn ties_won(step: u64) -> (u32, u32) {
    let mut first = [0, 0];
    for (k, other) in [2, 9].into_iter().enumerate() {
        for n in 0..2000u64 {
            let t = n * step;
            let mut a = EventQueue::new();
            let mut b = EventQueue::new();
            a.schedule(Time(t), Event::TxDone(1));
            a.schedule(Time(t), Event::TxDone(other));
            b.schedule(Time(t), Event::TxDone(other));
            b.schedule(Time(t), Event::TxDone(1));
            let pa = a.pop().unwrap().1;
            assert_eq!(pa, b.pop().unwrap().1);
            first[k] += u32::from(pa == Event::TxDone(1));
        }
    }
    (first[0], first[1])
}

#[test]
fn pop_until_leaves_later_events() {
    let mut q = EventQueue::new();
    q.schedule(Time(5), Event::TxDone(1));
    q.schedule(Time::from_ms(9), Event::TxDone(2));
    assert_eq!(q.pop_until(Time(6)), Some((Time(5), Event::TxDone(1))));
    assert_eq!(q.pop_until(Time(6)), None);
    assert_eq!(q.now(), Time(5));
    assert_eq!(q.len(), 1);
    assert_eq!(
        q.pop_until(Time::from_ms(9)),
        Some((Time::from_ms(9), Event::TxDone(2)))
    );
}

/// A limit set once bounds every pop after it, rings' events (which pop on one comparison)
/// included, until it is set again, higher or lower.
#[test]
fn a_limit_bounds_each_pop_until_set_again() {
    let mut q = EventQueue::new().with_promotion(1);
    // One delay: the first two go to the wheel, the rest to a ring.
    for k in 0..6u64 {
        q.advance_to(Time(k * 100));
        q.schedule(Time(5_000 + k * 100), Event::TxDone(k as u32));
    }
    let pop = |q: &mut EventQueue| q.pop_limited_with(|_| {}, |_| {}).map(|(t, _)| t.0);
    q.set_limit(Time::NEVER);
    assert_eq!(pop(&mut q), Some(5_000));
    assert_eq!(pop(&mut q), Some(5_100));
    assert_eq!(pop(&mut q), Some(5_200));
    // Lowered after the wheel was found empty (no bound from it any more).
    q.set_limit(Time(5_250));
    assert_eq!(pop(&mut q), None);
    assert_eq!(pop(&mut q), None);
    q.set_limit(Time(5_300));
    assert_eq!(pop(&mut q), Some(5_300));
    assert_eq!(pop(&mut q), None);
    q.set_limit(Time(5_000));
    assert_eq!(pop(&mut q), None);
    assert_eq!(q.now(), Time(5_300));
    q.set_limit(Time::NEVER);
    assert_eq!(pop(&mut q), Some(5_400));
    assert_eq!(pop(&mut q), Some(5_500));
    assert_eq!(pop(&mut q), None);
}

/// Slots of 16 and 32 entries all due at one picosecond (one tie across the most entries
/// the sorting network sorts), and of one entry, come out in key order, in slots of each
/// width.
#[test]
fn network_sorts_a_full_tie_and_a_single_entry() {
    let base = 77 << MAX_SLOT_SHIFT;
    for n in [16u32, 32] {
        for shift in SLOT_SHIFT..=MAX_SLOT_SHIFT {
            let mut v: Vec<Slotted> = (0..n)
                .rev()
                .map(|p| Slotted {
                    lo: 5,
                    event: Event::TxDone(p * 37 % n),
                })
                .collect();
            let mut expect = v.clone();
            expect.sort_by_key(|s| s.event.key() ^ tie_mask(base | 5));
            sort_slot(&mut v, base, shift);
            assert_eq!(v, expect, "{n} entries, slots of 2^{shift} ps");
        }
    }
    let mut one = vec![Slotted {
        lo: 9,
        event: Event::Sample,
    }];
    sort_slot(&mut one, base, SLOT_SHIFT);
    assert_eq!(one[0].lo, 9);
}

#[test]
fn event_is_small() {
    assert!(std::mem::size_of::<Event>() <= 16);
    assert_eq!(std::mem::size_of::<Slotted>(), 16, "a wheel entry");
}

/// The queue's pending events, sorted (`pending` gives them in no particular order).
fn pending_of(q: &EventQueue) -> Vec<(u64, Event)> {
    let mut v: Vec<_> = q.pending().map(|(t, e)| (t.0, e)).collect();
    v.sort_by_key(|&(t, e)| (t, e.key()));
    v
}

/// The reference heap's events, sorted like [`pending_of`].
fn pending_of_reference(r: &BinaryHeap<Reverse<(u64, u64, u32)>>) -> Vec<(u64, Event)> {
    let mut v: Vec<_> = (r.iter())
        .map(|Reverse((t, _, id))| (*t, Event::TxDone(*id)))
        .collect();
    v.sort_by_key(|&(t, e)| (t, e.key()));
    v
}

/// `sort_slot` puts the entries of the slot that starts at `base` ps (times within its first
/// 1.024 ns) in the order the standard library's sort of `entries` by (time, key) gives, as a
/// slot of each width (1.024, 2.048 and 4.096 ns: the network sorts up to 32, 32 and 16
/// entries).
fn sorts_as_the_standard_sort(base: u64, mut entries: Vec<Entry>) -> Result<(), TestCaseError> {
    let v: Vec<Slotted> = entries.iter().map(|&e| Slotted::of(e, IN_SLOT)).collect();
    entries.sort();
    let expect: Vec<Slotted> = entries.iter().map(|&e| Slotted::of(e, IN_SLOT)).collect();
    for shift in SLOT_SHIFT..=MAX_SLOT_SHIFT {
        let mut v = v.clone();
        sort_slot(&mut v, base, shift);
        prop_assert_eq!(&v, &expect, "slots of 2^{} ps", shift);
    }
    Ok(())
}

proptest! {
    /// The slot sort is the standard library's sort by (time, key), short and long
    /// slots alike, repeated entries included.
    #[test]
    fn slot_sort_sorts(
        slot in 0u64..1 << 40,
        entries in proptest::collection::vec((0u64..6, 0u32..8), 0..2 * INSERTION_MAX + 8),
    ) {
        let base = slot << SLOT_SHIFT;
        sorts_as_the_standard_sort(base, (entries.iter())
            .map(|&(dt, id)| Entry { time: base + dt, event: Event::TxDone(id) })
            .collect())?;
    }

    /// Short slots (sorted by the network) and long ones, with events of the classes whose key
    /// is read at byte 4 and of those matched by variant, times anywhere in the slot or
    /// bunched into a few picoseconds (ties), and repeated entries: the standard library's
    /// sort by (time, key) again.
    #[test]
    fn slot_sort_sorts_mixed_events(
        slot in 0u64..1 << 40,
        spread in prop_oneof![Just(4u64), Just(1 << SLOT_SHIFT)],
        entries in proptest::collection::vec((0u64..1 << SLOT_SHIFT, 0u32..6, 0u8..5), 0..40),
    ) {
        let base = slot << SLOT_SHIFT;
        let event = |id: u32, kind: u8| match kind {
            0 => Event::TxDone(id),
            1 => Event::LinkArrive { port: id, pkt: 7, out: 2 },
            2 => Event::NicWake(id),
            3 => Event::PauseArrive { port: id, prio: 3, quanta: 65_535 },
            _ => Event::Sample,
        };
        sorts_as_the_standard_sort(base, (entries.iter())
            .map(|&(dt, id, kind)| Entry { time: base + dt % spread, event: event(id, kind) })
            .collect())?;
    }

    /// Against a reference binary heap ordered by (time, key), with `pop_until`
    /// bounds: events at now, equal times, delays of a constant few values (as links and
    /// serializations give), just inside and just beyond the wheel's horizon, and far
    /// timers; the queue and the reference agree on every pop, on `None`, on the clock,
    /// and on the pending events (checked now and then).
    #[test]
    fn pop_until_matches_a_reference_heap(
        promote in prop_oneof![Just(1u32), Just(3), Just(u32::MAX)],
        ops in proptest::collection::vec((0usize..9, 0u64..20_000_000, 0u8..3), 1..600)
    ) {
        const HORIZON: u64 = (DEFAULT_SLOTS as u64) << SLOT_SHIFT;
        let mut q = EventQueue::new().with_promotion(promote);
        // (time, masked key, component): the key decides, the component names the event.
        let mut reference: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0u64;
        for (kind, x, op) in ops {
            if op == 0 {
                // Pop, bounded by an end somewhere ahead of now.
                let end = q.now().0 + x;
                let got = q.pop_until(Time(end));
                let want = match reference.peek() {
                    Some(Reverse((t, _, _))) if *t <= end => reference.pop().map(|Reverse(k)| k),
                    _ => None,
                };
                let event = |(t, _, id): (u64, u64, u32)| (t, Event::TxDone(id));
                prop_assert_eq!(got.map(|(t, e)| (t.0, e)), want.map(event));
                if let Some((t, _, _)) = want {
                    prop_assert_eq!(q.now().0, t);
                }
            } else {
                let d = match kind {
                    0 => 0,
                    1 => 86_560,
                    2 => 1_086_560,
                    3 => 6_880,
                    4 => HORIZON - 1 - (q.now().0 & 1023),
                    5 => HORIZON + (x % 3),
                    6 => x % 2048,
                    7 => x,
                    _ => 100_000_000 + x,
                };
                let at = q.now().0 + d;
                seq += 1;
                // Components in no particular order, some repeated.
                let id = seq.wrapping_mul(2_654_435_761) % 1000;
                let e = Event::TxDone(id as u32);
                q.schedule(Time(at), e);
                reference.push(Reverse((at, e.key() ^ tie_mask(at), id as u32)));
            }
            prop_assert_eq!(q.len(), reference.len());
            if seq % 64 == 63 {
                prop_assert_eq!(pending_of(&q), pending_of_reference(&reference));
            }
        }
        prop_assert_eq!(pending_of(&q), pending_of_reference(&reference));
        while let Some(Reverse((t, _, id))) = reference.pop() {
            prop_assert_eq!(q.pop(), Some((Time(t), Event::TxDone(id))));
        }
        prop_assert_eq!(q.pop(), None);
    }

    /// Against a reference (a sorted list): any mix of near and far events, scheduled
    /// while popping, comes out in exact (time, key) order.
    #[test]
    fn matches_a_sorted_reference(
        promote in prop_oneof![Just(1u32), Just(u32::MAX)],
        ops in proptest::collection::vec((0u64..30_000_000, 0u8..4), 1..400),
    ) {
        let mut q = EventQueue::new().with_promotion(promote);
        let mut reference: Vec<(u64, u64, u32)> = Vec::new();
        let mut seq = 0u64;
        let mut out = Vec::new();
        let mut expect = Vec::new();
        for (delta, op) in ops {
            if op == 0 && !reference.is_empty() {
                let (t, e) = q.pop().unwrap();
                reference.sort();
                let (rt, _, id) = reference.remove(0);
                out.push((t.0, e));
                expect.push((rt, Event::TxDone(id)));
            } else {
                // Within the slot being drained, near (within the wheel) or far
                // (overflow) deltas.
                let d = match op {
                    1 => delta % 5_000,
                    3 => delta % 600,
                    _ => delta,
                };
                let at = q.now().0 + d;
                seq += 1;
                let id = seq.wrapping_mul(2_654_435_761) % 1000;
                let e = Event::TxDone(id as u32);
                q.schedule(Time(at), e);
                reference.push((at, e.key() ^ tie_mask(at), id as u32));
            }
        }
        prop_assert_eq!(out, expect);
    }

    /// The wheel's size changes no pop: the same schedule on a wheel of 64 slots (66 ns,
    /// so most events pass through the overflow heap and every turn refills from it) and
    /// on one of 8,192 gives the same events at the same times, with `pop_until` bounds.
    #[test]
    fn wheel_size_changes_no_pop(ops in proptest::collection::vec((0u64..3_000_000, 0u8..4), 1..400)) {
        same_pops(EventQueue::with_slots(64, SLOT_SHIFT), EventQueue::new(), &ops, 1)?;
    }

    /// Rings change no pop: the same schedule with rings given to the first delays seen
    /// twice (and to the commonest in a real run: a fixed transmit time, a fixed arrival
    /// delay) and with no rings at all gives the same events at the same times. The wheel
    /// beside the rings has 64 to 4,096 slots (its bitmap's summary word finds the next
    /// slot), the one without rings 8,192 (its bitmap scanned word by word). Times on a
    /// 500 ps grid, so that many events fall due at the same picosecond, in a ring, across
    /// rings, and between a ring and the wheel.
    #[test]
    fn rings_change_no_pop(
        shift in 10u32..=12,
        slots in prop_oneof![Just(64usize), Just(1024), Just(4096)],
        ops in proptest::collection::vec((0u64..3_000_000, 0u8..6), 1..500),
    ) {
        let ops: Vec<(u64, u8)> = ops
            .into_iter()
            .map(|(d, op)| match op {
                // A fixed delay, as a frame's serialization or arrival gives.
                4 => (86_500, 3),
                5 => (1_086_500, 3),
                _ => (d, op),
            })
            .collect();
        let rings = EventQueue::with_slots(slots, shift).with_promotion(2);
        let none = EventQueue::new().with_promotion(u32::MAX);
        same_pops(rings, none, &ops, 500)?;
    }

    /// Slots of 2.048 and 4.096 ns (on small wheels, so that the overflow heap and the
    /// turns take part) give the same events at the same times as 1.024 ns ones: the width
    /// is the wheel's business, the order is (time, key). Times on a 500 ps grid, so that
    /// many events fall due at the same picosecond.
    #[test]
    fn slot_width_changes_no_pop(
        shift in 11u32..=12,
        ops in proptest::collection::vec((0u64..3_000_000, 0u8..4), 1..400),
    ) {
        same_pops(EventQueue::with_slots(64, shift), EventQueue::new(), &ops, 500)?;
    }
}

/// Run `ops` on queues `a` and `b` and hold them to the same pops at the same times: `(d,
/// 0)` pops up to `d % 100 µs` from now, `(d, 1..=3)` schedules an event (an arrival or a
/// transmit end, two thirds of them the latter) `d` ps from now (modulo 2 ns, 70 ns or not),
/// rounded down to `grid`, each event for a component of its own (two events due at the
/// same picosecond with the same key are the same event in a run, and a ring and the wheel
/// may give such a pair in either order). Both queues' `next_bound` must stay at or before
/// their first pending event.
fn same_pops(
    mut a: EventQueue,
    mut b: EventQueue,
    ops: &[(u64, u8)],
    grid: u64,
) -> Result<(), TestCaseError> {
    let mut seq = 0u32;
    for &(delta, op) in ops {
        if op == 0 {
            let end = Time(b.now().0 + delta % 100_000);
            prop_assert_eq!(a.pop_until(end), b.pop_until(end));
            prop_assert_eq!(a.now(), b.now());
        } else {
            let d = match op {
                1 => delta % 2_000,
                2 => delta % 70_000,
                _ => delta,
            } / grid
                * grid;
            seq += 1;
            // A bijection of the sequence number: components in no particular order.
            let id = seq.wrapping_mul(2_654_435_761);
            let e = if seq % 3 == 0 {
                Event::LinkArrive {
                    port: id,
                    pkt: seq,
                    out: 0,
                }
            } else {
                Event::TxDone(id)
            };
            a.schedule(Time(b.now().0 + d), e);
            b.schedule(Time(b.now().0 + d), e);
        }
        prop_assert_eq!(a.len(), b.len());
        // Either bound is one: no event is due before it.
        let first = b.pending().map(|(t, _)| t).min().unwrap_or(Time::NEVER);
        prop_assert!(a.next_bound() <= first && b.next_bound() <= first);
    }
    while let Some(x) = b.pop() {
        prop_assert_eq!(a.pop(), Some(x));
    }
    prop_assert_eq!(a.pop(), None);
    Ok(())
}

/// A wheel of 2.048 ns slots sized for a horizon covers it with half as many slots.
#[test]
fn a_horizon_sizes_a_wide_wheel() {
    // 1,086,560 ps span 530 slots of 2,048 ps and 2 more: 1,024.
    let q = EventQueue::with_horizon_and_width(Time(1_086_560), 11);
    assert_eq!(q.slots(), 1024);
    assert_eq!(
        EventQueue::with_horizon_and_width(Time::ZERO, 11).slots(),
        512
    );
    assert_eq!(
        EventQueue::with_horizon_and_width(Time::from_ms(1), 12).slots(),
        1 << 16
    );
}

/// A wheel sized for a horizon covers it, within the bounds.
#[test]
fn a_horizon_sizes_the_wheel() {
    // 1 µs links at 100G with 1,082-byte frames (86.56 ns): 1,086,560 ps, 1,061 whole slots
    // and 2 more: 2,048.
    assert_eq!(EventQueue::with_horizon(Time(1_086_560)).slots(), 2048);
    // 2 µs spans 1,953 slots and 2 more (the current slot's part gone by, and rounding):
    // 2,048 slots (2.097 µs) still cover it; 2.1 µs does not fit.
    assert_eq!(EventQueue::with_horizon(Time::from_us(2)).slots(), 2048);
    assert_eq!(EventQueue::with_horizon(Time(2_100_000)).slots(), 4096);
    assert_eq!(EventQueue::with_horizon(Time::ZERO).slots(), 1024);
    assert_eq!(EventQueue::with_horizon(Time::from_ms(1)).slots(), 1 << 16);
}

/// An event due before now panics, whether it falls in the slot being drained or in a slot
/// the wheel has passed (a past slot must not be taken for one a turn ahead).
#[test]
fn scheduling_in_the_past_panics() {
    for past in [Time(5_000), Time(100)] {
        let r = std::panic::catch_unwind(|| {
            let mut q = EventQueue::new();
            q.schedule(Time(5_100), Event::TxDone(1));
            q.schedule(Time(9_000), Event::TxDone(2));
            assert_eq!(q.pop(), Some((Time(5_100), Event::TxDone(1))));
            q.schedule(past, Event::TxDone(3));
        });
        assert!(
            r.is_err(),
            "an event at {past:?} after now = 5.1 ns was accepted"
        );
    }
}

/// Once the slot being drained gives its last entry, it is emptied by the next pop; until
/// then `next_bound` does not name it, and an event scheduled into it still pops in order.
#[test]
fn a_finished_slot_holds_nothing_pending() {
    let mut q = EventQueue::new();
    q.schedule(Time(1_000), Event::TxDone(1));
    q.schedule(Time(50_000), Event::TxDone(2));
    assert_eq!(q.pop(), Some((Time(1_000), Event::TxDone(1))));
    assert_eq!(q.next_bound(), Time(50_000 >> SLOT_SHIFT << SLOT_SHIFT));
    assert_eq!(q.len(), 1);
    q.schedule(Time(1_010), Event::TxDone(3));
    assert_eq!(q.next_bound(), Time(1_000 >> SLOT_SHIFT << SLOT_SHIFT));
    assert_eq!(q.pop(), Some((Time(1_010), Event::TxDone(3))));
    assert_eq!(q.pop(), Some((Time(50_000), Event::TxDone(2))));
    assert_eq!(q.pop(), None);
    assert_eq!(q.next_bound(), Time::NEVER);
}

/// After `advance_to` moves time past the wheel's current slot (a run's end), an event due
/// before the new time still panics in a debug build, where the tests run.
#[test]
#[cfg(debug_assertions)]
fn scheduling_before_an_advanced_clock_panics() {
    let r = std::panic::catch_unwind(|| {
        let mut q = EventQueue::new();
        q.schedule(Time(1_000), Event::TxDone(1));
        assert_eq!(q.pop(), Some((Time(1_000), Event::TxDone(1))));
        q.advance_to(Time(50_000));
        q.schedule(Time(20_000), Event::TxDone(2));
    });
    assert!(
        r.is_err(),
        "an event at 20 ns after now = 50 ns was accepted"
    );
}
