//! What a finished (or interrupted) run reports. The output layer turns this into files.

use serde::Serialize;

/// One flow's outcome.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FlowResult {
    /// Flow index.
    pub flow_id: u32,
    /// Name from the scenario, or the id as text.
    pub name: String,
    /// Sender host name (shared by every row of the host: a million rows hold no copy).
    pub src: std::sync::Arc<str>,
    /// Receiver host name (shared, as `src`).
    pub dst: std::sync::Arc<str>,
    /// Message size; `None` for long-lived flows.
    pub size_bytes: Option<u64>,
    /// Start time, ns.
    pub start_ns: u64,
    /// Completion time as ns-3 measures FCT: the final ACK at the sender, ns (= `acked_ns`).
    pub end_ns: Option<u64>,
    /// When the final ACK reached the sender, ns.
    pub acked_ns: Option<u64>,
    /// When the last byte was delivered in order at the receiver, ns.
    pub delivered_ns: Option<u64>,
    /// Flow completion time, ns.
    pub fct_ns: Option<u64>,
    /// Ideal FCT: size at the bottleneck line rate with headers, plus the path's base RTT, ns.
    pub ideal_fct_ns: Option<u64>,
    /// fct / ideal.
    pub slowdown: Option<f64>,
    /// Payload delivered in order to the receiver (whole run).
    pub bytes_delivered: u64,
    /// Goodput over the statistics window [warmup, end], Gb/s of payload.
    pub goodput_gbps: f64,
    /// Goodput over the part of the statistics window the flow was active (from its start or
    /// the warm-up, whichever is later, to its completion or the end), Gb/s of payload.
    pub goodput_active_gbps: f64,
    /// Data packets retransmitted.
    pub retx_packets: u64,
    /// CNPs received by the sender.
    pub cnp_rx: u64,
    /// Data packets that arrived CE-marked.
    pub ecn_marked: u64,
    /// Payload bytes the sender put on the wire, including retransmissions.
    pub tx_bytes: u64,
    /// Payload bytes the receiver discarded (out of order, duplicate, go-back-0 restart).
    pub discarded_bytes: u64,
    /// Payload bytes dropped in the network (any cause).
    pub dropped_bytes: u64,
    /// Payload bytes still in the network when the run ended.
    pub inflight_bytes: u64,
}

impl FlowResult {
    /// Add `o`'s counters (bytes, packets and window goodput) to this row's: the row of a
    /// flow made of several queue pairs is the sum of its QPs' rows.
    pub fn add_counters(&mut self, o: &FlowResult) {
        self.bytes_delivered += o.bytes_delivered;
        self.goodput_gbps += o.goodput_gbps;
        self.retx_packets += o.retx_packets;
        self.cnp_rx += o.cnp_rx;
        self.ecn_marked += o.ecn_marked;
        self.tx_bytes += o.tx_bytes;
        self.discarded_bytes += o.discarded_bytes;
        self.dropped_bytes += o.dropped_bytes;
        self.inflight_bytes += o.inflight_bytes;
    }
}

/// Counters of one (node, port, priority).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PortRow {
    /// Node name.
    pub node: String,
    /// Port index on the node.
    pub port: u32,
    /// Name of the node at the other end.
    pub peer: String,
    /// Priority (traffic class).
    pub prio: u8,
    /// Line rate of the port, bits per second.
    pub rate_bps: u64,
    /// Wire bytes transmitted in the statistics window [warmup, end].
    pub tx_bytes_window: u64,
    /// Frames transmitted (data, ACK, CNP; PFC frames not included).
    pub tx_packets: u64,
    /// Bytes transmitted on the wire.
    pub tx_bytes: u64,
    /// Frames received.
    pub rx_packets: u64,
    /// Bytes received on the wire.
    pub rx_bytes: u64,
    /// Packets dropped at this port (ingress admission or egress limit).
    pub drops: u64,
    /// Pause frames sent out of this port for this priority (XOFF and refreshes; not XON).
    pub pause_tx: u64,
    /// Pause frames received on this port for this priority.
    pub pause_rx: u64,
    /// Time this port's egress priority spent paused, ns.
    pub paused_ns: u64,
}

