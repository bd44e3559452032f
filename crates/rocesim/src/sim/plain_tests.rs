//! The run loop compiled for plain switches (`Switch::is_plain`) must decide exactly what the
//! general loop decides: the same scenario run both ways gives the same results and events.

use super::Sim;
use crate::config::load_str;

/// A k = 4 fat-tree at 60 % load of WebSearch flows and an incast into one host, with DCQCN
/// over RED/ECN marking and PFC in a small buffer: pauses, marks, CNPs and ECMP all happen.
fn fat_tree() -> Sim {
    let text = r#"
[sim]
duration = "300us"
seed = 7
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "100Gbps", delay = "1us" }
fabric_link = { rate = "100Gbps", delay = "1us" }
[switch]
buffer_size = "2MB"
pfc_enable = [3]
ecn = { queues = [3], kmin = "5KB", kmax = "50KB", pmax = 0.2 }
[nic]
mtu = 1000
cc = "dcqcn"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.6
[[workload]]
kind = "incast"
senders = "all"
receiver = "h0"
size = "128KB"
at = "20us"
"#;
    let sc = load_str(text, "plain.toml", std::path::Path::new("."), &[]).expect("valid");
    Sim::new(sc).expect("builds")
}

#[test]
fn plain_switches_run_as_the_general_loop_runs_them() {
    let mut plain = fat_tree();
    assert!(plain.switches.iter().all(|s| s.is_plain()));
    // The same DSCP map, bound port by port: the same forwarding, but no switch is plain.
    let mut general = fat_tree();
    for (sw, p) in general.switches.iter_mut().zip(&general.scenario.switches) {
        sw.port_dscp_to_tc = vec![p.dscp_to_tc; sw.ports.len()].into_boxed_slice();
        assert!(!sw.is_plain());
    }
    plain.run(|_| true);
    general.run(|_| true);
    assert!(plain.events > 50_000, "{} events", plain.events);
    assert_eq!(plain.events, general.events);
    let (mut a, mut b) = (plain.results(0.0), general.results(0.0));
    (a.peak_memory_kb, b.peak_memory_kb) = (0, 0);
    let marked: u64 = a.flows.iter().map(|f| f.ecn_marked).sum();
    assert!(
        !a.pfc_log.is_empty() && marked > 0,
        "pauses and marks happen"
    );
    assert!(
        a == b,
        "the plain loop's results differ from the general loop's"
    );
}
