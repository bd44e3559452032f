//! Result writers: summary.json, CSV tables, report.html, the terminal table.
//!
//! [`write_all`] writes every file of a run into one directory; the layout and every column are
//! documented in `docs/results.md`. All writers are deterministic: identical [`RunResults`] give
//! byte-identical files.

pub mod arrow;
#[cfg(test)]
mod arrow_tests;
mod axis;
pub mod columns;
mod counters;
mod failures;
mod flow_stats;
mod fmt;
mod isolation;
mod json;
mod metrics;
mod nics;
mod pause_chart;
mod quantiles;
mod report;
mod summary;
mod svg;
mod table_files;
mod tables;
mod terminal;
mod timeline;

#[cfg(test)]
mod tests;

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::config::TableFormat;
use crate::monitor::{FlowResult, RunResults};

pub use counters::{write_counters, COUNTERS_HEADER};
pub use fmt::{fixed, round_sig};
pub use isolation::{write_isolation, ISOLATION_HEADER};
pub use metrics::{
    headline, link_rows, slowdown_by_size, BucketSlowdown, Headline, LinkRow, SizeBucket,
    SIZE_BUCKETS,
};
pub use nics::{write_nics, NICS_HEADER};
pub use report::report_html;
pub use summary::{percentile_nearest_rank, summary_json, write_summary};
pub use table_files::{write_csv, write_parquet};
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

/// The Parquet twin of CSV result file `name` (`flows.csv` → `flows.parquet`); `None` for the
/// files that are not tables (summary.json, report.html).
pub fn parquet_name(name: &str) -> Option<String> {
    name.strip_suffix(".csv")
        .map(|base| format!("{base}.parquet"))
}

/// Make `dir` ready for a run's results before the run starts: create it, check that files
/// can be written there, and delete the result files an earlier run left (only the names in
/// [`RESULT_FILES`] and [`OPTIONAL_FILES`] and their `.parquet` twins, so `--out .` is safe),
/// so that no stale file sits beside new ones.
pub fn prepare_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir.join("timeseries"))?;
    let names = RESULT_FILES.iter().chain(&OPTIONAL_FILES);
    for name in names.flat_map(|n| std::iter::once(n.to_string()).chain(parquet_name(n))) {
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

/// Writes every CSV file of [`RESULT_FILES`] into `dir`; see [`write_results`].
pub fn write_all(results: &RunResults, dir: &Path, report: bool) -> io::Result<Vec<PathBuf>> {
    write_results(results, dir, report, TableFormat::Csv)
}

/// True when result file `name` (as in [`RESULT_FILES`] or [`OPTIONAL_FILES`]) is written for
/// `results`: `nics.csv` only when some NIC models its caches or loss recovery is in use,
/// `pingmesh.csv` only when the run had probes, `tcp_flows.csv` only with TCP flows,
/// `isolation.csv` only with congestion isolation, `timeseries/counters.csv` only with
/// `output.counters_interval`, `report.html` only when `report` is true.
fn is_written(results: &RunResults, name: &str, report: bool) -> bool {
    match name {
        "report.html" => report,
        "nics.csv" => !results.nics.is_empty(),
        "pingmesh.csv" => !results.pingmesh.is_empty(),
        "tcp_flows.csv" => !results.tcp.is_empty(),
        "isolation.csv" => results.isolation.is_some(),
        "timeseries/counters.csv" => !results.counters.is_empty(),
        _ => true,
    }
}

/// Writes every file of [`RESULT_FILES`] and [`OPTIONAL_FILES`] that the run has into `dir`
/// (created if missing), the tables as CSV, Parquet or both as `format` says (Parquet files
/// are named like the CSV files with `.parquet`). Every table is built once as an Arrow record
/// batch ([`arrow::arrow_tables`]) and written from it. Returns the paths written, in order.
pub fn write_results(
    results: &RunResults,
    dir: &Path,
    report: bool,
    format: TableFormat,
) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir.join("timeseries"))?;
    let stats = flow_stats::flow_stats(results);
    let mut written = Vec::new();
    for name in RESULT_FILES.iter().chain(&OPTIONAL_FILES) {
        if !is_written(results, name, report) {
            continue;
        }
        if *name == "flows.csv" {
            written.extend(write_flow_files(results, dir, format)?);
            continue;
        }
        // One table at a time, dropped once written: a million flows' batch is not held
        // while the other files are written.
        let table = (arrow::ARROW_TABLES.iter()).find(|(_, file)| file == name);
        let batch = table
            .map(|&(t, _)| arrow::arrow_table(results, t).map_err(io::Error::other))
            .transpose()?;
        let Some(batch) = batch.as_ref() else {
            // summary.json and report.html
            written.push(create(dir, name, |w| match *name {
                "summary.json" => summary::write_summary_with(results, &stats, w),
                "report.html" => w.write_all(report::report_html_with(results, &stats).as_bytes()),
                _ => write_file(results, name, w),
            })?);
            continue;
        };
        if format.csv() {
            written.push(create(dir, name, |w| {
                write_csv_table(results, name, batch, w)
            })?);
        }
        if let Some(pq) = parquet_name(name).filter(|_| format.parquet()) {
            written.push(create(dir, &pq, |w| table_files::write_parquet(batch, w))?);
        }
    }
    Ok(written)
}

