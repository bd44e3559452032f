//! Queue-pair state of an RDMA reliable connection: the requester (sender) side and the
//! responder (receiver) side of one flow.

use super::cc::CcState;
use super::irn::RetxCause;
use super::params::TransportKind;
use super::qp_state::QpState;
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
    /// What started the go-back-N retransmissions now under way (a NAK or the timer).
    pub retx_cause: RetxCause,
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
    /// One past the highest PSN received in a first transmission (out-of-order detection).
    pub first_tx_end: u32,
}

/// The requester (sender) side of a flow's QP as its NIC keeps it while the flow lives.
#[derive(Clone, Debug)]
pub struct Requester {
    /// The flow it serves.
    pub flow: u32,
    /// Destination host.
    pub dst: u32,
    /// DSCP of its data packets.
    pub dscp: u8,
    /// IP TTL of its packets.
    pub ttl: u8,
    /// Its data packets collect INT (HPCC).
    pub wants_int: bool,
    /// It runs a congestion-control algorithm (not `none`).
    pub has_cc: bool,
    /// ECMP hash of its 5-tuple.
    pub hash: u32,
    /// Retransmission timeout.
    pub rto: Time,
    /// When the pending congestion-control timer fires (`NEVER` = none pending).
    pub cc_timer_at: Time,
    /// The sending NIC's frame overhead.
    pub overhead: crate::packet::FrameOverhead,
    /// Of it, the bytes never buffered (`nic.frame_gap`; 20 for TCP frames).
    pub gap: u8,
    /// Telemetry bytes each data packet carries on the wire (HPCC's INT header, as counted).
    pub int_bytes: u32,
    /// Its activation rank in the NIC's ready list (round-robin order).
    pub rank: u32,
    /// Its scheduling state as of the last event that touched it.
    pub state: QpState,
    /// PSN state, pacing and congestion control.
    pub sq: SendQp,
}

/// The responder (receiver) side of a flow's QP as its NIC keeps it while the flow lives.
#[derive(Clone, Debug)]
pub struct Responder {
    /// The flow it serves.
    pub flow: u32,
    /// The requester's host (where ACKs and CNPs go).
    pub src: u32,
    /// ECMP hash of the data 5-tuple (ACKs use it rotated).
    pub hash: u32,
    /// TTL, DSCP and TC of its ACKs (those of the flow's data).
    pub ttl: u8,
    /// DSCP of its ACKs.
    pub dscp: u8,
    /// TC of its ACKs.
    pub tc: u8,
    /// Loss recovery of the connection.
    pub transport: TransportKind,
    /// Packets in the message.
    pub npkts: u32,
    /// Acknowledge every this many in-order packets (and the last).
    pub ack_every: u32,
    /// In-order delivery state.
    pub rq: RecvQp,
    /// Notification point: the end of the current CNP window (one CNP per window).
    pub cnp_window_end: Time,
    /// DSCP of its CNPs.
    pub cnp_dscp: u8,
    /// TC of its CNPs.
    pub cnp_tc: u8,
    /// Minimum gap between CNPs (mlx5 `min_time_between_cnps`).
    pub cnp_gap: Time,
    /// The receiving NIC's frame overhead (its ACKs and CNPs).
    pub overhead: crate::packet::FrameOverhead,
    /// Of it, the bytes never buffered (`nic.frame_gap`; 20 for TCP frames).
    pub gap: u8,
    /// A TCP connection's reassembly state (`None` for an RDMA QP).
    pub tcp: Option<Box<super::tcp::TcpReceiver>>,
    /// The registered memory its payload is placed in (MTT lookups).
    pub mem: super::memory::MemRef,
}

/// QP slots of one NIC: a vector with a free list, so that a completed flow's slot is reused
/// and memory follows the flows alive, not all flows of the run.
#[derive(Clone, Debug)]
pub struct Slots<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slots<T> {
    /// Store `v`; returns its slot.
    pub fn insert(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(v);
                i
            }
            None => {
                self.items.push(Some(v));
                (self.items.len() - 1) as u32
            }
        }
    }
    /// Release slot `i`, returning what it held.
    pub fn remove(&mut self, i: u32) -> Option<T> {
        let v = self.items.get_mut(i as usize)?.take();
        if v.is_some() {
            self.free.push(i);
        }
        v
    }
    /// Start loading slot `i` (a hint: any `i`, even a stale or absent one, is harmless).
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        crate::engine::prefetch::prefetch(self.items.as_ptr().wrapping_add(i as usize));
    }
    /// What slot `i` holds.
    #[inline]
    pub fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)?.as_ref()
    }
    /// What slot `i` holds, mutably.
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize)?.as_mut()
    }
    /// Slots in use.
    pub fn len(&self) -> usize {
        self.items.len() - self.free.len()
    }
    /// No slot in use.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every live entry.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten()
    }
}

#[cfg(test)]
mod slot_tests {
    use super::Slots;

    #[test]
    fn slots_are_reused_after_release() {
        let mut s = Slots::default();
        let a = s.insert("a");
        let b = s.insert("b");
        assert_eq!(s.remove(a), Some("a"));
        assert_eq!(s.remove(a), None, "a slot is released once");
        assert_eq!(s.get(a), None);
        let c = s.insert("c");
        assert_eq!(c, a);
        assert_eq!((s.get(b), s.get(c), s.len()), (Some(&"b"), Some(&"c"), 2));
        // A prefetch of any slot, held, free or beyond the end (`QpId::NONE`), is a hint.
        for i in [a, b, 7, u32::MAX] {
            s.prefetch(i);
        }
        assert_eq!((s.get(b), s.get(c), s.len()), (Some(&"b"), Some(&"c"), 2));
    }
}
