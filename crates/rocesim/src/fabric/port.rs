//! A port: 8 egress queues, a scheduler, PFC pause state, the PFC frames it owes its peer,
//! and the wire it transmits on. Switch ports and host NIC ports share this model; a host
//! port's queues hold control packets (ACK, NAK, CNP) and the NIC supplies data frames when
//! the port is free. Transmission itself (serialize, count, put on the wire) lives here; what
//! to send next is the owner's choice (the switch's scheduler, the NIC's QP scheduler).

use super::egress_fifo::Fifo;

use super::link::{Channel, Loss};
use super::params::QueueSched;
use super::pfc::EgressPause;
pub use super::queue_entry::QEntry;
use super::route_ahead::NO_OUT;
use super::scheduler::Scheduler;
use crate::engine::{Ctx, Event};
use crate::ids::{PortId, Priority, QueueId};
use crate::monitor::{Monitor, TxCounters};
use crate::packet::PacketKind;
use crate::topology::NodeRef;
use crate::units::{Rate, Time};

/// [`Port::tx_prio`] before a port's first frame: no transmit account is open.
pub(crate) const NO_TX_PRIO: u8 = u8::MAX;

/// How far behind a queue's head [`Port::dequeue`] prefetches: one cache line of 16-byte
/// entries.
const ENTRY_AHEAD: usize = 4;

/// One port of a switch or host. The layout is fixed (`repr(C)`, cache-line aligned) so that
/// the fields every transmit reads share the first cache line.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    // Line 0: what every enqueue, transmit and arrival reads.
    /// The port serializes until this time.
    pub busy_until: Time,
    /// Picoseconds per byte at the line rate when whole and below 2^32 (else 0):
    /// serialization by multiply.
    pub ps_per_byte: u32,
    /// Frames sent at priority `tx_prio` since its transmit account was last settled into the
    /// monitor's per-(port, priority) table (see [`Port::count_tx`]).
    pub(crate) tx_frames: u32,
    /// Propagation delay to the peer.
    pub delay: Time,
    /// Line rate.
    pub rate: Rate,
    /// Wire bytes transmitted, all priorities (the INT `txBytes` of HPCC): kept in the
    /// line every transmit writes, so counting and stamping it costs no other line.
    pub tx_bytes: u64,
    /// Its network-wide id (counters and events name it by this).
    pub id: PortId,
    /// Its index on that node.
    pub local: u16,
    /// Bitmask of non-empty queues.
    pub nonempty: u8,
    /// A TxDone event is pending.
    pub txdone_pending: bool,
    /// PFC frames waiting to go out ahead of data: bitmask of priorities.
    pub pfc_pending: u8,
    /// Priorities whose pauses the PFC watchdog ignores (a stormed queue). Written through
    /// [`Port::set_pause_ignored`], which keeps `paused_q` in step.
    pub pause_ignore: u8,
    /// Queues whose lossless packets the PFC watchdog discards (action `drop`).
    pub wd_drop: u8,
    /// Queues served by strict priority (the others share by DWRR).
    pub strict: u8,
    /// Queues that ECN-mark (bitmask; SONiC binds `QUEUE.wred_profile` per port and queue):
    /// kept here, in the line every enqueue reads, for the switch's marker.
    pub ecn_queues: u8,
    /// The wire is up, injects no loss and keeps no FIFO (not `tracked`): a transmit then
    /// only schedules the frame's arrival, and reads nothing from the wire's own cache line.
    /// Kept in step with `wire` by [`Port::set_wire_up`], [`Port::set_wire_loss`] and
    /// [`Port::track_wire`], the only writers of those fields.
    pub wire_plain: bool,
    /// Queues held by PFC: those of the paused priorities not ignored (`pause.mask` less
    /// `pause_ignore`, through `queue_of_prio`). Kept by [`Port::refresh_paused`], called
    /// wherever those change, so that the transmit path reads one byte instead of walking
    /// the paused priorities on every frame.
    pub(crate) paused_q: u8,
    /// The priority whose transmit account is open ([`NO_TX_PRIO`] before the first frame).
    pub(crate) tx_prio: u8,
    /// Pause timers of the egress priorities (set by the peer's PFC frames); its `mask`, the
    /// first byte of the struct, lies in line 0.
    pub pause: EgressPause,
    // Colder.
    /// Scheduler over the egress queues.
    pub sched: Scheduler,
    /// Egress queues.
    pub queues: [Fifo<QEntry>; 8],
    /// The egress queue that carries each priority (the switch's TC → queue map).
    pub queue_of_prio: [QueueId; 8],
    /// Delay from receiving a pause frame to honouring it (802.3 Annex 31B).
    pub pfc_response: Time,
    /// The peer's response delay: added to the arrival of the pause frames this port sends.
    pub peer_response: Time,
    /// The wire leaving this port toward its peer (its head, its state and its loss process's
    /// kind share one cache line: see the test below).
    pub wire: Channel,
    /// Frames received on this port waiting out the switch's forwarding latency, in arrival
    /// order (the latency is constant, so they leave in that order).
    pub pipeline: Channel,
    /// The node it belongs to.
    pub node: NodeRef,
    /// Index of the link in the topology.
    pub link: u32,
    /// The peer is a host (a server-facing port).
    pub faces_host: bool,
    /// When the refresh of each held XOFF is due (stale refresh events are ignored).
    pub refresh_at: [Time; 8],
    /// Quanta of each pending PFC frame.
    pub pfc_quanta: [u16; 8],
}

