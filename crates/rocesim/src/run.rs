//! Running one scenario end to end: build the simulator, run it, collect its results. The
//! `rocesim run` command and every run of a [sweep](crate::sweep) go through [`run_sim`]; the
//! result files are then written with [`crate::output::write_all`].

use std::time::{Duration, Instant};

use crate::config::Scenario;
use crate::monitor::RunResults;
use crate::sim::{BuildError, Progress};
use crate::Sim;

/// Builds the simulator for `scenario` and runs it with [`run_sim`]. Fails when the scenario
/// cannot be built (e.g. headroom does not fit in a switch's buffer).
pub fn simulate(
    scenario: Scenario,
    keep_going: impl FnMut(Progress, Duration) -> bool,
) -> Result<RunResults, BuildError> {
    Ok(run_sim(Sim::new(scenario)?, keep_going))
}

/// Runs a built simulator to its end, or until `keep_going` returns false (then the results
/// are partial and marked `incomplete`), and returns its results.
///
/// `keep_going` is called now and then with the simulation's [`Progress`] and the wall time
/// elapsed since the run started. The `wall_s` of the results is the wall time of the run
/// alone, in seconds (building the simulator is not counted).
pub fn run_sim(mut sim: Sim, mut keep_going: impl FnMut(Progress, Duration) -> bool) -> RunResults {
    let started = Instant::now();
    let limit = sim.wall_limit();
    let mut over_limit = false;
    let mut progress = |p| {
        let elapsed = started.elapsed();
        over_limit = limit.is_some_and(|l| elapsed >= l);
        !over_limit && keep_going(p, elapsed)
    };
    if sim.partitioned() {
        sim = sim.run_parts(&mut progress);
    } else {
        sim.run(progress);
    }
    let mut r = sim.results(started.elapsed().as_secs_f64());
    if r.incomplete {
        let by = if over_limit {
            "wall_limit"
        } else {
            "interrupt"
        };
        r.stopped_by = Some(by.to_string());
    }
    r
}
