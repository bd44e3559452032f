//! Sweeps from Python, on the library's sweep implementation: the same runs, the same
//! `run-<i>/` directories and the same `sweep.csv` / `sweep.json` as `rocesim sweep`. The local
//! backend runs them on the library's worker threads (the GIL released); the Dask and Ray
//! backends call [`run_one`] on their workers and [`SweepPlan::write_table`] with the rows.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rocesim::config::{self, ConfigError};
use rocesim::output::Headline;
use rocesim::sweep::{self, Row, Runner, Status, Sweep, Table};

use crate::progress::Watch;
use crate::values::to_toml;
use crate::NativeScenarioError;

/// The Python exception for sweep errors (each `file: key: message`).
fn invalid(errs: &[ConfigError]) -> PyErr {
    let lines: Vec<String> = errs.iter().map(ToString::to_string).collect();
    let mut msg: Vec<String> = lines.iter().map(|l| format!("error: {l}")).collect();
    msg.push(format!("{} error(s); nothing was run", lines.len()));
    NativeScenarioError::new_err((msg.join("\n"), lines))
}

/// A checked grid sweep of a base scenario file.
#[pyclass(module = "rocesim._native", frozen)]
pub struct SweepPlan {
    sweep: Sweep,
}

#[pymethods]
impl SweepPlan {
    /// The sweep `name` of `base` over `grid` (a list of `(key, [values])`, the first key
    /// varying slowest), times `seeds` and `repeat`, checked as a sweep file is; the base
    /// scenario must load on its own. `fixed` (`key=value` overrides, as `--set` takes them)
    /// are set in every run: they lead the grid as keys of one value each.
    #[new]
    #[pyo3(signature = (name, base, grid, seeds=None, repeat=None, fixed=Vec::new()))]
    fn new(
        name: &str,
        base: PathBuf,
        grid: Vec<(String, Vec<Bound<'_, PyAny>>)>,
        seeds: Option<Vec<u64>>,
        repeat: Option<u32>,
        fixed: Vec<String>,
    ) -> PyResult<SweepPlan> {
        let mut axes: Vec<(String, Vec<toml::Value>)> = fixed
            .iter()
            .map(|o| {
                let (k, v) = o.split_once('=').unwrap_or((o, ""));
                (
                    k.trim().to_string(),
                    vec![config::overrides::parse_value(v)],
                )
            })
            .collect();
        for (k, vals) in grid {
            let vals = vals
                .iter()
                .map(|v| to_toml(v, &k))
                .collect::<PyResult<Vec<_>>>()?;
            axes.push((k, vals));
        }
        let grid = axes;
        let sweep = Sweep::from_grid(name, &base, grid, seeds, repeat).map_err(|e| invalid(&e))?;
        sweep::check_base(&sweep).map_err(|e| invalid(&e))?;
        Ok(SweepPlan { sweep })
    }

    /// The swept keys (table columns after `run`).
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.sweep.keys.clone()
    }

    /// The base scenario file.
    #[getter]
    fn base(&self) -> PathBuf {
        self.sweep.base.clone()
    }

    /// The `--set` overrides of every run, in run order.
    fn overrides(&self) -> Vec<Vec<String>> {
        self.sweep.overrides()
    }

    /// Loads every run's scenario (on `jobs` threads) and raises when a swept key is not a
    /// scenario key, as `rocesim sweep` does before running anything.
    #[pyo3(signature = (jobs=None))]
    fn check(&self, py: Python<'_>, jobs: Option<usize>) -> PyResult<()> {
        py.detach(|| {
            runner(jobs)?
                .load(&self.sweep)
                .map(|_| ())
                .map_err(|e| invalid(&e))
        })
    }

    /// Runs every run on `jobs` threads (default: all cores) into `dir/run-<i>/`, writes
    /// `dir/sweep.csv` and `dir/sweep.json`, and returns the rows as dicts. `progress(done,
    /// total, 0)` is called now and then; Ctrl-C stops the sweep (running runs end part way,
    /// the others are `not run`, the table is still written) and is raised afterwards.
    #[pyo3(signature = (dir, jobs=None, resume=false, progress=None))]
    fn run_local<'py>(
        &self,
        py: Python<'py>,
        dir: PathBuf,
        jobs: Option<usize>,
        resume: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut watch = Watch::new(progress, 0.2);
        let rows = py.detach(|| self.execute(&dir, jobs, resume, &mut watch))?;
        let dicts = rows
            .iter()
            .map(|r| row_dict(py, r))
            .collect::<PyResult<_>>()?;
        match watch.into_error() {
            Some(e) => Err(e),
            None => Ok(dicts),
        }
    }

    /// Writes `dir/sweep.csv` and `dir/sweep.json` from one row dict per run (as [`run_one`]
    /// returns them), in run order.
    fn write_table(&self, dir: PathBuf, rows: Vec<Bound<'_, PyDict>>) -> PyResult<()> {
        if rows.len() != self.sweep.runs.len() {
            return Err(PyValueError::new_err(format!(
                "{} rows for {} runs",
                rows.len(),
                self.sweep.runs.len()
            )));
        }
        let rows = rows.iter().map(dict_row).collect::<PyResult<Vec<_>>>()?;
        write(&self.sweep, &rows, &dir)
    }
}