/// Counters of one (node, port, queue): what a switch counts per egress queue.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PortQueueRow {
    /// Switch name.
    pub node: String,
    /// Port index on the switch.
    pub port: u32,
    /// Name of the node at the other end.
    pub peer: String,
    /// Egress queue 0–7 (after `tc_to_queue`).
    pub queue: u8,
    /// Packets CE-marked at this queue.
    pub ecn_marked: u64,
    /// Peak depth of this queue, bytes.
    pub max_queue_bytes: u64,
}

/// One interval during which an egress priority was paused by its peer.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PauseInterval {
    /// Node name.
    pub node: String,
    /// Port index on the node.
    pub port: u32,
    /// Priority.
    pub prio: u8,
    /// When the pause took effect, ns.
    pub start_ns: u64,
    /// How long it lasted, ns (to the end of the run if it had not ended).
    pub duration_ns: u64,
}

/// Direction of a logged PFC frame.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PfcDir {
    /// Sent by this node.
    Tx,
    /// Received by this node (logged when it takes effect).
    Rx,
}

/// One pause or resume frame.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PfcRecord {
    /// When, ns.
    pub time_ns: u64,
    /// Node name.
    pub node: String,
    /// Port index on the node.
    pub port: u32,
    /// Priority.
    pub prio: u8,
    /// Sent or received.
    pub direction: PfcDir,
    /// Quanta (0 = resume).
    pub quanta: u16,
}

/// A sample of one flow's delivered throughput.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ThroughputSample {
    /// End of the sample interval, ns.
    pub time_ns: u64,
    /// Flow id.
    pub flow_id: u32,
    /// Payload Gb/s over the interval.
    pub gbps: f64,
}

/// A sample of one QP's congestion-control state.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RateSample {
    /// When, ns.
    pub time_ns: u64,
    /// Flow id.
    pub flow_id: u32,
    /// Pacing rate, Gb/s (empty when the algorithm does not pace).
    pub rate_gbps: Option<f64>,
    /// Window, payload bytes (0 when the algorithm has none).
    pub window_bytes: u64,
}

/// A sample of one egress queue's depth.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueueSample {
    /// When, ns.
    pub time_ns: u64,
    /// Node name.
    pub node: String,
    /// Port index.
    pub port: u32,
    /// Queue index.
    pub queue: u8,
    /// Bytes queued.
    pub bytes: u64,
}

/// One sample of one switch (port, priority)'s counters (timeseries/counters.csv), named
/// after the COUNTERS_DB fields of SONiC (SAI statistics). Packet and byte counters are
/// cumulative from the start of the run; occupancies are the value at the sample.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct CounterSample {
    /// When, ns.
    pub time_ns: u64,
    /// Switch name.
    pub node: String,
    /// Port index on the switch.
    pub port: u32,
    /// Name of the node at the other end.
    pub peer: String,
    /// Priority (traffic class, ingress priority group).
    pub prio: u8,
    /// Egress queue of the priority (`tc_to_queue`).
    pub queue: u8,
    /// `SAI_PORT_STAT_PFC_<prio>_RX_PKTS`: pause frames (quanta > 0) received.
    pub pfc_rx_pkts: u64,
    /// `SAI_PORT_STAT_PFC_<prio>_TX_PKTS`: pause frames (quanta > 0) sent.
    pub pfc_tx_pkts: u64,
    /// `SAI_PORT_STAT_PFC_<prio>_RX_PAUSE_DURATION_US`: time the egress priority was paused
    /// by received pause frames, whole microseconds.
    pub pfc_rx_pause_duration_us: u64,
    /// `SAI_QUEUE_STAT_PACKETS`: frames transmitted at this priority.
    pub queue_packets: u64,
    /// `SAI_QUEUE_STAT_BYTES`: wire bytes transmitted at this priority.
    pub queue_bytes: u64,
    /// `SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES`: bytes in the egress queue.
    pub queue_curr_occupancy_bytes: u64,
    /// `SAI_QUEUE_STAT_WATERMARK_BYTES`: peak bytes of the egress queue since the start.
    pub queue_watermark_bytes: u64,
    /// `SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES`: bytes the ingress PG holds.
    pub pg_curr_occupancy_bytes: u64,
    /// `SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_CURR_OCCUPANCY_BYTES`: headroom bytes held.
    pub pg_xoff_room_curr_occupancy_bytes: u64,
    /// `SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS`: packets dropped at admission.
    pub pg_dropped_packets: u64,
}

