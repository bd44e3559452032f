//! Timing one benchmark scenario: `rocesim run` as a child process, repeated, with the figures
//! read back from its summary.json and flows.csv.

use std::path::Path;
use std::process::Command;

use super::median;

/// One run's figures, read back from its result files.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Whole-process wall time (start-up, setup, run and output), seconds.
    pub wall_s: f64,
    /// Peak resident memory, KiB (summary.json `peak_memory_kb`).
    pub peak_kb: u64,
    /// Events processed.
    pub events: u64,
    /// Packet hops (a packet crossing one link).
    pub hops: u64,
    /// Flows.
    pub flows: u64,
    /// Flows completed.
    pub completed: u64,
    /// Bytes delivered, all flows (flows.csv `bytes_delivered`).
    pub delivered: u64,
}

/// Runs `exe run --quiet --out OUT SCENARIO` and reads its figures back.
pub fn measure(exe: &Path, scenario: &Path, out: &Path) -> Result<Measurement, String> {
    let started = std::time::Instant::now();
    let status = Command::new(exe)
        .args(["run", "--quiet", "--out"])
        .arg(out)
        .arg(scenario)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let wall_s = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("{} failed ({status})", scenario.display()));
    }
    let text = std::fs::read_to_string(out.join("summary.json")).map_err(|e| e.to_string())?;
    let s: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let flows_csv = std::fs::read_to_string(out.join("flows.csv")).map_err(|e| e.to_string())?;
    let u = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    Ok(Measurement {
        wall_s,
        peak_kb: u(&s["peak_memory_kb"]),
        events: u(&s["events"]),
        hops: u(&s["packet_hops"]),
        flows: u(&s["flows"]["count"]),
        completed: u(&s["flows"]["completed"]),
        delivered: bytes_delivered(&flows_csv),
    })
}

/// The sum of the `bytes_delivered` column of a flows.csv text.
fn bytes_delivered(flows_csv: &str) -> u64 {
    let mut lines = flows_csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = header.iter().position(|c| *c == "bytes_delivered");
    lines
        .filter_map(|l| {
            col.and_then(|c| l.split(',').nth(c))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .sum()
}

/// A benchmark scenario's result: medians of wall time and memory over its runs, the other
/// figures of its first run (they do not vary).
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioBench {
    /// The scenario's file stem.
    pub name: String,
    /// Median whole-process wall time, seconds.
    pub wall_s: f64,
    /// Median peak memory, MiB.
    pub peak_mb: f64,
    /// The first run's figures.
    pub first: Measurement,
}

/// Times `scenario` `repeat` times (at least once) with `exe`, results under `tmp`. A failing
/// run is reported to `on_error` and ends the repeats; `None` when no run succeeded.
pub fn bench_scenario(
    exe: &Path,
    scenario: &Path,
    repeat: usize,
    tmp: &Path,
    on_error: &mut dyn FnMut(String),
) -> Option<ScenarioBench> {
    let name = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut runs = Vec::new();
    for i in 0..repeat.max(1) {
        match measure(exe, scenario, &tmp.join(format!("{name}-{i}"))) {
            Ok(r) => runs.push(r),
            Err(e) => {
                on_error(e);
                break;
            }
        }
    }
    let first = runs.first()?.clone();
    Some(ScenarioBench {
        name,
        wall_s: median(runs.iter().map(|r| r.wall_s).collect()),
        peak_mb: median(runs.iter().map(|r| r.peak_kb as f64).collect()) / 1024.0,
        first,
    })
}

/// The header line of the benchmark table.
pub fn header() -> String {
    format!(
        "{:<16} {:>8} {:>9} {:>12} {:>10} {:>12} {:>11} {:>14}",
        "scenario",
        "wall s",
        "peak MB",
        "events",
        "Mevents/s",
        "Mhops/s",
        "flows done",
        "bytes deliv."
    )
}

/// The note under the benchmark table, for `repeat` runs per scenario.
pub fn footer(repeat: usize) -> String {
    format!(
        "medians of {} run(s); wall time includes setup and output; frames count preamble and inter-frame gap",
        repeat.max(1)
    )
}

impl ScenarioBench {
    /// The scenario's line of the benchmark table (rates per median wall second).
    pub fn line(&self) -> String {
        let r = &self.first;
        format!(
            "{:<16} {:>8.2} {:>9.1} {:>12} {:>10.2} {:>12.2} {:>11} {:>14}",
            self.name,
            self.wall_s,
            self.peak_mb,
            r.events,
            r.events as f64 / self.wall_s / 1e6,
            r.hops as f64 / self.wall_s / 1e6,
            format!("{}/{}", r.completed, r.flows),
            r.delivered
        )
    }
}
