//! The NIC's QP scheduler: when the port is free, round robin over the active requester QPs
//! for one that may send now (data left, its priority not paused, its rate limiter and
//! congestion window permitting), and build that QP's next data packet.

use super::cc::CcState;
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
        if self.mem.is_some() {
            return self.next_data_cached(ctx);
        }
        match self.sched.pick(ctx.now, self.port.pause.mask) {
            Ok(slot) => Some(self.build_data(slot, ctx)),
            Err(earliest) => {
                self.wake_by(earliest, ctx);
                None
            }
        }
    }

    /// Make sure a NicWake fires at `t` or earlier (`NEVER`: none needed).
    #[inline]
    fn wake_by(&mut self, t: Time, ctx: &mut Ctx) {
        if t != Time::NEVER && t < self.wake_at {
            self.wake_at = t;
            ctx.schedule(t, Event::NicWake(self.id));
        }
    }

    /// `next_data` of a NIC with caches: the QP picked first has its context and WQE looked
    /// up; on a miss the transmit pipeline holds it until the fetch completes, then sends it
    /// (if it still may).
    fn next_data_cached(&mut self, ctx: &mut Ctx) -> Option<QEntry> {
        let mem = self.mem.as_deref_mut().expect("caches on");
        if let Some((slot, qp, until)) = mem.tx_hold {
            if ctx.now < until {
                self.wake_by(until, ctx);
                return None;
            }
            mem.tx_hold = None;
            let open = self.senders.get(slot).is_some_and(|r| {
                r.flow == qp
                    && r.state == QpState::Ready
                    && self.port.pause.mask & (1 << r.sq.tc) == 0
            });
            if open {
                return Some(self.build_data(slot, ctx));
            }
        }
        match self.sched.pick(ctx.now, self.port.pause.mask) {
            Ok(slot) => {
                let qp = self.senders.get(slot).expect("live QP").flow;
                let mem = self.mem.as_deref_mut().expect("caches on");
                let stall = mem.on_transmit(qp);
                if stall == Time::ZERO {
                    return Some(self.build_data(slot, ctx));
                }
                let until = ctx.now + stall;
                mem.tx_hold = Some((slot, qp, until));
                self.wake_by(until, ctx);
                None
            }
            Err(earliest) => {
                self.wake_by(earliest, ctx);
                None
            }
        }
    }

    /// Recompute QP `slot`'s scheduling state after an event touched it, and file it in the
    /// ready list accordingly. Inlined at every call (about one a packet sent or
    /// acknowledged): left to the compiler, it stayed a call in the busiest callers.
    #[inline(always)]
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
        let tcp = sq.cc.is_tcp();
        let wire = r.overhead.data(payload, psn == 0 && !tcp) + r.int_bytes;
        let gap = r.gap;
        let c = &mut ctx.monitor.flows[f].c;
        let retx = psn < sq.max_sent;
        if !retx {
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
        let selective = sq.transport.is_selective();
        let arm = !sq.timer_pending && !selective;
        sq.timer_pending = true;
        if retx && !selective {
            self.recovery.count_retx(sq.retx_cause);
        }
        let mut pkt = Packet {
            kind: PacketKind::Data,
            dscp: r.dscp,
            ecn: if sq.cc.ect() { ecn::ECT0 } else { ecn::NOT_ECT },
            ttl: r.ttl,
            dst: r.dst,
            flow: f,
            psn,
            payload: payload as u16,
            wire: wire as u16,
            gap,
            hash: r.hash,
            tc: sq.tc,
            flags: if retx { 0 } else { flags::FIRST_TX },
            int_hops: 0,
            aux: stamp(now),
        };
        let mut loss_timers = false;
        if let CcState::Tcp(t) = &mut sq.cc {
            t.after_send(psn, now, &mut sq.next_psn);
            loss_timers = t.has_loss_timers();
            if loss_timers && !retx {
                t.arm_tlp(now, sq.last_progress + r.rto, true);
            }
        }
        let tc = Priority(sq.tc);
        if arm {
            ctx.schedule(now + r.rto, Event::QpTimer(f));
        }
        if r.wants_int {
            pkt.flags |= flags::INT;
            pkt.aux = ctx.ints.alloc();
        }
        let has_cc = r.has_cc;
        if selective {
            self.irn_sent(slot, psn, retx, ctx);
        }
        if has_cc || loss_timers {
            self.arm_cc_timer(slot, ctx);
        }
        self.settle(slot, now);
        QEntry::local(ctx.packets.alloc(pkt), wire, gap, tc)
    }
}
