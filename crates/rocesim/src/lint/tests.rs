//! Every lint rule: a configuration that triggers it and one that does not.

use super::{lint, Finding};
use crate::config::{load_str, Scenario};
use crate::traffic::FlowKind;

const BASE: &str = r#"
[sim]
duration = "1ms"
[topology]
kind = "star"
hosts = 3
link = { rate = "100Gbps", delay = "1us" }
[[flow]]
src = "h0"
dst = "h2"
size = "100KB"
[[flow]]
src = "h1"
dst = "h2"
size = "100KB"
"#;

/// The base scenario with `extra` TOML appended.
pub(crate) fn scenario(extra: &str) -> Scenario {
    let text = format!("{BASE}\n{extra}");
    load_str(&text, "t.toml", std::path::Path::new("."), &[]).expect("valid scenario")
}

fn rule(sc: &Scenario, name: &str) -> Vec<Finding> {
    lint(sc).into_iter().filter(|f| f.rule == name).collect()
}

#[test]
fn the_default_configuration_is_clean() {
    let f = lint(&scenario(""));
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_switch_that_maps_the_roce_dscp_to_a_lossy_tc_is_found() {
    let sc = scenario("[switch.name.sw0]\ndscp_to_tc = { 26 = 0, 48 = 6 }");
    let f = rule(&sc, "classes");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].node, "switch `sw0`");
    assert!(
        f[0].message.contains("maps DSCP 26 to lossy TC 0"),
        "{}",
        f[0]
    );
    assert!(f[0].fix.contains("map DSCP 26 to TC 3"), "{}", f[0]);
    // Same class, but another PFC priority: the switch would pause priority 4.
    let sc = scenario("[switch.name.sw0]\ndscp_to_tc = { 26 = 4 }\npfc_enable = [3, 4]");
    assert!(rule(&sc, "classes")
        .iter()
        .any(|f| f.message.contains("lossless TC 4")));
}

#[test]
fn a_receiving_nic_that_disagrees_with_the_sender_is_found() {
    let sc = scenario("[nic.host.h2]\ndscp_to_tc = { 26 = 0 }");
    let f = rule(&sc, "classes");
    assert!(f.iter().any(|f| f.node == "NIC `h2`"), "{f:?}");
}

#[test]
fn a_queue_mixing_lossless_and_lossy_classes_is_found() {
    let sc = scenario("[switch]\ntc_to_queue = { 0 = 3 }\n[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1KB\"\ndscp = 0");
    let f = rule(&sc, "classes");
    assert!(
        f.iter().any(|f| f
            .message
            .contains("queue 3 holds lossless TC 3 and lossy TC 0")),
        "{f:?}"
    );
    // Without the remap, TC 0 keeps queue 0: clean.
    let sc = scenario("[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1KB\"\ndscp = 0");
    assert!(rule(&sc, "classes").is_empty());
}

#[test]
fn roce_and_tcp_in_one_queue_is_found() {
    let mut sc = scenario("[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1KB\"\ndscp = 0");
    sc.flows[2].kind = FlowKind::Tcp(crate::nic::tcp::TcpCc::Cubic);
    assert!(
        rule(&sc, "tcp").is_empty(),
        "TCP in queue 0, RoCE in queue 3"
    );
    // A TCP flow sent with the RoCE DSCP lands in queue 3 beside RoCE.
    sc.flows[2].dscp = 26;
    let f = rule(&sc, "tcp");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("share queue 3"), "{}", f[0]);
}

#[test]
fn cnps_behind_roce_data_or_in_a_lossy_dwrr_queue_are_found() {
    let dcqcn = "[nic]\ncc = \"dcqcn\"\n[switch.ecn]\nqueues = [3]\n";
    assert!(rule(&scenario(dcqcn), "cnp").is_empty());
    let sc = scenario(&format!(
        "{dcqcn}[switch.name.sw0]\ndscp_to_tc = {{ 26 = 3, 48 = 3 }}"
    ));
    let f = rule(&sc, "cnp");
    assert!(
        f.iter().any(|f| f.message.contains("share queue 3")),
        "{f:?}"
    );
    let sc = scenario(&format!(
        "{dcqcn}[switch.name.sw0]\nscheduler = {{ 6 = {{ dwrr = 1 }} }}"
    ));
    let f = rule(&sc, "cnp");
    assert!(
        f.iter().any(|f| f.message.contains("lossy DWRR queue 6")),
        "{f:?}"
    );
}

