//! Every column of every result table, declared once: its name, unit and meaning, as
//! `docs/results.md` lists them. The Arrow schemas ([`super::arrow`]) take their field names from
//! here and carry `unit` and `description` in each field's metadata, so Parquet files describe
//! themselves; tests check the CSV headers and docs/results.md against these declarations.

/// One column of a result table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Column name, as in the CSV header.
    pub name: &'static str,
    /// Unit (`ns`, `bytes`, `Gb/s`, `packets`, ...); empty for names, indices and labels.
    pub unit: &'static str,
    /// What the column means.
    pub description: &'static str,
}

const fn col(name: &'static str, unit: &'static str, description: &'static str) -> Column {
    Column {
        name,
        unit,
        description,
    }
}

/// Columns of `flows.csv`.
pub const FLOWS: &[Column] = &[
    col("flow_id", "", "flow index (0-based, order of `[[flow]]` entries then generated workloads)"),
    col("name", "", "flow name from the scenario, or the id as text"),
    col("src", "", "sender host name"),
    col("dst", "", "receiver host name"),
    col("size_bytes", "bytes", "message size (payload); empty for long-lived flows (`size = \"inf\"`)"),
    col("start_ns", "ns", "when the sender started"),
    col("end_ns", "ns", "when the flow completed: its final ACK reached the sender, which is also what ns-3's FCT measures (= `acked_ns`); empty if not completed"),
    col("acked_ns", "ns", "when the final ACK reached the sender; empty if not completed"),
    col("delivered_ns", "ns", "when the last byte was delivered in order at the receiver (one ACK return trip before `acked_ns`); empty if not delivered"),
    col("fct_ns", "ns", "flow completion time, `end_ns - start_ns`; empty if not completed"),
    col("ideal_fct_ns", "ns", "the FCT on an empty network: the message with all headers at the path's bottleneck line rate, plus the path's base round-trip time"),
    col("slowdown", "×", "`fct_ns / ideal_fct_ns` (≥ 1 in a correct model); empty if not completed"),
    col("bytes_delivered", "bytes", "payload delivered in order to the receiver over the whole run"),
    col("goodput_gbps", "Gb/s", "payload rate delivered over the statistics window `[warmup, end]`"),
    col("goodput_active_gbps", "Gb/s", "the same bytes over the part of the window the flow was active: from its start (or the warm-up, if later) to its completion (or the end). For a flow active only part of the window this is its rate, where `goodput_gbps` reads low"),
    col("retx_packets", "packets", "data packets the sender retransmitted"),
    col("cnp_rx", "packets", "CNPs the sender received"),
    col("ecn_marked", "packets", "data packets that arrived CE-marked at the receiver"),
    col("tx_bytes", "bytes", "payload the sender put on the wire, retransmissions included"),
    col("discarded_bytes", "bytes", "payload the receiver threw away (out of order, duplicate, go-back-0 restart)"),
    col("dropped_bytes", "bytes", "payload dropped in the network, any cause"),
    col("inflight_bytes", "bytes", "payload still in the network when the run ended"),
];

/// Columns of `tcp_flows.csv`.
pub const TCP_FLOWS: &[Column] = &[
    col("flow_id", "", "flow index, as in `flows.csv`"),
    col("name", "", "flow name"),
    col("cc", "", "window algorithm: `newreno`, `cubic` or `dctcp`"),
    col(
        "goodput_gbps",
        "Gb/s",
        "payload delivered in order over the statistics window",
    ),
    col(
        "retx_packets",
        "segments",
        "segments sent again (fast retransmits, partial ACKs, RACK-detected losses, tail loss probes, after timeouts)",
    ),
    col(
        "fast_retransmits",
        "events",
        "fast-recovery episodes: third duplicate ACK outside recovery (RFC 5681 §3.2) or, with `tcp.rack`, a loss RACK detected outside recovery (RFC 8985)",
    ),
    col(
        "timeouts",
        "events",
        "retransmission-timer expiries (RFC 6298); each costs at least `tcp.rto_min`",
    ),
];

/// Columns of `ports.csv`.
pub const PORTS: &[Column] = &[
    col("node", "", "node name"),
    col("port", "", "port index on the node"),
    col("peer", "", "name of the node at the other end of the link"),
    col("prio", "", "priority (traffic class) 0–7"),
    col("tx_packets", "frames", "frames transmitted at this priority (data, ACK, CNP; PFC frames not counted)"),
    col("tx_bytes", "bytes", "wire bytes transmitted"),
    col("rx_packets", "frames", "frames received"),
    col("rx_bytes", "bytes", "wire bytes received"),
    col("drops", "packets", "packets dropped at this port (ingress admission or egress queue limit)"),
    col("pause_tx", "frames", "pause frames this port sent for this priority (XOFF and refreshes; resumes not counted): this node's ingress buffer for the priority was full"),
    col("pause_rx", "frames", "pause frames received on this port for this priority: the peer asked this port to stop"),
    col("paused_ns", "ns", "time this port's egress queue for the priority spent paused"),
];

