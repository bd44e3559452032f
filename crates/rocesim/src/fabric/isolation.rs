//! Congestion isolation (IEEE 802.1Qcz; Congdon, Yu & Shen, IEEE 802.1 DCB, September 2017).
//!
//! A flow that congests a lossless class queue (identified by the queue's ECN marks, or by
//! its share of a deep queue) enters the switch's flow table, a fixed array of `table_size`
//! entries where a flow lives in one of the [`NEIGHBOURHOOD`] slots that follow its 5-tuple
//! hash's home slot (the bounded probe of a hardware exact-match table). From then on its packets wait in the class's
//! congested-flow queue (CFQ) and leave on the CFQ's priority, so the next switch charges
//! them to their own ingress priority group and pauses the CFQ alone. The CFQ is served
//! strictly below its class queue. A Congestion Isolation Packet (CIP) goes back through the
//! port the flow arrived on, and the upstream switch isolates the flow on its port toward
//! this one; CIPs are repeated, acknowledged or confirmed by the flow's packets arriving on
//! the CFQ's priority (`cip_reliability`).
//! The CIP frames, their queue and their reliability live in `isolation_cip.rs`.
//!
//! Order is kept with the slides' marker/counter scheme: when a flow is isolated, its marker
//! is the count of packets enqueued so far to its class queue on that port; the CFQ may not
//! send the flow's packets until the class queue has dequeued that many (the marker reached
//! its head). A flow is released when its CFQ bytes have stayed at or below
//! `release_threshold` for `release_time` and none is left in the CFQ, so its next packets,
//! back in the class queue, cannot overtake earlier ones.

use std::collections::VecDeque;

use super::isolation_params::{CipReliability, Identify, IsolationParams, CIP_REPEAT};
use super::port::QEntry;
use super::switch::Switch;
use crate::engine::Ctx;
use crate::ids::{Priority, QueueId};
use crate::monitor::{IsoEvent, IsoLogEntry};
use crate::packet::{ecn, flags, PacketKind};
use crate::units::Time;

/// `psn` of a CIP: isolate the flow.
const CIP: u32 = 0;
/// `psn` of a CIP acknowledgement (`cip_reliability = "ack"`).
const CIP_ACK: u32 = 1;
/// `psn` of a release notice to a CI-aware end station (`end_station = true`): the switch
/// released the flow, so the NIC may send it on its class's priority again.
pub const CIP_RELEASE: u32 = 2;
/// Free table entry.
const FREE: u32 = u32::MAX;
/// No port (an entry made by a CIP does not know where the flow arrives).
const NO_PORT: u16 = u16::MAX;
/// Slots a flow may occupy, from its hash's home slot on (wrapping). A direct-mapped table
/// (one slot) refuses a congesting flow whenever one other live flow shares its slot: with
/// 32 incast flows in 1024 slots that happens at some switch in most runs (birthday bound:
/// 1 − e^(−32·31/2048) ≈ 38 % per switch), and the flow left in the class queue starves the
/// CFQ it should have joined. Eight slots (the associativity of common hardware flow tables)
/// refuse a flow only when eight live flows crowd one neighbourhood. Lookups scan at most
/// this many slots.
pub const NEIGHBOURHOOD: usize = 8;

/// One entry of the flow table.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The flow (`FREE` when unused).
    flow: u32,
    /// Its 5-tuple hash.
    hash: u32,
    /// Its traffic class.
    class: u8,
    /// Egress port (local) where the flow is isolated.
    out: u16,
    /// Ingress port (local) the flow arrives on, where CIPs go (`NO_PORT`: none).
    inp: u16,
    /// The flow's packets go to the CFQ.
    isolated: bool,
    /// A CIP awaits its confirmation (`ack`, `mark`).
    awaiting: bool,
    /// Marker: the class queue must have dequeued this many packets before the CFQ sends
    /// the flow's packets.
    gate: u64,
    /// The flow's bytes in the CFQ.
    cfq_bytes: u64,
    /// The flow's counted bytes in the class queue (`share` identification).
    nc_bytes: u64,
    /// Since when the CFQ bytes are at or below the release threshold (`NEVER`: above).
    below_since: Time,
    /// Last packet of the flow seen.
    last_seen: Time,
}

