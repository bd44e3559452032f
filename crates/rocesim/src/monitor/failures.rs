//! Records of what went wrong: PFC watchdog actions and PFC deadlocks.

use serde::Serialize;

/// A watchdog action.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WatchdogEvent {
    /// When, ns.
    pub time_ns: u64,
    /// Node name (switch or host).
    pub node: String,
    /// Port index on the node.
    pub port: u32,
    /// Priority.
    pub prio: u8,
    /// What happened: `storm_detected` / `storm_restored` (switch, SONiC PFC_WD),
    /// `pause_storm_warning` / `pause_storm_error` (NIC, mlx5 `pfc_prevention_tout`).
    pub event: String,
    /// The action taken (`drop`, `forward`, `alert`, or `stop_pausing` for a NIC).
    pub action: String,
}

/// SONiC-named counters of one watchdog-monitored queue.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WatchdogQueueStats {
    /// Switch name.
    pub node: String,
    /// Port index.
    pub port: u32,
    /// Priority (queue).
    pub queue: u8,
    /// `PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED`: storms detected.
    pub storm_detected: u64,
    /// `PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED`: storms restored.
    pub storm_restored: u64,
    /// `PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS`: queued packets discarded.
    pub tx_dropped_packets: u64,
    /// `PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS`: arriving packets discarded.
    pub rx_dropped_packets: u64,
}

/// mlx5-named pause-storm counters of one NIC.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct NicStormStats {
    /// Host name.
    pub node: String,
    /// `tx_pause_storm_warning_events`: the NIC began pausing while its RX pipeline was stalled.
    pub tx_pause_storm_warning_events: u64,
    /// `tx_pause_storm_error_events`: the watchdog stopped the NIC's pause generation.
    pub tx_pause_storm_error_events: u64,
}

/// One member of a deadlock cycle: an egress (port, priority) paused, non-empty, not draining.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeadlockMember {
    /// Node name.
    pub node: String,
    /// Port index.
    pub port: u32,
    /// Name of the node it faces.
    pub peer: String,
    /// Priority.
    pub prio: u8,
}

/// A PFC deadlock: a cycle in the wait-for graph that persisted.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeadlockRecord {
    /// When the cycle was first seen, ns.
    pub formed_ns: u64,
    /// When it was reported (persisted for `sim.deadlock_detection`), ns.
    pub detected_ns: u64,
    /// The cycle's members, in wait-for order.
    pub members: Vec<DeadlockMember>,
    /// Flows with packets stuck in the cycle's queues (ids).
    pub flows: Vec<u32>,
}
