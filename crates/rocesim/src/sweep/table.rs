//! The sweep table: one row per run with its swept values, status and headline numbers, as
//! `sweep.csv`, records for programs, and a compact table for the terminal.

use std::io;
use std::path::Path;

use toml::Value;

use super::execute::{Row, Status};
use super::spec::{cell_text, Sweep};
use crate::output::{fixed, Headline};

/// Metric columns of `sweep.csv`, after the run index, the swept keys, `status` and `dir`.
pub const METRIC_COLUMNS: [&str; 13] = [
    "sim_time_ns",
    "wall_s",
    "events",
    "total_goodput_gbps",
    "pause_tx",
    "drops_lossless",
    "drops_lossy",
    "ecn_marked",
    "cnp_tx",
    "flows",
    "flows_completed",
    "fct_slowdown_p50",
    "fct_slowdown_p99",
];

/// The sweep table: the runs with their keys, status and headline numbers.
pub struct Table<'a> {
    /// The sweep.
    pub sweep: &'a Sweep,
    /// One row per run, in run order.
    pub rows: &'a [Row],
}

/// One run of the table, owned: its parameters and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Run index.
    pub run: usize,
    /// The swept keys this run sets, with their values, in column order.
    pub overrides: Vec<(String, Value)>,
    /// Repetition index, when the sweep has `repeat`.
    pub repeat: Option<u32>,
    /// Outcome (a failed run carries its error).
    pub status: Status,
    /// The run's result directory, relative to the sweep's: `run-<i>`.
    pub dir: String,
    /// Headline numbers, when the run produced results.
    pub metrics: Option<Headline>,
}

impl Table<'_> {
    /// Number of runs that ended `ok`.
    pub fn ok(&self) -> usize {
        self.rows.iter().filter(|r| r.status == Status::Ok).count()
    }

    /// Number of runs that failed.
    pub fn failed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.status, Status::Failed(_)))
            .count()
    }

    /// One [`Record`] per run, in run order.
    pub fn records(&self) -> Vec<Record> {
        let keys = &self.sweep.keys;
        self.sweep
            .runs
            .iter()
            .zip(self.rows)
            .enumerate()
            .map(|(i, (spec, row))| Record {
                run: i,
                overrides: keys
                    .iter()
                    .zip(&spec.values)
                    .filter_map(|(k, v)| Some((k.clone(), v.clone()?)))
                    .collect(),
                repeat: self.sweep.repeat.map(|_| spec.rep),
                status: row.status.clone(),
                dir: Sweep::run_dir_name(i),
                metrics: row.metrics.clone(),
            })
            .collect()
    }

    /// Writes `dir/sweep.csv` and `dir/sweep.json`.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        std::fs::File::create(dir.join("sweep.csv"))
            .and_then(|f| self.write_csv(io::BufWriter::new(f)))?;
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        std::fs::write(dir.join("sweep.json"), text + "\n")
    }

    /// The first columns of a row: run index, swept values (`missing` when a run does not set
    /// a key) and, with `repeat`, the repetition.
    fn lead_cells(&self, i: usize, missing: &str) -> Vec<String> {
        let spec = &self.sweep.runs[i];
        let mut r = vec![i.to_string()];
        r.extend(
            spec.values
                .iter()
                .map(|v| v.as_ref().map_or(missing.into(), cell_text)),
        );
        if self.sweep.repeat.is_some() {
            r.push(spec.rep.to_string());
        }
        r
    }

    /// The first column names: `run`, the swept keys and, with `repeat`, `repeat`.
    fn lead_header(&self) -> Vec<String> {
        let mut h = vec!["run".to_string()];
        h.extend(self.sweep.keys.iter().cloned());
        if self.sweep.repeat.is_some() {
            h.push("repeat".into());
        }
        h
    }

    /// Column names of sweep.csv.
    pub fn header(&self) -> Vec<String> {
        let mut h = self.lead_header();
        h.push("status".into());
        h.push("dir".into());
        h.extend(METRIC_COLUMNS.iter().map(|s| s.to_string()));
        h
    }

    /// Writes sweep.csv.
    pub fn write_csv<W: io::Write>(&self, w: W) -> io::Result<()> {
        let mut out = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(w);
        out.write_record(self.header())?;
        for (i, row) in self.rows.iter().enumerate().take(self.sweep.runs.len()) {
            let mut rec = self.lead_cells(i, "");
            rec.push(row.status.text());
            rec.push(Sweep::run_dir_name(i));
            rec.extend(metric_cells(row.metrics.as_ref()));
            out.write_record(rec)?;
        }
        out.flush()
    }

    /// A compact table for the terminal: run, swept values, status, goodput, lossless drops,
    /// pauses and p99 slowdown.
    pub fn terminal(&self) -> String {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = self.lead_header();
        head.extend(
            [
                "status",
                "goodput Gb/s",
                "lossless drops",
                "pauses",
                "p99 slowdown",
            ]
            .map(String::from),
        );
        rows.push(head);
        for (i, row) in self.rows.iter().enumerate().take(self.sweep.runs.len()) {
            let mut r = self.lead_cells(i, "-");
            let mut status = row.status.text();
            if status.chars().count() > 40 {
                status = status.chars().take(39).collect::<String>() + "…";
            }
            r.push(status);
            r.extend(terminal_metrics(row.metrics.as_ref()));
            rows.push(r);
        }
        aligned(&rows)
    }
}

/// The metric cells of a sweep.csv row (empty when the run has no results).
fn metric_cells(m: Option<&Headline>) -> Vec<String> {
    let Some(m) = m else {
        return vec![String::new(); METRIC_COLUMNS.len()];
    };
    let opt = |x: Option<f64>| x.map(fixed).unwrap_or_default();
    vec![
        m.sim_time_ns.to_string(),
        fixed(m.wall_s),
        m.events.to_string(),
        fixed(m.total_goodput_gbps),
        m.pause_tx.to_string(),
        m.drops_lossless.to_string(),
        m.drops_lossy.to_string(),
        m.ecn_marked.to_string(),
        m.cnp_tx.to_string(),
        m.flows.to_string(),
        m.flows_completed.to_string(),
        opt(m.fct_slowdown_p50),
        opt(m.fct_slowdown_p99),
    ]
}

/// The metric cells of a terminal row: goodput, lossless drops, pauses, p99 slowdown.
fn terminal_metrics(m: Option<&Headline>) -> Vec<String> {
    match m {
        Some(m) => vec![
            format!("{:.2}", m.total_goodput_gbps),
            m.drops_lossless.to_string(),
            m.pause_tx.to_string(),
            m.fct_slowdown_p99.map_or("-".into(), |v| format!("{v:.2}")),
        ],
        None => ["-", "-", "-", "-"].map(String::from).to_vec(),
    }
}

/// Rows as left-aligned columns two spaces apart, trailing blanks trimmed.
fn aligned(rows: &[Vec<String>]) -> String {
    let ncol = rows[0].len();
    let widths: Vec<usize> = (0..ncol)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, x)| format!("{x:<w$}", w = widths[c]))
            .collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    s
}