impl Entry {
    const EMPTY: Entry = Entry {
        flow: FREE,
        hash: 0,
        class: 0,
        out: 0,
        inp: NO_PORT,
        isolated: false,
        awaiting: false,
        gate: 0,
        cfq_bytes: 0,
        nc_bytes: 0,
        below_since: Time::NEVER,
        last_seen: Time::ZERO,
    };
    fn holds(&self) -> bool {
        self.cfq_bytes > 0 || self.nc_bytes > 0
    }
}

/// Where an arriving packet goes.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Ingress priority group it is charged to.
    pub pg: Priority,
    /// Egress queue.
    pub queue: QueueId,
    /// Priority it leaves on.
    pub wire: Priority,
}

/// The isolation state of one switch.
#[derive(Debug)]
pub struct Isolation {
    /// Parameters.
    pub params: IsolationParams,
    /// The class of each priority (a CFQ's priority → its class; others → themselves).
    class_of: [u8; 8],
    /// The class queue of each class with a CFQ (else `u8::MAX`).
    class_queue: [u8; 8],
    /// Bitmask of CFQ queues.
    cfq_queues: u8,
    /// For each CFQ queue, its priority; for each class queue with a CFQ, that CFQ's queue.
    partner: [u8; 8],
    table: Vec<Entry>,
    /// Packets enqueued / dequeued per (local port × 8 + queue): the marker counters.
    enq: Vec<u64>,
    deq: Vec<u64>,
    /// CIP frames waiting to go out of each local port, ahead of data.
    cips: Vec<VecDeque<u32>>,
    /// Per local port: its peer is a switch (CIPs go only to switches).
    peer_switch: Vec<bool>,
    /// Per local port: table slots whose CIP awaits confirmation.
    waiting: Vec<Vec<u32>>,
    /// Per local port: a retry timer is pending.
    timer: Vec<bool>,
}

impl Isolation {
    /// The isolation state of a switch with `class_queue` (its TC → queue map) and ports
    /// whose peers are switches as `peer_switch` says.
    pub fn new(params: IsolationParams, tc_to_queue: [u8; 8], peer_switch: Vec<bool>) -> Self {
        let n = peer_switch.len();
        let mut s = Isolation {
            params,
            class_of: [0, 1, 2, 3, 4, 5, 6, 7],
            class_queue: [u8::MAX; 8],
            cfq_queues: 0,
            partner: [u8::MAX; 8],
            table: vec![Entry::EMPTY; params.table_size as usize],
            enq: vec![0; n * 8],
            deq: vec![0; n * 8],
            cips: vec![VecDeque::new(); n],
            peer_switch,
            waiting: vec![Vec::new(); n],
            timer: vec![false; n],
        };
        for (class, cfq) in params.cfq.iter().enumerate() {
            let Some(c) = cfq else { continue };
            s.class_of[c.priority as usize] = class as u8;
            let q = tc_to_queue[class];
            s.class_queue[class] = q;
            s.cfq_queues |= 1 << c.queue;
            s.partner[c.queue as usize] = c.priority;
            s.partner[q as usize] = c.queue;
        }
        s
    }

    /// The slots `hash`'s flow may occupy: its home slot and the next ones, wrapping.
    #[inline]
    fn neighbourhood(&self, hash: u32) -> impl Iterator<Item = usize> {
        let n = self.table.len();
        let home = hash as usize % n;
        (0..NEIGHBOURHOOD.min(n)).map(move |k| (home + k) % n)
    }

    /// The entry of `flow`, if it has one.
    #[inline]
    fn find(&self, flow: u32, hash: u32) -> Option<usize> {
        self.neighbourhood(hash)
            .find(|&i| self.table[i].flow == flow)
    }

