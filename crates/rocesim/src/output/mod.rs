//! Result writers: summary.json, CSV tables, report.html, the terminal table.
//!
//! [`write_all`] writes every file of a run into one directory; the layout and every column are
//! documented in `docs/results.md`. All writers are deterministic: identical [`RunResults`] give
//! byte-identical files.

mod failures;
mod fmt;
mod json;
mod metrics;
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

pub use fmt::{fixed, round_sig};
pub use metrics::{
    headline, link_rows, slowdown_by_size, BucketSlowdown, Headline, LinkRow, SizeBucket,
    SIZE_BUCKETS,
};
pub use report::report_html;
pub use summary::{percentile_nearest_rank, summary_json};
pub use tables::{
    write_flows, write_links, write_pfc, write_port_queues, write_ports, write_queues, write_rates,
    write_throughput, FLOWS_HEADER, LINKS_HEADER, PFC_HEADER, PORTS_HEADER, QUEUES_HEADER,
    RATES_HEADER, THROUGHPUT_HEADER,
};
pub use terminal::terminal_table;

/// Writes `summary.json`, `flows.csv`, `ports.csv`, `port_queues.csv`, `links.csv`, `pfc.csv`, `timeseries/throughput.csv`,
/// `timeseries/queues.csv` and, when `report` is true, `report.html` into `dir` (created if
/// missing). Returns the paths written, in that order.
pub fn write_all(results: &RunResults, dir: &Path, report: bool) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir.join("timeseries"))?;
    let mut written = Vec::new();
    let mut file = |name: &str, f: &dyn Fn(&mut dyn Write) -> io::Result<()>| -> io::Result<()> {
        let path = dir.join(name);
        let mut w = BufWriter::new(fs::File::create(&path)?);
        f(&mut w)?;
        w.flush()?;
        written.push(path);
        Ok(())
    };
    file("summary.json", &|w| {
        w.write_all(summary_json(results).as_bytes())
    })?;
    file("flows.csv", &|w| write_flows(results, w))?;
    file("ports.csv", &|w| write_ports(results, w))?;
    file("port_queues.csv", &|w| write_port_queues(results, w))?;
    file("links.csv", &|w| write_links(results, w))?;
    file("pfc.csv", &|w| write_pfc(results, w))?;
    file("timeseries/throughput.csv", &|w| {
        write_throughput(results, w)
    })?;
    file("timeseries/queues.csv", &|w| write_queues(results, w))?;
    file("timeseries/rates.csv", &|w| write_rates(results, w))?;
    file("deadlocks.csv", &|w| failures::write_deadlocks(results, w))?;
    if report {
        file("report.html", &|w| {
            w.write_all(report_html(results).as_bytes())
        })?;
    }
    Ok(written)
}
