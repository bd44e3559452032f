//! The NIC receive pipeline: an RX buffer in front of a packet processor of finite rate.
//!
//! Packets wait in the RX buffer while the pipeline is busy (or stalled by a fault). When the
//! buffer crosses its XOFF the NIC pauses its switch port for every lossless priority; below
//! XON it resumes it. This is how a slow or stuck receiver turns into PFC pauses (Guo et al.
//! 2016 §4.3–4.4).

use std::collections::VecDeque;

use super::device::Nic;
use super::params::RxParams;
use crate::engine::{Ctx, Event};
use crate::ids::{FlowId, Priority};
use crate::packet::PacketKind;
use crate::units::Time;

/// State of one NIC's receive pipeline. `repr(C)`, aligned to a cache line: what every
/// arriving packet reads ([`RxPipeline::bypass`]: the queue's length and the two flags)
/// comes first, in one line.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct RxPipeline {
    /// Packets waiting, with their buffer bytes.
    pub queue: VecDeque<(u32, u32)>,
    /// Packets are consumed as they arrive when nothing waits (line rate, no per-packet
    /// time, no PCIe limit or latency, no QP context or memory translation to look up).
    line: bool,
    /// Processing stopped by a fault.
    pub stalled: bool,
    /// A packet is being processed (an RxDone event is pending).
    pub busy: bool,
    /// The NIC's PFC watchdog has disabled pause generation for good.
    pub pause_disabled: bool,
    /// Bytes in the RX buffer.
    pub bytes: u64,
    /// When the current stall began.
    pub stalled_since: Time,
    /// Packets whose payload DMA is in flight, with when it completes (in order).
    pub placing: VecDeque<(Time, u32)>,
    /// Parameters.
    pub params: RxParams,
}

impl RxPipeline {
    /// An idle pipeline; `translates`: it looks up QP contexts or memory translations (a
    /// QPC or MTT cache).
    pub fn new(params: RxParams, translates: bool) -> Self {
        let line = params.rate.is_none()
            && params.per_packet == Time::ZERO
            && params.pcie_rate.is_none()
            && params.pcie_latency == Time::ZERO
            && !translates;
        RxPipeline {
            line,
            placing: VecDeque::new(),
            params,
            queue: VecDeque::new(),
            bytes: 0,
            busy: false,
            stalled: false,
            stalled_since: Time::ZERO,
            pause_disabled: false,
        }
    }
    /// Can a packet arriving now skip the buffer (line-rate pipeline, nothing queued)?
    #[inline]
    pub fn bypass(&self) -> bool {
        self.line && !self.stalled && self.queue.is_empty()
    }
    /// Is there room for `size` more bytes?
    #[inline]
    pub fn has_room(&self, size: u64) -> bool {
        self.bytes + size <= self.params.buffer.0
    }
    /// Buffer a packet.
    pub fn push(&mut self, pkt: u32, size: u32) {
        self.queue.push_back((pkt, size));
        self.bytes += size as u64;
    }
    /// Take the head packet out of the buffer.
    pub fn pop(&mut self) -> Option<u32> {
        let (p, s) = self.queue.pop_front()?;
        self.bytes -= s as u64;
        Some(p)
    }
    /// Time to process a packet of `size` buffer bytes carrying `payload` bytes: its stages
    /// overlap, so the slowest sets it (zero at line rate).
    pub fn service_time(&self, size: u32, payload: u32) -> Time {
        let p = &self.params;
        let wire = p.rate.map_or(Time::ZERO, |r| r.tx_time(size as u64));
        let dma = p
            .pcie_rate
            .map_or(Time::ZERO, |r| r.tx_time(payload as u64));
        wire.max(dma).max(p.per_packet)
    }
    /// Over XOFF: the NIC should pause its switch.
    #[inline]
    pub fn over_xoff(&self) -> bool {
        !self.pause_disabled && self.bytes >= self.params.xoff.0
    }
    /// Under XON: the NIC may resume its switch.
    #[inline]
    pub fn under_xon(&self) -> bool {
        self.bytes <= self.params.xon.0
    }
}

impl Nic {
    /// Start loading the queue pair that packet `p`, about to arrive, will update: the
    /// responder of a data packet, the requester of an ACK, NAK or CNP. A hint only.
    #[inline(always)]
    pub fn prefetch_qp(&self, p: &crate::packet::Packet, conns: &crate::nic::conn::ConnTable) {
        let c = conns.get(crate::ids::FlowId(p.flow));
        match p.kind {
            PacketKind::Data => self.responders.prefetch(c.recv.0),
            PacketKind::Ack | PacketKind::Nak | PacketKind::Cnp => self.senders.prefetch(c.send.0),
            PacketKind::Cip => {}
        }
    }