    /// The entry of `flow`, taking the first slot of its neighbourhood that is free or aged
    /// (unused for `table_age` and holding no packet); `None` when live flows hold them all.
    fn claim(&mut self, flow: u32, hash: u32, now: Time) -> Option<usize> {
        if let Some(i) = self.find(flow, hash) {
            return Some(i);
        }
        let age = self.params.table_age;
        let i = self.neighbourhood(hash).find(|&i| {
            let e = &self.table[i];
            e.flow == FREE || !e.holds() && now.saturating_sub(e.last_seen) >= age
        })?;
        self.table[i] = Entry {
            flow,
            hash,
            last_seen: now,
            ..Entry::EMPTY
        };
        Some(i)
    }

    /// The priority a packet leaving queue `q` goes out on, its ingress PG being `pg`.
    #[inline]
    pub fn wire_prio(&self, q: QueueId, pg: Priority) -> Priority {
        if self.cfq_queues & q.bit() != 0 {
            Priority(self.partner[q.idx()])
        } else {
            Priority(self.class_of[pg.idx()])
        }
    }

    /// Remove from `eligible` the CFQs that must wait: their class queue has packets to send
    /// (strictly below it), or their head's flow marker has not reached the class queue's
    /// head. `head(q)` is the packet at the head of queue q.
    pub fn filter(
        &self,
        l: usize,
        eligible: u8,
        head: impl Fn(u8) -> Option<u32>,
        pkts: &crate::engine::PacketArena,
    ) -> u8 {
        let mut out = eligible;
        let mut m = eligible & self.cfq_queues;
        while m != 0 {
            let q = m.trailing_zeros() as u8;
            m &= m - 1;
            let Some(pkt) = head(q) else { continue };
            let p = pkts.get(pkt);
            let nc = self.class_queue[self.class_of[self.partner[q as usize] as usize] as usize];
            let gate = self.find(p.flow, p.hash).map_or(0, |i| self.table[i].gate);
            if eligible & (1 << nc) != 0 || self.deq[l * 8 + nc as usize] < gate {
                out &= !(1 << q);
            }
        }
        out
    }
}

impl Switch {
    fn iso_log(&self, port: u16, flow: u32, event: IsoEvent, ctx: &mut Ctx) {
        let port = self.ports[port as usize].id;
        ctx.monitor.iso_log(IsoLogEntry {
            time: ctx.now,
            switch: self.id,
            port,
            flow,
            event,
        });
    }

    /// Where packet `pkt_id` of class `tc`, arrived on `inl` for egress `out`, goes: its PG
    /// (the CFQ's priority when it arrived on it), and the CFQ when its flow is isolated on
    /// `out` (releasing the flow first if its time has come).
    pub(crate) fn iso_place(
        &mut self,
        inl: u16,
        out: u16,
        pkt_id: u32,
        tc: Priority,
        ctx: &mut Ctx,
    ) -> Placement {
        let iso = self.isolation.as_deref().expect("isolation on");
        let p = *ctx.packets.get(pkt_id);
        let q = QueueId(self.tc_to_queue[tc.idx()].0);
        let mut place = Placement {
            pg: self.tc_to_pg[tc.idx()],
            queue: q,
            wire: tc,
        };
        let Some(cfq) = iso.params.cfq[tc.idx()] else {
            return place;
        };
        let arrived_isolated = p.tc == cfq.priority;
        if arrived_isolated {
            place.pg = Priority(cfq.priority);
        }
        if p.kind != PacketKind::Data {
            return place;
        }
        let Some(i) = iso.find(p.flow, p.hash) else {
            return place;
        };
        let now = ctx.now;
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        iso.table[i].last_seen = now;
        if !iso.table[i].isolated || iso.table[i].out != out {
            return place;
        }
        let host = iso.params.end_station && !iso.peer_switch[inl as usize];
        // An end station does not acknowledge: its packets on the CFQ's priority confirm.
        let by_mark = iso.params.cip == CipReliability::Mark || host;
        let e = &mut iso.table[i];
        if e.awaiting && arrived_isolated && e.inp == inl && by_mark {
            e.awaiting = false;
        }
        if e.cfq_bytes == 0
            && now.saturating_sub(e.below_since) >= iso.params.release_time
            && e.below_since != Time::NEVER
        {
            e.isolated = false;
            e.awaiting = false;
            let (inp, class) = (e.inp, e.class);
            let notice = iso
                .to_end_station(inp)
                .then(|| iso.frame(p.flow, p.hash, class, CIP_RELEASE));
            ctx.monitor.iso.released += 1;
            self.iso_log(out, p.flow, IsoEvent::Release, ctx);
            // The NIC learns of the release (three notices, as `repeat` CIPs) and returns the
            // QP to its class's priority; a lost notice leaves it on the lossless CFQ priority.
            if let Some(f) = notice {
                for _ in 0..CIP_REPEAT {
                    self.send_cip(inp, f, ctx);
                }
            }
            return place;
        }
        place.queue = QueueId(cfq.queue);
        place.wire = Priority(cfq.priority);
        place
    }

