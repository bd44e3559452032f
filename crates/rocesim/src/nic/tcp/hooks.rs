//! TCP at the NIC: what a TCP segment does at its receiver (reassembly and an immediate
//! cumulative ACK) and what that ACK and the retransmission timer do at the sender.

use super::receiver::Arrival;
use super::sender::{AckKind, Seq};
use crate::engine::Ctx;
use crate::nic::cc::CcState;
use crate::nic::device::Nic;
use crate::nic::responder::Control;
use crate::packet::{ecn, flags, since_stamp, Packet, PacketKind, TCP_ACK_WIRE};

impl Nic {
    /// A TCP segment reached the receiver of responder `slot`.
    pub(crate) fn on_tcp_data(&mut self, slot: u32, pkt: &Packet, ctx: &mut Ctx) {
        let f = pkt.flow;
        let r = self.responders.get_mut(slot).expect("live TCP responder");
        let rx = r.tcp.as_mut().expect("a TCP responder");
        let c = &mut ctx.monitor.flows[f].c;
        let ce = pkt.ecn == ecn::CE;
        if ce {
            c.ecn_marked = c.ecn_marked.saturating_add(1);
        }
        let arrival = rx.on_segment(&mut r.rq.expected, pkt.psn);
        match arrival {
            Arrival::InOrder(n) => {
                // Every segment carries one MSS but the flow's last, which may be shorter.
                let mut bytes = n as u64 * rx.mss as u64;
                if r.rq.expected >= r.npkts {
                    bytes -= (rx.mss - rx.last_payload) as u64;
                    ctx.monitor.flows[f].delivered_at = ctx.now;
                }
                ctx.monitor.flows[f].c.delivered += bytes;
            }
            Arrival::OutOfOrder => {}
            Arrival::Discarded => {
                ctx.monitor.flows[f].c.discarded += pkt.payload as u64;
            }
        }
        // An out-of-order segment is reported in the ACK's first SACK block (RFC 2018), also
        // when it arrives again (a tail loss probe of a segment already held).
        let sack = arrival == Arrival::OutOfOrder
            || (arrival == Arrival::Discarded && pkt.psn >= r.rq.expected);
        let ctl = Control {
            kind: PacketKind::Ack,
            psn: r.rq.expected.wrapping_sub(1),
            wire: TCP_ACK_WIRE,
            dscp: r.dscp,
            tc: r.tc,
            flags: if ce { flags::ECN_ECHO } else { 0 } | if sack { flags::SACK } else { 0 },
            aux: if sack { pkt.psn } else { pkt.aux },
        };
        self.send_control(slot, ctl, ctx);
    }

    /// An ACK of TCP connection `slot` arrived at its sender.
    pub(crate) fn on_tcp_ack(&mut self, slot: u32, ack: &Packet, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        let sq = &mut r.sq;
        if sq.done {
            return;
        }
        let CcState::Tcp(t) = &mut sq.cc else {
            unreachable!("a TCP QP")
        };
        let mut s = Seq {
            una: &mut sq.snd_una,
            nxt: &mut sq.next_psn,
            max_sent: sq.max_sent,
        };
        let ackno = ack.psn.wrapping_add(1);
        let ece = ack.flags & flags::ECN_ECHO != 0;
        let kind = if ack.flags & flags::SACK != 0 {
            t.on_sack(ackno, ack.aux, ece, now, &mut s)
        } else {
            t.on_cumulative_ack(ackno, ece, now, since_stamp(now, ack.aux), &mut s)
        };
        r.rto = t.rtt.rto();
        let loss_timers = t.has_loss_timers();
        if loss_timers {
            let in_flight = sq.max_sent > sq.snd_una;
            if kind == AckKind::New || kind == AckKind::Partial(true) {
                t.arm_tlp(now, now + r.rto, in_flight);
            } else if !in_flight || t.in_recovery() {
                t.arm_tlp(now, now, false);
            }
        }
        match kind {
            AckKind::New | AckKind::Partial(true) => sq.last_progress = now,
            AckKind::FastRetransmit => {
                let c = &mut ctx.monitor.flows[ack.flow].c;
                c.fast_retransmits = c.fast_retransmits.saturating_add(1);
            }
            AckKind::Partial(false) | AckKind::Duplicate | AckKind::Old => {}
        }
        if sq.snd_una >= sq.npkts {
            sq.done = true;
            sq.done_at = Some(now);
            self.complete(slot, ctx);
            return;
        }
        self.settle(slot, now);
        if loss_timers {
            self.arm_cc_timer(slot, ctx);
        }
        self.try_send(ctx);
    }

    /// RACK's reordering timer or the tail-loss-probe timer of TCP connection `slot` fired
    /// (RFC 8985): detect losses or send the probe; a probe restarts the RTO.
    pub(crate) fn on_tcp_loss_timer(&mut self, slot: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        let sq = &mut r.sq;
        if sq.done {
            return;
        }
        let CcState::Tcp(t) = &mut sq.cc else {
            unreachable!("a TCP QP")
        };
        let mut s = Seq {
            una: &mut sq.snd_una,
            nxt: &mut sq.next_psn,
            max_sent: sq.max_sent,
        };
        let (entered, probe) = t.on_loss_timer(now, &mut s);
        if probe {
            sq.last_progress = now;
        }
        if entered {
            let c = &mut ctx.monitor.flows[r.flow].c;
            c.fast_retransmits = c.fast_retransmits.saturating_add(1);
        }
        self.arm_cc_timer(slot, ctx);
        self.settle(slot, now);
        self.try_send(ctx);
    }

    /// The retransmission timer of TCP connection `slot` expired with data outstanding.
    pub(crate) fn on_tcp_timeout(&mut self, slot: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        let f = r.flow;
        let sq = &mut r.sq;
        let CcState::Tcp(t) = &mut sq.cc else {
            unreachable!("a TCP QP")
        };
        let mut s = Seq {
            una: &mut sq.snd_una,
            nxt: &mut sq.next_psn,
            max_sent: sq.max_sent,
        };
        t.on_timeout(&mut s);
        r.rto = t.rtt.rto();
        sq.last_progress = now;
        let c = &mut ctx.monitor.flows[f].c;
        c.timeouts = c.timeouts.saturating_add(1);
        // The timer runs again from now (rule 5.6), re-armed by the retransmission.
        self.settle(slot, now);
        self.try_send(ctx);
    }
}