impl Port {
    /// Port `id` of `node`, at local index `local` on it.
    pub fn new(
        node: NodeRef,
        local: u16,
        id: PortId,
        link: u32,
        rate: Rate,
        delay: Time,
        kinds: &[QueueSched; 8],
    ) -> Self {
        Port {
            node,
            local,
            id,
            link,
            faces_host: false,
            rate,
            tx_bytes: 0,
            ps_per_byte: rate
                .ps_per_byte()
                .and_then(|ps| u32::try_from(ps).ok())
                .unwrap_or(0),
            tx_frames: 0,
            tx_prio: NO_TX_PRIO,
            delay,
            pfc_response: Time::ZERO,
            peer_response: Time::ZERO,
            wire: Channel::default(),
            pipeline: Channel::default(),
            queues: Default::default(),
            nonempty: 0,
            busy_until: Time::ZERO,
            txdone_pending: false,
            pause: EgressPause::default(),
            refresh_at: [Time::NEVER; 8],
            pfc_pending: 0,
            pause_ignore: 0,
            wd_drop: 0,
            pfc_quanta: [0; 8],
            sched: Scheduler::new(kinds),
            strict: Scheduler::strict_mask(kinds),
            ecn_queues: 0,
            wire_plain: true,
            paused_q: 0,
            queue_of_prio: [0, 1, 2, 3, 4, 5, 6, 7].map(QueueId),
        }
    }
    /// Append a packet to egress queue `q`.
    #[inline]
    pub fn enqueue(&mut self, q: QueueId, e: QEntry) {
        self.queues[q.idx()].push_back(e);
        self.nonempty |= q.bit();
    }
    /// Take the head of queue `q`, and start loading the entry `ENTRY_AHEAD` (4, a cache
    /// line) behind it.
    ///
    /// A backlogged queue's entries were written when their frames arrived, often long ago
    /// (S1 without congestion control holds about 200 K of them behind PFC), so reading the
    /// head was the costliest load of a transmit; the entries lie four to a cache line, and
    /// the hint brings the next line in while the port sends the frames of this one.
    #[inline]
    pub fn dequeue(&mut self, q: QueueId) -> Option<QEntry> {
        let queue = &mut self.queues[q.idx()];
        let p = queue.pop_front();
        if queue.is_empty() {
            self.nonempty &= !q.bit();
        } else if let Some(e) = queue.get(ENTRY_AHEAD) {
            crate::engine::prefetch::prefetch(e);
        }
        p
    }
    /// Count a frame of `wire` bytes sent at priority `tc` (PFC frames are not counted).
    ///
    /// A port counts its frames in its first cache line, which every transmit writes anyway:
    /// `tx_bytes` (all priorities) and `tx_frames`, the frames of its open account, priority
    /// `tx_prio`. The monitor's per-(port, priority) table ([`Monitor::tx`]) receives an
    /// account when the priority changes (rare: most ports send one priority) and whenever a
    /// reader settles it ([`Port::settle_tx`]): updating that table on every frame cost a
    /// first-level cache miss a hop (docs/performance.md, "Transmit counters in the port's
    /// first line").
    #[inline(always)]
    pub(crate) fn count_tx(&mut self, tc: Priority, wire: u32, monitor: &mut Monitor) {
        if tc.0 != self.tx_prio || self.tx_frames == u32::MAX {
            self.reopen_tx(tc, monitor);
        }
        self.tx_frames += 1;
        self.tx_bytes += u64::from(wire);
        #[cfg(debug_assertions)]
        {
            monitor.unsettled += 1;
        }
    }

    /// Settle the open account and open one for priority `tc`.
    #[cold]
    #[inline(never)]
    fn reopen_tx(&mut self, tc: Priority, monitor: &mut Monitor) {
        self.settle_tx(monitor);
        self.tx_prio = tc.0;
    }