/// Writes flows.csv and flows.parquet a chunk of rows at a time ([`arrow::CSV_FLOW_CHUNK`],
/// [`arrow::FLOW_CHUNK`]), so
/// a run of millions of flows never holds its whole table (rows or columns) in memory. A run
/// of at most one chunk's flows writes its table as one batch. Returns the paths written.
fn write_flow_files(
    results: &RunResults,
    dir: &Path,
    format: TableFormat,
) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    if format.csv() {
        written.push(create(dir, "flows.csv", |w| {
            table_files::write_csv_chunks(flow_batches(results, arrow::CSV_FLOW_CHUNK), w)
        })?);
    }
    if format.parquet() {
        written.push(create(dir, "flows.parquet", |w| {
            table_files::write_parquet_chunks(flow_batches(results, arrow::FLOW_CHUNK), w)
        })?);
    }
    Ok(written)
}

/// flows.csv's rows as batches of `chunk` rows (one empty batch without flows).
fn flow_batches(
    results: &RunResults,
    chunk: usize,
) -> impl Iterator<Item = io::Result<arrow_array::RecordBatch>> + '_ {
    let mut all = results.flows.iter();
    let mut first = true;
    std::iter::from_fn(move || {
        let rows: Vec<FlowResult> = (all.by_ref().take(chunk))
            .map(std::borrow::Cow::into_owned)
            .collect();
        let give = first || !rows.is_empty();
        first = false;
        give.then(|| arrow::flow_rows(&rows).map_err(io::Error::other))
    })
}

/// Creates `dir/name` and fills it with `fill`; returns its path.
fn create(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> io::Result<PathBuf> {
    let path = dir.join(name);
    let mut w = BufWriter::new(fs::File::create(&path)?);
    fill(&mut w)?;
    w.flush()?;
    Ok(path)
}

/// Writes CSV table `name` from its batch; ports.csv with congestion isolation keeps its own
/// writer for the `cfq` column, which the Arrow table does not carry.
fn write_csv_table(
    results: &RunResults,
    name: &str,
    batch: &arrow_array::RecordBatch,
    w: &mut dyn Write,
) -> io::Result<()> {
    if name == "ports.csv" && results.isolation.is_some() {
        return write_ports(results, w);
    }
    table_files::write_csv(batch, w)
}

/// Write result file `name` of `results` to `w` (`name` as in [`RESULT_FILES`] or
/// [`OPTIONAL_FILES`]); tables are written from their Arrow batch.
pub fn write_file(results: &RunResults, name: &str, w: &mut dyn Write) -> io::Result<()> {
    match name {
        "summary.json" => write_summary(results, w),
        "report.html" => w.write_all(report_html(results).as_bytes()),
        _ => {
            let Some(&(table, _)) = arrow::ARROW_TABLES.iter().find(|(_, f)| *f == name) else {
                return Err(io::Error::other(format!("unknown result file {name}")));
            };
            let batch = arrow::arrow_table(results, table).map_err(io::Error::other)?;
            write_csv_table(results, name, &batch, w)
        }
    }
}
