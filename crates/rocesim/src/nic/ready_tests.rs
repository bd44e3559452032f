//! The ready list against the scan it replaces: random QP states, pause masks and times,
//! with the NIC's `settle` logic (skip when the state is unchanged and not Paced).

use proptest::prelude::*;

use super::qp_state::QpState;
use super::ready::ReadyList;
use crate::units::Time;

/// A QP as the naive scan sees it.
#[derive(Clone, Debug)]
struct Model {
    slot: u32,
    rank: u32,
    prio: u8,
    has_data: bool,
    next_send: Time,
    wfull: bool,
    last: QpState,
}

impl Model {
    fn state_at(&self, now: Time) -> QpState {
        if !self.has_data {
            QpState::Drained
        } else if self.next_send > now {
            QpState::Paced
        } else if self.wfull {
            QpState::WindowFull
        } else {
            QpState::Ready
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Open(u8),
    Close(usize),
    Change(usize, bool, u64, bool),
    Advance(u64),
    Pick(u8, bool, u64, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..3).prop_map(Op::Open),
        any::<usize>().prop_map(Op::Close),
        (any::<usize>(), any::<bool>(), 0u64..6, any::<bool>())
            .prop_map(|(i, d, t, w)| Op::Change(i, d, t, w)),
        (0u64..4).prop_map(Op::Advance),
        (0u8..8, any::<bool>(), 0u64..6, any::<bool>())
            .prop_map(|(p, d, t, w)| Op::Pick(p, d, t, w)),
    ]
}

/// The old scheduler: scan the activation-ordered list from the round-robin index.
fn naive(qps: &[Model], rr: usize, now: Time, paused: u8) -> Result<usize, Time> {
    let n = qps.len();
    let mut earliest = Time::NEVER;
    for i in 0..n {
        let idx = (rr + i) % n;
        let q = &qps[idx];
        if !q.has_data || paused & (1 << q.prio) != 0 {
            continue;
        }
        if q.next_send > now {
            earliest = earliest.min(q.next_send);
            continue;
        }
        if q.wfull {
            continue;
        }
        return Ok(idx);
    }
    Err(earliest)
}

fn settle(list: &mut ReadyList, q: &mut Model, now: Time) {
    let st = q.state_at(now);
    let prev = std::mem::replace(&mut q.last, st);
    if st == prev && st != QpState::Paced {
        return;
    }
    list.update(q.rank, st, q.next_send, st == QpState::Paced && !q.wfull);
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let (mut list, mut qps, mut rr) = (ReadyList::default(), Vec::<Model>::new(), 0usize);
    let (mut now, mut next_slot) = (Time::ZERO, 0u32);
    for op in ops {
        match op {
            Op::Open(prio) => {
                if list.needs_compaction() {
                    list.compact(|slot, rank| {
                        qps.iter_mut().find(|q| q.slot == slot).unwrap().rank = rank
                    });
                }
                let rank = list.open(next_slot, prio);
                let (has_data, next_send) = (true, now);
                let mut q = Model {
                    slot: next_slot,
                    rank,
                    prio,
                    has_data,
                    next_send,
                    wfull: false,
                    last: QpState::Drained,
                };
                next_slot += 1;
                settle(&mut list, &mut q, now);
                qps.push(q);
            }
            Op::Close(i) if !qps.is_empty() => {
                let i = i % qps.len();
                list.close(qps.remove(i).rank);
                if rr > i {
                    rr -= 1;
                }
            }
            Op::Change(i, d, t, w) if !qps.is_empty() => {
                let n = qps.len();
                let q = &mut qps[i % n];
                (q.has_data, q.next_send, q.wfull) = (d, now + Time::from_ns(t), w);
                settle(&mut list, q, now);
            }
            Op::Advance(dt) => now += Time::from_ns(dt),
            Op::Pick(paused, d, t, w) => {
                let want = naive(&qps, rr, now, paused);
                let got = list.pick(now, paused);
                match want {
                    Ok(idx) => {
                        let slot = qps[idx].slot;
                        prop_assert_eq!(got, Ok(slot));
                        rr = idx + 1;
                        let q = &mut qps[idx];
                        (q.has_data, q.next_send, q.wfull) = (d, now + Time::from_ns(t), w);
                        settle(&mut list, q, now);
                    }
                    Err(e) => prop_assert_eq!(got, Err(e)),
                }
            }
            _ => {}
        }
        prop_assert_eq!(list.len() as usize, qps.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn ready_list_picks_what_the_scan_picks(ops in prop::collection::vec(op(), 1..400)) {
        run(ops)?;
    }
}

#[test]
fn compaction_keeps_the_round_robin_position() {
    let mut list = ReadyList::default();
    let mut ranks: Vec<u32> = (0..100).map(|s| list.open(s, 0)).collect();
    for &r in &ranks {
        list.update(r, QpState::Ready, Time::ZERO, false);
    }
    assert_eq!(list.pick(Time::ZERO, 0), Ok(0));
    assert_eq!(list.pick(Time::ZERO, 0), Ok(1));
    for s in (0..100).filter(|s| s % 4 != 3) {
        list.close(ranks[s]);
    }
    assert!(list.needs_compaction());
    list.compact(|slot, rank| ranks[slot as usize] = rank);
    assert_eq!(list.len(), 25);
    assert_eq!((ranks[3], ranks[99]), (0, 24));
    assert_eq!(
        list.pick(Time::ZERO, 0),
        Ok(3),
        "the next after slot 1 is slot 3"
    );
    assert_eq!(list.pick(Time::ZERO, 0), Ok(7));
    assert_eq!(
        list.pick(Time::ZERO, 1),
        Err(Time::NEVER),
        "priority 0 paused"
    );
}

#[test]
fn a_qp_moved_to_another_priority_follows_that_priority_only() {
    // Congestion isolation moves QP 0 from priority 3 to 2 while its rate limiter holds it
    // until 100 ns. Its old Paced entry (priority 3, 100 ns) must not bring it back to 3.
    let mut list = ReadyList::default();
    let a = list.open(0, 3);
    let b = list.open(1, 3);
    list.update(a, QpState::Paced, Time::from_ns(100), true);
    list.update(b, QpState::Ready, Time::NEVER, false);
    list.set_prio(a, 2);
    list.update(a, QpState::Paced, Time::from_ns(100), true);
    // Priority 2 paused: only QP 1 (priority 3) may send, although QP 0 ranks first.
    assert_eq!(list.pick(Time::from_ns(200), 1 << 2), Ok(1));
    // Priority 3 paused: QP 0, released on priority 2, sends.
    assert_eq!(list.pick(Time::from_ns(200), 1 << 3), Ok(0));
    // Both paused: nothing, and no Paced QP left to wake for.
    assert_eq!(list.pick(Time::from_ns(200), 0b1100), Err(Time::NEVER));
}
