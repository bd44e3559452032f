//! CSV tables: flows.csv, ports.csv, links.csv, pfc.csv, pingmesh.csv, timeseries/throughput.csv,
//! timeseries/queues.csv.
//!
//! Every writer takes any `io::Write`, writes a header line even when there are no rows, uses `\n`
//! line ends, empty cells for missing values and fixed-point floats (at most 6 decimals, trailing
//! zeros trimmed), so identical results give byte-identical files.

use std::io;

use crate::monitor::{PfcDir, RunResults};

use super::fmt::fixed;

/// Header of flows.csv: the contract columns, then the byte-accounting extras.
pub const FLOWS_HEADER: [&str; 22] = [
    "flow_id",
    "name",
    "src",
    "dst",
    "size_bytes",
    "start_ns",
    "end_ns",
    "acked_ns",
    "delivered_ns",
    "fct_ns",
    "ideal_fct_ns",
    "slowdown",
    "bytes_delivered",
    "goodput_gbps",
    "goodput_active_gbps",
    "retx_packets",
    "cnp_rx",
    "ecn_marked",
    "tx_bytes",
    "discarded_bytes",
    "dropped_bytes",
    "inflight_bytes",
];

/// Header of tcp_flows.csv (written only when the scenario has TCP flows).
pub const TCP_FLOWS_HEADER: [&str; 7] = [
    "flow_id",
    "name",
    "cc",
    "goodput_gbps",
    "retx_packets",
    "fast_retransmits",
    "timeouts",
];

/// Writes tcp_flows.csv: each TCP flow's loss recovery.
pub fn write_tcp_flows<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(TCP_FLOWS_HEADER)?;
    for f in &results.tcp {
        out.write_record([
            f.flow_id.to_string(),
            f.name.clone(),
            f.cc.clone(),
            fixed(f.goodput_gbps),
            f.retx_packets.to_string(),
            f.fast_retransmits.to_string(),
            f.timeouts.to_string(),
        ])?;
    }
    out.flush()
}

/// Header of ports.csv.
pub const PORTS_HEADER: [&str; 12] = [
    "node",
    "port",
    "peer",
    "prio",
    "tx_packets",
    "tx_bytes",
    "rx_packets",
    "rx_bytes",
    "drops",
    "pause_tx",
    "pause_rx",
    "paused_ns",
];

/// Header of port_queues.csv.
pub const PORT_QUEUES_HEADER: [&str; 6] = [
    "node",
    "port",
    "peer",
    "queue",
    "ecn_marked",
    "max_queue_bytes",
];

/// Header of links.csv.
pub const LINKS_HEADER: [&str; 6] = [
    "node",
    "port",
    "peer",
    "rate_gbps",
    "tx_gbps",
    "utilisation",
];

/// Header of pfc.csv.
pub const PFC_HEADER: [&str; 6] = ["time_ns", "node", "port", "prio", "direction", "quanta"];

/// Header of timeseries/throughput.csv.
pub const THROUGHPUT_HEADER: [&str; 3] = ["time_ns", "flow_id", "gbps"];

/// Header of timeseries/rates.csv.
pub const RATES_HEADER: [&str; 4] = ["time_ns", "flow_id", "rate_gbps", "window_bytes"];

/// Header of timeseries/queues.csv.
pub const QUEUES_HEADER: [&str; 5] = ["time_ns", "node", "port", "queue", "bytes"];

/// Header of pingmesh.csv.
#[cfg_attr(not(test), allow(dead_code))] // the test oracle of the Arrow-built CSV
pub const PINGMESH_HEADER: [&str; 6] = ["time_ns", "src", "dst", "level", "rtt_ns", "error"];

/// Writes pingmesh.csv: one row per probe, in flow order.
#[cfg_attr(not(test), allow(dead_code))] // the test oracle of the Arrow-built CSV
pub fn write_pingmesh<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(PINGMESH_HEADER)?;
    for r in &results.pingmesh {
        out.write_record([
            r.time_ns.to_string(),
            r.src.clone(),
            r.dst.clone(),
            r.level.to_string(),
            opt(r.rtt_ns),
            r.error.unwrap_or_default().to_string(),
        ])?;
    }
    out.flush()
}

pub(super) fn writer<W: io::Write>(w: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(w)
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// Writes flows.csv.
pub fn write_flows<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(FLOWS_HEADER)?;
    for f in results.flows.iter() {
        out.write_record([
            f.flow_id.to_string(),
            f.name.clone(),
            f.src.to_string(),
            f.dst.to_string(),
            opt(f.size_bytes),
            f.start_ns.to_string(),
            opt(f.end_ns),
            opt(f.acked_ns),
            opt(f.delivered_ns),
            opt(f.fct_ns),
            opt(f.ideal_fct_ns),
            f.slowdown.map(fixed).unwrap_or_default(),
            f.bytes_delivered.to_string(),
            fixed(f.goodput_gbps),
            fixed(f.goodput_active_gbps),
            f.retx_packets.to_string(),
            f.cnp_rx.to_string(),
            f.ecn_marked.to_string(),
            f.tx_bytes.to_string(),
            f.discarded_bytes.to_string(),
            f.dropped_bytes.to_string(),
            f.inflight_bytes.to_string(),
        ])?;
    }
    out.flush()
}