    /// Bookkeeping after entry `en` (placed as `place`) joined queue `place.queue` of `out`;
    /// `was_ce` is its packet's ECN mark before the marker saw it.
    pub(crate) fn iso_enqueued(
        &mut self,
        en: &QEntry,
        out: u16,
        place: Placement,
        was_ce: bool,
        ctx: &mut Ctx,
    ) {
        let (inl, pkt_id, size) = (en.in_local(), en.pkt(), en.bytes() as u64);
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        let (o, q) = (out as usize, place.queue);
        iso.enq[o * 8 + q.idx()] += 1;
        let p = ctx.packets.get_mut(pkt_id);
        if p.kind != PacketKind::Data {
            return;
        }
        let (flow, hash, class) = (p.flow, p.hash, iso.class_of[place.wire.idx()]);
        if iso.cfq_queues & q.bit() != 0 {
            if let Some(i) = iso.find(flow, hash) {
                let e = &mut iso.table[i];
                e.cfq_bytes += size;
                if e.cfq_bytes > iso.params.release_threshold.0 {
                    e.below_since = Time::NEVER;
                }
            }
            // A mark in the CFQ on a packet that came on the class priority: the flow
            // congests this switch too and the switch upstream has not isolated it.
            let marked = iso.params.identify == Identify::Ecn && !was_ce && p.ecn == ecn::CE;
            if marked && place.pg != place.wire {
                self.isolate(flow, hash, class, out, inl, ctx);
            }
            return;
        }
        if iso.class_queue[class as usize] != q.0 {
            return;
        }
        let congesting = match iso.params.identify {
            Identify::Ecn => !was_ce && p.ecn == ecn::CE,
            Identify::Share(share) => {
                let depth = self.mmu.queue_bytes(o, q);
                let now = ctx.now;
                let Some(i) = (depth > iso.params.queue_threshold.0)
                    .then(|| iso.claim(flow, hash, now))
                    .flatten()
                else {
                    return;
                };
                p.flags |= flags::ISO_COUNTED;
                let e = &mut iso.table[i];
                e.nc_bytes += size;
                e.nc_bytes as f64 > share * depth as f64
            }
        };
        if congesting {
            self.isolate(flow, hash, class, out, inl, ctx);
        }
    }

