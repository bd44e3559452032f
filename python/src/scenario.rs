//! Checking and running one scenario, and its results as seen from Python.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use rocesim::config::TableFormat;
use rocesim::config::{self, error::collapse, Scenario};
use rocesim::monitor::RunResults;
use rocesim::output::arrow::arrow_tables;
use rocesim::Sim;

use crate::arrow_export::ArrowTable;
use crate::progress::Watch;
use crate::NativeScenarioError;

/// Every finding of a scenario that cannot be run, as the command line prints them: the lines
/// (each `file: key: message`) and the same lines collapsed as `rocesim run` collapses them.
pub struct Findings {
    file: String,
    lines: Vec<String>,
}

impl Findings {
    /// The Python exception: `NativeScenarioError(message, lines)`, the message as the command
    /// line prints it (`error: ...` lines, then the count).
    pub fn into_err(self) -> PyErr {
        let mut msg: Vec<String> = collapse(&self.lines)
            .into_iter()
            .map(|l| format!("error: {l}"))
            .collect();
        msg.push(format!(
            "{}: {} error(s); nothing was run",
            self.file,
            self.lines.len()
        ));
        NativeScenarioError::new_err((msg.join("\n"), self.lines))
    }
}

/// Loads the scenario `text` (named `file_name`, relative paths from `base_dir`) with
/// `overrides`, as `rocesim run FILE --set ...` does.
fn load(
    text: &str,
    file_name: &str,
    base_dir: &str,
    overrides: &[String],
) -> Result<Scenario, Findings> {
    config::load_str(text, file_name, Path::new(base_dir), overrides).map_err(|errs| Findings {
        file: file_name.to_string(),
        lines: errs.0.iter().map(ToString::to_string).collect(),
    })
}

/// Builds the simulator; a scenario that cannot be built (e.g. headroom larger than a buffer)
/// gives findings as `rocesim lint` prints them.
fn build(sc: Scenario, file_name: &str) -> Result<Sim, Findings> {
    Sim::new(sc).map_err(|e| Findings {
        file: file_name.to_string(),
        lines: e.0.iter().map(|l| format!("{file_name}: {l}")).collect(),
    })
}

/// Checks a scenario: loads it (and with `build`, builds the simulator, as `rocesim lint`
/// does) and raises `NativeScenarioError` with every finding.
#[pyfunction]
#[pyo3(signature = (text, file_name, base_dir, overrides, build_sim=false))]
pub fn check(
    py: Python<'_>,
    text: &str,
    file_name: &str,
    base_dir: &str,
    overrides: Vec<String>,
    build_sim: bool,
) -> PyResult<()> {
    py.detach(|| {
        let sc = load(text, file_name, base_dir, &overrides)?;
        if build_sim {
            build(sc, file_name)?;
        }
        Ok(())
    })
    .map_err(Findings::into_err)
}

/// Runs a scenario with the GIL released. `progress(now_ns, end_ns, events)` is called about
/// every `interval` seconds (with the GIL); Ctrl-C (or an exception raised by `progress`)
/// stops the run part way. Returns the results and the exception that stopped it, if any.
#[pyfunction]
#[pyo3(signature = (text, file_name, base_dir, overrides, progress=None, interval=0.2))]
pub fn run(
    py: Python<'_>,
    text: &str,
    file_name: &str,
    base_dir: &str,
    overrides: Vec<String>,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<(PendingResult, Option<PyErr>)> {
    let mut watch = Watch::new(progress, interval);
    let out = py.detach(|| {
        let sc = load(text, file_name, base_dir, &overrides)?;
        let output = (sc.output.report, sc.output.format);
        let sim = build(sc, file_name)?;
        let results = rocesim::run::run_sim(sim, |p, elapsed| watch.keep_going(p, elapsed));
        Ok((results, output))
    });
    let (results, (report, format)) = out.map_err(Findings::into_err)?;
    let result = py.detach(|| PendingResult::new(results, report, format))?;
    Ok((result, watch.into_error()))
}

/// A finished (or stopped) run: its results, and every result table as Arrow, built once.
#[pyclass(module = "rocesim._native", frozen)]
pub struct RunResult {
    results: Arc<RunResults>,
    tables: Vec<(&'static str, Py<ArrowTable>)>,
    report: bool,
    format: TableFormat,
}

/// A run's results with their Arrow batches, before they become Python objects.
pub struct PendingResult {
    results: RunResults,
    batches: Vec<(&'static str, arrow_array::RecordBatch)>,
    report: bool,
    format: TableFormat,
}

impl PendingResult {
    /// Builds the Arrow tables of `results`. Called without the GIL; the batches become Python
    /// objects when the result is returned to Python.
    fn new(results: RunResults, report: bool, format: TableFormat) -> PyResult<PendingResult> {
        let batches = arrow_tables(&results)
            .map_err(|e| PyOSError::new_err(format!("cannot build the result tables: {e}")))?;
        Ok(PendingResult {
            results,
            batches,
            report,
            format,
        })
    }
}

impl<'py> IntoPyObject<'py> for PendingResult {
    type Target = RunResult;
    type Output = Bound<'py, RunResult>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, RunResult>> {
        let tables = self
            .batches
            .into_iter()
            .map(|(n, b)| Ok((n, Py::new(py, ArrowTable::new(b))?)))
            .collect::<PyResult<Vec<_>>>()?;
        Bound::new(
            py,
            RunResult {
                results: Arc::new(self.results),
                tables,
                report: self.report,
                format: self.format,
            },
        )
    }
}

#[pymethods]
impl RunResult {
    /// summary.json's text.
    fn summary_json(&self) -> String {
        rocesim::output::summary_json(&self.results)
    }

    /// The terminal table `rocesim run` prints.
    fn terminal_table(&self) -> String {
        rocesim::output::terminal_table(&self.results)
    }

    /// Names of the tables, in the order of the result files.
    fn table_names(&self) -> Vec<&'static str> {
        self.tables.iter().map(|(n, _)| *n).collect()
    }

    /// Table `name` (see `table_names`), as an object with `__arrow_c_stream__`.
    fn table(&self, py: Python<'_>, name: &str) -> Option<Py<ArrowTable>> {
        self.tables
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone_ref(py))
    }

    /// True when the run stopped before its end.
    #[getter]
    fn incomplete(&self) -> bool {
        self.results.incomplete
    }

    /// Writes the result files into `dir` as `rocesim run --out DIR` does (deleting the result
    /// files an earlier run left there), the tables as `format` says (`"csv"`, `"parquet"` or
    /// `"both"`; default: the scenario's `output.format`); returns the paths written.
    #[pyo3(signature = (dir, report=None, format=None))]
    fn write(
        &self,
        py: Python<'_>,
        dir: PathBuf,
        report: Option<bool>,
        format: Option<&str>,
    ) -> PyResult<Vec<PathBuf>> {
        let report = report.unwrap_or(self.report);
        let format = match format {
            None => self.format,
            Some("csv") => TableFormat::Csv,
            Some("parquet") => TableFormat::Parquet,
            Some("both") => TableFormat::Both,
            Some(other) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "format must be \"csv\", \"parquet\" or \"both\", not {other:?}"
                )))
            }
        };
        let results = self.results.clone();
        py.detach(move || {
            rocesim::output::prepare_dir(&dir)
                .and_then(|()| rocesim::output::write_results(&results, &dir, report, format))
        })
        .map_err(|e| PyOSError::new_err(format!("cannot write results: {e}")))
    }
}
