//! nics.csv (one row per NIC: cache hits and misses, pipeline stalls, pauses it sent, loss
//! recovery), written when some NIC models its caches or loss recovery is in use, and the
//! `nic` totals of summary.json, only when some NIC models its caches (the recovery totals
//! are summary.json's `transport` object).

use std::io;

use super::json::Json;
use crate::monitor::{NicRow, RunResults};

/// Header of nics.csv.
pub const NICS_HEADER: [&str; 18] = [
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
    "retx_timeout",
    "retx_nack",
    "retx_selective",
    "ooo_rx",
    "bitmap_host_accesses",
];

/// Columns of nics.csv that summary.json's `nic` object totals (the resource columns; the
/// recovery columns are totalled in `transport`).
const RESOURCE_COLUMNS: usize = 12;

fn values(n: &NicRow) -> [u64; 17] {
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
        n.retx_timeout,
        n.retx_nack,
        n.retx_selective,
        n.ooo_rx,
        n.bitmap_host_accesses,
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

/// The `nic` object of summary.json: the resource columns of nics.csv (caches, stalls,
/// pauses, `retx_packets`) summed over the NICs; `None` when no NIC models its caches.
pub(crate) fn nic_totals(results: &RunResults) -> Option<Json> {
    if !results.nics.iter().any(|n| n.caches) {
        return None;
    }
    let mut sum = [0u64; RESOURCE_COLUMNS];
    for n in &results.nics {
        for (s, v) in sum.iter_mut().zip(values(n)) {
            *s += v;
        }
    }
    let fields = NICS_HEADER[1..].iter().zip(sum);
    Some(Json::obj(fields.map(|(k, v)| (*k, Json::U64(v))).collect()))
}
