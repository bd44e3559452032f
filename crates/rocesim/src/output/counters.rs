//! timeseries/counters.csv: switch counters per (port, priority) over time, with the column
//! names SONiC gives them in COUNTERS_DB (written when `output.counters_interval` is set).

use std::io;

use crate::monitor::RunResults;

use super::tables::writer;

/// Header of timeseries/counters.csv. The per-priority port counters drop the priority from
/// their COUNTERS_DB name (`SAI_PORT_STAT_PFC_3_RX_PKTS` is `SAI_PORT_STAT_PFC_RX_PKTS` on
/// a row with `prio` 3).
pub const COUNTERS_HEADER: [&str; 16] = [
    "time_ns",
    "node",
    "port",
    "peer",
    "prio",
    "queue",
    "SAI_PORT_STAT_PFC_RX_PKTS",
    "SAI_PORT_STAT_PFC_TX_PKTS",
    "SAI_PORT_STAT_PFC_RX_PAUSE_DURATION_US",
    "SAI_QUEUE_STAT_PACKETS",
    "SAI_QUEUE_STAT_BYTES",
    "SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES",
    "SAI_QUEUE_STAT_WATERMARK_BYTES",
    "SAI_INGRESS_PRIORITY_GROUP_STAT_CURR_OCCUPANCY_BYTES",
    "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_CURR_OCCUPANCY_BYTES",
    "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS",
];

/// Writes timeseries/counters.csv: one row per sample and switch (port, priority) that has
/// carried, queued, dropped or paused traffic by then.
pub fn write_counters<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(COUNTERS_HEADER)?;
    for c in &results.counters {
        out.write_record([
            c.time_ns.to_string(),
            c.node.clone(),
            c.port.to_string(),
            c.peer.clone(),
            c.prio.to_string(),
            c.queue.to_string(),
            c.pfc_rx_pkts.to_string(),
            c.pfc_tx_pkts.to_string(),
            c.pfc_rx_pause_duration_us.to_string(),
            c.queue_packets.to_string(),
            c.queue_bytes.to_string(),
            c.queue_curr_occupancy_bytes.to_string(),
            c.queue_watermark_bytes.to_string(),
            c.pg_curr_occupancy_bytes.to_string(),
            c.pg_xoff_room_curr_occupancy_bytes.to_string(),
            c.pg_dropped_packets.to_string(),
        ])?;
    }
    out.flush()
}
