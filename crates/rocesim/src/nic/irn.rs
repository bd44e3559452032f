//! IRN's loss recovery (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018
//! §3), the state machines of both ends of a QP; SRNIC (Wang et al., NSDI 2023) runs the same
//! recovery with its receiver bitmap in host memory (`bitmap_host.rs`).
//!
//! - The responder accepts every packet inside its window and records it in a bitmap; an
//!   in-order packet advances the cumulative point past every bit already set, an out-of-order
//!   one is answered with a NACK carrying the cumulative point (the first missing PSN) and the
//!   PSN that triggered it (a selective acknowledgement).
//! - The requester records the selectively acknowledged PSNs in its own bitmap. A PSN below
//!   the highest one selectively acknowledged and not acknowledged itself is lost; lost
//!   packets are retransmitted, once each, before any new packet.
//! - BDP-FC: a QP's highest PSN sent stays less than ⌈BDP/MTU⌉ above its cumulative point,
//!   so at most that many of its packets are in flight and both bitmaps fit a fixed ring.
//! - Timeout: `rto_low` while fewer than N packets are in flight (neither acknowledged nor
//!   selectively acknowledged), `rto_high` otherwise; on expiry every packet in flight is
//!   taken as lost.

use super::bitmap::PsnBitmap;
use super::params::IrnParams;
use super::qp::SendQp;
use crate::units::Time;

/// Why a packet is sent again (counted per NIC in [`super::recovery_stats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetxCause {
    /// The retransmission timer expired.
    Timeout,
    /// A NACK named the packet as the first missing one (go-back-N: every packet it rewinds).
    Nack,
    /// Selective repeat: a hole below a selectively acknowledged PSN.
    Selective,
}

/// `SendQp::next_psn` of an IRN QP with nothing it may send now.
pub const NOTHING: u32 = u32::MAX;

/// The requester's IRN state of one QP.
#[derive(Clone, Debug, Default)]
pub struct IrnTx {
    /// PSNs at or above the cumulative point that were selectively acknowledged.
    pub sacked: PsnBitmap,
    /// Bits set in `sacked`.
    pub sacked_n: u32,
    /// Next PSN the loss-recovery scan looks at.
    pub retx_next: u32,
    /// The scan stops here: PSNs below it and not selectively acknowledged are lost.
    pub retx_end: u32,
    /// Retransmissions below this PSN were started by the last timeout.
    pub timeout_end: u32,
    /// The first missing PSN named by the latest NACK.
    pub nack_psn: u32,
    /// BDP-FC: most packets above the cumulative point.
    pub cap: u32,
    /// When the pending retransmission-timer event fires (`NEVER` = none).
    pub timer_at: Time,
}

impl IrnTx {
    /// Fresh state for a QP whose BDP-FC window is `cap` packets.
    pub fn reset(&mut self, cap: u32) {
        self.sacked.reset();
        *self = IrnTx {
            sacked: self.sacked,
            cap: cap.clamp(1, PsnBitmap::SPAN),
            timer_at: Time::NEVER,
            ..Default::default()
        };
    }

    /// Packets in flight: sent, neither acknowledged nor selectively acknowledged.
    #[inline]
    pub fn in_flight(&self, sq: &SendQp) -> u32 {
        sq.max_sent - sq.snd_una - self.sacked_n
    }

    /// The timeout that applies now.
    #[inline]
    pub fn rto(&self, sq: &SendQp, p: &IrnParams) -> Time {
        if self.in_flight(sq) < p.rto_low_threshold {
            p.rto_low
        } else {
            p.rto_high
        }
    }

    /// Move the cumulative point up to `c` (exclusive: every PSN below is acknowledged).
    fn advance(&mut self, sq: &mut SendQp, c: u32, now: Time) {
        for psn in sq.snd_una..c {
            if self.sacked.clear(psn) {
                self.sacked_n -= 1;
            }
        }
        sq.snd_una = c;
        sq.last_progress = now;
        self.retx_next = self.retx_next.max(c);
    }

    /// An ACK for every PSN up to `psn`. Returns true when the message is complete.
    pub fn on_ack(&mut self, sq: &mut SendQp, psn: u32, now: Time) -> bool {
        if psn.saturating_add(1) > sq.snd_una && psn < sq.max_sent {
            self.advance(sq, psn + 1, now);
        }
        self.pick(sq);
        if sq.snd_una >= sq.npkts && !sq.done {
            sq.done = true;
            sq.done_at = Some(now);
            return true;
        }
        false
    }

    /// A NACK: every PSN below `cum` arrived, and so did `sack`.
    pub fn on_nack(&mut self, sq: &mut SendQp, cum: u32, sack: u32, now: Time) {
        if cum > sq.snd_una && cum <= sq.max_sent {
            self.advance(sq, cum, now);
        }
        if sack >= sq.snd_una && sack < sq.max_sent && !self.sacked.set(sack) {
            self.sacked_n += 1;
            sq.last_progress = now;
        }
        self.retx_end = self.retx_end.max(sack);
        self.nack_psn = cum;
        self.pick(sq);
    }

