//! The requester side of a QP: what ACKs, NAKs and CNPs do to it (RoCEv2 RC transport with
//! go-back-N or go-back-0, `transport.rs`), its retransmission timer, and the congestion
//! control timer of its reaction point.

use super::cc::AckInfo;
use super::device::Nic;
use super::qp_state::QpState;
use super::transport;
use crate::engine::{Ctx, Event};
use crate::ids::FlowId;
use crate::packet::{flags, since_stamp, Packet};
use crate::units::Time;

impl Nic {
    /// The requester slot serving flow `f` on this NIC, if it is this NIC's.
    #[inline]
    pub(crate) fn sender_slot(&self, f: u32, ctx: &Ctx) -> Option<u32> {
        let slot = ctx.conns.get(FlowId(f)).send.0;
        self.senders
            .get(slot)
            .is_some_and(|r| r.flow == f)
            .then_some(slot)
    }

    /// An ACK arrived: advance the PSN window, feed congestion control, complete the flow.
    pub(crate) fn on_ack(&mut self, ack: &Packet, ctx: &mut Ctx) {
        let now = ctx.now;
        let has_int = ack.flags & flags::INT_ECHO != 0;
        if has_int {
            // Released now; the record stays readable until the next allocation.
            ctx.ints.free(ack.aux);
        }
        let Some(slot) = self.sender_slot(ack.flow, ctx) else {
            return;
        };
        let r = self.senders.get_mut(slot).expect("live QP");
        if r.sq.cc.is_tcp() {
            return self.on_tcp_ack(slot, ack, ctx);
        }
        let before = r.sq.snd_una;
        let selective = r.sq.transport.is_selective();
        let done = if selective {
            self.irn_on_ack(slot, ack.psn, ctx)
        } else {
            transport::on_ack(&mut r.sq, ack.psn, now)
        };
        let r = self.senders.get_mut(slot).expect("live QP");
        if !r.has_cc {
            if done {
                self.complete(slot, ctx);
            } else {
                self.settle(slot, now);
                if selective {
                    // BDP-FC is a window: an ACK may open it.
                    self.try_send(ctx);
                }
            }
            return;
        }
        let acked = (r.sq.snd_una.saturating_sub(before)) as u64 * r.sq.mtu as u64;
        let rtt = (!has_int).then(|| since_stamp(now, ack.aux));
        let info = AckInfo {
            now,
            acked_bytes: acked,
            ack_psn: ack.psn,
            snd_nxt: if selective {
                r.sq.max_sent
            } else {
                r.sq.next_psn
            },
            ecn_echo: ack.flags & flags::ECN_ECHO != 0,
            rtt,
            int: has_int.then(|| ctx.ints.get(ack.aux)),
        };
        r.sq.cc.on_ack(&info);
        let windowed = selective || r.sq.cc.window().is_some();
        self.arm_cc_timer(slot, ctx);
        if done {
            self.complete(slot, ctx);
            return;
        }
        self.settle(slot, now);
        if windowed {
            self.try_send(ctx);
        }
    }

    /// A NAK asks for `psn` onward (IRN: PSNs below `psn` and PSN `aux` arrived).
    pub(crate) fn on_nak(&mut self, f: u32, psn: u32, aux: u32, ctx: &mut Ctx) {
        let Some(slot) = self.sender_slot(f, ctx) else {
            return;
        };
        let r = self.senders.get_mut(slot).expect("live QP");
        if r.sq.transport.is_selective() {
            return self.on_irn_nack(slot, psn, aux, ctx);
        }
        if r.sq.done {
            return;
        }
        transport::on_nak(&mut r.sq, psn, ctx.now);
        self.settle(slot, ctx.now);
        self.try_send(ctx);
    }

    /// A CNP arrived for flow `f`: the reaction point cuts its rate.
    pub(crate) fn on_cnp(&mut self, f: u32, ctx: &mut Ctx) {
        let Some(slot) = self.sender_slot(f, ctx) else {
            return;
        };
        let c = &mut ctx.monitor.flows[f].c;
        c.cnp_rx = c.cnp_rx.saturating_add(1);
        let r = self.senders.get_mut(slot).expect("live QP");
        r.sq.cc.on_cnp(ctx.now);
        self.arm_cc_timer(slot, ctx);
        self.settle(slot, ctx.now);
    }

    /// Every packet of QP `slot` is acknowledged: it leaves the round robin and the world is
    /// told (it starts dependent flows and closes the responder).
    pub(crate) fn complete(&mut self, slot: u32, ctx: &mut Ctx) {
        let r = self.senders.get_mut(slot).expect("live QP");
        r.state = QpState::Done;
        let f = r.flow;
        self.sched.close(r.rank);
        ctx.monitor.flows[f].done = ctx.now;
        ctx.monitor.completed.push(FlowId(f));
    }

    /// The retransmission timer of flow `f`.
    pub fn on_qp_timer(&mut self, f: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let Some(slot) = self.sender_slot(f, ctx) else {
            return;
        };
        let r = self.senders.get_mut(slot).expect("live QP");
        if r.sq.transport.is_selective() {
            return self.irn_timer(slot, ctx);
        }
        let sq = &mut r.sq;
        sq.timer_pending = false;
        if sq.done || sq.outstanding() == 0 {
            // Done, or nothing in flight (paused or paced): the timer re-arms on the next send.
            return;
        }
        let deadline = sq.last_progress + r.rto;
        if now >= deadline {
            if sq.cc.is_tcp() {
                return self.on_tcp_timeout(slot, ctx);
            }
            transport::on_timeout(sq, now);
            self.settle(slot, now);
            self.try_send(ctx);
        } else {
            sq.timer_pending = true;
            ctx.schedule(deadline, Event::QpTimer(f));
        }
    }

    /// Make sure QP `slot`'s congestion-control timer is scheduled for when the algorithm
    /// wants it (one pending event per QP; stale ones are ignored when they fire).
    #[inline]
    pub(crate) fn arm_cc_timer(&mut self, slot: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        if let Some(t) = r.sq.cc.next_timer() {
            let t = t.max(now);
            if t < r.cc_timer_at || r.cc_timer_at < now {
                r.cc_timer_at = t;
                ctx.schedule(t, Event::CcTimer(r.flow));
            }
        }
    }

    /// The congestion-control timer of flow `f`.
    pub fn on_cc_timer(&mut self, f: u32, ctx: &mut Ctx) {
        let Some(slot) = self.sender_slot(f, ctx) else {
            return;
        };
        let r = self.senders.get_mut(slot).expect("live QP");
        if r.cc_timer_at != ctx.now {
            return;
        }
        r.cc_timer_at = Time::NEVER;
        if r.sq.cc.is_tcp() {
            return self.on_tcp_loss_timer(slot, ctx);
        }
        r.sq.cc.on_timer(ctx.now);
        self.arm_cc_timer(slot, ctx);
        self.settle(slot, ctx.now);
        self.try_send(ctx);
    }
}