#[test]
fn pfc_enabled_at_one_end_of_a_link_only_is_found() {
    let f = rule(&scenario("[nic.host.h1]\npfc_enable = [3, 4]"), "pfc");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].node, "switch `sw0`");
    assert!(f[0].message.contains("TCs {4}"), "{}", f[0]);
    assert!(rule(&scenario("[nic]\npfc_enable = [3]"), "pfc").is_empty());
}

#[test]
fn findings_name_ports_by_port_names() {
    let sc = scenario(
        "[switch]\nport_names = [\"Ethernet0\", \"Ethernet4\", \"Ethernet8\"]\n[switch.lossless]\nheadroom = \"50000B\"",
    );
    let f = rule(&sc, "headroom");
    assert!(
        f[0].message.contains("worst port Ethernet0 (port 0)"),
        "{f:?}"
    );
    let sc =
        scenario("[switch]\nport_names = [\"Ethernet0\", \"Ethernet4\"]\n[nic]\npfc_enable = [4]");
    let f = rule(&sc, "pfc");
    assert!(f[1].message.contains("here on Ethernet4 (port 1)"), "{f:?}");
}

#[test]
fn headroom_below_the_delay_budget_is_found() {
    // 100G, 1 us: 2 × 12,500 + 2 × 1122 + 25,216 + 84 + 1122 (the frame that crossed XOFF)
    // = 53,666 B (see fabric::headroom).
    let f = rule(
        &scenario("[switch.lossless]\nheadroom = \"50000B\""),
        "headroom",
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("50000 B < 53666 B"), "{}", f[0]);
    assert!(f[0].message.starts_with("3 lossless port(s)"), "{}", f[0]);
    assert!(rule(
        &scenario("[switch.lossless]\nheadroom = \"53666B\""),
        "headroom"
    )
    .is_empty());
    assert!(!rule(&scenario("[switch.lossless]\nheadroom = 0.5"), "headroom").is_empty());
}

#[test]
fn kmax_above_the_xoff_point_is_found() {
    // Static XOFF 180 KB; one frame is 1024 + 98 = 1122 B: Kmax may be at most 178,878 B.
    let st = "[switch]\nbuffer_mode = \"static\"\n[switch.ecn]\nqueues = [3]\n";
    let f = rule(&scenario(&format!("{st}kmax = \"178879B\"")), "ecn");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].fix.contains("at most 178878 B"), "{}", f[0]);
    assert!(rule(&scenario(&format!("{st}kmax = \"178878B\"")), "ecn").is_empty());
    // Dynamic, α = 1/16 of a 12 MB buffer less 3 ports × (53,666 headroom + 1248 reserved):
    // (12,000,000 − 164,742) / 16 = 739,703 B, + 1248 reserved = 740,951 B, less one frame.
    let dy = "[switch.ecn]\nqueues = [3]\n";
    assert!(rule(&scenario(&format!("{dy}kmax = \"739829B\"")), "ecn").is_empty());
    assert_eq!(
        rule(&scenario(&format!("{dy}kmax = \"739830B\"")), "ecn").len(),
        1
    );
}

#[test]
fn dcqcn_without_a_marking_queue_is_found() {
    let f = rule(&scenario("[nic]\ncc = \"dcqcn\""), "cc");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("DCQCN"), "{}", f[0]);
    assert!(f[0].fix.contains("queues = [3]"), "{}", f[0]);
    let marked = "[nic]\ncc = \"dcqcn\"\n[switch.ecn]\nqueues = [3]";
    assert!(rule(&scenario(marked), "cc").is_empty());
    // Marking another queue does not help.
    let wrong = "[nic]\ncc = \"dcqcn\"\n[switch.ecn]\nqueues = [4]";
    assert_eq!(rule(&scenario(wrong), "cc").len(), 1);
    // HPCC needs no ECN.
    assert!(rule(&scenario("[nic]\ncc = \"hpcc\""), "cc").is_empty());
}