    /// Add the open transmit account to the monitor's table, so that [`Monitor::tx`] holds
    /// every frame this port sent; the account stays open, empty.
    pub(crate) fn settle_tx(&mut self, monitor: &mut Monitor) {
        if self.tx_frames == 0 {
            // Nothing sent since the last settle (bytes only grow with frames).
            return;
        }
        debug_assert_ne!(self.tx_prio, NO_TX_PRIO, "frames without a priority");
        let prio = Priority(self.tx_prio);
        monitor.settle_tx(self.id, prio, self.tx_frames, self.tx_bytes);
        self.tx_frames = 0;
    }

    /// What this port sent at priority `prio`: the monitor's table and the open account,
    /// for readers that cannot settle first (they hold the port shared).
    pub fn tx_counters(&self, prio: Priority, monitor: &Monitor) -> TxCounters {
        let mut c = *monitor.tx_unsettled(self.id, prio);
        if self.tx_prio == prio.0 {
            c.packets += u64::from(self.tx_frames);
            c.bytes += self.tx_bytes - monitor.tx_settled_bytes(self.id);
        }
        c
    }

    /// Time to serialize `bytes` on this port.
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            Time(bytes * u64::from(self.ps_per_byte))
        } else {
            self.rate.tx_time(bytes)
        }
    }
    /// Queues that hold packets and whose priority is not paused.
    #[inline]
    pub fn eligible(&self) -> u8 {
        self.nonempty & !self.paused_queues()
    }

    /// Queues whose priority is paused (and not ignored by the PFC watchdog).
    #[inline]
    fn paused_queues(&self) -> u8 {
        debug_assert_eq!(
            self.paused_q,
            self.held_by_pause(),
            "paused_q out of step: refresh_paused was not called"
        );
        self.paused_q
    }

    /// The queues of the paused priorities that are not ignored, walked from the masks.
    fn held_by_pause(&self) -> u8 {
        let mut paused = 0u8;
        let mut m = self.pause.mask & !self.pause_ignore;
        while m != 0 {
            let prio = m.trailing_zeros() as usize;
            paused |= self.queue_of_prio[prio].bit();
            m &= m - 1;
        }
        paused
    }

    /// Recompute `paused_q` after a change of the pause mask, the ignored priorities or the
    /// map from priorities to queues.
    #[inline]
    pub fn refresh_paused(&mut self) {
        self.paused_q = self.held_by_pause();
    }

    /// The PFC watchdog starts (`ignored`) or stops ignoring the pauses of `prio` on this
    /// port (its `forward` and `drop` actions, and their restoration).
    pub fn set_pause_ignored(&mut self, prio: Priority, ignored: bool) {
        if ignored {
            self.pause_ignore |= prio.bit();
        } else {
            self.pause_ignore &= !prio.bit();
        }
        self.refresh_paused();
    }

    /// Would a packet put into queue `q` now be the next to go, at once? True when the port
    /// is free, owes no PFC frame, holds nothing else and `q` is not paused: then the
    /// scheduler has one eligible queue and picks it.
    #[inline]
    pub fn would_send_at_once(&self, q: QueueId, ctx: &Ctx) -> bool {
        // One branch for the caller, not one per condition: whether a frame goes at once is
        // as good as random from one frame to the next. Evaluating every condition costs
        // 5 instructions a hop more, and saves a tenth of the mispredicted conditional
        // branches (callgrind's model); S1-none ran in 0.99 of the time (14 and 16 pairs).
        let held = self.nonempty | self.pfc_pending | (self.paused_queues() & q.bit());
        (held == 0) & (self.busy_until <= ctx.now)
    }

    /// The queue that carries priority `prio`.
    #[inline]
    pub fn queue_of(&self, prio: Priority) -> QueueId {
        self.queue_of_prio[prio.idx()]
    }

    /// Is the port still serializing a frame? Then [`Port::ready_for_data`] answers no and
    /// only makes sure a wake-up is pending: the owner does that inline
    /// ([`Port::wake_when_free`]) and skips its transmit attempt (a call), as it does for
    /// about a third of the frames reaching a switch port in S1.
    #[inline(always)]
    pub fn busy(&self, ctx: &Ctx) -> bool {
        self.busy_until > ctx.now
    }

    /// May the owner put a data frame on the wire now? A busy port asks to be woken when it
    /// frees up; a pending PFC frame goes first (PFC frames jump every queue).
    #[inline(always)]
    pub fn ready_for_data(&mut self, ctx: &mut Ctx) -> bool {
        if self.busy_until <= ctx.now && self.pfc_pending == 0 {
            return true;
        }
        self.not_ready_for_data(ctx);
        false
    }

    /// The slow path of [`Port::ready_for_data`]: wait for the wire, or send the PFC frame.
    #[inline(never)]
    fn not_ready_for_data(&mut self, ctx: &mut Ctx) {
        if self.busy_until > ctx.now {
            self.wake_when_free(ctx);
        } else {
            self.send_pfc_frame(ctx);
        }
    }

    /// Serialize packet `pkt` (`wire` bytes, priority `tc`) now: count it, put it on the wire
    /// (or lose it there), and make sure the port is woken when it frees up if anything else
    /// waits (`more_data`: the owner has more to send).
    #[inline(always)]
    pub fn start_tx(&mut self, pkt: u32, wire: u32, tc: Priority, more_data: bool, ctx: &mut Ctx) {
        self.start_tx_ahead(pkt, wire, tc, more_data, NO_OUT, ctx);
    }

    /// [`Port::start_tx`] for a frame whose egress port at the next switch, `out`, is known
    /// ahead (`fabric::route_ahead`): its arrival event carries it.
    #[inline(always)]
    pub fn start_tx_ahead(
        &mut self,
        pkt: u32,
        wire: u32,
        tc: Priority,
        more_data: bool,
        out: u16,
        ctx: &mut Ctx,
    ) {
        let now = ctx.now;
        let ser = self.tx_time(wire as u64);
        self.busy_until = now + ser;
        let arrive = self.busy_until + self.delay;
        let more = self.nonempty != 0 || self.pfc_pending != 0;
        self.count_tx(tc, wire, &mut ctx.monitor);
        debug_assert_eq!(
            self.wire_plain,
            self.wire.is_plain(),
            "wire_plain out of step"
        );
        if self.wire_plain || self.wire_keeps(pkt, arrive, tc, wire, ctx) {
            let port = self.id.0;
            ctx.schedule(arrive, Event::LinkArrive { port, pkt, out });
        }
        if more || more_data {
            self.wake_when_free(ctx);
        }
    }

    /// A frame put on a wire that is not plain: lose it (down, or the loss process drops it:
    /// counted and freed here) or keep it in the FIFO (`tracked`). True when it is on its way.
    #[inline(never)]
    fn wire_keeps(
        &mut self,
        pkt: u32,
        arrive: Time,
        tc: Priority,
        wire: u32,
        ctx: &mut Ctx,
    ) -> bool {
        let ch = &mut self.wire;
        let lost = !ch.up
            || ch.loss != Loss::None
                && ch.drops_next(ctx.packets.get(pkt).kind == PacketKind::Data);
        if lost {
            ctx.monitor.count_lost(self.id, tc, wire);
            ctx.drop_packet(pkt);
            return false;
        }
        // A cut wire's frames are kept by the part that receives them.
        if ch.tracked && !ch.cut {
            ch.push(arrive, pkt);
        }
        if ch.cut {
            ctx.send_remote(arrive, self.id.0, pkt);
            return false;
        }
        true
    }

    /// Take the wire down or bring it up (a `link_down` / `link_up` fault).
    pub fn set_wire_up(&mut self, up: bool) {
        self.wire.up = up;
        self.wire_plain = self.wire.is_plain();
    }

    /// Set the wire's injected loss (a `loss` fault starting or ending), with the random
    /// stream of `Loss::Random`.
    pub fn set_wire_loss(&mut self, loss: Loss, rng: Option<Box<crate::engine::rng::SimRng>>) {
        if rng.is_some() {
            self.wire.rng = rng;
        }
        self.wire.loss = loss;
        self.wire_plain = self.wire.is_plain();
    }

    /// The wire's peer is simulated by another thread (`sim.threads`).
    pub fn cut_wire(&mut self) {
        self.wire.cut = true;
        self.wire_plain = self.wire.is_plain();
    }

    /// Keep the wire's frames in its FIFO too (the scenario can take links down).
    pub fn track_wire(&mut self) {
        self.wire.tracked = true;
        self.wire_plain = self.wire.is_plain();
    }

    /// Drop every frame on the wire leaving this port (its link went down): sent but never
    /// received, so counted lost and the derived receive counters stay exact. (A link that
    /// can go down is `tracked`: its frames are in the FIFO.)
    pub fn flush_wire(&mut self, ctx: &mut Ctx) {
        while let Some((_, pkt)) = self.wire.pop() {
            let p = ctx.packets.get(pkt);
            let (tc, wire) = (Priority(p.tc), p.wire as u32);
            ctx.monitor.count_lost(self.id, tc, wire);
            ctx.drop_packet(pkt);
        }
    }

    /// Make sure one TxDone is pending for this port. A TxDone already pending (even one due
    /// now, before the current frame began) re-checks when it fires, so there is never more
    /// than one per port.
    #[inline(always)]
    pub fn wake_when_free(&mut self, ctx: &mut Ctx) {
        if !self.txdone_pending {
            self.txdone_pending = true;
            ctx.schedule(self.busy_until, Event::TxDone(self.id.0));
        }
    }
}

#[cfg(test)]
#[path = "port_tests.rs"]
mod tests;
