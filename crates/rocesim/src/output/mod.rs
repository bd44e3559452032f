//! Result writers: summary.json, CSV tables, report.html, the terminal table.
//!
//! [`write_all`] writes every file of a run into one directory; the layout and every column are
//! documented in `docs/results.md`. All writers are deterministic: identical [`RunResults`] give
//! byte-identical files.

#[cfg(feature = "arrow")]
pub mod arrow;
#[cfg(all(test, feature = "arrow"))]
mod arrow_tests;
mod counters;
mod failures;
mod fmt;
mod isolation;
mod json;
mod metrics;
mod nics;
mod pause_chart;
mod report;
mod summary;
mod svg;
mod tables;
mod terminal;
mod timeline;

#[cfg(test)]
mod tests;

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::monitor::RunResults;

pub use counters::{write_counters, COUNTERS_HEADER};
pub use fmt::{fixed, round_sig};
pub use isolation::{write_isolation, ISOLATION_HEADER};
pub use metrics::{
    headline, link_rows, slowdown_by_size, BucketSlowdown, Headline, LinkRow, SizeBucket,
    SIZE_BUCKETS,
};
pub use nics::{write_nics, NICS_HEADER};
pub use report::report_html;
pub use summary::{percentile_nearest_rank, summary_json};
pub use tables::{
    write_flows, write_links, write_pause_intervals, write_pfc, write_port_queues, write_ports,
    write_queues, write_rates, write_tcp_flows, write_throughput, FLOWS_HEADER, LINKS_HEADER,
    PFC_HEADER, PORTS_HEADER, QUEUES_HEADER, RATES_HEADER, TCP_FLOWS_HEADER, THROUGHPUT_HEADER,
};
pub use terminal::terminal_table;

/// Every file a run writes, relative to its result directory, in the order [`write_all`]
/// writes them (`report.html` only when the report is on).
pub const RESULT_FILES: [&str; 14] = [
    "summary.json",
    "flows.csv",
    "ports.csv",
    "port_queues.csv",
    "links.csv",
    "pfc.csv",
    "pause_intervals.csv",
    "timeseries/throughput.csv",
    "timeseries/queues.csv",
    "timeseries/rates.csv",
    "deadlocks.csv",
    "nics.csv",
    "pingmesh.csv",
    "report.html",
];

/// Result files written only when their feature is on (`tcp_flows.csv`: a scenario with
/// TCP flows; `isolation.csv`: congestion isolation on; `timeseries/counters.csv`:
/// `output.counters_interval` set).
pub const OPTIONAL_FILES: [&str; 3] = ["tcp_flows.csv", "isolation.csv", "timeseries/counters.csv"];

/// Make `dir` ready for a run's results before the run starts: create it, check that files
/// can be written there, and delete the result files an earlier run left (only the names in
/// [`RESULT_FILES`], so `--out .` is safe), so that no stale file sits beside new ones.
pub fn prepare_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir.join("timeseries"))?;
    for name in RESULT_FILES.iter().chain(&OPTIONAL_FILES) {
        match fs::remove_file(dir.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    let probe = dir.join(".rocesim-write-test");
    fs::write(&probe, b"")?;
    fs::remove_file(probe)
}

/// Writes every file of [`RESULT_FILES`] into `dir` (created if missing; `report.html` only
/// when `report` is true, `nics.csv` only when some NIC models its caches or loss recovery is in use, `pingmesh.csv` only
/// when the run had probes). Returns the paths
/// written, in that order.
pub fn write_all(results: &RunResults, dir: &Path, report: bool) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir.join("timeseries"))?;
    let mut written = Vec::new();
    for name in RESULT_FILES {
        if (name == "report.html" && !report)
            || (name == "nics.csv" && results.nics.is_empty())
            || (name == "pingmesh.csv" && results.pingmesh.is_empty())
        {
            continue;
        }
        let path = dir.join(name);
        let mut w = BufWriter::new(fs::File::create(&path)?);
        write_file(results, name, &mut w)?;
        w.flush()?;
        written.push(path);
    }
    if let Some(iso) = &results.isolation {
        let path = dir.join("isolation.csv");
        let mut w = BufWriter::new(fs::File::create(&path)?);
        isolation::write_isolation(iso, &mut w)?;
        w.flush()?;
        written.push(path);
    }
    if !results.tcp.is_empty() {
        let path = dir.join("tcp_flows.csv");
        let mut w = BufWriter::new(fs::File::create(&path)?);
        write_tcp_flows(results, &mut w)?;
        w.flush()?;
        written.push(path);
    }
    if !results.counters.is_empty() {
        let path = dir.join("timeseries/counters.csv");
        let mut w = BufWriter::new(fs::File::create(&path)?);
        write_counters(results, &mut w)?;
        w.flush()?;
        written.push(path);
    }
    Ok(written)
}

/// Write result file `name` of `results` to `w` (`name` as in [`RESULT_FILES`]).
pub fn write_file(results: &RunResults, name: &str, w: &mut dyn Write) -> io::Result<()> {
    match name {
        "summary.json" => w.write_all(summary_json(results).as_bytes()),
        "flows.csv" => write_flows(results, w),
        "ports.csv" => write_ports(results, w),
        "port_queues.csv" => write_port_queues(results, w),
        "links.csv" => write_links(results, w),
        "pfc.csv" => write_pfc(results, w),
        "pause_intervals.csv" => write_pause_intervals(results, w),
        "timeseries/throughput.csv" => write_throughput(results, w),
        "timeseries/queues.csv" => write_queues(results, w),
        "timeseries/rates.csv" => write_rates(results, w),
        "deadlocks.csv" => failures::write_deadlocks(results, w),
        "nics.csv" => write_nics(results, w),
        "pingmesh.csv" => tables::write_pingmesh(results, w),
        "report.html" => w.write_all(report_html(results).as_bytes()),
        other => Err(io::Error::other(format!("unknown result file {other}"))),
    }
}
