//! Queue-pair state of an RDMA reliable connection: the requester (sender) side and the
//! responder (receiver) side of one flow.

use super::cc::CcState;
use super::params::TransportKind;
use crate::units::{Rate, Time};

/// The requester side of a queue pair: which PSNs are sent and acknowledged.
#[derive(Clone, Debug)]
pub struct SendQp {
    /// Packets in the message (`u32::MAX` for a long-lived flow).
    pub npkts: u32,
    /// Payload bytes of the message (`u64::MAX` for a long-lived flow).
    pub size: u64,
    /// Payload per packet.
    pub mtu: u32,
    /// Next PSN to transmit.
    pub next_psn: u32,
    /// Oldest unacknowledged PSN.
    pub snd_una: u32,
    /// Highest PSN ever transmitted + 1 (PSNs below it are retransmissions).
    pub max_sent: u32,
    /// Loss recovery.
    pub transport: TransportKind,
    /// Traffic class of its packets at the NIC.
    pub tc: u8,
    /// Earliest time the rate limiter lets the next packet go.
    pub next_send: Time,
    /// Static pacing rate from the scenario, if any.
    pub rate_limit: Option<Rate>,
    /// Congestion control state.
    pub cc: CcState,
    /// Last time the acknowledged PSN advanced (or a retransmission began).
    pub last_progress: Time,
    /// A retransmission-timer event is pending.
    pub timer_pending: bool,
    /// All packets acknowledged.
    pub done: bool,
    /// When the last ACK arrived.
    pub done_at: Option<Time>,
}

impl SendQp {
    /// Payload of packet `psn`.
    #[inline]
    pub fn payload_of(&self, psn: u32) -> u32 {
        if self.size == u64::MAX {
            return self.mtu;
        }
        let start = psn as u64 * self.mtu as u64;
        (self.size - start).min(self.mtu as u64) as u32
    }
    /// Packets sent and not yet acknowledged.
    #[inline]
    pub fn outstanding(&self) -> u32 {
        self.next_psn.saturating_sub(self.snd_una)
    }
    /// Is there a packet ready to go (ignoring pacing and pause)?
    #[inline]
    pub fn has_data(&self) -> bool {
        !self.done && self.next_psn < self.npkts
    }
}

/// The responder side: in-order delivery and what to acknowledge.
#[derive(Clone, Debug, Default)]
pub struct RecvQp {
    /// Next PSN expected in order.
    pub expected: u32,
    /// A NAK for `expected` was sent and the gap is not yet filled.
    pub nak_outstanding: bool,
    /// In-order packets since the last ACK.
    pub since_ack: u32,
}
