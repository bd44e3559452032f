//! The NIC's QP scheduler: when the port is free, round robin over the active requester QPs
//! for one that may send now (data left, its priority not paused, its rate limiter and
//! congestion window permitting), and build that QP's next data packet.

use super::device::Nic;
use super::qp_state::QpState;
use crate::engine::{Ctx, Event};
use crate::fabric::port::QEntry;
use crate::ids::Priority;
use crate::packet::{ecn, flags, stamp, Packet, PacketKind};
use crate::units::Time;

impl Nic {
    /// The next data packet, or `None` (then a NicWake is scheduled for the earliest time a
    /// paced QP may send).
    pub(crate) fn next_data(&mut self, ctx: &mut Ctx) -> Option<QEntry> {
        match self.sched.pick(ctx.now, self.port.pause.mask) {
            Ok(slot) => Some(self.build_data(slot, ctx)),
            Err(earliest) => {
                if earliest != Time::NEVER && earliest < self.wake_at {
                    self.wake_at = earliest;
                    ctx.schedule(earliest, Event::NicWake(self.id));
                }
                None
            }
        }
    }

    /// Recompute QP `slot`'s scheduling state after an event touched it, and file it in the
    /// ready list accordingly.
    #[inline]
    pub(crate) fn settle(&mut self, slot: u32, now: Time) {
        let r = self.senders.get_mut(slot).expect("live QP");
        let st = r.sq.state_at(now);
        let prev = std::mem::replace(&mut r.state, st);
        // Unchanged and not Paced (whose release time may have moved): the list is right.
        if (st == prev && st != QpState::Paced) || st == QpState::Done {
            return;
        }
        let then_ready = st == QpState::Paced && !r.sq.window_full();
        self.sched.update(r.rank, st, r.sq.next_send, then_ready);
    }

    /// Build QP `slot`'s next data packet (PSN `next_psn`), account it, pace the QP and arm
    /// its timers.
    fn build_data(&mut self, slot: u32, ctx: &mut Ctx) -> QEntry {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("active QP");
        let f = r.flow;
        let sq = &mut r.sq;
        let psn = sq.next_psn;
        sq.next_psn += 1;
        let payload = sq.payload_of(psn);
        let wire = r.overhead.data(payload, psn == 0) + r.int_bytes;
        let c = &mut ctx.monitor.flows[f as usize].c;
        let first = psn >= sq.max_sent;
        if first {
            sq.max_sent = psn + 1;
        } else {
            c.retx_packets = c.retx_packets.saturating_add(1);
        }
        c.tx_bytes += payload as u64;
        sq.cc.on_send(now, wire);
        let rate = match (sq.cc.rate(), sq.rate_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(rt) = rate {
            sq.next_send = now + rt.tx_time(wire as u64);
        }
        let arm = !sq.timer_pending;
        sq.timer_pending = true;
        let mut pkt = Packet {
            kind: PacketKind::Data,
            dscp: r.dscp,
            ecn: ecn::ECT0,
            ttl: r.ttl,
            dst: r.dst,
            flow: f,
            psn,
            payload: payload as u16,
            wire: wire as u16,
            hash: r.hash,
            tc: sq.tc,
            flags: if first { flags::FIRST_TX } else { 0 },
            int_hops: 0,
            aux: stamp(now),
        };
        let tc = Priority(sq.tc);
        if arm {
            ctx.schedule(now + r.rto, Event::QpTimer(f));
        }
        if r.wants_int {
            pkt.flags |= flags::INT;
            pkt.aux = ctx.ints.alloc();
        }
        if r.has_cc {
            self.arm_cc_timer(slot, ctx);
        }
        self.settle(slot, now);
        QEntry::local(ctx.packets.alloc(pkt), wire, tc)
    }
}
