//! Streamed flows (`traffic::stream`) run exactly as listed ones: the same scenario with its
//! Poisson workload streamed, and with the same flows listed, gives equal results.

use super::Sim;
use crate::config::{load_str, Scenario};
use crate::monitor::RunResults;

fn run(sc: Scenario) -> RunResults {
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    let mut r = sim.results(0.0);
    r.peak_memory_kb = 0;
    r
}

/// A star of 6 hosts with DCQCN and ECN, Poisson AliStorage flows at 60 % load for 300 us,
/// run streamed and listed: every result (rows, counters, samples, summary) is equal, and the
/// run has flows that complete and flows still running at the end.
#[test]
fn a_streamed_workload_runs_as_the_listed_one() {
    let text = r#"
[sim]
duration = "300us"
seed = 3
[topology]
kind = "star"
hosts = 6
link = { rate = "25Gbps", delay = "1us" }
[switch]
pfc_enable = [3]
ecn = { queues = [3], kmin = "5KB", kmax = "50KB", pmax = 0.1 }
[nic]
cc = "dcqcn"
[[workload]]
kind = "poisson"
cdf = "alistorage"
load = 0.6
[output]
throughput_interval = "20us"
"#;
    let streamed = load_str(text, "t.toml", std::path::Path::new("."), &[]).unwrap();
    assert!(streamed.flows.is_empty() && streamed.streams.len() == 1);
    let mut listed = streamed.clone();
    for s in std::mem::take(&mut listed.streams) {
        listed.flows.extend(s.iter().map(|(_, f)| f));
    }
    let (a, b) = (run(streamed), run(listed));
    let done = a.flows.iter().filter(|f| f.end_ns.is_some()).count();
    assert!(
        done > 20 && done < a.flows.len(),
        "{done} of {} done",
        a.flows.len()
    );
    assert!(!a.throughput.is_empty());
    assert_eq!(a, b);
}
