//! Tests of the event queue's prefetch hints (`EventQueue::pop_until_with`): what a wheel
//! slot names when it starts draining, and what a ring's pops name, one at a time or
//! batched a slot at a time. Hints change no result; these tests hold them to what they
//! promise, so that a hint that names the wrong events (a slot late, or none) shows.

use super::*;

#[test]
fn the_hints_name_the_next_slots_and_the_starting_slots_events() {
    // Slots of 1,024 ps: slot 0 holds two events, slot 1 two (1,100 and 2,000 ps), slot 3
    // one. Starting slot 0 hints slot 1's events; a pop from a slot already draining hints
    // nothing; starting slot 1 or 3 hints slot 2 or 4, both empty. The pops come in time
    // order whatever the hint saw.
    let mut q = EventQueue::new();
    q.schedule(Time(700), Event::TxDone(1));
    q.schedule(Time(10), Event::TxDone(2));
    q.schedule(
        Time(2_000),
        Event::LinkArrive {
            port: 4,
            pkt: 40,
            out: 3,
        },
    );
    q.schedule(
        Time(1_100),
        Event::LinkArrive {
            port: 3,
            pkt: 30,
            out: 3,
        },
    );
    q.schedule(Time(3_500), Event::TxDone(5));
    let seen = std::cell::RefCell::new(Vec::new());
    let starting = std::cell::RefCell::new(Vec::new());
    let (mut popped, mut hints, mut own) = (Vec::new(), Vec::new(), Vec::new());
    while let Some((t, e)) = q.pop_until_with(
        Time::NEVER,
        |e| seen.borrow_mut().push(e),
        |e| starting.borrow_mut().push(e),
    ) {
        popped.push(t.0);
        let mut h: Vec<u32> = seen.take().iter().map(|e| e.arrival_packet()).collect();
        h.sort_unstable();
        hints.push(h);
        // The slot that starts draining names its own events, in the order they run,
        // before the first of them is popped.
        let s = starting.take();
        if let Some(first) = s.first() {
            assert_eq!(*first, e, "at {t:?}");
        }
        own.push(s);
    }
    assert_eq!(popped, vec![10, 700, 1_100, 2_000, 3_500]);
    assert_eq!(hints, vec![vec![30, 40], vec![], vec![], vec![], vec![]]);
    let arrive = |port, pkt| Event::LinkArrive { port, pkt, out: 3 };
    assert_eq!(
        own,
        vec![
            vec![Event::TxDone(2), Event::TxDone(1)],
            vec![],
            vec![arrive(3, 30), arrive(4, 40)],
            vec![],
            vec![Event::TxDone(5)],
        ]
    );
}

/// A ring's pops hint the entries behind them: one at a time, `ahead` the entry
/// `RING_AHEAD` places behind the popped one and `draining` the one `RING_DRAINING` behind;
/// batched, each slot's first pop hints (`draining`) the ring events of its slot and
/// (`ahead`) those of the next. Events 100 ps apart in 1.024 ns slots, due 5 µs after they
/// are scheduled (a ring's delay once the first two have voted for it).
#[test]
fn ring_pops_hint_the_entries_behind_them() {
    for batched in [false, true] {
        let mut q = EventQueue::new()
            .with_promotion(1)
            .with_batched_hints(batched);
        // Scheduled 100 ps apart, each 5 µs ahead: one delay.
        for k in 0..40u32 {
            q.advance_to(Time(u64::from(k) * 100));
            q.schedule(Time(5_000_000 + u64::from(k) * 100), Event::TxDone(k));
        }
        let seen = std::cell::RefCell::new(Vec::new());
        let drained = std::cell::RefCell::new(Vec::new());
        let mut popped = 0;
        let (mut all_seen, mut all_drained) = (Vec::new(), Vec::new());
        while let Some((t, e)) = q.pop_until_with(
            Time::NEVER,
            |e| seen.borrow_mut().push(e),
            |e| drained.borrow_mut().push(e),
        ) {
            let Event::TxDone(k) = e else { panic!("{e:?}") };
            assert_eq!((t.0, k), (5_000_000 + u64::from(popped) * 100, popped));
            let (s, d) = (seen.take(), drained.take());
            // The first two went to the wheel, and its slot's start hinted them; the ring
            // holds the rest.
            if k >= 2 && !batched {
                let behind = |n: u32| (k + n < 40).then_some(Event::TxDone(k + n)).into_iter();
                // `ahead` hints whatever the ring holds there: past the tail, an entry
                // popped before or the buffer's filler (a hint only), never a later one.
                assert_eq!(s.len(), 1, "k {k}");
                if k + RING_AHEAD < 40 {
                    assert_eq!(s, behind(RING_AHEAD).collect::<Vec<_>>(), "k {k}");
                } else {
                    assert!(!matches!(s[0], Event::TxDone(j) if j > k), "k {k}: {s:?}");
                }
                assert_eq!(d, behind(RING_DRAINING).collect::<Vec<_>>(), "k {k}");
            }
            if k >= 2 && batched {
                // Each slot's first pop names, once each, the ring's entries behind it due
                // before the end of its slot (`draining`) and of the next (`ahead`).
                let slot = t.0 >> SLOT_SHIFT;
                let first_of_slot = k == 2 || (t.0 - 100) >> SLOT_SHIFT != slot;
                let due_before = |end: u64, named: &[Event]| {
                    (k + 1..40)
                        .filter(|&j| 5_000_000 + u64::from(j) * 100 < end << SLOT_SHIFT)
                        .map(Event::TxDone)
                        .filter(|e| !named.contains(e))
                        .collect::<Vec<_>>()
                };
                if first_of_slot {
                    assert_eq!(d, due_before(slot + 1, &all_drained), "k {k}");
                    assert_eq!(s, due_before(slot + 2, &all_seen), "k {k}");
                } else {
                    assert!(s.is_empty() && d.is_empty(), "k {k}");
                }
                all_seen.extend(s);
                all_drained.extend(d);
            }
            popped += 1;
        }
        assert_eq!(popped, 40);
    }
}