/// Columns of `port_queues.csv`.
pub const PORT_QUEUES: &[Column] = &[
    col("node", "", "switch name"),
    col("port", "", "port index on the switch"),
    col("peer", "", "name of the node at the other end of the link"),
    col("queue", "", "egress queue 0–7"),
    col("ecn_marked", "packets", "packets CE-marked at this queue"),
    col("max_queue_bytes", "bytes", "peak depth of this queue"),
];

/// Columns of `links.csv`.
pub const LINKS: &[Column] = &[
    col("node", "", "node name"),
    col("port", "", "port index on the node"),
    col("peer", "", "name of the node at the other end of the link"),
    col("rate_gbps", "Gb/s", "line rate of the port"),
    col("tx_gbps", "Gb/s", "wire bits transmitted (all priorities) in the statistics window [warmup, end] divided by its length"),
    col("utilisation", "fraction", "`tx bits / (rate × window)`: 1 means the port transmitted all the window. Empty when the rate or the window is 0"),
];

/// Columns of `pfc.csv`.
pub const PFC: &[Column] = &[
    col(
        "time_ns",
        "ns",
        "when the frame was sent (`tx`) or took effect at the receiver (`rx`)",
    ),
    col("node", "", "the node that sent or received it"),
    col("port", "", "port index on that node"),
    col("prio", "", "priority the frame pauses or resumes"),
    col(
        "direction",
        "",
        "`tx`: this node sent it; `rx`: this node received it",
    ),
    col(
        "quanta",
        "512 bit times",
        "pause duration; `0` is a resume (XON). 65535 quanta are 838.8 µs at 40 Gb/s",
    ),
];

/// Columns of `pause_intervals.csv`.
pub const PAUSE_INTERVALS: &[Column] = &[
    col("node", "", "node name (the paused transmitter)"),
    col("port", "", "port index on the node"),
    col("prio", "", "priority 0–7"),
    col("start_ns", "ns", "when the pause took effect"),
    col("duration_ns", "ns", "how long the priority stayed paused"),
];

/// Columns of `isolation.csv`.
pub const ISOLATION: &[Column] = &[
    col("time_ns", "ns", "when"),
    col("switch", "", "switch name"),
    col("port", "", "port index on the switch: the egress port for `isolate` and `release`, the port toward the upstream switch for `cip_sent` and `cip_received`"),
    col("flow", "", "flow name (or id)"),
    col("event", "", "`isolate` (the flow's packets now go to the congested-flow queue), `cip_sent`, `cip_received` (acknowledgements not listed), `release` (back to the class queue)"),
];

/// Columns of `nics.csv`.
pub const NICS: &[Column] = &[
    col("node", "", "host name"),
    col("qpc_hits", "lookups", "QP-context cache hits: one lookup per data packet the NIC transmits (its requester QP's context) and one per data packet its receive pipeline takes (its responder QP's context); one cache holds both"),
    col("qpc_misses", "lookups", "QP-context cache misses (each fetched over PCIe, `miss_latency`)"),
    col("wqe_hits", "lookups", "WQE cache hits: one lookup per data packet transmitted (its QP's current WQE)"),
    col("wqe_misses", "lookups", "WQE cache misses"),
    col("mtt_hits", "lookups", "memory-translation cache hits: one lookup per page a received data packet's payload touches (one, or two when it straddles a page boundary)"),
    col("mtt_misses", "lookups", "MTT cache misses"),
    col("tx_stall_ns", "ns", "time the transmit pipeline waited for QPC/WQE fetches (`miss_latency` per miss; a QPC and a WQE miss on the same packet add up)"),
    col("rx_stall_ns", "ns", "time the receive pipeline waited for QPC and MTT fetches (`miss_latency` per miss)"),
    col("pause_tx", "frames", "PFC pause frames the NIC sent its switch (XOFF and refreshes, all priorities; the slow-receiver symptom of Guo et al. 2016 §4.4)"),
    col("pausing_ns", "ns", "time the NIC held its switch paused (the longest over priorities; open intervals counted to the end)"),
    col("paused_ns", "ns", "time the NIC's own transmitter was paused by its switch (the longest over priorities)"),
    col("retx_packets", "packets", "data packets its requester QPs retransmitted (the sum of `flows.csv`'s `retx_packets` over the flows it sends)"),
    col("retx_timeout", "packets", "of the data packets it sent again, those resent because a retransmission timer expired (go-back-N's `nic.rto`, IRN's `rto_low`/`rto_high`)"),
    col("retx_nack", "packets", "those resent because a NACK named them (go-back-N: every packet a NAK rewinds over; IRN/SRNIC: the first missing PSN a NACK names)"),
    col("retx_selective", "packets", "those resent by selective repeat (IRN/SRNIC: holes below the highest selectively acknowledged PSN, after the NACK's first)"),
    col("ooo_rx", "packets", "data packets it received above its responder QP's cumulative point (held in the bitmap by IRN/SRNIC, discarded by go-back-N)"),
    col("bitmap_host_accesses", "transactions", "SRNIC: PCIe accesses to its receiver bitmaps in host memory (one per out-of-order packet recorded, one per filled hole that reads the bitmap back); 0 for other transports"),
];

