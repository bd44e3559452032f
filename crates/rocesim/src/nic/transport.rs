//! RDMA RC loss recovery (InfiniBand Architecture Spec vol. 1, ch. 9.7; Guo et al. 2016 §4.1).
//!
//! The responder accepts only the expected PSN. On a gap it sends one NAK (sequence error)
//! for the first missing PSN and discards out-of-order packets until the gap is filled.
//! Go-back-N restarts at the NAKed PSN; go-back-0 restarts the whole message, and its
//! responder throws away what it had. A retransmission timeout recovers lost tails and NAKs.

use super::irn::RetxCause;
use super::params::TransportKind;
use super::qp::{RecvQp, SendQp};
use crate::units::Time;

/// What the responder does with an arriving data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxVerdict {
    /// The packet's payload is delivered in order.
    pub accepted: bool,
    /// Bytes of earlier in-order delivery now thrown away (go-back-0 restart), in packets.
    pub restart_discards: bool,
    /// Send this control packet back.
    pub reply: Reply,
}

/// A control packet the responder sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing.
    None,
    /// ACK covering every PSN up to and including this one.
    Ack(u32),
    /// NAK: this PSN is the first one missing.
    Nak(u32),
}

/// Responder: process data packet `psn` of a message of `npkts` packets.
pub fn on_data(
    rq: &mut RecvQp,
    kind: TransportKind,
    psn: u32,
    npkts: u32,
    ack_every: u32,
) -> RxVerdict {
    if psn == rq.expected {
        rq.expected += 1;
        rq.nak_outstanding = false;
        rq.since_ack += 1;
        let last = rq.expected >= npkts;
        let reply = if last || rq.since_ack >= ack_every {
            rq.since_ack = 0;
            Reply::Ack(psn)
        } else {
            Reply::None
        };
        return RxVerdict {
            accepted: true,
            restart_discards: false,
            reply,
        };
    }
    if psn < rq.expected {
        // Duplicate: discard, re-acknowledge what we have (go-back-0's restart is handled
        // below: PSN 0 again means the requester started over).
        if kind == TransportKind::Gb0 && psn == 0 {
            rq.expected = 1;
            rq.nak_outstanding = false;
            rq.since_ack = 0;
            let reply = if npkts <= 1 {
                Reply::Ack(0)
            } else {
                Reply::None
            };
            return RxVerdict {
                accepted: true,
                restart_discards: true,
                reply,
            };
        }
        return RxVerdict {
            accepted: false,
            restart_discards: false,
            reply: Reply::Ack(rq.expected - 1),
        };
    }
    // A gap: psn > expected.
    let mut restart = false;
    if kind == TransportKind::Gb0 && rq.expected > 0 {
        rq.expected = 0;
        restart = true;
    }
    let reply = if rq.nak_outstanding {
        Reply::None
    } else {
        rq.nak_outstanding = true;
        Reply::Nak(rq.expected)
    };
    RxVerdict {
        accepted: false,
        restart_discards: restart,
        reply,
    }
}

/// Requester: an ACK for every PSN up to `psn`. Returns true when the message is complete.
pub fn on_ack(sq: &mut SendQp, psn: u32, now: Time) -> bool {
    if psn.saturating_add(1) > sq.snd_una && psn < sq.next_psn.max(sq.max_sent) {
        sq.snd_una = psn + 1;
        sq.last_progress = now;
        if sq.next_psn < sq.snd_una {
            sq.next_psn = sq.snd_una;
        }
    }
    if sq.snd_una >= sq.npkts && !sq.done {
        sq.done = true;
        sq.done_at = Some(now);
        return true;
    }
    false
}

/// Requester: a NAK asking for `psn` onward.
pub fn on_nak(sq: &mut SendQp, psn: u32, now: Time) {
    match sq.transport {
        TransportKind::Gb0 => {
            sq.snd_una = 0;
            sq.next_psn = 0;
        }
        _ => {
            if psn >= sq.snd_una {
                sq.snd_una = psn;
            }
            sq.next_psn = sq.snd_una;
        }
    }
    sq.retx_cause = RetxCause::Nack;
    sq.last_progress = now;
}

/// Requester: the retransmission timer expired with data outstanding.
pub fn on_timeout(sq: &mut SendQp, now: Time) {
    sq.next_psn = match sq.transport {
        TransportKind::Gb0 => 0,
        _ => sq.snd_una,
    };
    if sq.transport == TransportKind::Gb0 {
        sq.snd_una = 0;
    }
    sq.retx_cause = RetxCause::Timeout;
    sq.last_progress = now;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbn_responder_naks_once_per_gap_and_discards() {
        let mut rq = RecvQp::default();
        let k = TransportKind::Gbn;
        assert_eq!(on_data(&mut rq, k, 0, 10, 1).reply, Reply::Ack(0));
        // PSN 1 lost: 2, 3 arrive.
        let v = on_data(&mut rq, k, 2, 10, 1);
        assert!(!v.accepted);
        assert_eq!(v.reply, Reply::Nak(1));
        assert_eq!(on_data(&mut rq, k, 3, 10, 1).reply, Reply::None);
        // Retransmission fills the gap.
        assert_eq!(on_data(&mut rq, k, 1, 10, 1).reply, Reply::Ack(1));
        assert_eq!(rq.expected, 2);
    }

    #[test]
    fn gb0_responder_restarts_the_message() {
        let mut rq = RecvQp::default();
        let k = TransportKind::Gb0;
        for psn in 0..5 {
            assert!(on_data(&mut rq, k, psn, 100, 1).accepted);
        }
        let v = on_data(&mut rq, k, 6, 100, 1);
        assert!(v.restart_discards);
        assert_eq!(v.reply, Reply::Nak(0));
        assert!(on_data(&mut rq, k, 0, 100, 1).accepted);
        assert_eq!(rq.expected, 1);
    }

    #[test]
    fn ack_coalescing_acks_every_n_and_the_last() {
        let mut rq = RecvQp::default();
        let k = TransportKind::Gbn;
        let replies: Vec<_> = (0..5).map(|p| on_data(&mut rq, k, p, 5, 2).reply).collect();
        assert_eq!(
            replies,
            vec![
                Reply::None,
                Reply::Ack(1),
                Reply::None,
                Reply::Ack(3),
                Reply::Ack(4)
            ]
        );
    }
}
