//! Timing a sweep one run at a time against one run per core: the parallel speed-up of
//! `rocesim sweep`.

use std::path::Path;
use std::process::Command;

use super::median;

/// Wall time, seconds, of one `exe sweep --quiet --jobs JOBS --out OUT SWEEP` child process.
pub fn time_sweep(exe: &Path, sweep: &Path, jobs: usize, out: &Path) -> Result<f64, String> {
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

/// The medians of a sweep timed with one run at a time and with one run per core.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepTiming {
    /// Median wall time with `--jobs 1`, seconds.
    pub one_s: f64,
    /// Median wall time with `--jobs CORES`, seconds.
    pub all_s: f64,
    /// Cores (runs at a time of the parallel sweeps).
    pub cores: usize,
    /// Pairs of sweeps timed.
    pub pairs: usize,
}

/// Times `sweep` with one run at a time and with one run per core, `repeat` times each
/// (alternating, so that a drift of the machine's speed hits both), results under `tmp`.
pub fn compare_sweep(
    exe: &Path,
    sweep: &Path,
    repeat: usize,
    tmp: &Path,
) -> Result<SweepTiming, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut one, mut all) = (Vec::new(), Vec::new());
    for i in 0..repeat.max(1) {
        for (jobs, times) in [(1, &mut one), (cores, &mut all)] {
            times.push(time_sweep(
                exe,
                sweep,
                jobs,
                &tmp.join(format!("j{jobs}-{i}")),
            )?);
        }
    }
    Ok(SweepTiming {
        one_s: median(one),
        all_s: median(all),
        cores,
        pairs: repeat.max(1),
    })
}

impl SweepTiming {
    /// The report of `rocesim bench --sweep` for sweep file `sweep`: both medians and their
    /// ratio (ideal: 1 / cores).
    pub fn report(&self, sweep: &Path) -> String {
        let (t1, tn, cores) = (self.one_s, self.all_s, self.cores);
        format!(
            "sweep {}\n  one run at a time (--jobs 1): {t1:>9.3} s\n  {cores} at a time (--jobs {cores}):      {tn:>9.3} s\n  ratio: {:.3} (ideal {:.3}); medians of {} pair(s), whole processes\n",
            sweep.display(),
            tn / t1,
            1.0 / cores as f64,
            self.pairs
        )
    }
}