#[test]
fn dcqcn_with_an_unmarked_congested_flow_queue_is_found() {
    // Isolated flows of class 3 wait in queue 2: DCQCN needs marks there too.
    let iso =
        "[nic]\ncc = \"dcqcn\"\n[switch.isolation]\ncfq = { 3 = { priority = 2, queue = 2 } }\n";
    let f = rule(&scenario(&format!("{iso}[switch.ecn]\nqueues = [3]")), "cc");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("congested-flow queue 2"), "{}", f[0]);
    assert!(f[0].fix.contains("queue 2"), "{}", f[0]);
    let both = format!("{iso}[switch.ecn]\nqueues = [2, 3]");
    assert!(rule(&scenario(&both), "cc").is_empty());
}

#[test]
fn watchdog_timers_out_of_order_are_found() {
    let ok = "[switch.pfc_watchdog]\ndetection_time = \"200ms\"\nrestoration_time = \"200ms\"\npoll_interval = \"100ms\"";
    assert!(rule(&scenario(ok), "watchdog").is_empty());
    let bad = "[switch.pfc_watchdog]\ndetection_time = \"50ms\"\nrestoration_time = \"20ms\"\npoll_interval = \"100ms\"";
    let f = rule(&scenario(bad), "watchdog");
    assert!(
        f.iter()
            .any(|f| f.message.contains("shorter than poll_interval")),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|f| f.message.contains("restoration_time 20ms is shorter")),
        "{f:?}"
    );
    // The NIC guard (100 ms by default) is not below a 50 ms switch detection time.
    let guard: Vec<_> = f
        .iter()
        .filter(|f| f.key == "nic.pfc_prevention_tout")
        .collect();
    assert_eq!(guard.len(), 1, "{f:?}");
    assert_eq!(guard[0].node, "NIC `h0`, `h1`, `h2`");
    let off = format!("{ok}\n[nic.host.h1]\npfc_prevention_tout = \"off\"");
    let f = rule(&scenario(&off), "watchdog");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].node, "NIC `h1`");
}

#[test]
fn one_port_that_maps_the_roce_dscp_to_a_lossy_tc_is_found_by_name() {
    // Ports with their own DSCP maps: port 1 (the only port that differs) puts DSCP 26 in
    // lossy TC 0; the finding names it, and the switch's other ports are not blamed.
    let mut sc = scenario("");
    let p = &mut sc.switches[0];
    let mut lossy = p.dscp_to_tc;
    lossy[26] = 0;
    p.port_dscp_to_tc = vec![p.dscp_to_tc, lossy, p.dscp_to_tc];
    let f = rule(&sc, "classes");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message
            .contains("maps DSCP 26 on port 1 to lossy TC 0"),
        "{}",
        f[0]
    );
    // Every port with the switch's map: clean.
    let p = &mut sc.switches[0];
    p.port_dscp_to_tc = vec![p.dscp_to_tc; 3];
    assert!(rule(&sc, "classes").is_empty());
}

#[test]
fn one_port_with_a_dwrr_cnp_queue_is_found_by_name() {
    // DCQCN with CNPs (DSCP 48 → TC 6 → queue 6) in a lossy queue: strict on ports 0 and 2,
    // DWRR on port 1 only. The finding names port 1; with port 1 strict too, it is clean.
    use crate::fabric::params::QueueSched;
    let mut sc = scenario("[nic]\ncc = \"dcqcn\"\n[switch]\necn = { queues = [3] }");
    let p = &mut sc.switches[0];
    let strict = p.scheduler;
    assert_eq!(strict[6], QueueSched::Strict);
    let mut dwrr = strict;
    dwrr[6] = QueueSched::Dwrr(1);
    p.port_scheduler = vec![strict, dwrr, strict];
    let f = rule(&sc, "cnp");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message.contains("lossy DWRR queue 6 on port 1"),
        "{}",
        f[0]
    );
    sc.switches[0].port_scheduler = vec![strict; 3];
    assert!(rule(&sc, "cnp").is_empty());
}