    /// Entry `e` left queue `q` of `out` on priority `wire` and the marker may have just
    /// marked it: with `identify = "ecn"`, a mark in a class queue isolates its flow, and a
    /// mark in a CFQ on a packet that came on the class priority tells the upstream switch.
    pub(crate) fn iso_marked_on_dequeue(
        &mut self,
        e: &QEntry,
        out: u16,
        q: QueueId,
        wire: Priority,
        ctx: &mut Ctx,
    ) {
        let iso = self.isolation.as_deref().expect("isolation on");
        let class = iso.class_of[wire.idx()];
        let p = ctx.packets.get(e.pkt());
        let in_cfq = iso.cfq_queues & q.bit() != 0;
        if iso.params.identify != Identify::Ecn
            || iso.class_queue[class as usize] != q.0 && !(in_cfq && e.tc() != wire)
            || p.kind != PacketKind::Data
            || p.ecn != ecn::CE
        {
            return;
        }
        let (flow, hash) = (p.flow, p.hash);
        self.isolate(flow, hash, class, out, e.in_local(), ctx);
    }

    /// Isolate `flow` (class `class`) on egress `out`; tell the switch upstream of `inl`.
    /// A flow already isolated on `out` through a CIP (no upstream port known yet) is only
    /// signalled upstream: the slides' "signal upstream to isolate the same flows" at every
    /// hop where the flow congests, so that it travels on the CFQ's priority on every
    /// switch-to-switch link and PFC pauses the CFQ, not its class, there too.
    fn isolate(&mut self, flow: u32, hash: u32, class: u8, out: u16, inl: u16, ctx: &mut Ctx) {
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        let Some(i) = iso.claim(flow, hash, ctx.now) else {
            ctx.monitor.iso.table_full += 1;
            return;
        };
        let e = &iso.table[i];
        let already = e.isolated && e.out == out;
        if already && (e.inp != NO_PORT || inl == NO_PORT) {
            return;
        }
        if !already {
            let nc = iso.class_queue[class as usize] as usize;
            let gate = iso.enq[out as usize * 8 + nc];
            let e = &mut iso.table[i];
            e.isolated = true;
            e.class = class;
            e.out = out;
            e.gate = gate;
            e.below_since = Time::NEVER;
            ctx.monitor.iso.isolated += 1;
            self.iso_log(out, flow, IsoEvent::Isolate, ctx);
        }
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        if !iso.takes_cips(inl) {
            return;
        }
        iso.table[i].inp = inl;
        let f = iso.frame(flow, hash, class, CIP);
        match iso.params.cip {
            CipReliability::Repeat => {
                for _ in 0..CIP_REPEAT {
                    self.send_cip(inl, f, ctx);
                }
            }
            CipReliability::Ack | CipReliability::Mark => {
                iso.table[i].awaiting = true;
                iso.waiting[inl as usize].push(i as u32);
                self.arm_cip_timer(inl, ctx);
                self.send_cip(inl, f, ctx);
            }
        }
    }

    /// Bookkeeping when entry `e` leaves queue `q` of local port `out` (sent, flushed or
    /// discarded): the marker counters, the flow's CFQ bytes, and its release clock.
    pub(crate) fn iso_left(&mut self, e: &QEntry, out: usize, q: QueueId, ctx: &mut Ctx) {
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        iso.deq[out * 8 + q.idx()] += 1;
        let in_cfq = iso.cfq_queues & q.bit() != 0;
        let p = ctx.packets.get_mut(e.pkt());
        let counted = p.flags & flags::ISO_COUNTED != 0;
        if p.kind != PacketKind::Data || !in_cfq && !counted {
            return;
        }
        p.flags &= !flags::ISO_COUNTED;
        let Some(i) = iso.find(p.flow, p.hash) else {
            return;
        };
        let en = &mut iso.table[i];
        let size = e.bytes() as u64;
        if counted {
            en.nc_bytes = en.nc_bytes.saturating_sub(size);
        }
        if in_cfq {
            en.cfq_bytes = en.cfq_bytes.saturating_sub(size);
            if en.cfq_bytes <= iso.params.release_threshold.0 && en.below_since == Time::NEVER {
                en.below_since = ctx.now;
            }
        }
    }
}

#[path = "isolation_cip.rs"]
mod cip;

#[cfg(test)]
#[path = "isolation_tests.rs"]
mod tests;
