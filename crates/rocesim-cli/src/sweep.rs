//! `rocesim sweep`: the command-line shell over [`rocesim::sweep`]: messages, the progress
//! bar, Ctrl-C, the terminal table and the exit code (see docs/sweeps.md).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rocesim::config::ConfigError;
use rocesim::sweep::{self, Row, Runner, Status, Sweep, Table};

/// Prints sweep-file errors and returns exit code 2.
fn bad_sweep(file: &str, errors: &[ConfigError]) -> ExitCode {
    for e in errors {
        eprintln!("error: {e}");
    }
    eprintln!("{file}: {} error(s); nothing was run", errors.len());
    ExitCode::from(2)
}

/// The progress bar of a sweep: finished runs out of `n`, failures, ETA (hidden when `quiet`
/// or stderr is not a terminal).
fn progress_bar(n: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs {msg} [{elapsed}, ETA {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}

/// A stop flag set by Ctrl-C.
fn ctrl_c_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    stop
}

/// Checks the sweep file and its base scenario, starts the worker threads and loads every
/// run's scenario; on failure, the exit code after printing why.
fn prepare(
    path: &Path,
    jobs: Option<usize>,
) -> Result<(Sweep, Runner, Vec<sweep::Loaded>), ExitCode> {
    let sw =
        sweep::parse_file(path).map_err(|errs| bad_sweep(&path.display().to_string(), &errs))?;
    sweep::check_base(&sw).map_err(|errs| bad_sweep(&sw.file, &errs))?;
    let jobs = sweep::default_jobs(jobs);
    let runner = Runner::new(jobs).map_err(|e| {
        eprintln!("error: cannot start {jobs} worker threads: {e}");
        ExitCode::from(1)
    })?;
    let loaded = runner
        .load(&sw)
        .map_err(|errs| bad_sweep(&sw.file, &errs))?;
    Ok((sw, runner, loaded))
}

/// `rocesim sweep`: parse, run every run on `jobs` threads (default: all cores), write the
/// per-run results and the sweep table. Exit 0 when every run succeeded, 1 when some failed,
/// 2 when the sweep file is bad, 130 when interrupted.
pub fn sweep(
    path: &Path,
    jobs: Option<usize>,
    out: Option<PathBuf>,
    quiet: bool,
    resume: bool,
) -> ExitCode {
    let (sw, runner, loaded) = match prepare(path, jobs) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let dir = out.unwrap_or_else(|| sw.default_dir());
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return ExitCode::from(1);
    }
    let stop = ctrl_c_flag();
    let bar = progress_bar(sw.runs.len(), quiet);
    let failed = AtomicUsize::new(0);
    let started = Instant::now();
    let rows = runner.execute(loaded, &dir, resume, &stop, &|_, row: &Row| {
        if matches!(row.status, Status::Failed(_)) {
            let f = failed.fetch_add(1, Ordering::Relaxed) + 1;
            bar.set_message(format!("({f} failed)"));
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    let table = Table {
        sweep: &sw,
        rows: &rows,
    };
    if let Err(e) = table.write(&dir) {
        eprintln!(
            "error: cannot write the sweep table to {}: {e}",
            dir.display()
        );
        return ExitCode::from(1);
    }
    report(&table, &dir, wall, runner.jobs(), quiet);
    exit_code(&table, stop.load(Ordering::Relaxed))
}

/// Prints each failed run on stderr and, unless `quiet`, the table and a summary line.
fn report(table: &Table, dir: &Path, wall: f64, jobs: usize, quiet: bool) {
    let overrides = table.sweep.overrides();
    for (i, r) in table.rows.iter().enumerate() {
        if let Status::Failed(m) = &r.status {
            let set = overrides[i].join(" ");
            eprintln!("error: run {i} ({set}): {m}");
        }
    }
    if !quiet {
        print!("{}", table.terminal());
        println!(
            "{} runs ({} ok, {} failed) in {:.2} s on {jobs} threads; table: {}",
            table.sweep.runs.len(),
            table.ok(),
            table.failed(),
            wall,
            dir.join("sweep.csv").display()
        );
    }
}

/// 130 when interrupted, 1 when some run failed, 0 otherwise.
fn exit_code(table: &Table, interrupted: bool) -> ExitCode {
    if interrupted {
        eprintln!("interrupted: the table lists the runs not run");
        return ExitCode::from(130);
    }
    if table.failed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
