//! Benchmarks: time whole `rocesim` processes on benchmark scenarios (wall time, peak memory,
//! events/s, packet-hops/s; medians over repeats), and time a sweep one run at a time against
//! one run per core. The runs are child processes of a given `rocesim` executable, so that
//! each is measured as a user runs it (start-up, setup, run and output).
//!
//! `rocesim bench` prints [`header`] and one [`ScenarioBench::line`] per scenario, then
//! [`footer`]; `rocesim bench --sweep` prints [`SweepTiming::report`].

mod scenario;
mod sweep;

use std::path::{Path, PathBuf};

pub use scenario::{bench_scenario, footer, header, measure, Measurement, ScenarioBench};
pub use sweep::{compare_sweep, time_sweep, SweepTiming};

/// The median of `v` (the upper one of an even count); `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The benchmark scenarios of a directory: its `*.toml` files, sorted by name (empty when the
/// directory cannot be read).
pub fn scenarios_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    v.sort();
    v
}

/// A scratch directory for the benchmark's result files, unique to this process.
pub fn scratch_dir(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocesim-{what}-{}", std::process::id()))
}
