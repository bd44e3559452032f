//! The NIC side of selective repeat (`nic.transport = "irn"` or `"srnic"`): each QP's IRN
//! state (`irn.rs`) kept beside its slot, what a send, an ACK, a NACK and the timer do to it,
//! the responder's bitmap and replies, and SRNIC's host-bitmap pipeline (`bitmap_host.rs`).
//! Go-back-N QPs never reach this file.

use super::bitmap_host::{BitmapHost, Delayed};
use super::device::Nic;
use super::irn::{IrnReply, IrnRx, IrnTx};
use super::params::{IrnParams, TransportKind};
use super::responder::Control;
use crate::engine::{Ctx, Event};
use crate::packet::{flags, Packet, PacketKind};
use crate::units::Time;

/// Selective-repeat state of one NIC: per requester and responder slot (reused with the
/// slots, so a new flow allocates nothing once the NIC has seen as many at once).
#[derive(Debug, Default)]
pub struct Selective {
    /// `[nic.irn]` of this NIC.
    pub params: IrnParams,
    /// IRN state by requester slot.
    pub tx: Vec<IrnTx>,
    /// IRN state by responder slot.
    pub rx: Vec<IrnRx>,
    /// SRNIC: replies waiting for a read of a host bitmap.
    pub host: BitmapHost,
}

/// Grow `v` so that index `slot` exists.
fn at<T: Default>(v: &mut Vec<T>, slot: u32) -> &mut T {
    let i = slot as usize;
    if v.len() <= i {
        v.resize_with(i + 1, T::default);
    }
    &mut v[i]
}

impl Selective {
    /// State for `params`.
    pub fn new(params: IrnParams) -> Self {
        Selective {
            params,
            ..Default::default()
        }
    }
}

impl Nic {
    /// Open the IRN state of requester `slot` with a BDP-FC window of `cap` packets.
    pub fn irn_open_tx(&mut self, slot: u32, cap: u32, now: Time) {
        let r = self.senders.get_mut(slot).expect("live QP");
        at(&mut self.irn.tx, slot).reset(cap);
        self.irn.tx[slot as usize].pick(&mut r.sq);
        self.settle(slot, now);
    }

    /// Open the IRN state of responder `slot`.
    pub fn irn_open_rx(&mut self, slot: u32) {
        at(&mut self.irn.rx, slot).reset();
    }

    /// Requester `slot` just sent `psn` (`retx`: again): choose its next PSN, count the
    /// retransmission, arm the timer.
    pub(crate) fn irn_sent(&mut self, slot: u32, psn: u32, retx: bool, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        let t = &mut self.irn.tx[slot as usize];
        if !retx && t.in_flight(&r.sq) == 1 {
            // The first packet in flight: the timer counts from now (IB vol. 1 o9-85).
            r.sq.last_progress = now;
        }
        if let Some(cause) = t.on_sent(&mut r.sq, psn, retx) {
            self.recovery.count_retx(cause);
        }
        if t.timer_at == Time::NEVER {
            let at = (r.sq.last_progress + t.rto(&r.sq, &self.irn.params)).max(now);
            t.timer_at = at;
            ctx.schedule(at, Event::QpTimer(r.flow));
        }
    }

    /// An ACK of every PSN up to `psn` for requester `slot`; true when the message is done.
    pub(crate) fn irn_on_ack(&mut self, slot: u32, psn: u32, ctx: &mut Ctx) -> bool {
        let r = self.senders.get_mut(slot).expect("live QP");
        let done = self.irn.tx[slot as usize].on_ack(&mut r.sq, psn, ctx.now);
        self.irn_rearm(slot, ctx);
        done
    }

    /// A NACK for requester `slot`: PSNs below `cum` arrived, and so did `sack`.
    pub(crate) fn on_irn_nack(&mut self, slot: u32, cum: u32, sack: u32, ctx: &mut Ctx) {
        let r = self.senders.get_mut(slot).expect("live QP");
        if r.sq.done {
            return;
        }
        self.irn.tx[slot as usize].on_nack(&mut r.sq, cum, sack, ctx.now);
        self.irn_rearm(slot, ctx);
        self.settle(slot, ctx.now);
        self.try_send(ctx);
    }

    /// The deadline may have moved earlier (fewer packets in flight: `rto_low`): make sure
    /// a timer event is pending for it.
    fn irn_rearm(&mut self, slot: u32, ctx: &mut Ctx) {
        let r = self.senders.get_mut(slot).expect("live QP");
        let t = &mut self.irn.tx[slot as usize];
        if r.sq.done || r.sq.max_sent == r.sq.snd_una {
            return;
        }
        let at = (r.sq.last_progress + t.rto(&r.sq, &self.irn.params)).max(ctx.now);
        if at < t.timer_at {
            t.timer_at = at;
            ctx.schedule(at, Event::QpTimer(r.flow));
        }
    }