/// Writes ports.csv.
pub fn write_ports<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    let iso = results.isolation.is_some();
    if iso {
        out.write_record(PORTS_HEADER.iter().chain(&["cfq"]))?;
    } else {
        out.write_record(PORTS_HEADER)?;
    }
    for p in &results.ports {
        let cfq = super::isolation::is_cfq(results, &p.node, p.prio);
        let extra = iso.then(|| u8::from(cfq).to_string());
        out.write_record(
            [
                p.node.clone(),
                p.port.to_string(),
                p.peer.clone(),
                p.prio.to_string(),
                p.tx_packets.to_string(),
                p.tx_bytes.to_string(),
                p.rx_packets.to_string(),
                p.rx_bytes.to_string(),
                p.drops.to_string(),
                p.pause_tx.to_string(),
                p.pause_rx.to_string(),
                p.paused_ns.to_string(),
            ]
            .into_iter()
            .chain(extra),
        )?;
    }
    out.flush()
}

/// Header of pause_intervals.csv.
pub const PAUSE_INTERVALS_HEADER: [&str; 5] = ["node", "port", "prio", "start_ns", "duration_ns"];

/// Writes pause_intervals.csv.
pub fn write_pause_intervals<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(PAUSE_INTERVALS_HEADER)?;
    for p in &results.pause_intervals {
        out.write_record([
            p.node.clone(),
            p.port.to_string(),
            p.prio.to_string(),
            p.start_ns.to_string(),
            p.duration_ns.to_string(),
        ])?;
    }
    out.flush()
}

/// Writes port_queues.csv.
pub fn write_port_queues<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(PORT_QUEUES_HEADER)?;
    for q in &results.port_queues {
        out.write_record([
            q.node.clone(),
            q.port.to_string(),
            q.peer.clone(),
            q.queue.to_string(),
            q.ecn_marked.to_string(),
            q.max_queue_bytes.to_string(),
        ])?;
    }
    out.flush()
}

/// Writes links.csv: one row per (node, port) of ports.csv with its line rate, its average
/// transmit rate over the whole run and its utilisation (see [`super::link_rows`]).
pub fn write_links<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(LINKS_HEADER)?;
    for l in super::link_rows(results) {
        out.write_record([
            l.node,
            l.port.to_string(),
            l.peer,
            fixed(l.rate_bps as f64 * 1e-9),
            l.tx_gbps.map(fixed).unwrap_or_default(),
            l.utilisation.map(fixed).unwrap_or_default(),
        ])?;
    }
    out.flush()
}

/// `"tx"` or `"rx"`.
pub(crate) fn dir_str(d: PfcDir) -> &'static str {
    match d {
        PfcDir::Tx => "tx",
        PfcDir::Rx => "rx",
    }
}

/// Writes pfc.csv (in log order).
pub fn write_pfc<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(PFC_HEADER)?;
    for r in &results.pfc_log {
        out.write_record([
            r.time_ns.to_string(),
            r.node.clone(),
            r.port.to_string(),
            r.prio.to_string(),
            dir_str(r.direction).to_string(),
            r.quanta.to_string(),
        ])?;
    }
    out.flush()
}

/// Writes timeseries/throughput.csv.
pub fn write_throughput<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(THROUGHPUT_HEADER)?;
    for s in &results.throughput {
        out.write_record([s.time_ns.to_string(), s.flow_id.to_string(), fixed(s.gbps)])?;
    }
    out.flush()
}

/// Writes timeseries/rates.csv: each QP's congestion-control rate and window over time.
pub fn write_rates<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(RATES_HEADER)?;
    for s in &results.rates {
        out.write_record([
            s.time_ns.to_string(),
            s.flow_id.to_string(),
            s.rate_gbps.map(fixed).unwrap_or_default(),
            s.window_bytes.to_string(),
        ])?;
    }
    out.flush()
}

/// Writes timeseries/queues.csv.
pub fn write_queues<W: io::Write>(results: &RunResults, w: W) -> io::Result<()> {
    let mut out = writer(w);
    out.write_record(QUEUES_HEADER)?;
    for s in &results.queues {
        out.write_record([
            s.time_ns.to_string(),
            s.node.clone(),
            s.port.to_string(),
            s.queue.to_string(),
            s.bytes.to_string(),
        ])?;
    }
    out.flush()
}
