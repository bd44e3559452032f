//! A switch: the component that owns its ports, MMU, ECN marker, forwarding faults and PFC
//! watchdog, and handles every event addressed to them.
//!
//! A frame's path through it: `Switch::on_arrive` (TTL, route with ECMP, classify DSCP → TC
//! → queue) → `Switch::enqueue` (MMU admission, XOFF toward the ingress peer, ECN at
//! enqueue) → the egress port's scheduler in `Switch::try_send` / `dequeue` (release the
//! buffer, XON, ECN at dequeue, INT stamp) → the wire ([`Port::start_tx`]). PFC frames and
//! pause state are in `pfc.rs`, the switch's XOFF, XON and pause handling in `switch_pfc.rs`,
//! marking in `ecn.rs`, flooding and static routes in `forwarding.rs`, the storm
//! watchdog in `watchdog.rs`.

use super::dscp::DscpNibbles;
use super::ecn::EcnMarker;
use super::forwarding::ForwardingFaults;
use super::isolation::Placement;
use super::mmu::{Admit, Mmu};
use super::port::{Port, QEntry};
use super::route_ahead::NO_OUT;
use super::routing::ecmp_choice;
use super::watchdog::PfcWatchdog;
use crate::engine::{handle, Ctx};
use crate::ids::{Priority, QueueId};
use crate::packet::{flags, Header};

#[path = "switch_pfc.rs"]
mod switch_pfc;

/// One switch. The layout is fixed (`repr(C)`, cache-line aligned) so that what every
/// forwarded frame reads fills a few whole lines: line 0 (ports, the DSCP maps), line 1
/// (latency, ids, the TC maps and the forwarding-fault flag), then the MMU's hot line (see
/// the layout test at the end of this file). Its ingress ports' XOFF state is in the
/// fabric-wide [`super::xoff_table::XoffTable`] (`Ctx::xoff`).
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Switch {
    // Line 0.
    /// Its ports, by local index.
    pub ports: Box<[Port]>,
    /// DSCP → TC of the ingress ports (SONiC `DSCP_TO_TC_MAP`) when they all share one map:
    /// one packed table per switch, read from the switch's own line instead of a per-port
    /// table.
    pub dscp_to_tc: DscpNibbles,
    /// DSCP → TC of each ingress port, by local port index, when ports are bound to different
    /// maps (`PORT_QOS_MAP`); empty when every port uses `dscp_to_tc`.
    pub port_dscp_to_tc: Box<[[u8; 64]]>,
    // Line 1.
    /// Fixed forwarding latency between a frame's arrival and its forwarding decision.
    pub latency: crate::units::Time,
    /// Its index in the topology's switch list.
    pub id: u32,
    /// ECMP salt (per switch, so that tiers do not polarize); with ns-3's hash, its seed
    /// (the switch's ns-3 node id).
    pub salt: u32,
    /// TC → egress queue (SONiC `TC_TO_QUEUE_MAP`).
    pub tc_to_queue: [QueueId; 8],
    /// TC → ingress priority group (SONiC `TC_TO_PRIORITY_GROUP_MAP`).
    pub tc_to_pg: [Priority; 8],
    /// For each PG, the PFC-enabled priorities mapped to it (what its XOFF pauses).
    pub pg_prios: [u8; 8],
    /// Quanta of the pause frames it sends.
    pub pfc_quanta: u16,
    /// Lossless traffic classes (bitmask of priorities).
    pub pfc_enable: u8,
    /// ECMP hashes as ns-3 does ([`super::ns3_hash`]) instead of rocesim's salted hash.
    pub ns3_hash: bool,
    /// `tc_to_pg` is the identity: a queued entry's PG is also its wire priority.
    pub pg_identity: bool,
    /// Some forwarding fault is active (`forwarding` must be consulted for every frame).
    pub faults_active: bool,
    // Line 2: the MMU's hot part.
    /// The shared buffer.
    pub mmu: Mmu,
    // Colder.
    /// Static routes and aged MAC entries (forwarding faults).
    pub forwarding: ForwardingFaults,
    /// ECN marking / congestion detection at egress.
    pub marker: EcnMarker,
    /// The PFC storm watchdog, if configured.
    pub watchdog: Option<PfcWatchdog>,
    /// Congestion isolation (IEEE 802.1Qcz), if enabled. Off line 0: only a switch that is
    /// not plain ([`Switch::is_plain`]) reads it on a frame's path.
    pub isolation: Option<Box<super::isolation::Isolation>>,
}

