//! The run loop compiled for plain switches (`Switch::is_plain`) must decide exactly what the
//! general loop decides: the same scenario run both ways gives the same results and events.

use super::Sim;
use crate::config::load_str;

/// A k = 4 fat-tree at 60 % load of WebSearch flows and an incast into one host, with DCQCN
/// over RED/ECN marking and PFC in a small buffer: pauses, marks, CNPs and ECMP all happen.
/// `sim` and `switch` are extra keys of those tables; `fault`, extra tables.
fn fat_tree(sim: &str, switch: &str, fault: &str) -> Sim {
    let text = format!(
        r#"
[sim]
duration = "300us"
seed = 7
{sim}
[topology]
kind = "fat_tree"
k = 4
host_link = {{ rate = "100Gbps", delay = "1us" }}
fabric_link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
buffer_size = "2MB"
pfc_enable = [3]
ecn = {{ queues = [3], kmin = "5KB", kmax = "50KB", pmax = 0.2 }}
{switch}
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
{fault}
"#
    );
    let sc = load_str(&text, "plain.toml", std::path::Path::new("."), &[]).expect("valid");
    Sim::new(sc).expect("builds")
}

#[test]
fn plain_switches_run_as_the_general_loop_runs_them() {
    // Dynamic thresholds without routing one hop ahead, static ones with it: each of the
    // four compiled loops runs once. A link failure (frames lost on the cut wire, routes
    // reconverged) keeps switches plain; it turns routing ahead off.
    let static_mode = r#"buffer_mode = "static"
lossless = { xoff = "60KB", xon = "40KB", headroom = "40KB" }"#;
    let link_down = r#"[[fault]]
kind = "link_down"
link = ["edge0", "agg0"]
at = "100us"
reconverge = "50us""#;
    let mut unfaulted = None;
    for (sim, switch, fault) in [
        ("", "", ""),
        ("route_ahead = \"on\"", static_mode, ""),
        ("", "", link_down),
    ] {
        let mut plain = fat_tree(sim, switch, fault);
        assert_eq!(plain.scenario.faults.is_empty(), fault.is_empty());
        assert!(plain.switches.iter().all(|s| s.is_plain()));
        assert_eq!(plain.ctx.ahead.is_on(), !sim.is_empty());
        // The same DSCP map, bound port by port: the same forwarding, but no switch is plain.
        let mut general = fat_tree(sim, switch, fault);
        for (sw, p) in general.switches.iter_mut().zip(&general.scenario.switches) {
            sw.port_dscp_to_tc = vec![p.dscp_to_tc; sw.ports.len()].into_boxed_slice();
            assert!(!sw.is_plain());
        }
        plain.run(|_| true);
        general.run(|_| true);
        let what = format!("[sim] {sim:?}, [switch] {switch:?}, {fault:?}");
        assert!(plain.events > 50_000, "{what}: {} events", plain.events);
        assert_eq!(plain.events, general.events, "{what}");
        let (mut a, mut b) = (plain.results(0.0), general.results(0.0));
        (a.peak_memory_kb, b.peak_memory_kb) = (0, 0);
        let marked: u64 = a.flows.iter().map(|f| f.ecn_marked).sum();
        assert!(
            !a.pfc_log.is_empty() && marked > 0,
            "{what}: pauses and marks"
        );
        assert!(
            a == b,
            "{what}: the plain loop's results differ from the general loop's"
        );
        match (sim, switch, fault) {
            ("", "", "") => unfaulted = Some(a),
            (_, _, "") => {}
            _ => assert!(Some(&a) != unfaulted.as_ref(), "{what}: the failure acted"),
        }
    }
}