    /// A frame arrived at the NIC's port.
    pub fn on_arrive(&mut self, pkt_id: u32, ctx: &mut Ctx) {
        let pkt = *ctx.packets.get(pkt_id);
        if pkt.kind == PacketKind::Cip {
            // A hop-by-hop control frame (only `end_station` switches send them to hosts),
            // taken at the MAC like a pause frame: it never enters the RX buffer.
            ctx.drop_packet(pkt_id);
            self.on_cip(&pkt, ctx);
            return;
        }
        if pkt.dst != self.id {
            // A flooded copy: the NIC discards frames not addressed to it.
            ctx.monitor.totals.drops_fault += 1;
            ctx.drop_packet(pkt_id);
            return;
        }
        if self.rx.bypass() {
            self.process(pkt_id, ctx);
            return;
        }
        let pkt = ctx.packets.get(pkt_id);
        let size = pkt.buf_bytes() as u32;
        let tc = Priority(pkt.tc);
        if !self.rx.has_room(size as u64) {
            let t = &mut ctx.monitor.totals;
            if self.pfc_enable & tc.bit() != 0 {
                t.drops_lossless += 1;
            } else {
                t.drops_lossy += 1;
            }
            ctx.monitor.port_prio[self.port.id.idx()][tc].drops += 1;
            ctx.drop_packet(pkt_id);
            return;
        }
        self.rx.push(pkt_id, size);
        self.rx_check_xoff(ctx);
        self.rx_start(ctx);
    }

    /// Over XOFF: pause the switch on every lossless priority not yet paused.
    fn rx_check_xoff(&mut self, ctx: &mut Ctx) {
        if !self.rx.over_xoff() {
            return;
        }
        for prio in Priority::in_mask(self.pfc_enable) {
            if !self.xoff.held(prio) {
                let quanta = self.pfc_quanta;
                self.port.send_xoff(&mut self.xoff, prio, quanta, ctx);
                self.storm_pause_sent(prio, ctx);
            }
        }
    }

    /// Under XON: resume every priority held paused.
    fn rx_check_xon(&mut self, ctx: &mut Ctx) {
        if !self.rx.under_xon() {
            return;
        }
        for prio in Priority::in_mask(self.xoff.mask) {
            self.port.send_xon(&mut self.xoff, prio, ctx);
        }
    }

    /// Begin processing the RX buffer's head if the pipeline is idle and running.
    pub(crate) fn rx_start(&mut self, ctx: &mut Ctx) {
        if self.rx.busy || self.rx.stalled {
            return;
        }
        let Some(&(pkt_id, size)) = self.rx.queue.front() else {
            return;
        };
        self.rx.busy = true;
        let pkt = ctx.packets.get(pkt_id);
        let mut t = ctx.now + self.rx.service_time(size, pkt.payload as u32);
        if let Some(mem) = self.mem.as_deref_mut() {
            if pkt.kind == PacketKind::Data {
                let slot = ctx.conns.get(FlowId(pkt.flow)).recv.0;
                if let Some(r) = self.responders.get(slot).filter(|r| r.flow == pkt.flow) {
                    t += mem.on_receive(pkt.flow, &r.mem, pkt.psn, pkt.payload as u32);
                }
            }
        }
        ctx.schedule(t, Event::RxDone(self.id));
    }

    /// The pipeline finished the packet at its head.
    pub fn on_rx_done(&mut self, ctx: &mut Ctx) {
        self.rx.busy = false;
        if let Some(pkt) = self.rx.pop() {
            // Only a data packet's payload is written to host memory over PCIe.
            let lat = self.rx.params.pcie_latency;
            if lat == Time::ZERO || ctx.packets.get(pkt).kind != PacketKind::Data {
                self.process(pkt, ctx);
            } else {
                if self.rx.placing.is_empty() {
                    ctx.schedule(ctx.now + lat, Event::RxPlaced(self.id));
                }
                self.rx.placing.push_back((ctx.now + lat, pkt));
            }
        }
        self.rx_check_xon(ctx);
        self.rx_start(ctx);
    }

    /// The payload DMA of the oldest packet in flight to host memory completed: the NIC
    /// acts on it (and on any other placed by now).
    pub fn on_rx_placed(&mut self, ctx: &mut Ctx) {
        while let Some(&(t, pkt)) = self.rx.placing.front() {
            if t > ctx.now {
                ctx.schedule(t, Event::RxPlaced(self.id));
                return;
            }
            self.rx.placing.pop_front();
            self.process(pkt, ctx);
        }
    }

    /// The NIC consumes a packet: transport at the responder or requester. Inlined into its
    /// three callers (a frame's arrival when the pipeline is bypassed, the pipeline's
    /// completion, the payload's DMA completion), so that a packet's consumption is one call,
    /// not two.
    #[inline(always)]
    fn process(&mut self, pkt_id: u32, ctx: &mut Ctx) {
        let pkt = *ctx.packets.get(pkt_id);
        ctx.packets.free(pkt_id);
        match pkt.kind {
            PacketKind::Data => self.on_data(&pkt, ctx),
            PacketKind::Ack => self.on_ack(&pkt, ctx),
            PacketKind::Nak => self.on_nak(pkt.flow, pkt.psn, pkt.aux, ctx),
            PacketKind::Cnp => self.on_cnp(pkt.flow, ctx),
            // Taken at arrival (`on_arrive`).
            PacketKind::Cip => {}
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::RxPipeline;
    use std::mem::{offset_of, size_of};

    /// What `bypass` reads lies in the struct's first cache line.
    #[test]
    fn the_bypass_test_reads_one_line() {
        assert_eq!(std::mem::align_of::<RxPipeline>(), 64);
        let queue_end =
            offset_of!(RxPipeline, queue) + size_of::<std::collections::VecDeque<(u32, u32)>>();
        assert!(queue_end <= 64);
        assert!(offset_of!(RxPipeline, line) < 64 && offset_of!(RxPipeline, stalled) < 64);
    }
}