impl Switch {
    /// Is this switch plain: no congestion isolation, no forwarding latency, one DSCP map
    /// for all its ports, no PFC watchdog and no forwarding fault? A run whose switches are
    /// all plain, and stay so (no forwarding faults in the scenario), runs its loop compiled
    /// with `PLAIN` (below), where those mechanisms' tests are constant and fall away.
    pub fn is_plain(&self) -> bool {
        self.isolation.is_none()
            && self.latency == crate::units::Time::ZERO
            && self.port_dscp_to_tc.is_empty()
            && self.watchdog.is_none()
            && !self.faults_active
    }

    /// Congestion isolation is on (never with `PLAIN`: see [`Switch::is_plain`]).
    #[inline(always)]
    pub(super) fn isolating<const PLAIN: bool>(&self) -> bool {
        !PLAIN && self.isolation.is_some()
    }

    /// A frame arrived on local port `in_local`: forward it, after the forwarding latency if
    /// the switch has one. With `AHEAD` (routing one hop ahead is on: `fabric::route_ahead`),
    /// `out` is its egress port if the sending switch looked it up, else [`NO_OUT`];
    /// without, `out` is ignored. With `PLAIN`, the switch is plain ([`Switch::is_plain`]).
    #[inline]
    pub(crate) fn on_arrive<const AHEAD: bool, const PLAIN: bool>(
        &mut self,
        in_local: u16,
        pkt_id: u32,
        out: u16,
        ctx: &mut Ctx,
    ) {
        if !PLAIN && self.latency > crate::units::Time::ZERO {
            let port = handle::at_mut(&mut self.ports, in_local as usize);
            let at = ctx.now + self.latency;
            if port.pipeline.push(at, pkt_id) {
                ctx.schedule(at, crate::engine::Event::Forward(port.id.0));
            }
            return;
        }
        self.forward::<AHEAD, PLAIN>(in_local, pkt_id, out, ctx);
    }

    /// The head of port `in_local`'s forwarding pipeline is due: forward it.
    pub(crate) fn on_forward(&mut self, in_local: u16, ctx: &mut Ctx) {
        let port = handle::at_mut(&mut self.ports, in_local as usize);
        let Some((_, pkt_id)) = port.pipeline.pop() else {
            return;
        };
        if let Some(t) = port.pipeline.head_time() {
            ctx.schedule(t, crate::engine::Event::Forward(port.id.0));
        }
        self.forward::<false, false>(in_local, pkt_id, NO_OUT, ctx);
    }

    /// Forward a frame that arrived on `in_local`: TTL, route (ECMP; or, with `AHEAD`, the
    /// egress port `ahead` the previous switch looked up, unless [`NO_OUT`]), enqueue; and,
    /// with `AHEAD`, look up where the next switch will send it.
    #[inline(always)]
    fn forward<const AHEAD: bool, const PLAIN: bool>(
        &mut self,
        in_local: u16,
        pkt_id: u32,
        ahead: u16,
        ctx: &mut Ctx,
    ) {
        let pkt = ctx.packets.get_mut(pkt_id);
        if !PLAIN && pkt.kind == crate::packet::PacketKind::Cip {
            self.on_cip(in_local, pkt_id, ctx);
            return;
        }
        if pkt.ttl <= 1 {
            ctx.monitor.totals.drops_ttl += 1;
            ctx.drop_packet(pkt_id);
            return;
        }
        pkt.ttl -= 1;
        let (dst, hash, data, hdr) = (
            pkt.dst,
            pkt.hash,
            pkt.kind == crate::packet::PacketKind::Data,
            pkt.header(),
        );
        let out = if !PLAIN && self.faults_active {
            match self.forward_with_faults(in_local, pkt_id, dst, ctx) {
                Some(p) => p,
                None => return,
            }
        } else if AHEAD && ahead != NO_OUT {
            ahead
        } else {
            let hops = ctx.routes.next_hops(self.id, dst);
            if hops.is_empty() {
                ctx.monitor.totals.drops_fault += 1;
                ctx.drop_packet(pkt_id);
                return;
            }
            // One next hop or several alike: `ecmp_choice` of a single hop is 0, and
            // asking it costs less than a branch on the path's shape, which one hop to the
            // next cannot predict.
            // `ecmp_index` of `n` hops is below `n`.
            *handle::at(hops, self.ecmp_index(hash, dst, data, hops.len()))
        };
        let next = if AHEAD {
            (ctx.ahead).out_at_peer(&ctx.routes, self.id, out, dst, hash, data)
        } else {
            NO_OUT
        };
        self.enqueue::<PLAIN>(in_local, pkt_id, hdr, out, false, next, ctx);
    }