/// One TCP flow's loss recovery (tcp_flows.csv; only runs with TCP flows have any).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TcpFlowResult {
    /// Flow index.
    pub flow_id: u32,
    /// Name from the scenario, or the id as text.
    pub name: String,
    /// Window algorithm (`newreno`, `cubic`, `dctcp`).
    pub cc: String,
    /// Goodput over the statistics window, Gb/s of payload.
    pub goodput_gbps: f64,
    /// Segments retransmitted (fast retransmit, partial ACKs and after timeouts).
    pub retx_packets: u64,
    /// Fast retransmissions (three duplicate ACKs).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
}

/// Everything a run reports.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct RunResults {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Simulated time reached, ns.
    pub sim_time_ns: u64,
    /// Start of the statistics window, ns.
    pub warmup_ns: u64,
    /// Wall-clock seconds (the only field that varies between identical runs).
    pub wall_s: f64,
    /// Events processed.
    pub events: u64,
    /// Packet hops (frames that crossed a link).
    pub packet_hops: u64,
    /// Peak resident memory of the process, KiB (Linux `VmHWM`; 0 where unknown). Like
    /// `wall_s`, it varies between identical runs.
    pub peak_memory_kb: u64,
    /// How a run split across threads (`sim.threads` > 1) went: its parts, windows and the
    /// frames that crossed a cut. Timing-like, so not in the result files (which are those
    /// of one thread); the terminal table prints it.
    #[serde(skip)]
    pub threads: Option<ThreadStats>,
    /// True when the run was interrupted (Ctrl-C) before its end.
    pub incomplete: bool,
    /// Why an incomplete run stopped: `"wall_limit"` (`sim.wall_limit`) or `"interrupt"`.
    pub stopped_by: Option<String>,
    /// Per flow, in id order (a long run's rows are stored out of memory: read them with
    /// [`super::FlowTable::iter`]).
    pub flows: super::FlowTable,
    /// Per TCP flow: loss recovery (empty without TCP flows).
    pub tcp: Vec<TcpFlowResult>,
    /// Per (node, port, priority).
    pub ports: Vec<PortRow>,
    /// Per-(node, port, queue) counters, for queues that held or marked a packet.
    pub port_queues: Vec<PortQueueRow>,
    /// Every pause of an egress priority, in the order they ended (open ones last).
    pub pause_intervals: Vec<PauseInterval>,
    /// Pause/resume log.
    pub pfc_log: Vec<PfcRecord>,
    /// Pause frames not kept in `pfc_log` because of `output.max_pfc_log`.
    pub pfc_log_truncated: u64,
    /// Throughput time series.
    pub throughput: Vec<ThroughputSample>,
    /// Queue-depth time series.
    pub queues: Vec<QueueSample>,
    /// Congestion-control rate and window time series.
    pub rates: Vec<RateSample>,
    /// Switch counters over time (empty unless `output.counters_interval` is set).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterSample>,
    /// Congestion points: where congestion happened, for how long, and who passed through.
    pub congestion: Vec<super::congestion::CongestionRecord>,
    /// Watchdog actions (switch PFC watchdog and NIC pause-storm prevention), in time order.
    pub watchdog: Vec<super::failures::WatchdogEvent>,
    /// Counters of every queue the switch PFC watchdog acted on.
    pub watchdog_queues: Vec<super::failures::WatchdogQueueStats>,
    /// Pause-storm counters of every NIC that had one.
    pub nic_storms: Vec<super::failures::NicStormStats>,
    /// One row per NIC when some NIC models its caches (`nic.cache`), else empty.
    pub nics: Vec<NicRow>,
    /// RDMA Pingmesh probes, in flow order (empty without a `pingmesh` workload).
    pub pingmesh: Vec<super::pingmesh::PingRecord>,
    /// PFC deadlocks found.
    pub deadlocks: Vec<super::failures::DeadlockRecord>,
    /// Lossless drops (headroom or NIC RX buffer exhausted): a misconfiguration signal.
    pub drops_lossless: u64,
    /// Lossy drops (queue limit).
    pub drops_lossy: u64,
    /// Packets dropped because their TTL reached zero.
    pub drops_ttl: u64,
    /// Packets dropped by injected faults (loss, link down).
    pub drops_fault: u64,
    /// ECN marks.
    pub ecn_marked: u64,
    /// CNPs sent.
    pub cnp_tx: u64,
    /// Warnings for the user.
    pub warnings: Vec<String>,
    /// Loss-recovery totals over every NIC; `None` unless a selective-repeat transport or a
    /// loss fault is in use.
    pub recovery: Option<crate::nic::recovery_stats::RecoveryCounters>,
    /// The same counters per host (in host order), when `recovery` is given.
    pub recovery_by_host: Vec<crate::nic::recovery_stats::RecoveryCounters>,
    /// Congestion isolation, when some switch isolates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<super::IsolationResults>,
}

