//! What a sweep is: a base scenario, the swept keys, and one [`RunSpec`] per run.

use std::collections::HashMap;
use std::path::PathBuf;

use toml::Value;

/// Top-level keys of a sweep file.
pub const SWEEP_KEYS: &[&str] = &["base", "grid", "run", "seeds", "repeat"];

/// Most runs one sweep may have (a guard against a grid that multiplies out of hand).
pub const MAX_RUNS: usize = 100_000;

/// A checked sweep: the base scenario and every run, in run order.
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

impl Sweep {
    /// The `--set` overrides of every run, in run order (see [`RunSpec::overrides`]).
    pub fn overrides(&self) -> Vec<Vec<String>> {
        self.runs.iter().map(|r| r.overrides(&self.keys)).collect()
    }

    /// The result directory of run `i`, relative to the sweep's directory: `run-<i>`.
    pub fn run_dir_name(i: usize) -> String {
        format!("run-{i}")
    }
}

/// A value in TOML syntax (`0.5`, `"dcqcn"`, `[3, 4]`, `{ kmin = "40KB" }`).
pub(crate) fn toml_text(v: &Value) -> String {
    v.to_string()
}

/// A value as a table cell: strings without quotes, everything else in TOML syntax.
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => toml_text(other),
    }
}

/// TOML type name for messages (`string`, `integer`, `table`, ...).
pub(crate) fn type_name(v: &Value) -> &'static str {
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
