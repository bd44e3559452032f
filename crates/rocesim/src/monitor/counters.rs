//! Flat counter arrays, indexed by id: no maps, no allocation while running. Received frames
//! are not counted as they arrive: they are the peer's transmissions less what the channel
//! lost or still carries, derived when results are made.

/// What one (port, priority) transmitted: updated for every frame, so kept apart from the
/// rarely touched counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCounters {
    /// Frames sent (not counting PFC frames).
    pub packets: u64,
    /// Wire bytes sent.
    pub bytes: u64,
}

/// The other counters of one (port, priority).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortPrioCounters {
    /// Packets dropped at this port.
    pub drops: u64,
    /// Pause frames (quanta > 0) sent.
    pub pause_tx: u64,
    /// Pause frames (quanta > 0) received.
    pub pause_rx: u64,
    /// Time paused, ps.
    pub paused_ps: u64,
}

/// Per-flow accounting, in payload bytes unless noted. Packet counts are 32-bit (they
/// saturate after 4.3 × 10^9 packets, some 380 s of one flow at 100 Gb/s) to keep a flow's
/// record small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounters {
    /// Payload put on the wire by the sender, retransmissions included.
    pub tx_bytes: u64,
    /// Retransmitted packets.
    pub retx_packets: u32,
    /// Delivered in order (net of go-back-0 restarts).
    pub delivered: u64,
    /// Discarded by the receiver.
    pub discarded: u64,
    /// Dropped in the network.
    pub dropped: u64,
    /// CNPs received.
    pub cnp_rx: u32,
    /// CE-marked packets received.
    pub ecn_marked: u32,
    /// TCP: fast retransmissions (third duplicate ACK).
    pub fast_retransmits: u32,
    /// TCP: retransmission timeouts.
    pub timeouts: u32,
}

/// Counters of one egress queue of one port (a per-queue mechanism: ECN marks at its
/// congestion point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    /// Packets CE-marked at this queue.
    pub ecn_marked: u64,
}
