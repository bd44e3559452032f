//! Congestion isolation in the result files (only when some switch isolates): the
//! `isolation` object of `summary.json`, the `cfq` column of `ports.csv`, and
//! `isolation.csv`.

use std::io;

use super::json::Json;
use crate::monitor::{IsolationResults, RunResults};

/// Header of isolation.csv.
pub const ISOLATION_HEADER: [&str; 5] = ["time_ns", "switch", "port", "flow", "event"];

/// Writes isolation.csv: one row per isolation event, in time order.
pub fn write_isolation<W: io::Write>(iso: &IsolationResults, w: W) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(ISOLATION_HEADER)?;
    for e in &iso.events {
        out.write_record([
            e.time_ns.to_string(),
            e.switch.clone(),
            e.port.to_string(),
            e.flow.clone(),
            e.event.to_string(),
        ])?;
    }
    out.flush()
}

/// The `isolation` object of summary.json.
pub(crate) fn isolation_json(iso: &IsolationResults) -> Json {
    let c = &iso.counters;
    Json::obj(vec![
        ("isolated", Json::U64(c.isolated)),
        ("released", Json::U64(c.released)),
        ("cip_tx", Json::U64(c.cip_tx)),
        ("cip_rx", Json::U64(c.cip_rx)),
        ("table_full", Json::U64(c.table_full)),
        ("out_of_order", Json::U64(c.out_of_order)),
        ("pause_tx_cfq", Json::U64(iso.pause_tx_cfq)),
        ("pause_tx_other", Json::U64(iso.pause_tx_other)),
        ("pause_rx_hosts", Json::U64(iso.pause_rx_hosts)),
        ("qp_moved", Json::U64(c.qp_moved)),
        ("qp_returned", Json::U64(c.qp_returned)),
    ])
}

/// Is priority `prio` of node `node` a congested-flow queue's priority?
pub fn is_cfq(results: &RunResults, node: &str, prio: u8) -> bool {
    results
        .isolation
        .as_ref()
        .is_some_and(|iso| iso.cfq_prios.iter().any(|(n, p)| n == node && *p == prio))
}