    /// The retransmission timer of requester `slot` (stale events are ignored).
    pub(crate) fn irn_timer(&mut self, slot: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        let t = &mut self.irn.tx[slot as usize];
        if t.timer_at != now {
            return;
        }
        t.timer_at = Time::NEVER;
        if r.sq.done || r.sq.max_sent == r.sq.snd_una {
            // Nothing outstanding: the next send arms it again.
            return;
        }
        let deadline = r.sq.last_progress + t.rto(&r.sq, &self.irn.params);
        if now < deadline {
            t.timer_at = deadline;
            ctx.schedule(deadline, Event::QpTimer(r.flow));
            return;
        }
        t.on_timeout(&mut r.sq, now);
        self.settle(slot, now);
        self.try_send(ctx);
    }

    /// A data packet of selective-repeat responder `slot`: place it, record it in the
    /// bitmap, answer with an ACK or a NACK (SRNIC: through the host bitmap when it must).
    pub(crate) fn on_data_selective(&mut self, slot: u32, pkt: &Packet, ce: bool, ctx: &mut Ctx) {
        let (now, f) = (ctx.now, pkt.flow);
        let r = self.responders.get_mut(slot).expect("live QP");
        let rx = at(&mut self.irn.rx, slot);
        let v = rx.on_data(&mut r.rq.expected, pkt.psn, r.npkts, r.ack_every);
        let rec = &mut ctx.monitor.flows[f];
        if v.placed {
            rec.c.delivered += pkt.payload as u64;
            if r.rq.expected == r.npkts {
                rec.delivered_at = now;
            }
        } else {
            rec.c.discarded += pkt.payload as u64;
        }
        self.recovery.ooo_rx += u64::from(v.out_of_order);
        let mut wait = false;
        if r.transport == TransportKind::Srnic {
            let host = u64::from(v.out_of_order && v.placed) + u64::from(v.filled_hole);
            self.recovery.bitmap_host_accesses += host;
            if v.filled_hole {
                rx.read_until = now + self.irn.params.bitmap_latency;
            }
            wait = now < rx.read_until || rx.waiting > 0;
        }
        let release = rx.read_until.max(now);
        if ce {
            self.notify_congestion(slot, ctx);
        }
        let has_int = pkt.flags & flags::INT != 0;
        let ecn = if ce { flags::ECN_ECHO } else { 0 };
        let (kind, psn, aux, bits) = match v.reply {
            IrnReply::Ack(c) if c > 0 => {
                let int = if has_int { flags::INT_ECHO } else { 0 };
                (PacketKind::Ack, c - 1, pkt.aux, ecn | int)
            }
            IrnReply::Nack(cum, sack) => (PacketKind::Nak, cum, sack, ecn),
            _ => (PacketKind::Ack, u32::MAX, 0, 0),
        };
        if has_int && bits & flags::INT_ECHO == 0 {
            ctx.ints.free(pkt.aux);
        }
        if psn == u32::MAX {
            return;
        }
        let d = Delayed {
            at: release,
            slot,
            flow: f,
            kind,
            psn,
            aux,
            flags: bits,
        };
        if wait {
            self.irn.rx[slot as usize].waiting += 1;
            if let Some(t) = self.irn.host.push(d) {
                ctx.schedule(t, Event::BitmapRead(self.id));
            }
        } else {
            self.send_reply(d, ctx);
        }
    }

    /// Send reply `d` of a responder (if its QP is still open).
    fn send_reply(&mut self, d: Delayed, ctx: &mut Ctx) {
        let Some(r) = self.responders.get(d.slot).filter(|r| r.flow == d.flow) else {
            if d.flags & flags::INT_ECHO != 0 {
                ctx.ints.free(d.aux);
            }
            return;
        };
        let ctl = Control {
            kind: d.kind,
            psn: d.psn,
            wire: r.overhead.ack(),
            dscp: r.dscp,
            tc: r.tc,
            flags: d.flags,
            aux: d.aux,
        };
        self.send_control(d.slot, ctl, ctx);
    }

    /// SRNIC: bitmap reads completed; the replies that waited for them leave.
    pub fn on_bitmap_read(&mut self, ctx: &mut Ctx) {
        if self.irn.host.event_at != ctx.now {
            return;
        }
        self.irn.host.event_at = Time::NEVER;
        while let Some(d) = self.irn.host.pop_due(ctx.now) {
            if let Some(rx) = self.irn.rx.get_mut(d.slot as usize) {
                rx.waiting = rx.waiting.saturating_sub(1);
            }
            self.send_reply(d, ctx);
        }
        if let Some(t) = self.irn.host.arm() {
            ctx.schedule(t, Event::BitmapRead(self.id));
        }
    }
}
