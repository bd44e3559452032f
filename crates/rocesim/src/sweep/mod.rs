//! Sweeps: run one base scenario many times with different overrides, in parallel, and
//! tabulate the headline numbers of every run (see docs/sweeps.md).
//!
//! A sweep file names a base scenario and either a `[grid]` (key → list of values; the runs are
//! the Cartesian product, the first key varying slowest) or a list of `[[run]]` tables (key →
//! value), optionally multiplied by `seeds` (sets `sim.seed`) and `repeat`. Every run writes the
//! normal result files into `DIR/run-<i>/`; the sweep writes `DIR/sweep.csv` and
//! `DIR/sweep.json` with one row per run, in run order whatever the completion order.
//!
//! The stages, as `rocesim sweep` calls them: [`parse_file`] (or [`Sweep::from_grid`] in
//! code), [`check_base`], [`Runner::load`], [`Runner::execute`], [`Table::write`]. [`run`] does
//! them all in one call and returns the table.

mod axes;
mod execute;
mod json;
mod load;
mod parse;
mod resume;
mod spec;
mod table;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub use execute::{default_jobs, run_in_dir, Row, Runner, Status};
pub use load::{check_base, Loaded};
pub use parse::{parse_file, parse_str};
pub use resume::completed_run;
pub use spec::{cell_text, RunSpec, Sweep, MAX_RUNS, SWEEP_KEYS};
pub use table::{Record, Table, METRIC_COLUMNS};

use crate::config::ConfigError;

/// How [`run`] runs a sweep.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Runs at the same time; `None` or 0: the number of cores.
    pub jobs: Option<usize>,
    /// Result directory (`run-<i>/`, `sweep.csv`, `sweep.json`); `None`:
    /// `results/sweeps/<sweep name>`.
    pub out: Option<PathBuf>,
    /// Skip the runs whose directory already holds a complete summary.json (see
    /// [`completed_run`]).
    pub resume: bool,
}

/// Why a sweep could not be run at all (a failed run is a row of the table, not an error).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The sweep is bad (nothing was run): every error, each naming the file and the key.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<ConfigError>),
    /// The worker threads could not be started.
    #[error("cannot start {jobs} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        jobs: usize,
        /// Why not.
        message: String,
    },
    /// A result directory or the table could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A finished sweep: the sweep, one row per run, and how it ran.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The sweep.
    pub sweep: Sweep,
    /// One row per run, in run order.
    pub rows: Vec<Row>,
    /// Where the results are.
    pub dir: PathBuf,
    /// Wall time of all the runs, seconds.
    pub wall_s: f64,
    /// Runs at a time.
    pub jobs: usize,
}

impl Outcome {
    /// The table of the runs (see [`Table::records`] for one record per run).
    pub fn table(&self) -> Table<'_> {
        Table {
            sweep: &self.sweep,
            rows: &self.rows,
        }
    }
}

impl Sweep {
    /// The default result directory: `results/sweeps/<name>`.
    pub fn default_dir(&self) -> PathBuf {
        PathBuf::from("results/sweeps").join(&self.name)
    }
}

/// Runs a whole sweep: checks the base scenario and every run's keys, runs the runs on
/// `options.jobs` threads into `DIR/run-<i>/`, and writes `DIR/sweep.csv` and
/// `DIR/sweep.json`. Setting `stop` interrupts it (see [`Runner::execute`]); the table is still
/// written and returned.
pub fn run(sweep: Sweep, options: &Options, stop: &AtomicBool) -> Result<Outcome, Error> {
    check_base(&sweep).map_err(Error::Invalid)?;
    let jobs = default_jobs(options.jobs);
    let runner = Runner::new(jobs).map_err(|e| Error::Threads {
        jobs,
        message: e.to_string(),
    })?;
    let dir = options.out.clone().unwrap_or_else(|| sweep.default_dir());
    let loaded = runner.load(&sweep).map_err(Error::Invalid)?;
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let started = Instant::now();
    let rows = runner.execute(loaded, &dir, options.resume, stop, &|_, _| {});
    let outcome = Outcome {
        sweep,
        rows,
        dir,
        wall_s: started.elapsed().as_secs_f64(),
        jobs: runner.jobs(),
    };
    outcome
        .table()
        .write(&outcome.dir)
        .map_err(io(&outcome.dir))?;
    Ok(outcome)
}