/// One NIC's resources: its caches, what their misses stalled, and the pauses it sent.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct NicRow {
    /// Host name.
    pub node: String,
    /// QP-context cache lookups that hit (0 when the cache is not modelled).
    pub qpc_hits: u64,
    /// QP-context cache misses.
    pub qpc_misses: u64,
    /// WQE cache lookups that hit.
    pub wqe_hits: u64,
    /// WQE cache misses.
    pub wqe_misses: u64,
    /// Memory-translation (MTT) cache lookups that hit.
    pub mtt_hits: u64,
    /// MTT cache misses.
    pub mtt_misses: u64,
    /// Time the transmit pipeline was stalled on QPC and WQE misses, ns.
    pub tx_stall_ns: u64,
    /// Time the receive pipeline was stalled on MTT misses, ns.
    pub rx_stall_ns: u64,
    /// Pause frames the NIC sent to its switch (XOFF and refreshes, every priority).
    pub pause_tx: u64,
    /// Time the NIC held its switch paused (the longest over priorities), ns.
    pub pausing_ns: u64,
    /// Time the NIC's own transmitter was paused by its switch (the longest over
    /// priorities), ns.
    pub paused_ns: u64,
    /// Data packets its requester QPs retransmitted.
    pub retx_packets: u64,
    /// Of its retransmissions: data packets sent again because a retransmission timer expired.
    pub retx_timeout: u64,
    /// Data packets sent again because a NACK named them (go-back-N: every packet rewound
    /// over; IRN/SRNIC: the first missing PSN of a NACK).
    pub retx_nack: u64,
    /// Data packets sent again by selective repeat (holes below a selectively acknowledged
    /// PSN; IRN/SRNIC).
    pub retx_selective: u64,
    /// Data packets it received above its QP's cumulative point (out of order).
    pub ooo_rx: u64,
    /// SRNIC: accesses to its receiver bitmaps in host memory (PCIe transactions).
    pub bitmap_host_accesses: u64,
    /// Whether this NIC models its caches (summary.json's `nic` totals); not a column.
    #[serde(skip)]
    pub caches: bool,
}

/// How a run split across threads (`sim.threads`) went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadStats {
    /// Hosts each part simulated.
    pub hosts: Vec<u32>,
    /// Switches each part simulated.
    pub switches: Vec<u32>,
    /// Events each part handled (the events every part handles, such as flow starts, are
    /// counted in part 0 only).
    pub events: Vec<u64>,
    /// The lookahead: the shortest delay of a link across a cut, ns (`None`: no link
    /// crosses one, and the parts ran independently).
    pub lookahead_ns: Option<u64>,
    /// Windows the parts ran (empty stretches are skipped).
    pub windows: u64,
    /// Frames (data and PFC) handed from one part to another.
    pub cut_frames: u64,
    /// Every flow completed before `sim.duration` with `sim.stop_when_done`, so the run
    /// was repeated on one thread (one thread stops at the very event that completes the
    /// last flow; the parts had run to the end of that window).
    pub repeated: bool,
}
