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
    /// A TCP connection (lossy class) with its window algorithm (`nic/tcp/`).
    Tcp(crate::nic::tcp::TcpCc),
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

/// One flow as the scenario defines it. The fields most flows leave at their defaults (a
/// name, a rate limit, a memory region or several QPs) live in one boxed `FlowExtra`, absent
/// for most flows, so a generated workload's flow costs 72 bytes here (a test checks it).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
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
    /// UDP source port, hashed by ECMP.
    pub sport: u16,
    /// Closed-loop chaining: the flow starts only when the flow with this index (in the
    /// scenario's flow list) has completed, `start` after that completion (so `start` is a gap,
    /// not an absolute time). Used by queue-depth workloads such as storage reads.
    pub after: Option<u32>,
    /// The rarely set fields; `None` = all at their defaults.
    extra: Option<Box<FlowExtra>>,
}

/// The fields of a [`FlowSpec`] that most flows leave at their defaults.
#[derive(Clone, Debug, Default, PartialEq)]
struct FlowExtra {
    /// A name for results; `None` = the flow id.
    name: Option<Box<str>>,
    /// Optional pacing: the sender never exceeds this rate (on-wire bits).
    rate_limit: Option<Rate>,
    /// The memory its operations touch and the queue pairs it uses (NIC caches).
    mem: FlowMem,
}

impl FlowSpec {
    /// A flow of `size` bytes (`None`: long-lived) from host `src` to host `dst` starting at
    /// `start` with DSCP `dscp` and operation `kind`; no name, rate limit, chain, source port
    /// (0: derived later) or memory region.
    pub fn new(
        src: u32,
        dst: u32,
        size: Option<u64>,
        start: Time,
        dscp: u8,
        kind: FlowKind,
    ) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            size,
            start,
            dscp,
            kind,
            sport: 0,
            after: None,
            extra: None,
        }
    }

    /// A name for results; `None` = the flow id.
    #[inline]
    pub fn name(&self) -> Option<&str> {
        self.extra.as_ref()?.name.as_deref()
    }

    /// Optional pacing: the sender never exceeds this rate (on-wire bits).
    #[inline]
    pub fn rate_limit(&self) -> Option<Rate> {
        self.extra.as_ref()?.rate_limit
    }

    /// The memory its operations touch and the queue pairs it uses (NIC caches).
    #[inline]
    pub fn mem(&self) -> FlowMem {
        self.extra.as_ref().map_or_else(FlowMem::default, |e| e.mem)
    }

    /// Set (or clear) the name.
    pub fn set_name(&mut self, name: Option<Box<str>>) {
        self.edit(|e| e.name = name);
    }

    /// Set (or clear) the rate limit.
    pub fn set_rate_limit(&mut self, rate: Option<Rate>) {
        self.edit(|e| e.rate_limit = rate);
    }

    /// Set the memory region and queue pairs.
    pub fn set_mem(&mut self, mem: FlowMem) {
        self.edit(|e| e.mem = mem);
    }

    /// Change the rare fields; the box is dropped again when they are all defaults.
    fn edit(&mut self, f: impl FnOnce(&mut FlowExtra)) {
        let mut e = self.extra.take().map_or_else(FlowExtra::default, |b| *b);
        f(&mut e);
        if e != FlowExtra::default() {
            self.extra = Some(Box::new(e));
        }
    }
}

/// The registered memory a flow's operations touch (at the side that translates addresses:
/// the receiver of its data) and its queue pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowMem {
    /// Registered region, bytes; `None` = the message size (1 MiB for a long-lived flow).
    pub region: Option<u64>,
    /// Packets land at uniformly random offsets of the region (else one after another).
    pub random: bool,
    /// Queue pairs between the same two hosts that carry the flow (its bytes split evenly).
    pub qps: u32,
    /// Which region: the index of the scenario flow (shared by its QPs).
    pub region_id: u32,
    /// Where this QP's first packet lands in the region, bytes.
    pub base: u64,
}

impl Default for FlowMem {
    fn default() -> Self {
        FlowMem {
            region: None,
            random: false,
            qps: 1,
            region_id: u32::MAX,
            base: 0,
        }
    }
}

/// The largest `qps` of a flow: 2^24 (the QP number space of a BTH).
pub const MAX_QPS: u32 = 1 << 24;

#[cfg(test)]
mod size_tests {
    use super::*;

    /// The flow list is held for the whole run: 4 + 4 (hosts) + 16 (size) + 8 (start) + 1
    /// (DSCP) + 16 (kind: a probe's timeout) + 2 (port) + 8 (chain) + 8 (box) = 67 bytes,
    /// 72 aligned. A field added inline instead of in `FlowExtra` fails here.
    #[test]
    fn a_flow_spec_is_72_bytes_and_defaults_allocate_nothing() {
        assert_eq!(std::mem::size_of::<FlowSpec>(), 72);
        let mut f = FlowSpec::new(0, 1, Some(10), Time::ZERO, 26, FlowKind::RdmaWrite);
        f.set_name(Some("x".into()));
        assert_eq!(f.name(), Some("x"));
        f.set_name(None);
        assert!(f.extra.is_none(), "back to defaults: the box is freed");
        f.set_rate_limit(Some(Rate::gbps(10)));
        assert_eq!(
            (f.rate_limit(), f.mem()),
            (Some(Rate::gbps(10)), FlowMem::default())
        );
    }
}