/// Columns of `timeseries/throughput.csv`.
pub const THROUGHPUT: &[Column] = &[
    col("time_ns", "ns", "end of the sample interval"),
    col("flow_id", "", "flow (see `flows.csv`)"),
    col(
        "gbps",
        "Gb/s",
        "payload delivered in order during the interval divided by its length",
    ),
];

/// Columns of `timeseries/queues.csv`.
pub const QUEUES: &[Column] = &[
    col("time_ns", "ns", "sample time"),
    col("node", "", "node name"),
    col("port", "", "port index"),
    col(
        "queue",
        "",
        "egress queue index (the priority's queue after `tc_to_queue`)",
    ),
    col("bytes", "bytes", "bytes queued"),
];

/// Columns of `timeseries/rates.csv`.
pub const RATES: &[Column] = &[
    col("time_ns", "ns", "sample time"),
    col("flow_id", "", "flow (see `flows.csv`)"),
    col(
        "rate_gbps",
        "Gb/s",
        "the algorithm's pacing rate (empty when it does not pace)",
    ),
    col(
        "window_bytes",
        "bytes",
        "the algorithm's window of payload in flight (0 when it has none)",
    ),
];
/// Columns of `deadlocks.csv`: one row per member of each deadlock cycle.
pub const DEADLOCKS: &[Column] = &[
    col(
        "deadlock",
        "",
        "index of the deadlock cycle (0-based, in order of formation)",
    ),
    col("formed_ns", "ns", "when the cycle was first seen"),
    col(
        "detected_ns",
        "ns",
        "when it was reported, after persisting `sim.deadlock_detection`",
    ),
    col(
        "member",
        "",
        "position of this member in the cycle (wait-for order)",
    ),
    col("node", "", "node name"),
    col("port", "", "port index on the node"),
    col("prio", "", "priority 0–7 that is paused"),
];

/// Columns of `pingmesh.csv`: one row per probe.
pub const PINGMESH: &[Column] = &[
    col("time_ns", "ns", "when the probe was posted"),
    col("src", "", "probing server"),
    col("dst", "", "probed server"),
    col("level", "", "`tor`, `podset` or `dc`"),
    col("rtt_ns", "ns", "round-trip time: posting to the final ACK at the prober; empty on an error"),
    col("error", "", "`timeout` (no ACK within the workload's `timeout`), `unfinished` (the run ended before the timeout), or empty"),
];

/// Columns of `timeseries/counters.csv`: SONiC's COUNTERS_DB statistics per switch (port,
/// priority) over time.
pub const COUNTERS: &[Column] = &[
    col("time_ns", "ns", "sample time"),
    col("node", "", "switch name"),
    col("port", "", "port index on the switch"),
    col("peer", "", "node at the other end of the port"),
    col("prio", "", "priority (traffic class; the ingress priority group)"),
    col("queue", "", "egress queue of the priority"),
    col("SAI_PORT_STAT_PFC_RX_PKTS", "frames", "pause frames received for `prio` (quanta > 0; XON frames are not counted, unlike most ASICs)"),
    col("SAI_PORT_STAT_PFC_TX_PKTS", "frames", "pause frames sent for `prio` (XOFF and refreshes, not XON), as `pause_tx` in ports.csv"),
    col("SAI_PORT_STAT_PFC_RX_PAUSE_DURATION_US", "µs", "time the port's egress `prio` was held paused, the pause in progress included (whole µs)"),
    col("SAI_QUEUE_STAT_PACKETS", "frames", "frames the port transmitted at `prio` (data, ACK, CNP; not PFC). When several priorities share a queue, each row counts its own priority's share"),
    col("SAI_QUEUE_STAT_BYTES", "bytes", "wire bytes of those frames"),
    col("SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES", "bytes", "bytes in the egress queue"),
    col("SAI_QUEUE_STAT_WATERMARK_BYTES", "bytes", "peak bytes of the egress queue since the start"),
    col("SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES", "bytes", "bytes the ingress priority group holds (reserved, shared and headroom)"),
    col("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_CURR_OCCUPANCY_BYTES", "bytes", "headroom bytes it holds (what arrived after XOFF)"),
    col("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", "packets", "packets dropped at admission on this ingress port and priority (lossless drops when headroom is exhausted, lossy drops at the queue limit)"),
];
