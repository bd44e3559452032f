//! Failure records in the results: watchdog actions and counters, PFC deadlocks.

use std::io;

use super::json::Json;
use crate::monitor::RunResults;

/// Header of deadlocks.csv.
#[cfg_attr(not(test), allow(dead_code))] // the test oracle of the Arrow-built CSV
pub const DEADLOCKS_HEADER: [&str; 7] = [
    "deadlock",
    "formed_ns",
    "detected_ns",
    "member",
    "node",
    "port",
    "prio",
];

/// summary.json `watchdog`: the actions in time order.
pub(crate) fn watchdog_json(r: &RunResults) -> Json {
    Json::Arr(
        r.watchdog
            .iter()
            .map(|e| {
                Json::obj(vec![
                    ("time_ns", Json::U64(e.time_ns)),
                    ("node", Json::Str(e.node.clone())),
                    ("port", Json::U64(e.port as u64)),
                    ("prio", Json::U64(e.prio as u64)),
                    ("event", Json::Str(e.event.clone())),
                    ("action", Json::Str(e.action.clone())),
                ])
            })
            .collect(),
    )
}

/// summary.json `watchdog_queues` (SONiC counters) and `nic_pause_storms` (mlx5 counters).
pub(crate) fn watchdog_counters_json(r: &RunResults) -> (Json, Json) {
    let queues = r
        .watchdog_queues
        .iter()
        .map(|q| {
            Json::obj(vec![
                ("node", Json::Str(q.node.clone())),
                ("port", Json::U64(q.port as u64)),
                ("queue", Json::U64(q.queue as u64)),
                (
                    "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
                    Json::U64(q.storm_detected),
                ),
                (
                    "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED",
                    Json::U64(q.storm_restored),
                ),
                (
                    "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
                    Json::U64(q.tx_dropped_packets),
                ),
                (
                    "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS",
                    Json::U64(q.rx_dropped_packets),
                ),
            ])
        })
        .collect();
    let nics = r
        .nic_storms
        .iter()
        .map(|n| {
            Json::obj(vec![
                ("node", Json::Str(n.node.clone())),
                (
                    "tx_pause_storm_warning_events",
                    Json::U64(n.tx_pause_storm_warning_events),
                ),
                (
                    "tx_pause_storm_error_events",
                    Json::U64(n.tx_pause_storm_error_events),
                ),
            ])
        })
        .collect();
    (Json::Arr(queues), Json::Arr(nics))
}

/// summary.json `deadlocks`: each cycle with its members and stuck flows.
pub(crate) fn deadlocks_json(r: &RunResults) -> Json {
    Json::Arr(
        r.deadlocks
            .iter()
            .map(|d| {
                let members = d
                    .members
                    .iter()
                    .map(|m| {
                        Json::obj(vec![
                            ("node", Json::Str(m.node.clone())),
                            ("port", Json::U64(m.port as u64)),
                            ("peer", Json::Str(m.peer.clone())),
                            ("prio", Json::U64(m.prio as u64)),
                        ])
                    })
                    .collect();
                Json::obj(vec![
                    ("formed_ns", Json::U64(d.formed_ns)),
                    ("detected_ns", Json::U64(d.detected_ns)),
                    ("length", Json::U64(d.members.len() as u64)),
                    ("members", Json::Arr(members)),
                    (
                        "flows",
                        Json::Arr(d.flows.iter().map(|&f| Json::U64(f as u64)).collect()),
                    ),
                ])
            })
            .collect(),
    )
}

/// Writes deadlocks.csv: one row per cycle member.
#[cfg_attr(not(test), allow(dead_code))] // the test oracle of the Arrow-built CSV
pub fn write_deadlocks<W: io::Write>(r: &RunResults, w: W) -> io::Result<()> {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(w);
    out.write_record(DEADLOCKS_HEADER)?;
    for (i, d) in r.deadlocks.iter().enumerate() {
        for (j, m) in d.members.iter().enumerate() {
            out.write_record([
                i.to_string(),
                d.formed_ns.to_string(),
                d.detected_ns.to_string(),
                j.to_string(),
                m.node.clone(),
                m.port.to_string(),
                m.prio.to_string(),
            ])?;
        }
    }
    out.flush()
}
