//! The responder side of a QP: in-order delivery, ACK/NAK (`transport.rs`), and the
//! notification point of congestion control, which answers CE-marked packets with CNPs no
//! more often than `min_time_between_cnps` per QP.

use super::device::Nic;
use super::qp::RecvQp;
use super::transport::{self, Reply};
use crate::engine::Ctx;
use crate::fabric::port::QEntry;
use crate::ids::{FlowId, Priority, QueueId};
use crate::packet::{ecn, flags, Packet, PacketKind};

/// A control packet to send back to a flow's requester.
pub(crate) struct Control {
    /// ACK, NAK or CNP.
    pub kind: PacketKind,
    /// The PSN it carries.
    pub psn: u32,
    /// Bytes on the wire.
    pub wire: u32,
    /// Its DSCP.
    pub dscp: u8,
    /// Its traffic class at the NIC.
    pub tc: u8,
    /// Its flag bits.
    pub flags: u8,
    /// Its `aux` word (send time or INT record echoed; an IRN NACK's selective PSN).
    pub aux: u32,
}

/// A first transmission that arrives below a PSN already received was reordered in the
/// network (congestion isolation must never cause it): count it.
fn count_reordering(rq: &mut RecvQp, pkt: &Packet, ctx: &mut Ctx) {
    if pkt.flags & flags::FIRST_TX != 0 {
        if pkt.psn < rq.first_tx_end {
            ctx.monitor.iso.out_of_order += 1;
        } else {
            rq.first_tx_end = pkt.psn + 1;
        }
    }
}

impl Nic {
    /// A data packet reached its receiver: deliver it in order, acknowledge, notify.
    pub(crate) fn on_data(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        let f = pkt.flow;
        let slot = ctx.conns.get(FlowId(f)).recv.0;
        let has_int = pkt.flags & flags::INT != 0;
        if has_int {
            ctx.ints.seal(pkt.aux, pkt.int_hops);
        }
        let Some(r) = self.responders.get_mut(slot).filter(|r| r.flow == f) else {
            // The flow completed and its QP is closed: a late duplicate is discarded.
            ctx.monitor.flows[f].c.discarded += pkt.payload as u64;
            if has_int {
                ctx.ints.free(pkt.aux);
            }
            return;
        };
        count_reordering(&mut r.rq, pkt, ctx);
        if r.tcp.is_some() {
            return self.on_tcp_data(slot, pkt, ctx);
        }
        let c = &mut ctx.monitor.flows[f].c;
        let ce = pkt.ecn == ecn::CE;
        if ce {
            c.ecn_marked = c.ecn_marked.saturating_add(1);
        }
        if r.transport.is_selective() {
            return self.on_data_selective(slot, pkt, ce, ctx);
        }
        let expected = r.rq.expected;
        let v = transport::on_data(&mut r.rq, r.transport, pkt.psn, r.npkts, r.ack_every);
        if v.restart_discards {
            c.discarded += c.delivered;
            c.delivered = 0;
        }
        if v.accepted {
            c.delivered += pkt.payload as u64;
            if r.rq.expected == r.npkts {
                ctx.monitor.flows[f].delivered_at = ctx.now;
            }
        } else {
            c.discarded += pkt.payload as u64;
            if pkt.psn > expected {
                self.recovery.ooo_rx += 1;
            }
        }
        let (dscp, tc, overhead) = (r.dscp, r.tc, r.overhead);
        if ce {
            self.notify_congestion(slot, ctx);
        }
        let (kind, psn) = match v.reply {
            Reply::Ack(p) => (PacketKind::Ack, p),
            Reply::Nak(p) => (PacketKind::Nak, p),
            Reply::None => {
                if has_int {
                    ctx.ints.free(pkt.aux);
                }
                return;
            }
        };
        // The ACK echoes the CE mark and carries the data packet's INT record or send time.
        let mut bits = if ce { flags::ECN_ECHO } else { 0 };
        let mut aux = pkt.aux;
        if has_int {
            if kind == PacketKind::Ack {
                bits |= flags::INT_ECHO;
            } else {
                ctx.ints.free(pkt.aux);
                aux = 0;
            }
        }
        let wire = overhead.ack();
        let flags = bits;
        let ctl = Control {
            kind,
            psn,
            wire,
            dscp,
            tc,
            flags,
            aux,
        };
        self.send_control(slot, ctl, ctx);
    }

    /// Notification point: a CE-marked packet of responder `slot` arrived. At most one CNP
    /// per QP per `min_time_between_cnps` window: the windows follow one another without
    /// drift while marks keep coming, so a continuously marked QP gets exactly one CNP per
    /// interval (20,000/s at 50 us); after a quiet spell a new window opens at the next mark.
    pub(crate) fn notify_congestion(&mut self, slot: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.responders.get_mut(slot).expect("live QP");
        if now < r.cnp_window_end {
            return;
        }
        let next = r.cnp_window_end + r.cnp_gap;
        r.cnp_window_end = if now < next { next } else { now + r.cnp_gap };
        let (dscp, tc) = (r.cnp_dscp, r.cnp_tc);
        ctx.monitor.totals.cnp_tx += 1;
        let ctl = Control {
            kind: PacketKind::Cnp,
            psn: 0,
            wire: r.overhead.cnp(),
            dscp,
            tc,
            flags: 0,
            aux: 0,
        };
        self.send_control(slot, ctl, ctx);
    }

    /// Queue a control packet of responder `slot` toward its requester.
    pub(crate) fn send_control(&mut self, slot: u32, c: Control, ctx: &mut Ctx) {
        let r = self.responders.get(slot).expect("live QP");
        let reply = Packet {
            kind: c.kind,
            dscp: c.dscp,
            ecn: ecn::NOT_ECT,
            ttl: r.ttl,
            dst: r.src,
            flow: r.flow,
            psn: c.psn,
            payload: 0,
            wire: c.wire as u16,
            gap: r.gap,
            hash: r.hash.rotate_left(16),
            tc: c.tc,
            flags: c.flags,
            int_hops: 0,
            aux: c.aux,
        };
        let id = ctx.packets.alloc(reply);
        let entry = QEntry::local(id, c.wire, r.gap, Priority(c.tc));
        self.port.enqueue(QueueId(c.tc), entry);
        self.try_send(ctx);
    }
}
