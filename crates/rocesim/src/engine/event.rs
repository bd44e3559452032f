//! The events of the simulation. Each is small (≤ 16 bytes) and names the component that
//! owns it by index; the world dispatches on the variant.

/// Something that happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A port finished serializing its current frame and may start the next.
    TxDone(u32),
    /// The frame at the head of the channel leaving this port reaches the peer port.
    LinkArrive(u32),
    /// A PFC frame takes effect on this (egress) port after the peer's response delay.
    PauseArrive {
        /// The port being paused or resumed.
        port: u32,
        /// Priority.
        prio: u8,
        /// Quanta; 0 resumes.
        quanta: u16,
    },
    /// The pause timer of an egress priority may have run out.
    PauseExpire {
        /// Port.
        port: u32,
        /// Priority.
        prio: u8,
    },
    /// Refresh an XOFF this (ingress) port is holding, if it still holds it.
    PfcRefresh {
        /// The port whose ingress priority group is in XOFF.
        port: u32,
        /// Priority.
        prio: u8,
    },
    /// The frame at the head of a switch ingress port's forwarding pipeline (`switch.latency`)
    /// is ready to be forwarded.
    Forward(u32),
    /// A host NIC's rate limiter may allow a queue pair to send again.
    NicWake(u32),
    /// A host NIC's receive pipeline finished processing the packet at its head.
    RxDone(u32),
    /// A queue pair's retransmission timer.
    QpTimer(u32),
    /// A queue pair's congestion-control timer.
    CcTimer(u32),
    /// The next flow in start order starts.
    FlowStart,
    /// A chained flow starts (its predecessor completed).
    StartChained(u32),
    /// A host NIC's pause-storm watchdog checks its stalled RX pipeline.
    NicWatchdog(u32),
    /// A switch re-sends the CIPs of this port not yet confirmed (congestion isolation).
    CipRetry(u32),
    /// A switch's PFC watchdog polls its queues.
    WatchdogPoll(u32),
    /// The deadlock detector looks for cycles in the wait-for graph.
    DeadlockCheck,
    /// Routing reconverges: shortest paths are recomputed over the links that are up.
    Reroute,
    /// Periodic sampling of throughput and queue depths.
    Sample,
    /// A fault from the scenario's list starts (`start` = true) or is cleared.
    Fault {
        /// Index into the fault list.
        index: u32,
        /// Start or clear.
        start: bool,
    },
}
