//! Typed parameters of congestion isolation (IEEE 802.1Qcz), as resolved from
//! `[switch.isolation]` for one switch.

use crate::units::{Bytes, Time};

/// How a switch identifies the flows that congest an egress queue (802.1Qcz leaves it to the
/// implementation; Congdon et al. 2017 suggest reusing ECN or QCN detection).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Identify {
    /// A flow whose packet the class queue marks CE (the switch's `ecn` marking) is congesting.
    Ecn,
    /// When the class queue holds more than `queue_threshold`, a flow that holds more than
    /// this fraction of it is congesting.
    Share(f64),
}

/// How a Congestion Isolation Packet reaches the upstream switch despite losses (the three
/// options of Congdon et al. 2017, "Options for reliable CIP transmission").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipReliability {
    /// Send [`CIP_REPEAT`] CIPs in succession.
    Repeat,
    /// Send a CIP every [`CIP_RETRY`] until the upstream switch acknowledges it.
    Ack,
    /// Send a CIP every [`CIP_RETRY`] until a packet of the flow arrives on the CFQ's
    /// priority (the upstream switch has isolated it).
    Mark,
}

/// CIPs sent back to back in `repeat` mode (the slides' "such as 3").
pub const CIP_REPEAT: u32 = 3;
/// Period of the CIPs of the `ack` and `mark` modes (the slides give none; 10 µs is a few
/// round trips of a data-centre link).
pub const CIP_RETRY: Time = Time::from_us(10);

/// The congested-flow queue of one lossless class: the priority isolated packets travel on
/// and the egress queue they wait in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cfq {
    /// PFC priority (and ingress priority group) of isolated packets.
    pub priority: u8,
    /// Egress queue of isolated packets.
    pub queue: u8,
}

/// Congestion isolation of one switch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsolationParams {
    /// How congesting flows are identified.
    pub identify: Identify,
    /// `share`: the class queue depth above which flows are examined.
    pub queue_threshold: Bytes,
    /// Entries of the flow table (indexed by the 5-tuple hash).
    pub table_size: u32,
    /// An entry not seen for this long (and holding no packet) may be reused.
    pub table_age: Time,
    /// The CFQ of each lossless class that isolates (`None`: the class does not).
    pub cfq: [Option<Cfq>; 8],
    /// How CIPs are made reliable.
    pub cip: CipReliability,
    /// A flow is released when its CFQ bytes stay at or below this...
    pub release_threshold: Bytes,
    /// ...for this long (and it has no packet left in the CFQ).
    pub release_time: Time,
    /// CIPs also go to the hosts that send an isolated flow (802.1Qcz's CI-aware end
    /// stations): the NIC moves the flow's QP to the CFQ's priority, so the first switch
    /// charges its packets to the CFQ's PG and pauses only them; the switch tells the NIC
    /// when it releases the flow and the QP returns to its class's priority.
    pub end_station: bool,
}

impl Default for IsolationParams {
    fn default() -> Self {
        IsolationParams {
            identify: Identify::Ecn,
            queue_threshold: Bytes(100_000),
            table_size: 1024,
            table_age: Time::from_ms(1),
            cfq: [None; 8],
            cip: CipReliability::Repeat,
            release_threshold: Bytes(10_000),
            release_time: Time::from_us(100),
            end_station: false,
        }
    }
}
