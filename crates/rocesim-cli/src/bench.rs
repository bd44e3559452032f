//! `rocesim bench`: the command-line shell over [`rocesim::bench`]. Runs benchmark scenarios
//! (default: every `benches/*.toml`) as child processes of this executable and prints their
//! medians, or times a sweep one run at a time against all cores.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rocesim::bench;

/// This executable, or exit code 1 after saying why not.
fn this_exe() -> Result<PathBuf, ExitCode> {
    std::env::current_exe().map_err(|e| {
        eprintln!("error: cannot find the rocesim executable: {e}");
        ExitCode::from(1)
    })
}

/// Run `scenarios` (or every `*.toml` in `benches/`) `repeat` times each and print a table.
pub fn bench(scenarios: Vec<PathBuf>, repeat: usize) -> ExitCode {
    let scenarios = if scenarios.is_empty() {
        bench::scenarios_in(Path::new("benches"))
    } else {
        scenarios
    };
    if scenarios.is_empty() {
        eprintln!("error: no scenarios given and no benches/*.toml here");
        return ExitCode::from(2);
    }
    let exe = match this_exe() {
        Ok(e) => e,
        Err(code) => return code,
    };
    let tmp = bench::scratch_dir("bench");
    println!("{}", bench::header());
    let mut failed = false;
    for sc in &scenarios {
        let mut on_error = |e: String| {
            eprintln!("error: {e}");
            failed = true;
        };
        if let Some(b) = bench::bench_scenario(&exe, sc, repeat, &tmp, &mut on_error) {
            println!("{}", b.line());
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{}", bench::footer(repeat));
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Time sweep file `sweep` with one run at a time and with one run per core, `repeat` times
/// each, and print the medians and their ratio: the parallel speed-up of `rocesim sweep`.
pub fn bench_sweep(sweep: &Path, repeat: usize) -> ExitCode {
    let exe = match this_exe() {
        Ok(e) => e,
        Err(code) => return code,
    };
    let tmp = bench::scratch_dir("bench-sweep");
    let timing = bench::compare_sweep(&exe, sweep, repeat, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    match timing {
        Ok(t) => {
            print!("{}", t.report(sweep));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
