//! The ready list of a NIC's QP scheduler: which requester QPs may send, served round robin
//! in activation order without scanning every active QP.
//!
//! Each requester gets an activation rank (increasing; compacted when the rank space gets
//! sparse). The round robin is a cursor over ranks: a pick serves the first Ready QP at or
//! after the cursor (circularly, skipping paused priorities) and moves the cursor just past
//! it; a QP leaving keeps the cursor on the same next QP. This is exactly the scan of an
//! activation-ordered list from a round-robin index. Per priority, Ready QPs sit in a bitset
//! by rank, and Paced QPs (held by their rate limiter) in a min-heap by release time with
//! lazy deletion; a pick first promotes the Paced QPs whose time has come.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::qp_state::QpState;
use super::rank_set::RankSets;
use crate::units::Time;

/// What the list keeps about one rank.
#[derive(Clone, Copy, Debug)]
struct RankInfo {
    /// The requester slot holding the rank (`VACANT` when it left).
    slot: u32,
    /// Its priority (traffic class).
    prio: u8,
    /// When Paced: whether it will be Ready (not window-full) once its time comes.
    then_ready: bool,
    /// When Paced: its release time (`NEVER` otherwise); a heap entry is live iff it matches.
    paced_at: Time,
}

const VACANT: u32 = u32::MAX;

/// The requester QPs of one NIC in activation order, with their Ready and Paced sets.
/// `repr(C)`, aligned to a cache line: what a pick reads (the rank table's and the Ready
/// sets' headers, the cursor, the priorities with members) fills its first line, the
/// counts and the Paced heaps follow. Left to the compiler, those fields sat in three lines
/// apart from the Ready set of the priority served, itself a line of its own.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct ReadyList {
    info: Vec<RankInfo>,
    ready: RankSets,
    live: u32,
    cursor: u32,
    /// Priorities with a Ready QP (bitmask).
    ready_prios: u8,
    /// Priorities that may have a live Paced QP (bitmask).
    paced_prios: u8,
    /// Ready QPs per priority (`ready_prios` says which are non-zero).
    ready_count: [u32; 8],
    paced: [BinaryHeap<Reverse<(Time, u32)>>; 8],
}

impl ReadyList {
    /// QPs in the list (started, not complete).
    #[inline]
    pub fn len(&self) -> u32 {
        self.live
    }
    /// No QP in the list.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Whether the rank space is sparse enough to renumber before the next `open`.
    pub fn needs_compaction(&self) -> bool {
        self.info.len() >= 64 && self.info.len() >= 2 * self.live as usize
    }

    /// Renumber the live ranks `0..len` in order, telling `renamed(slot, rank)` each new rank.
    pub fn compact(&mut self, mut renamed: impl FnMut(u32, u32)) {
        let old = std::mem::take(&mut self.info);
        let cursor = old[..(self.cursor as usize).min(old.len())]
            .iter()
            .filter(|i| i.slot != VACANT)
            .count() as u32;
        let was_ready: Vec<bool> = (0..old.len() as u32)
            .map(|r| self.ready.contains(old[r as usize].prio as usize, r))
            .collect();
        self.ready.clear();
        self.ready_count = [0; 8];
        self.paced.iter_mut().for_each(BinaryHeap::clear);
        (self.ready_prios, self.paced_prios) = (0, 0);
        for (info, ready) in old.into_iter().zip(was_ready) {
            if info.slot == VACANT {
                continue;
            }
            let rank = self.info.len() as u32;
            self.info.push(info);
            renamed(info.slot, rank);
            let p = info.prio as usize;
            if ready {
                self.set_ready(p, rank);
            }
            if info.paced_at != Time::NEVER {
                self.paced[p].push(Reverse((info.paced_at, rank)));
                self.paced_prios |= 1 << p;
            }
        }
        self.cursor = cursor;
    }

    /// A QP of requester `slot` at priority `prio` joins the round robin (last in order, in
    /// no set until its first `update`). Returns its rank.
    pub fn open(&mut self, slot: u32, prio: u8) -> u32 {
        self.info.push(RankInfo {
            slot,
            prio,
            then_ready: false,
            paced_at: Time::NEVER,
        });
        self.live += 1;
        (self.info.len() - 1) as u32
    }

    /// The QP of rank `rank` now sends on priority `prio` (congestion isolation moved it):
    /// it leaves its old priority's sets and is in none until its next `update`.
    pub fn set_prio(&mut self, rank: u32, prio: u8) {
        let info = &mut self.info[rank as usize];
        let old = info.prio as usize;
        if old == prio as usize {
            return;
        }
        info.prio = prio;
        info.paced_at = Time::NEVER;
        self.unset_ready(old, rank);
    }

    /// The QP of rank `rank` leaves (complete).
    pub fn close(&mut self, rank: u32) {
        self.update(rank, QpState::Done, Time::NEVER, false);
        self.info[rank as usize].slot = VACANT;
        self.live -= 1;
    }

