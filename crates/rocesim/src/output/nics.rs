//! nics.csv (one row per NIC: cache hits and misses, pipeline stalls, pauses it sent) and the
//! `nic` totals of summary.json; both only when some NIC models its caches.

use std::io;

use super::json::Json;
use crate::monitor::{NicRow, RunResults};

/// Header of nics.csv.
pub const NICS_HEADER: [&str; 13] = [
    "node",
    "qpc_hits",
    "qpc_misses",
    "wqe_hits",
    "wqe_misses",
    "mtt_hits",
    "mtt_misses",
    "tx_stall_ns",
    "rx_stall_ns",
    "pause_tx",
    "pausing_ns",
    "paused_ns",
    "retx_packets",
];

fn values(n: &NicRow) -> [u64; 12] {
    [
        n.qpc_hits,
        n.qpc_misses,
        n.wqe_hits,
        n.wqe_misses,
        n.mtt_hits,
        n.mtt_misses,
        n.tx_stall_ns,
        n.rx_stall_ns,
        n.pause_tx,
        n.pausing_ns,
        n.paused_ns,
        n.retx_packets,
    ]
}

/// Writes nics.csv.
pub fn write_nics<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = super::tables::writer(w);
    out.write_record(NICS_HEADER)?;
    for n in &results.nics {
        let mut row = vec![n.node.clone()];
        row.extend(values(n).iter().map(u64::to_string));
        out.write_record(row)?;
    }
    out.flush()
}

/// The `nic` object of summary.json: every column of nics.csv summed over the NICs; `None`
/// when no NIC models its caches.
pub(crate) fn nic_totals(results: &RunResults) -> Option<Json> {
    if results.nics.is_empty() {
        return None;
    }
    let mut sum = [0u64; 12];
    for n in &results.nics {
        for (s, v) in sum.iter_mut().zip(values(n)) {
            *s += v;
        }
    }
    let fields = NICS_HEADER[1..].iter().zip(sum);
    Some(Json::obj(fields.map(|(k, v)| (*k, Json::U64(v))).collect()))
}