    /// Which of `n` equal-cost next hops a packet to host `dst` with ECMP key `hash` (a data
    /// packet if `data`) takes.
    #[inline]
    pub(crate) fn ecmp_index(&self, hash: u32, dst: u32, data: bool, n: usize) -> usize {
        ecmp_choice(self.ns3_hash, self.salt, hash, dst, data, n)
    }

    /// The TC of DSCP `dscp` arriving on local port `in_local`.
    #[inline]
    pub fn tc_of(&self, in_local: u16, dscp: u8) -> Priority {
        match self.port_dscp_to_tc.get(in_local as usize) {
            Some(m) => Priority(m[(dscp & 63) as usize]),
            None => Priority(self.dscp_to_tc.tc(dscp)),
        }
    }

    /// Admit packet `pkt_id` (arrived on `in_local`, its header `hdr`) to egress port `out`;
    /// a `replica` (a flooded copy beyond the first) is never dropped at admission. `next` is
    /// its egress port at the next switch, if looked up ahead ([`NO_OUT`] if not).
    /// With `PLAIN`, the switch is plain ([`Switch::is_plain`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn enqueue<const PLAIN: bool>(
        &mut self,
        in_local: u16,
        pkt_id: u32,
        hdr: Header,
        out: u16,
        replica: bool,
        next: u16,
        ctx: &mut Ctx,
    ) {
        debug_assert!(
            !PLAIN || self.is_plain(),
            "a plain run's switch is not plain"
        );
        debug_assert_eq!(hdr, ctx.packets.get(pkt_id).header());
        let (tc, place) = self.place::<PLAIN>(in_local, out, pkt_id, hdr.dscp, ctx);
        let (pg, q) = (place.pg, place.queue);
        let lossless = self.pfc_enable & tc.bit() != 0;
        let (size, pkt_flags, gap) = (u64::from(hdr.buf), hdr.flags, hdr.gap);
        let (inl, outl) = (in_local as usize, out as usize);
        if !PLAIN && lossless && handle::at(&self.ports, outl).wd_drop & q.bit() != 0 {
            // The PFC watchdog discards lossless packets for a stormed queue.
            if let Some(wd) = &mut self.watchdog {
                wd.queues[outl][tc].rx_dropped += 1;
            }
            ctx.monitor.totals.drops_fault += 1;
            ctx.drop_packet(pkt_id);
            return;
        }
        if !replica && self.passes::<PLAIN>(inl, pg, outl, q, size, lossless, ctx) {
            let (wire, int) = (size as u32 + u32::from(gap), pkt_flags & flags::INT != 0);
            self.send_at_once(pkt_id, place, outl, wire, int, next, ctx);
            return;
        }
        let (verdict, over_xoff) = if replica {
            self.mmu.admit_replica(inl, pg, outl, q, size, lossless);
            (Admit::Shared, self.mmu.over_xoff(inl, pg))
        } else {
            self.mmu.admit(inl, pg, outl, q, size, lossless)
        };
        if let Admit::DropLossless | Admit::DropLossy = verdict {
            let t = &mut ctx.monitor.totals;
            if lossless {
                t.drops_lossless += 1;
            } else {
                t.drops_lossy += 1;
            }
            ctx.monitor.port_prio[self.ports[inl].id.idx()][pg].drops += 1;
            ctx.drop_packet(pkt_id);
            return;
        }
        let pkt = ctx.packets.get_mut(pkt_id);
        pkt.tc = place.wire.0;
        let was_ce = pkt.ecn == crate::packet::ecn::CE;
        let int = pkt_flags & flags::INT != 0;
        let entry = QEntry::new(
            pkt_id,
            in_local,
            size as u16,
            gap,
            pg,
            lossless,
            int,
            replica,
        )
        .with_ahead(next);
        // The PG's occupancy first: its line is hot from admission, the XOFF masks' line
        // usually is not, and a PG below XOFF needs no look at it.
        let pg_prios = self.pg_prios[pg.idx()];
        if lossless && over_xoff && ctx.xoff.get(self.id, inl).mask & pg_prios != pg_prios {
            self.pause_pg(inl, pg, ctx);
        }
        // An idle port with empty queues would pick this packet at once: it leaves without
        // passing through the queue (the scheduler's choice among one queue changes no state).
        let cut_through =
            !self.isolating::<PLAIN>() && handle::at(&self.ports, outl).would_send_at_once(q, ctx);
        if !cut_through {
            handle::at_mut(&mut self.ports, outl).enqueue(q, entry);
        }
        let ecn_queues = handle::at(&self.ports, outl).ecn_queues;
        if let Some(e) = self.marker.marks(ecn_queues, q) {
            let depth = self.mmu.queue_bytes(outl, q);
            let id = handle::at(&self.ports, outl).id;
            self.marker.on_enqueue(id, q, &e, pkt_id, size, depth, ctx);
        }
        if cut_through {
            let prio = self.depart::<PLAIN>(&entry, outl, q, ctx);
            let (pkt, wire) = (entry.pkt(), entry.wire());
            handle::at_mut(&mut self.ports, outl).start_tx_ahead(pkt, wire, prio, false, next, ctx);
            return;
        }
        if self.isolating::<PLAIN>() {
            self.iso_enqueued(&entry, out, place, was_ce, ctx);
        }
        self.try_send_as::<PLAIN>(out, ctx);
    }

    /// The TC of packet `pkt_id` (its DSCP `dscp`) arriving on `in_local`, and where it goes
    /// toward `out`: its ingress PG, egress queue and wire priority (by the TC maps, or
    /// congestion isolation's).
    #[inline(always)]
    fn place<const PLAIN: bool>(
        &mut self,
        in_local: u16,
        out: u16,
        pkt_id: u32,
        dscp: u8,
        ctx: &mut Ctx,
    ) -> (Priority, Placement) {
        let tc = if PLAIN {
            Priority(self.dscp_to_tc.tc(dscp))
        } else {
            self.tc_of(in_local, dscp)
        };
        let place = if self.isolating::<PLAIN>() {
            self.iso_place(in_local, out, pkt_id, tc, ctx)
        } else {
            Placement {
                pg: self.tc_to_pg[tc.idx()],
                queue: self.tc_to_queue[tc.idx()],
                wire: tc,
            }
        };
        (tc, place)
    }

    /// Start the next frame on local port `l` if it is free. A port still serializing only
    /// makes sure it is woken when it frees up (inline); the attempt itself is out of line.
    #[inline(always)]
    pub(crate) fn try_send(&mut self, l: u16, ctx: &mut Ctx) {
        self.try_send_as::<false>(l, ctx);
    }

    /// [`Switch::try_send`]; with `PLAIN`, the switch is plain ([`Switch::is_plain`]).
    #[inline(always)]
    fn try_send_as<const PLAIN: bool>(&mut self, l: u16, ctx: &mut Ctx) {
        let port = handle::at_mut(&mut self.ports, l as usize);
        if port.busy(ctx) {
            port.wake_when_free(ctx);
        } else {
            self.try_send_now::<PLAIN>(l, ctx);
        }
    }

    /// The transmit attempt of [`Switch::try_send`].
    #[inline(never)]
    fn try_send_now<const PLAIN: bool>(&mut self, l: u16, ctx: &mut Ctx) {
        if !handle::at_mut(&mut self.ports, l as usize).ready_for_data(ctx) {
            return;
        }
        if self.isolating::<PLAIN>() && self.iso_send_pending(l, ctx) {
            return;
        }
        if let Some((e, prio)) = self.dequeue::<PLAIN>(l, ctx) {
            let (pkt, wire, next) = (e.pkt(), e.wire(), e.ahead());
            handle::at_mut(&mut self.ports, l as usize)
                .start_tx_ahead(pkt, wire, prio, false, next, ctx);
        }
    }

    /// Start loading the first cache line of local port `l` (a frame is about to arrive for
    /// it: see `fabric::route_ahead`). A hint only: an index beyond the ports loads nothing
    /// the program reads.
    #[inline(always)]
    pub fn prefetch_port(&self, l: u16) {
        crate::engine::prefetch::prefetch(self.ports.as_ptr().wrapping_add(l as usize));
    }

    /// Port `l` finished serializing its frame. With `PLAIN`, the switch is plain
    /// ([`Switch::is_plain`]). Inlined into the run loop, which then calls the transmit
    /// attempt directly: a call of its own, with its register saves, cost more than its two
    /// lines (docs/performance.md, "Four small functions inlined").
    #[inline(always)]
    pub(crate) fn on_tx_done<const PLAIN: bool>(&mut self, l: u16, ctx: &mut Ctx) {
        handle::at_mut(&mut self.ports, l as usize).txdone_pending = false;
        self.try_send_as::<PLAIN>(l, ctx);
    }

    /// Pick the next packet of port `l` and release its buffer.
    fn dequeue<const PLAIN: bool>(&mut self, l: u16, ctx: &mut Ctx) -> Option<(QEntry, Priority)> {
        let port = handle::at_mut(&mut self.ports, l as usize);
        let mut eligible = port.eligible();
        if eligible == 0 {
            return None;
        }
        if let Some(iso) = self.isolation.as_ref().filter(|_| !PLAIN) {
            let queues = &port.queues;
            let head = |q: u8| queues[q as usize].front().map(|e| e.pkt());
            eligible = iso.filter(l as usize, eligible, head, &ctx.packets);
            if eligible == 0 {
                return None;
            }
        }
        let queues = &port.queues;
        let q = port.sched.pick(port.strict, eligible, |q| {
            queues[q as usize].front().map_or(0, |e| e.wire())
        })?;
        let q = QueueId(q);
        let e = port.dequeue(q)?;
        let prio = self.depart::<PLAIN>(&e, l as usize, q, ctx);
        Some((e, prio))
    }

    /// Entry `e` leaves queue `q` of port `out`: release its buffer, mark it, stamp its INT
    /// hop; returns the priority it goes out with.
    #[inline(always)]
    fn depart<const PLAIN: bool>(
        &mut self,
        e: &QEntry,
        out: usize,
        q: QueueId,
        ctx: &mut Ctx,
    ) -> Priority {
        let e = *e;
        let l = out as u16;
        self.release_as::<PLAIN>(&e, out, q, ctx);
        let prio = match self.isolation.as_ref().filter(|_| !PLAIN) {
            None if self.pg_identity => e.tc(),
            None => Priority(ctx.packets.get(e.pkt()).tc),
            Some(iso) => iso.wire_prio(q, e.tc()),
        };
        if let Some(ecn) = self
            .marker
            .marks(handle::at(&self.ports, out).ecn_queues, q)
        {
            let depth = self.mmu.queue_bytes(out, q);
            let port = handle::at(&self.ports, out);
            let mmu = &self.mmu;
            let pg_bytes = || mmu.pg_bytes(e.in_local() as usize, e.tc());
            let (id, pause) = (port.id, &port.pause);
            let iso = self.isolating::<PLAIN>();
            let was_ce = iso && ctx.packets.get(e.pkt()).ecn == crate::packet::ecn::CE;
            self.marker
                .on_dequeue(id, q, &ecn, &e, depth, pause, pg_bytes, ctx);
            if iso && !was_ce {
                self.iso_marked_on_dequeue(&e, l, q, prio, ctx);
            }
        }
        if e.int() {
            self.stamp_int(e.pkt(), e.wire(), out, q, ctx);
        }
        prio
    }

    /// HPCC's INT record of packet `pkt` (`wire` bytes on the wire) gets this hop as it
    /// leaves queue `q` of port `out`: the queue's depth without it, the bytes the port has
    /// sent with it, the time and the line rate.
    #[inline(always)]
    pub(super) fn stamp_int(&mut self, pkt: u32, wire: u32, out: usize, q: QueueId, ctx: &mut Ctx) {
        let depth = self.mmu.queue_bytes(out, q);
        let port = handle::at(&self.ports, out);
        let sent = port.tx_bytes;
        let p = ctx.packets.get_mut(pkt);
        let (h, hop) = (p.aux, p.int_hops);
        p.int_hops = p.int_hops.saturating_add(1);
        let (now, rate) = (ctx.now, port.rate);
        ctx.ints.stamp(h, hop, now, depth, sent + wire as u64, rate);
    }

    /// Release the buffer entry `e` held in queue `q` of port `out`, and resume its ingress
    /// peer if its PG fell below XON.
    #[inline(always)]
    pub(crate) fn release(&mut self, e: &QEntry, out: usize, q: QueueId, ctx: &mut Ctx) {
        self.release_as::<false>(e, out, q, ctx);
    }

    /// [`Switch::release`]; with `PLAIN`, the switch is plain ([`Switch::is_plain`]).
    #[inline(always)]
    fn release_as<const PLAIN: bool>(&mut self, e: &QEntry, out: usize, q: QueueId, ctx: &mut Ctx) {
        let inl = e.in_local() as usize;
        self.mmu.release(inl, e.tc(), out, q, e.bytes() as u64);
        if self.isolating::<PLAIN>() {
            self.iso_left(e, out, q, ctx);
        }
        if e.lossless() && ctx.xoff.get(self.id, inl).mask & self.pg_prios[e.tc().idx()] != 0 {
            self.resume_pg(inl, e.tc(), ctx);
        }
    }

    /// The link of port `l` went down: drop what the port holds, queued and on the wire.
    pub fn flush_port(&mut self, l: u16, ctx: &mut Ctx) {
        for q in QueueId::all() {
            while let Some(e) = self.ports[l as usize].dequeue(q) {
                self.release(&e, l as usize, q, ctx);
                ctx.monitor.totals.drops_fault += 1;
                ctx.drop_packet(e.pkt());
            }
        }
        self.ports[l as usize].flush_wire(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    /// Index of the cache line (of an aligned switch) where a field of `size` bytes at
    /// `offset` ends.
    fn line_of(offset: usize, size: usize) -> usize {
        (offset + size - 1) / 64
    }

    #[test]
    fn per_frame_fields_fill_few_cache_lines() {
        assert_eq!(std::mem::align_of::<Switch>(), 64);
        let line0 = [
            line_of(offset_of!(Switch, ports), 16),
            line_of(offset_of!(Switch, dscp_to_tc), 32),
            line_of(offset_of!(Switch, port_dscp_to_tc), 16),
        ];
        assert_eq!(line0, [0; 3]);
        let line1 = [
            line_of(offset_of!(Switch, latency), 8),
            line_of(offset_of!(Switch, salt), 4),
            line_of(offset_of!(Switch, pg_prios), 8),
            line_of(offset_of!(Switch, pg_identity), 1),
            line_of(offset_of!(Switch, faults_active), 1),
        ];
        assert_eq!(line1, [1; 5]);
        let mmu = offset_of!(Switch, mmu);
        assert_eq!(mmu, 128, "the MMU's hot part starts line 2");
        const { assert!(Mmu::HOT_BYTES <= 64, "and fills it") };
    }
}
