//! Flows: one RDMA message (or a long-lived stream) from one host to another on its own QP.

use crate::units::{Rate, Time};

/// The RDMA operation a flow models. All are carried as sender-driven data packets here;
/// the kind is kept for results and for later transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// RDMA WRITE (RETH on the first packet).
    RdmaWrite,
    /// RDMA READ (data flows from `src`, requested by `dst`).
    RdmaRead,
    /// RDMA SEND.
    RdmaSend,
    /// TCP (lossy class; later issue).
    Tcp,
    /// An RDMA Pingmesh probe (a small RDMA WRITE) at the given level; reported in
    /// `pingmesh.csv`, not with the application's flows.
    Probe(Probe),
}

/// What a Pingmesh probe reports against: its level and its timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// How far apart the two servers are.
    pub level: super::generators::PingLevel,
    /// A probe not acknowledged within this time (from its start) is an error.
    pub timeout: Time,
}

/// The UDP source port of the flow at `index` when the scenario gives none: a deterministic
/// function of the seed and the index, in 49152..=65535 (the dynamic port range).
pub fn default_sport(seed: u64, index: usize) -> u16 {
    // SplitMix64 finalizer over seed and index.
    let mut z = seed
        ^ (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    49152 + (z % 16384) as u16
}

/// One flow as the scenario defines it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// A name for results; `None` = the flow id.
    pub name: Option<Box<str>>,
    /// Sending host id.
    pub src: u32,
    /// Receiving host id.
    pub dst: u32,
    /// Message size in bytes; `None` = long-lived ("inf").
    pub size: Option<u64>,
    /// When the sender posts the message.
    pub start: Time,
    /// DSCP of its data packets.
    pub dscp: u8,
    /// Operation.
    pub kind: FlowKind,
    /// Optional pacing: the sender never exceeds this rate (on-wire bits).
    pub rate_limit: Option<Rate>,
    /// UDP source port, hashed by ECMP.
    pub sport: u16,
    /// Closed-loop chaining: the flow starts only when the flow with this index (in the
    /// scenario's flow list) has completed, `start` after that completion (so `start` is a gap,
    /// not an absolute time). Used by queue-depth workloads such as storage reads.
    pub after: Option<u32>,
}
