//! `rocesim bench`: run benchmark scenarios in child processes and report wall time, peak
//! memory, events, events/s, packet-hops/s, flows completed and bytes delivered (medians over
//! repeats). BENCHMARKS.md-style scenarios live in `benches/`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One run's figures, read back from its summary.json.
struct Run {
    /// Whole-process wall time (setup, run and output).
    wall_s: f64,
    peak_kb: u64,
    events: u64,
    hops: u64,
    flows: u64,
    completed: u64,
    delivered: u64,
}

fn run_once(exe: &Path, scenario: &Path, out: &Path) -> Result<Run, String> {
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
    let mut lines = flows_csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = header.iter().position(|c| *c == "bytes_delivered");
    let delivered = lines
        .filter_map(|l| {
            col.and_then(|c| l.split(',').nth(c))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .sum();
    let u = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    Ok(Run {
        wall_s,
        peak_kb: u(&s["peak_memory_kb"]),
        events: u(&s["events"]),
        hops: u(&s["packet_hops"]),
        flows: u(&s["flows"]["count"]),
        completed: u(&s["flows"]["completed"]),
        delivered,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Run `scenarios` (or every `*.toml` in `benches/`) `repeat` times each and print a table.
pub fn bench(scenarios: Vec<PathBuf>, repeat: usize) -> ExitCode {
    let scenarios = if scenarios.is_empty() {
        let mut v: Vec<PathBuf> = std::fs::read_dir("benches")
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().is_some_and(|e| e == "toml"));
        v.sort();
        v
    } else {
        scenarios
    };
    if scenarios.is_empty() {
        eprintln!("error: no scenarios given and no benches/*.toml here");
        return ExitCode::from(2);
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot find the rocesim executable: {e}");
            return ExitCode::from(1);
        }
    };
    let tmp = std::env::temp_dir().join(format!("rocesim-bench-{}", std::process::id()));
    println!(
        "{:<16} {:>8} {:>9} {:>12} {:>10} {:>12} {:>11} {:>14}",
        "scenario",
        "wall s",
        "peak MB",
        "events",
        "Mevents/s",
        "Mhops/s",
        "flows done",
        "bytes deliv."
    );
    let mut failed = false;
    for sc in &scenarios {
        let name = sc
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut runs = Vec::new();
        for i in 0..repeat.max(1) {
            match run_once(&exe, sc, &tmp.join(format!("{name}-{i}"))) {
                Ok(r) => runs.push(r),
                Err(e) => {
                    eprintln!("error: {e}");
                    failed = true;
                    break;
                }
            }
        }
        if runs.is_empty() {
            continue;
        }
        let wall = median(runs.iter().map(|r| r.wall_s).collect());
        let peak = median(runs.iter().map(|r| r.peak_kb as f64).collect()) / 1024.0;
        let r = &runs[0];
        println!(
            "{:<16} {:>8.2} {:>9.1} {:>12} {:>10.2} {:>12.2} {:>11} {:>14}",
            name,
            wall,
            peak,
            r.events,
            r.events as f64 / wall / 1e6,
            r.hops as f64 / wall / 1e6,
            format!("{}/{}", r.completed, r.flows),
            r.delivered
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!(
        "medians of {} run(s); wall time includes setup and output; frames count preamble and inter-frame gap",
        repeat.max(1)
    );
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Wall time of one `rocesim sweep` child process with `jobs` runs at a time.
fn sweep_once(exe: &Path, sweep: &Path, jobs: usize, out: &Path) -> Result<f64, String> {
    let started = std::time::Instant::now();
    let status = Command::new(exe)
        .args(["sweep", "--quiet", "--jobs", &jobs.to_string(), "--out"])
        .arg(out)
        .arg(sweep)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", sweep.display()));
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Time sweep file `sweep` with one run at a time and with one run per core, `repeat` times
/// each (alternating, so that a drift of the machine's speed hits both), and print the
/// medians and their ratio: the parallel speed-up of `rocesim sweep`.
pub fn bench_sweep(sweep: &Path, repeat: usize) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot find the rocesim executable: {e}");
            return ExitCode::from(1);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tmp = std::env::temp_dir().join(format!("rocesim-bench-sweep-{}", std::process::id()));
    let (mut one, mut all) = (Vec::new(), Vec::new());
    for i in 0..repeat.max(1) {
        for (jobs, times) in [(1, &mut one), (cores, &mut all)] {
            match sweep_once(&exe, sweep, jobs, &tmp.join(format!("j{jobs}-{i}"))) {
                Ok(t) => times.push(t),
                Err(e) => {
                    eprintln!("error: {e}");
                    let _ = std::fs::remove_dir_all(&tmp);
                    return ExitCode::from(1);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let (t1, tn) = (median(one), median(all));
    println!("sweep {}", sweep.display());
    println!("  one run at a time (--jobs 1): {t1:>9.3} s");
    println!("  {cores} at a time (--jobs {cores}):      {tn:>9.3} s");
    println!(
        "  ratio: {:.3} (ideal {:.3}); medians of {} pair(s), whole processes",
        tn / t1,
        1.0 / cores as f64,
        repeat.max(1)
    );
    ExitCode::SUCCESS
}
