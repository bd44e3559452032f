//! `rocesim sweep`: run one base scenario many times with different `--set` overrides, in
//! parallel, and tabulate the headline numbers of every run (see docs/sweeps.md).
//!
//! A sweep file names a base scenario and either a `[grid]` (key → list of values; the runs are
//! the Cartesian product, the first key varying slowest) or a list of `[[run]]` tables (key →
//! value), optionally multiplied by `seeds` (sets `sim.seed`) and `repeat`. Every run writes the
//! normal result files into `DIR/run-<i>/`; the sweep writes `DIR/sweep.csv` and
//! `DIR/sweep.json` with one row per run, in run order whatever the completion order.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use rocesim::config::{self, ConfigError, Scenario};
use rocesim::output::{fixed, headline, round_sig, Headline};
use rocesim::Sim;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use toml::Value;

/// Top-level keys of a sweep file.
pub const SWEEP_KEYS: &[&str] = &["base", "grid", "run", "seeds", "repeat"];

/// Most runs one sweep may have (a guard against a grid that multiplies out of hand).
pub const MAX_RUNS: usize = 100_000;

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

/// A parsed sweep file.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The sweep file as the user named it (for messages).
    pub file: String,
    /// Sweep name: the file stem.
    pub name: String,
    /// The base scenario, resolved against the sweep file's directory.
    pub base: PathBuf,
    /// The swept keys (`sweep.csv` columns), in file order; `sim.seed` last when `seeds` is given.
    pub keys: Vec<String>,
    /// `repeat` when given (adds a `repeat` column).
    pub repeat: Option<u32>,
    /// The runs, in run order.
    pub runs: Vec<RunSpec>,
    /// Where each swept key was given (`grid.nic.mtu`, `run[2].nic.cc`, `seeds`), for errors.
    pub origin: HashMap<String, String>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// The value of every swept key (aligned with [`Sweep::keys`]); `None`: not set in this run.
    pub values: Vec<Option<Value>>,
    /// Repetition index (0-based) when the sweep has `repeat`.
    pub rep: u32,
}

impl RunSpec {
    /// The `--set` overrides of this run: `key=value`, the value in TOML syntax so that `--set`
    /// parses it back to the same value (strings quoted).
    pub fn overrides(&self, keys: &[String]) -> Vec<String> {
        keys.iter()
            .zip(&self.values)
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", toml_text(v))))
            .collect()
    }
}

/// A value in TOML syntax (`0.5`, `"dcqcn"`, `[3, 4]`, `{ kmin = "40KB" }`).
fn toml_text(v: &Value) -> String {
    v.to_string()
}

/// A value as a table cell: strings without quotes, everything else in TOML syntax.
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => toml_text(other),
    }
}

/// Errors of a sweep file, each naming the file and the key.
struct Errs {
    file: String,
    list: Vec<ConfigError>,
}

impl Errs {
    fn err(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.list.push(ConfigError {
            file: self.file.clone(),
            key: key.into(),
            message: message.into(),
        });
    }
}

/// TOML type name for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) => "integer",
        Value::Float(_) => "float",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "datetime",
        Value::Array(_) => "array",
        Value::Table(_) => "table",
    }
}