    /// The retransmission timer expired: every packet in flight is lost.
    pub fn on_timeout(&mut self, sq: &mut SendQp, now: Time) {
        self.retx_next = sq.snd_una;
        self.retx_end = sq.max_sent;
        self.timeout_end = sq.max_sent;
        sq.last_progress = now;
        self.pick(sq);
    }

    /// Packet `psn` (= `sq.next_psn` before the send) just left; `retx`: it was sent before.
    /// Returns the cause of a retransmission.
    pub fn on_sent(&mut self, sq: &mut SendQp, psn: u32, retx: bool) -> Option<RetxCause> {
        let cause = retx.then(|| {
            self.retx_next = psn + 1;
            if psn < self.timeout_end {
                RetxCause::Timeout
            } else if psn == self.nack_psn {
                RetxCause::Nack
            } else {
                RetxCause::Selective
            }
        });
        self.pick(sq);
        cause
    }

    /// Choose the next PSN to send: the first lost packet, else a new packet if BDP-FC
    /// allows, else [`NOTHING`].
    pub fn pick(&mut self, sq: &mut SendQp) {
        while self.retx_next < self.retx_end {
            if !self.sacked.get(self.retx_next) {
                sq.next_psn = self.retx_next;
                return;
            }
            self.retx_next += 1;
        }
        let room = sq.max_sent - sq.snd_una < self.cap;
        sq.next_psn = if sq.max_sent < sq.npkts && room {
            sq.max_sent
        } else {
            NOTHING
        };
    }
}

/// What the responder does with an arriving data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrnReply {
    /// In order, ACK coalesced away.
    None,
    /// ACK every PSN below this one (the new cumulative point).
    Ack(u32),
    /// NACK: the cumulative point, and the out-of-order PSN that arrived.
    Nack(u32, u32),
}

/// The responder's verdict on one data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrnVerdict {
    /// First arrival of this PSN: its payload is placed in memory (else discarded).
    pub placed: bool,
    /// It arrived out of order (above the cumulative point).
    pub out_of_order: bool,
    /// It filled the hole at the cumulative point while later packets were held in the
    /// bitmap (SRNIC reads its host bitmap to find the new cumulative point).
    pub filled_hole: bool,
    /// The reply.
    pub reply: IrnReply,
}

/// The responder's IRN state of one QP: its cumulative point is the QP's `RecvQp::expected`.
#[derive(Clone, Debug, Default)]
pub struct IrnRx {
    /// PSNs above the cumulative point that arrived.
    pub bitmap: PsnBitmap,
    /// Bits set in `bitmap`.
    pub held: u32,
    /// In-order packets since the last ACK.
    pub since_ack: u32,
    /// SRNIC: until then a read of the host bitmap is under way and replies wait for it.
    pub read_until: Time,
    /// SRNIC: its replies still waiting in the NIC's bitmap pipeline.
    pub waiting: u32,
}

impl IrnRx {
    /// Fresh state.
    pub fn reset(&mut self) {
        self.bitmap.reset();
        self.held = 0;
        self.since_ack = 0;
        self.read_until = Time::ZERO;
        self.waiting = 0;
    }

    /// Data packet `psn` of a message of `npkts` packets; `expected` is the cumulative point.
    pub fn on_data(
        &mut self,
        expected: &mut u32,
        psn: u32,
        npkts: u32,
        ack_every: u32,
    ) -> IrnVerdict {
        let mut v = IrnVerdict {
            placed: false,
            out_of_order: false,
            filled_hole: false,
            reply: IrnReply::Ack(*expected),
        };
        if psn < *expected || psn - *expected >= PsnBitmap::SPAN {
            // A duplicate (or beyond any window BDP-FC allows): discard, re-acknowledge.
            return v;
        }
        if psn > *expected {
            v.out_of_order = true;
            v.placed = !self.bitmap.set(psn);
            self.held += u32::from(v.placed);
            v.reply = IrnReply::Nack(*expected, psn);
            return v;
        }
        v.placed = true;
        *expected += 1;
        if self.held > 0 {
            v.filled_hole = true;
            while self.held > 0 && self.bitmap.clear(*expected) {
                self.held -= 1;
                *expected += 1;
            }
            self.since_ack = 0;
            v.reply = IrnReply::Ack(*expected);
            return v;
        }
        v.reply = IrnReply::Ack(*expected);
        self.since_ack += 1;
        if *expected < npkts && self.since_ack < ack_every {
            v.reply = IrnReply::None;
        } else {
            self.since_ack = 0;
        }
        v
    }
}

#[cfg(test)]
#[path = "irn_tests.rs"]
mod tests;