impl SweepPlan {
    /// Loads and runs every run on the library's runner while the calling thread watches for
    /// Ctrl-C, then writes the table.
    fn execute(
        &self,
        dir: &Path,
        jobs: Option<usize>,
        resume: bool,
        watch: &mut Watch,
    ) -> PyResult<Vec<Row>> {
        let runner = runner(jobs)?;
        let loaded = runner.load(&self.sweep).map_err(|e| invalid(&e))?;
        std::fs::create_dir_all(dir)
            .map_err(|e| PyOSError::new_err(format!("cannot create {}: {e}", dir.display())))?;
        let stop = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let total = self.sweep.runs.len() as u64;
        let rows = std::thread::scope(|s| {
            let worker = s.spawn(|| {
                let rows = runner.execute(loaded, dir, resume, &stop, &|_, _| {
                    done.fetch_add(1, Ordering::Relaxed);
                });
                done.store(usize::MAX, Ordering::Release);
                rows
            });
            loop {
                let d = done.load(Ordering::Acquire);
                if d == usize::MAX {
                    break;
                }
                if !watch.poll(d as u64, total) {
                    stop.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(watch.interval().min(std::time::Duration::from_millis(50)));
            }
            worker.join()
        });
        let rows = rows.map_err(|_| PyOSError::new_err("the sweep's worker thread panicked"))?;
        write(&self.sweep, &rows, dir)?;
        Ok(rows)
    }
}

/// The library's runner with `jobs` threads (default: all cores).
fn runner(jobs: Option<usize>) -> PyResult<Runner> {
    let jobs = sweep::default_jobs(jobs);
    Runner::new(jobs)
        .map_err(|e| PyOSError::new_err(format!("cannot start {jobs} worker threads: {e}")))
}

/// Writes the sweep table of `rows` into `dir`.
fn write(sw: &Sweep, rows: &[Row], dir: &Path) -> PyResult<()> {
    let table = Table { sweep: sw, rows };
    table.write(dir).map_err(|e| {
        PyOSError::new_err(format!(
            "cannot write the sweep table to {}: {e}",
            dir.display()
        ))
    })
}

/// Runs one run of a sweep: the scenario `base` with `overrides`, into `run_dir` (skipped when
/// `resume` and it holds a complete summary.json). Returns its row as a dict. A failed run is a
/// row with its error, never an exception.
#[pyfunction]
#[pyo3(signature = (base, overrides, run_dir, resume=false))]
pub fn run_one<'py>(
    py: Python<'py>,
    base: PathBuf,
    overrides: Vec<String>,
    run_dir: PathBuf,
    resume: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let row = py.detach(|| {
        let loaded = config::load(&base, &overrides);
        sweep::run_in_dir(loaded, &run_dir, resume, &AtomicBool::new(false))
    });
    row_dict(py, &row)
}

/// `{"status": "ok" | "incomplete" | "not run" | "error: ...", "metrics": {...} | None}`.
fn row_dict<'py>(py: Python<'py>, row: &Row) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("status", row.status.text())?;
    match &row.metrics {
        None => d.set_item("metrics", py.None())?,
        Some(m) => {
            let md = PyDict::new(py);
            md.set_item("sim_time_ns", m.sim_time_ns)?;
            md.set_item("wall_s", m.wall_s)?;
            md.set_item("events", m.events)?;
            md.set_item("total_goodput_gbps", m.total_goodput_gbps)?;
            md.set_item("pause_tx", m.pause_tx)?;
            md.set_item("drops_lossless", m.drops_lossless)?;
            md.set_item("drops_lossy", m.drops_lossy)?;
            md.set_item("ecn_marked", m.ecn_marked)?;
            md.set_item("cnp_tx", m.cnp_tx)?;
            md.set_item("flows", m.flows)?;
            md.set_item("flows_completed", m.flows_completed)?;
            md.set_item("fct_slowdown_p50", m.fct_slowdown_p50)?;
            md.set_item("fct_slowdown_p99", m.fct_slowdown_p99)?;
            d.set_item("metrics", md)?;
        }
    }
    Ok(d)
}

/// The row of a dict made by [`row_dict`].
fn dict_row(d: &Bound<'_, PyDict>) -> PyResult<Row> {
    let get = |k: &str| {
        d.get_item(k)?
            .ok_or_else(|| PyValueError::new_err(format!("row without `{k}`")))
    };
    let text: String = get("status")?.extract()?;
    let status = Status::from_text(&text)
        .ok_or_else(|| PyValueError::new_err(format!("bad status `{text}`")))?;
    let m = get("metrics")?;
    let metrics = if m.is_none() {
        None
    } else {
        let m = m.cast::<PyDict>()?;
        let f = |k: &str| -> PyResult<Bound<'_, PyAny>> {
            m.get_item(k)?
                .ok_or_else(|| PyValueError::new_err(format!("metrics without `{k}`")))
        };
        Some(Headline {
            sim_time_ns: f("sim_time_ns")?.extract()?,
            wall_s: f("wall_s")?.extract()?,
            events: f("events")?.extract()?,
            total_goodput_gbps: f("total_goodput_gbps")?.extract()?,
            pause_tx: f("pause_tx")?.extract()?,
            drops_lossless: f("drops_lossless")?.extract()?,
            drops_lossy: f("drops_lossy")?.extract()?,
            ecn_marked: f("ecn_marked")?.extract()?,
            cnp_tx: f("cnp_tx")?.extract()?,
            flows: f("flows")?.extract()?,
            flows_completed: f("flows_completed")?.extract()?,
            fct_slowdown_p50: f("fct_slowdown_p50")?.extract()?,
            fct_slowdown_p99: f("fct_slowdown_p99")?.extract()?,
        })
    };
    Ok(Row { status, metrics })
}
