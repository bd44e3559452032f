//! Running the runs of a sweep in parallel, each into its own result directory, and what
//! became of each run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::load::Loaded;
use super::resume::completed_run;
use super::spec::Sweep;
use crate::config::{ConfigError, Scenario};
use crate::output::{headline, Headline};

/// What became of one run.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Ran to its end; results written.
    Ok,
    /// Stopped part way (Ctrl-C); partial results written.
    Incomplete,
    /// Not started (the sweep was interrupted).
    NotRun,
    /// Failed: bad scenario after overrides, cannot write results, or an internal error.
    Failed(String),
}

impl Status {
    /// The `status` cell: `ok`, `incomplete`, `not run` or `error: ...`.
    pub fn text(&self) -> String {
        match self {
            Status::Ok => "ok".into(),
            Status::Incomplete => "incomplete".into(),
            Status::NotRun => "not run".into(),
            Status::Failed(m) => format!("error: {m}"),
        }
    }

    /// The status of a `status` cell ([`Status::text`] read back); `None` for other text.
    pub fn from_text(text: &str) -> Option<Status> {
        match text {
            "ok" => Some(Status::Ok),
            "incomplete" => Some(Status::Incomplete),
            "not run" => Some(Status::NotRun),
            t => t
                .strip_prefix("error: ")
                .map(|m| Status::Failed(m.to_string())),
        }
    }
}

/// One row of the sweep table: the outcome of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Outcome.
    pub status: Status,
    /// Headline numbers, when the run produced results.
    pub metrics: Option<Headline>,
}

impl Row {
    /// A row without results.
    fn bare(status: Status) -> Row {
        Row {
            status,
            metrics: None,
        }
    }
}

/// Runs a sweep's runs on a pool of worker threads, one run per thread at a time (each run is
/// single-threaded).
pub struct Runner {
    /// The worker threads.
    pub(crate) pool: rayon::ThreadPool,
    /// Number of worker threads.
    jobs: usize,
}

/// The number of runs at a time for a `--jobs` option: `jobs` when given and positive,
/// otherwise the number of cores.
pub fn default_jobs(jobs: Option<usize>) -> usize {
    jobs.filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl Runner {
    /// A runner with `jobs` worker threads (at least one).
    pub fn new(jobs: usize) -> Result<Runner, rayon::ThreadPoolBuildError> {
        let jobs = jobs.max(1);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
        Ok(Runner { pool, jobs })
    }

    /// Number of runs at a time.
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    /// Runs every run of `sweep` (its scenarios `loaded` by [`Runner::load`]) into
    /// `dir/run-<i>/`, and returns one row per run, in run order whatever the completion order.
    ///
    /// Once `stop` is set, running runs stop part way (`incomplete`, partial results written)
    /// and runs not started are `not run`. With `resume`, a run whose directory already holds a
    /// complete summary.json is not run again: its row is read back from that file. A run that
    /// panics is a failed row, not a failed sweep. `on_done(i, row)` is called as each run ends.
    pub fn execute(
        &self,
        loaded: Vec<Loaded>,
        dir: &Path,
        resume: bool,
        stop: &AtomicBool,
        on_done: &(dyn Fn(usize, &Row) + Sync),
    ) -> Vec<Row> {
        self.pool.install(|| {
            loaded
                .into_par_iter()
                .enumerate()
                .map(|(i, sc)| {
                    let run_dir = dir.join(Sweep::run_dir_name(i));
                    let row = run_in_dir(sc, &run_dir, resume, stop);
                    on_done(i, &row);
                    row
                })
                .collect()
        })
    }
}

/// The row of one run: resumed, not run (stopped), failed to load, or run into `run_dir`. This
/// is what each worker of [`Runner::execute`] does for one run; a distributed runner (the
/// Python package's Dask and Ray backends) calls it once per run on its workers and gathers
/// the rows into the same [`super::Table`].
pub fn run_in_dir(sc: Loaded, run_dir: &Path, resume: bool, stop: &AtomicBool) -> Row {
    if resume && sc.is_ok() {
        if let Some(m) = completed_run(run_dir) {
            return Row {
                status: Status::Ok,
                metrics: Some(m),
            };
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Row::bare(Status::NotRun);
    }
    match sc {
        Err(es) => Row::bare(Status::Failed(join_errors(&es.0))),
        Ok(sc) => {
            catch_unwind(AssertUnwindSafe(|| run_one(sc, run_dir, stop))).unwrap_or_else(|p| {
                Row::bare(Status::Failed(format!(
                    "internal error: {}",
                    panic_text(p.as_ref())
                )))
            })
        }
    }
}

/// `key: message` of each error, joined by `; `.
fn join_errors(errs: &[ConfigError]) -> String {
    errs.iter()
        .map(|e| {
            if e.key.is_empty() {
                e.message.clone()
            } else {
                format!("{}: {}", e.key, e.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Runs one scenario into `dir`.
fn run_one(sc: Scenario, dir: &Path, stop: &AtomicBool) -> Row {
    let report = sc.output.report;
    let format = sc.output.format;
    if let Err(e) = crate::output::prepare_dir(dir) {
        let msg = format!("cannot write results to {}: {e}", dir.display());
        return Row::bare(Status::Failed(msg));
    }
    let results = match crate::run::simulate(sc, |_, _| !stop.load(Ordering::Relaxed)) {
        Ok(r) => r,
        Err(e) => return Row::bare(Status::Failed(e.0.join("; "))),
    };
    let metrics = Some(headline(&results));
    if let Err(e) = crate::output::write_results(&results, dir, report, format) {
        return Row {
            status: Status::Failed(format!("cannot write results to {}: {e}", dir.display())),
            metrics,
        };
    }
    Row {
        status: if results.incomplete {
            Status::Incomplete
        } else {
            Status::Ok
        },
        metrics,
    }
}

/// The text of a panic payload.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