    /// The QP of rank `rank` is now in state `st`; when Paced, `next_send` is when its rate
    /// limiter releases it and `then_ready` whether its window will let it send then.
    #[inline]
    pub fn update(&mut self, rank: u32, st: QpState, next_send: Time, then_ready: bool) {
        let info = &mut self.info[rank as usize];
        let p = info.prio as usize;
        if st == QpState::Paced {
            info.then_ready = then_ready;
            if info.paced_at != next_send {
                info.paced_at = next_send;
                self.paced[p].push(Reverse((next_send, rank)));
                self.paced_prios |= 1 << p;
            }
        } else {
            info.paced_at = Time::NEVER;
        }
        if st == QpState::Ready {
            self.set_ready(p, rank);
        } else {
            self.unset_ready(p, rank);
        }
    }

    /// The QP to serve at `now` with priorities `paused` (bitmask) paused: its slot, the
    /// cursor moved just past it. `Err(t)`: none may send; `t` is the earliest time a Paced
    /// QP of an unpaused priority is released (`NEVER` if none).
    #[inline]
    pub fn pick(&mut self, now: Time, paused: u8) -> Result<u32, Time> {
        let open = !paused;
        let mut m = self.paced_prios & open;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            self.promote(p, now);
        }
        let cand = self.ready_prios & open;
        if cand == 0 {
            return Err(self.earliest(open));
        }
        let rank = self.first_ready(cand);
        self.cursor = rank + 1;
        Ok(self.info[rank as usize].slot)
    }

    /// Paced QPs of priority `p` whose time has come become Ready (or window-full).
    fn promote(&mut self, p: usize, now: Time) {
        while let Some(&Reverse((t, rank))) = self.paced[p].peek() {
            if t > now {
                return;
            }
            self.paced[p].pop();
            let info = &mut self.info[rank as usize];
            // Live only if it still matches (and its QP has not moved to another priority).
            if info.paced_at == t && info.prio as usize == p {
                info.paced_at = Time::NEVER;
                if info.then_ready {
                    self.set_ready(p, rank);
                }
            }
        }
        self.paced_prios &= !(1 << p);
    }

    /// The earliest release time of a live Paced QP of the priorities in `open`.
    fn earliest(&mut self, open: u8) -> Time {
        let mut e = Time::NEVER;
        let mut m = self.paced_prios & open;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            let heap = &mut self.paced[p];
            while let Some(&Reverse((t, rank))) = heap.peek() {
                let info = &self.info[rank as usize];
                if info.paced_at == t && info.prio as usize == p {
                    e = e.min(t);
                    break;
                }
                heap.pop();
            }
            if heap.is_empty() {
                self.paced_prios &= !(1 << p);
            }
        }
        e
    }

    /// Rank `rank` joins priority `p`'s Ready set (if not in it yet).
    #[inline]
    fn set_ready(&mut self, p: usize, rank: u32) {
        if self.ready.insert(p, rank) {
            self.ready_count[p] += 1;
            self.ready_prios |= 1 << p;
        }
    }

    /// Rank `rank` leaves priority `p`'s Ready set (if in it).
    #[inline]
    fn unset_ready(&mut self, p: usize, rank: u32) {
        if self.ready.remove(p, rank) {
            self.ready_count[p] -= 1;
            if self.ready_count[p] == 0 {
                self.ready_prios &= !(1 << p);
            }
        }
    }

    /// The first Ready rank at or after the cursor, circularly, among priorities `cand`.
    #[inline]
    fn first_ready(&self, cand: u8) -> u32 {
        if cand.is_power_of_two() {
            let p = cand.trailing_zeros() as usize;
            return (self.ready)
                .next_from(p, self.cursor)
                .or_else(|| self.ready.next_from(p, 0))
                .expect("a candidate priority has a Ready QP");
        }
        let from = |start: u32| {
            let mut best: Option<u32> = None;
            let mut m = cand;
            while m != 0 {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                if let Some(r) = self.ready.next_from(p, start) {
                    best = Some(best.map_or(r, |b| b.min(r)));
                }
            }
            best
        };
        from(self.cursor)
            .or_else(|| from(0))
            .expect("a candidate priority has a Ready QP")
    }
}

#[cfg(test)]
mod layout_tests {
    use super::{RankInfo, RankSets, ReadyList};
    use std::mem::{offset_of, size_of};

    /// What a pick reads lies in the list's first cache line.
    #[test]
    fn a_pick_reads_one_line_of_the_list() {
        assert_eq!(std::mem::align_of::<ReadyList>(), 64);
        for end in [
            offset_of!(ReadyList, info) + size_of::<Vec<RankInfo>>(),
            offset_of!(ReadyList, ready) + size_of::<RankSets>(),
            offset_of!(ReadyList, cursor) + size_of::<u32>(),
            offset_of!(ReadyList, ready_prios) + 1,
            offset_of!(ReadyList, paced_prios) + 1,
        ] {
            assert!(end <= 64, "a field ends at byte {end}");
        }
    }
}