/// Byte position of every key in the file (`grid.nic.mtu`, `run[1].nic.cc`, ...), so that
/// columns follow the file's order (the parsed tables are sorted by key).
fn key_positions(text: &str) -> HashMap<String, usize> {
    use toml::de::{DeTable, DeValue};
    fn walk(t: &DeTable<'_>, prefix: &str, m: &mut HashMap<String, usize>) {
        for (k, v) in t.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            m.entry(path.clone()).or_insert(k.span().start);
            match v.get_ref() {
                DeValue::Table(sub) => walk(sub, &path, m),
                DeValue::Array(a) => {
                    for (i, e) in a.iter().enumerate() {
                        if let DeValue::Table(sub) = e.get_ref() {
                            walk(sub, &format!("{path}[{i}]"), m);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut m = HashMap::new();
    if let Ok(t) = DeTable::parse(text) {
        walk(t.get_ref(), "", &mut m);
    }
    m
}

/// Flattens nested tables into dotted keys (`switch = { lossless = { headroom = 0.5 } }` and
/// `switch.lossless.headroom = 0.5` both give `switch.lossless.headroom`), in file order.
fn flatten(
    t: &toml::Table,
    prefix: &str,
    pos_prefix: &str,
    pos: &HashMap<String, usize>,
) -> Vec<(String, Value, usize)> {
    let mut out = Vec::new();
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let p = pos
            .get(&format!("{pos_prefix}.{key}"))
            .copied()
            .unwrap_or(usize::MAX);
        match v {
            Value::Table(sub) => out.extend(flatten(sub, &key, pos_prefix, pos)),
            other => out.push((key, other.clone(), p)),
        }
    }
    out.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Reads and checks the sweep file at `path`.
pub fn parse_file(path: &Path) -> Result<Sweep, Vec<ConfigError>> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![ConfigError {
            file: file.clone(),
            key: String::new(),
            message: format!("cannot read the sweep file: {e}"),
        }]
    })?;
    parse_str(&text, &file, path.parent().unwrap_or(Path::new("")))
}

/// Checks a sweep file's text. `file` names it in errors (its stem is the sweep name);
/// `dir` is where `base` is resolved. Returns every error found.
pub fn parse_str(text: &str, file: &str, dir: &Path) -> Result<Sweep, Vec<ConfigError>> {
    let mut e = Errs {
        file: file.to_string(),
        list: Vec::new(),
    };
    let root: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(err) => {
            let err: toml::de::Error = err;
            e.err(
                "",
                format!(
                    "TOML syntax error: {}",
                    err.message().trim().replace('\n', "; ")
                ),
            );
            return Err(e.list);
        }
    };
    let pos = key_positions(text);
    for k in root.keys() {
        if !SWEEP_KEYS.contains(&k.as_str()) {
            let hint = config::suggest::hint(k, SWEEP_KEYS.iter().copied());
            e.err(k.clone(), format!("unknown key `{k}`{hint}"));
        }
    }
    let base = match root.get("base") {
        Some(Value::String(s)) if !s.trim().is_empty() => {
            let p = dir.join(s);
            if !p.is_file() {
                e.err(
                    "base",
                    format!("the base scenario `{}` does not exist", p.display()),
                );
            }
            Some(p)
        }
        Some(v) => {
            e.err(
                "base",
                format!(
                    "expected the path of a scenario file, found {} {v}",
                    type_name(v)
                ),
            );
            None
        }
        None => {
            e.err(
                "base",
                "missing: name the base scenario, e.g. base = \"../scenarios/incast.toml\"",
            );
            None
        }
    };

    // Axes: (key, values) for the grid; per-run (key, value) lists for [[run]].
    let mut keys: Vec<String> = Vec::new();
    let mut origin: HashMap<String, String> = HashMap::new();
    let mut points: Vec<Vec<Option<Value>>> = Vec::new();
    match (root.get("grid"), root.get("run")) {
        (Some(_), Some(_)) => e.err(
            "run",
            "a sweep has either [grid] or [[run]] tables, not both",
        ),
        (Some(Value::Table(g)), None) => {
            let mut axes: Vec<(String, Vec<Value>)> = Vec::new();
            for (k, v, _) in flatten(g, "", "grid", &pos) {
                let at = format!("grid.{k}");
                match v {
                    Value::Array(a) if a.is_empty() => {
                        e.err(at, "empty list: give at least one value");
                    }
                    Value::Array(a) => {
                        origin.insert(k.clone(), at);
                        axes.push((k, a));
                    }
                    other => e.err(
                        at,
                        format!(
                            "expected a list of values, e.g. [{}], found {} {}",
                            toml_text(&other),
                            type_name(&other),
                            toml_text(&other)
                        ),
                    ),
                }
            }
            if g.is_empty() {
                e.err("grid", "empty grid: give at least one key = [values]");
            }
            let total = axes
                .iter()
                .try_fold(1usize, |n, a| n.checked_mul(a.1.len()));
            if total.is_none_or(|n| n > MAX_RUNS) {
                e.err("grid", format!("the grid has more than {MAX_RUNS} runs"));
            } else {
                keys = axes.iter().map(|a| a.0.clone()).collect();
                // Cartesian product, first key slowest.
                points.push(Vec::new());
                for (_, vals) in &axes {
                    points = points
                        .into_iter()
                        .flat_map(|p| {
                            vals.iter().map(move |v| {
                                let mut q = p.clone();
                                q.push(Some(v.clone()));
                                q
                            })
                        })
                        .collect();
                }
            }
        }
        (Some(v), None) => e.err(
            "grid",
            format!("expected a table of key = [values], found {}", type_name(v)),
        ),
        (None, Some(Value::Array(runs))) => {
            let mut per_run: Vec<Vec<(String, Value)>> = Vec::new();
            for (i, r) in runs.iter().enumerate() {
                let Value::Table(t) = r else {
                    e.err(
                        format!("run[{i}]"),
                        format!("expected a table, found {}", type_name(r)),
                    );
                    continue;
                };
                let kv: Vec<(String, Value)> = flatten(t, "", &format!("run[{i}]"), &pos)
                    .into_iter()
                    .map(|(k, v, _)| (k, v))
                    .collect();
                for (k, _) in &kv {
                    if !keys.contains(k) {
                        keys.push(k.clone());
                        origin.insert(k.clone(), format!("run[{i}].{k}"));
                    }
                }
                per_run.push(kv);
            }
            if runs.is_empty() {
                e.err("run", "no [[run]] tables");
            }
            for kv in per_run {
                let mut vals = vec![None; keys.len()];
                for (k, v) in kv {
                    if let Some(j) = keys.iter().position(|x| *x == k) {
                        vals[j] = Some(v);
                    }
                }
                points.push(vals);
            }
        }
        (None, Some(v)) => e.err(
            "run",
            format!("expected [[run]] tables, found {}", type_name(v)),
        ),
        // Neither: the base scenario alone (times seeds and repeat).
        (None, None) => points.push(Vec::new()),
    }

    if let Some(v) = root.get("seeds") {
        match v {
            Value::Array(a) if !a.is_empty() => {
                let mut seeds = Vec::new();
                for (i, s) in a.iter().enumerate() {
                    match s {
                        Value::Integer(n) if *n >= 0 => seeds.push(s.clone()),
                        other => e.err(
                            format!("seeds[{i}]"),
                            format!(
                                "expected a non-negative integer, found {} {}",
                                type_name(other),
                                toml_text(other)
                            ),
                        ),
                    }
                }
                if keys.iter().any(|k| k == "sim.seed") {
                    e.err("seeds", "`sim.seed` is also swept; use one or the other");
                } else {
                    keys.push("sim.seed".to_string());
                    origin.insert("sim.seed".into(), "seeds".into());
                    points = points
                        .into_iter()
                        .flat_map(|p| {
                            seeds.iter().map(move |s| {
                                let mut q = p.clone();
                                q.push(Some(s.clone()));
                                q
                            })
                        })
                        .collect();
                }
            }
            other => e.err(
                "seeds",
                format!(
                    "expected a non-empty list of seeds, e.g. [1, 2, 3], found {} {}",
                    type_name(other),
                    toml_text(other)
                ),
            ),
        }
    }
    let repeat = match root.get("repeat") {
        None => None,
        Some(Value::Integer(n)) if (1..=i64::from(u32::MAX)).contains(n) => Some(*n as u32),
        Some(other) => {
            e.err(
                "repeat",
                format!(
                    "expected a positive integer, found {} {}",
                    type_name(other),
                    toml_text(other)
                ),
            );
            None
        }
    };
    let reps = repeat.unwrap_or(1);
    if points.len().saturating_mul(reps as usize) > MAX_RUNS {
        e.err("", format!("the sweep has more than {MAX_RUNS} runs"));
    }
    if !e.list.is_empty() {
        return Err(e.list);
    }
    let runs = points
        .into_iter()
        .flat_map(|values| {
            (0..reps).map(move |rep| RunSpec {
                values: values.clone(),
                rep,
            })
        })
        .collect();
    let name = Path::new(file)
        .file_stem()
        .map_or_else(|| "sweep".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(Sweep {
        file: file.to_string(),
        name,
        base: base.unwrap_or_default(),
        keys,
        repeat,
        runs,
        origin,
    })
}

/// What became of one run.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Ran to its end; results written.
    Ok,
    /// Stopped by Ctrl-C part way; partial results written.
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
}

/// One row of the sweep table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Outcome.
    pub status: Status,
    /// Headline numbers, when the run produced results.
    pub metrics: Option<Headline>,
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

/// True when `key` is `swept` or a leading part of it (`foo` of `foo.bar`).
fn key_prefix(key: &str, swept: &str) -> bool {
    swept == key
        || swept
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// Runs one scenario into `dir`.
fn run_one(sc: Scenario, dir: &Path, stop: &AtomicBool) -> Row {
    let report = sc.output.report;
    let mut sim = match Sim::new(sc) {
        Ok(s) => s,
        Err(e) => {
            return Row {
                status: Status::Failed(e.0.join("; ")),
                metrics: None,
            }
        }
    };
    let started = Instant::now();
    sim.run(|_| !stop.load(Ordering::Relaxed));
    let results = sim.results(started.elapsed().as_secs_f64());
    let metrics = Some(headline(&results));
    if let Err(e) = rocesim::output::write_all(&results, dir, report) {
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

/// Prints sweep-file errors and returns exit code 2.
fn bad_sweep(file: &str, errors: &[ConfigError]) -> ExitCode {
    for e in errors {
        eprintln!("error: {e}");
    }
    eprintln!("{file}: {} error(s); nothing was run", errors.len());
    ExitCode::from(2)
}

/// `rocesim sweep`: parse, run every run on `jobs` threads (default: all cores), write the
/// per-run results and the sweep table. Exit 0 when every run succeeded, 1 when some failed,
/// 2 when the sweep file is bad, 130 when interrupted.
pub fn sweep(path: &Path, jobs: Option<usize>, out: Option<PathBuf>, quiet: bool) -> ExitCode {
    let sw = match parse_file(path) {
        Ok(s) => s,
        Err(errs) => return bad_sweep(&path.display().to_string(), &errs),
    };
    // The base scenario must be valid on its own.
    if let Err(errs) = config::load(&sw.base, &[]) {
        let mut list = vec![ConfigError {
            file: sw.file.clone(),
            key: "base".into(),
            message: format!("the base scenario `{}` has errors:", sw.base.display()),
        }];
        list.extend(errs.0);
        return bad_sweep(&sw.file, &list);
    }
    let jobs = jobs
        .filter(|&j| j > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start {jobs} worker threads: {e}");
            return ExitCode::from(1);
        }
    };
    let dir = out.unwrap_or_else(|| PathBuf::from("results/sweeps").join(&sw.name));
    let overrides: Vec<Vec<String>> = sw.runs.iter().map(|r| r.overrides(&sw.keys)).collect();

    // Load every run's scenario first: an unknown swept key is an error of the sweep file.
    let loaded: Vec<Result<Scenario, config::ConfigErrors>> = pool.install(|| {
        overrides
            .par_iter()
            .map(|o| config::load(&sw.base, o))
            .collect()
    });
    let mut errs: Vec<ConfigError> = Vec::new();
    for k in &sw.keys {
        let unknown = loaded.iter().find_map(|r| {
            r.as_ref().err().and_then(|es| {
                es.0.iter()
                    .find(|e| e.message.starts_with("unknown key") && key_prefix(&e.key, k))
            })
        });
        if let Some(e) = unknown {
            errs.push(ConfigError {
                file: sw.file.clone(),
                key: sw.origin.get(k).cloned().unwrap_or_else(|| k.clone()),
                message: format!("not a scenario key: {}", e.message),
            });
        }
    }
    if !errs.is_empty() {
        return bad_sweep(&sw.file, &errs);
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return ExitCode::from(1);
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let n = sw.runs.len();
    let bar = if !quiet && std::io::stderr().is_terminal() {
        let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} runs {msg} [{elapsed}, ETA {eta}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let failed = AtomicUsize::new(0);
    let started = Instant::now();
    let rows: Vec<Row> = pool.install(|| {
        loaded
            .into_par_iter()
            .enumerate()
            .map(|(i, sc)| {
                let row = if stop.load(Ordering::Relaxed) {
                    Row {
                        status: Status::NotRun,
                        metrics: None,
                    }
                } else {
                    match sc {
                        Err(es) => Row {
                            status: Status::Failed(join_errors(&es.0)),
                            metrics: None,
                        },
                        Ok(sc) => {
                            let run_dir = dir.join(format!("run-{i}"));
                            catch_unwind(AssertUnwindSafe(|| run_one(sc, &run_dir, &stop)))
                                .unwrap_or_else(|p| Row {
                                    status: Status::Failed(format!(
                                        "internal error: {}",
                                        panic_text(p.as_ref())
                                    )),
                                    metrics: None,
                                })
                        }
                    }
                };
                if matches!(row.status, Status::Failed(_)) {
                    let f = failed.fetch_add(1, Ordering::Relaxed) + 1;
                    bar.set_message(format!("({f} failed)"));
                }
                bar.inc(1);
                row
            })
            .collect()
    });
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();

    let table = Table {
        sweep: &sw,
        rows: &rows,
    };
    let written = std::fs::File::create(dir.join("sweep.csv"))
        .and_then(|f| table.write_csv(std::io::BufWriter::new(f)))
        .and_then(|_| {
            let text = serde_json::to_string_pretty(&table).map_err(std::io::Error::other)?;
            std::fs::write(dir.join("sweep.json"), text + "\n")
        });
    if let Err(e) = written {
        eprintln!(
            "error: cannot write the sweep table to {}: {e}",
            dir.display()
        );
        return ExitCode::from(1);
    }

    let n_failed = rows
        .iter()
        .filter(|r| matches!(r.status, Status::Failed(_)))
        .count();
    for (i, r) in rows.iter().enumerate() {
        if let Status::Failed(m) = &r.status {
            let set = overrides[i].join(" ");
            eprintln!("error: run {i} ({set}): {m}");
        }
    }
    if !quiet {
        print!("{}", table.terminal());
        println!(
            "{n} runs ({} ok, {n_failed} failed) in {:.2} s on {jobs} threads; table: {}",
            rows.iter().filter(|r| r.status == Status::Ok).count(),
            wall,
            dir.join("sweep.csv").display()
        );
    }
    if stop.load(Ordering::Relaxed) {
        eprintln!("interrupted: the table lists the runs not run");
        return ExitCode::from(130);
    }
    if n_failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The sweep table: the runs with their keys, status and headline numbers.
pub struct Table<'a> {
    /// The sweep.
    pub sweep: &'a Sweep,
    /// One row per run, in run order.
    pub rows: &'a [Row],
}

/// An optional float rounded to 6 significant digits (JSON), `None` when missing or not finite.
fn json_f64(x: Option<f64>) -> Option<f64> {
    x.map(round_sig).filter(|v| v.is_finite())
}

impl Table<'_> {
    /// Column names of sweep.csv.
    pub fn header(&self) -> Vec<String> {
        let mut h = vec!["run".to_string()];
        h.extend(self.sweep.keys.iter().cloned());
        if self.sweep.repeat.is_some() {
            h.push("repeat".into());
        }
        h.push("status".into());
        h.push("dir".into());
        h.extend(METRIC_COLUMNS.iter().map(|s| s.to_string()));
        h
    }

    /// The metric cells of a row (empty when the run has no results).
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

    /// Writes sweep.csv.
    pub fn write_csv<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        let mut out = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(w);
        out.write_record(self.header())?;
        for (i, (spec, row)) in self.sweep.runs.iter().zip(self.rows).enumerate() {
            let mut rec = vec![i.to_string()];
            rec.extend(
                spec.values
                    .iter()
                    .map(|v| v.as_ref().map(cell_text).unwrap_or_default()),
            );
            if self.sweep.repeat.is_some() {
                rec.push(spec.rep.to_string());
            }
            rec.push(row.status.text());
            rec.push(format!("run-{i}"));
            rec.extend(Self::metric_cells(row.metrics.as_ref()));
            out.write_record(rec)?;
        }
        out.flush()
    }

    /// A compact table for the terminal: run, swept values, status, goodput, lossless drops,
    /// pauses and p99 slowdown.
    pub fn terminal(&self) -> String {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["run".to_string()];
        head.extend(self.sweep.keys.iter().cloned());
        if self.sweep.repeat.is_some() {
            head.push("repeat".into());
        }
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
        for (i, (spec, row)) in self.sweep.runs.iter().zip(self.rows).enumerate() {
            let mut r = vec![i.to_string()];
            r.extend(
                spec.values
                    .iter()
                    .map(|v| v.as_ref().map_or("-".into(), cell_text)),
            );
            if self.sweep.repeat.is_some() {
                r.push(spec.rep.to_string());
            }
            let mut status = row.status.text();
            if status.chars().count() > 40 {
                status = status.chars().take(39).collect::<String>() + "…";
            }
            r.push(status);
            match &row.metrics {
                Some(m) => {
                    r.push(format!("{:.2}", m.total_goodput_gbps));
                    r.push(m.drops_lossless.to_string());
                    r.push(m.pause_tx.to_string());
                    r.push(m.fct_slowdown_p99.map_or("-".into(), |v| format!("{v:.2}")));
                }
                None => r.extend(["-", "-", "-", "-"].map(String::from)),
            }
            rows.push(r);
        }
        let ncol = rows[0].len();
        let widths: Vec<usize> = (0..ncol)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        let mut s = String::new();
        for r in &rows {
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
}

/// `{key: value}` in the given order.
struct Ordered<'a>(Vec<(&'a str, serde_json::Value)>);

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One run of sweep.json.
#[derive(Serialize)]
struct JsonRun<'a> {
    run: usize,
    overrides: Ordered<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<u32>,
    status: String,
    dir: String,
    sim_time_ns: Option<u64>,
    wall_s: Option<f64>,
    events: Option<u64>,
    total_goodput_gbps: Option<f64>,
    pause_tx: Option<u64>,
    drops_lossless: Option<u64>,
    drops_lossy: Option<u64>,
    ecn_marked: Option<u64>,
    cnp_tx: Option<u64>,
    flows: Option<u64>,
    flows_completed: Option<u64>,
    fct_slowdown_p50: Option<f64>,
    fct_slowdown_p99: Option<f64>,
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let runs: Vec<JsonRun> = self
            .sweep
            .runs
            .iter()
            .zip(self.rows)
            .enumerate()
            .map(|(i, (spec, row))| {
                let m = row.metrics.as_ref();
                JsonRun {
                    run: i,
                    overrides: Ordered(
                        self.sweep
                            .keys
                            .iter()
                            .zip(&spec.values)
                            .filter_map(|(k, v)| {
                                let v = v.as_ref()?;
                                Some((k.as_str(), serde_json::to_value(v).ok()?))
                            })
                            .collect(),
                    ),
                    repeat: self.sweep.repeat.map(|_| spec.rep),
                    status: row.status.text(),
                    dir: format!("run-{i}"),
                    sim_time_ns: m.map(|m| m.sim_time_ns),
                    wall_s: json_f64(m.map(|m| m.wall_s)),
                    events: m.map(|m| m.events),
                    total_goodput_gbps: json_f64(m.map(|m| m.total_goodput_gbps)),
                    pause_tx: m.map(|m| m.pause_tx),
                    drops_lossless: m.map(|m| m.drops_lossless),
                    drops_lossy: m.map(|m| m.drops_lossy),
                    ecn_marked: m.map(|m| m.ecn_marked),
                    cnp_tx: m.map(|m| m.cnp_tx),
                    flows: m.map(|m| m.flows),
                    flows_completed: m.map(|m| m.flows_completed),
                    fct_slowdown_p50: json_f64(m.and_then(|m| m.fct_slowdown_p50)),
                    fct_slowdown_p99: json_f64(m.and_then(|m| m.fct_slowdown_p99)),
                }
            })
            .collect();
        let ok = self.rows.iter().filter(|r| r.status == Status::Ok).count();
        let failed = self
            .rows
            .iter()
            .filter(|r| matches!(r.status, Status::Failed(_)))
            .count();
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("sweep", &self.sweep.name)?;
        m.serialize_entry("base", &self.sweep.base.display().to_string())?;
        m.serialize_entry("keys", &self.sweep.keys)?;
        m.serialize_entry("runs_total", &self.rows.len())?;
        m.serialize_entry("ok", &ok)?;
        m.serialize_entry("failed", &failed)?;
        m.serialize_entry("runs", &runs)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Sweep, Vec<ConfigError>> {
        parse_str(text, "t.toml", Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    #[test]
    fn grid_is_a_product_in_file_order() {
        let s = parse(
            "base = \"../../scenarios/incast.toml\"\n[grid]\nswitch.lossless.headroom = [0.5, 1.0]\n\"nic.mtu\" = [1024, 2048, 4096]\n",
        )
        .unwrap();
        assert_eq!(s.keys, ["switch.lossless.headroom", "nic.mtu"]);
        assert_eq!(s.runs.len(), 6);
        assert_eq!(
            s.runs[1].overrides(&s.keys),
            ["switch.lossless.headroom=0.5", "nic.mtu=2048"]
        );
        assert_eq!(
            s.runs[3].overrides(&s.keys),
            ["switch.lossless.headroom=1.0", "nic.mtu=1024"]
        );
    }

    #[test]
    fn run_list_with_seeds_and_repeat() {
        let s = parse(
            "base = \"../../scenarios/incast.toml\"\nseeds = [1, 2]\nrepeat = 2\n[[run]]\nnic.cc = \"dcqcn\"\nswitch.ecn = { kmin = \"40KB\" }\n[[run]]\nnic.cc = \"none\"\n",
        )
        .unwrap();
        assert_eq!(s.keys, ["nic.cc", "switch.ecn.kmin", "sim.seed"]);
        assert_eq!(s.runs.len(), 8);
        assert_eq!(
            s.runs[0].overrides(&s.keys),
            ["nic.cc=\"dcqcn\"", "switch.ecn.kmin=\"40KB\"", "sim.seed=1"]
        );
        assert_eq!(s.runs[1].rep, 1);
        assert_eq!(
            s.runs[7].overrides(&s.keys),
            ["nic.cc=\"none\"", "sim.seed=2"]
        );
        // The rendered text reads back as the same value, as with --set.
        assert_eq!(
            rocesim::config::overrides::parse_value("\"dcqcn\""),
            Value::String("dcqcn".into())
        );
    }

    #[test]
    fn every_error_is_listed_with_its_key() {
        let errs =
            parse("bases = 1\nseeds = [-1]\nrepeat = 0\n[grid]\nnic.mtu = 1024\n\"x\" = []\n")
                .unwrap_err();
        let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "bases",
            "base",
            "grid.nic.mtu",
            "grid.x",
            "seeds[0]",
            "repeat",
        ] {
            assert!(keys.contains(&k), "{k} missing in {keys:?}");
        }
        assert!(errs.iter().all(|e| e.file == "t.toml"));
        assert!(
            errs[0].message.contains("did you mean `base`"),
            "{}",
            errs[0].message
        );
        let both = parse("base = \"x.toml\"\n[grid]\na = [1]\n[[run]]\na = 2\n").unwrap_err();
        assert!(both
            .iter()
            .any(|e| e.key == "run" && e.message.contains("not both")));
    }

    #[test]
    fn prefixes() {
        assert!(key_prefix("foo", "foo.bar"));
        assert!(key_prefix("foo.bar", "foo.bar"));
        assert!(!key_prefix("fo", "foo.bar"));
        assert!(key_prefix("flow", "flow[0].size"));
    }
}
