//! What congestion isolation (IEEE 802.1Qcz, `fabric/isolation.rs`) did: counters and the
//! event log behind `isolation.csv`, and the receivers' count of out-of-order deliveries.

use crate::ids::PortId;
use crate::units::Time;

/// An isolation event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsoEvent {
    /// A switch moved a flow to a congested-flow queue (on the egress port).
    Isolate,
    /// A switch sent a CIP (on the port toward the upstream switch).
    CipSent,
    /// A switch received a CIP (on the port it arrived on).
    CipReceived,
    /// A switch moved a flow back to its class queue (on the egress port).
    Release,
}

impl IsoEvent {
    /// The word `isolation.csv` uses.
    pub fn word(self) -> &'static str {
        match self {
            IsoEvent::Isolate => "isolate",
            IsoEvent::CipSent => "cip_sent",
            IsoEvent::CipReceived => "cip_received",
            IsoEvent::Release => "release",
        }
    }
}

/// One row of `isolation.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsoLogEntry {
    /// When.
    pub time: Time,
    /// The switch (index).
    pub switch: u32,
    /// The port concerned.
    pub port: PortId,
    /// The flow.
    pub flow: u32,
    /// What happened.
    pub event: IsoEvent,
}

/// Isolation counters, network-wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IsoCounters {
    /// Flows isolated (each isolation of a flow at a switch counts once).
    pub isolated: u64,
    /// Flows released.
    pub released: u64,
    /// CIPs sent (acknowledgements not included).
    pub cip_tx: u64,
    /// CIPs received.
    pub cip_rx: u64,
    /// Isolations refused because live flows held every table slot the flow may take.
    pub table_full: u64,
    /// Data packets delivered to a receiver after a packet of the same flow sent later (a
    /// first transmission with a PSN below one already received). Counted in every run.
    pub out_of_order: u64,
    /// QPs a CI-aware NIC moved to a CFQ's priority on a CIP (`end_station`).
    pub qp_moved: u64,
    /// QPs a CI-aware NIC returned to their class's priority on a release notice.
    pub qp_returned: u64,
}

/// One row of `isolation.csv`, names resolved.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IsolationRecord {
    /// When, ns.
    pub time_ns: u64,
    /// Switch name.
    pub switch: String,
    /// Port index on the switch.
    pub port: u32,
    /// Flow (its name, or its id).
    pub flow: String,
    /// `isolate`, `cip_sent`, `cip_received` or `release`.
    pub event: &'static str,
}

/// What congestion isolation did in a run (present only when some switch isolates).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct IsolationResults {
    /// Counters.
    pub counters: IsoCounters,
    /// Pause frames switches sent on congested-flow-queue priorities.
    pub pause_tx_cfq: u64,
    /// Pause frames switches sent on other priorities.
    pub pause_tx_other: u64,
    /// Pause frames hosts (NICs) received.
    pub pause_rx_hosts: u64,
    /// The CFQ priorities of each switch: (switch name, priority).
    pub cfq_prios: Vec<(String, u8)>,
    /// The event log.
    pub events: Vec<IsolationRecord>,
}
