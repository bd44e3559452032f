//! How `sim/partition.rs` splits fabrics: expected parts from the topology builders' own pod
//! labels and link delays, not from the split's code.

use super::partition::{lookahead, split};
use super::testkit;
use super::Sim;
use crate::topology::build::clos::fat_tree;
use crate::topology::def::LinkClass;
use crate::topology::NodeRef;
use crate::units::{Rate, Time};

fn link(delay_ns: u64) -> LinkClass {
    LinkClass {
        rate: Rate::gbps(100),
        delay: Time::from_ns(delay_ns),
    }
}

fn fat_tree_sim(k: u32, host_delay_ns: u64, fabric_delay_ns: u64) -> Sim {
    let topo = fat_tree(k, 1, link(host_delay_ns), link(fabric_delay_ns)).expect("valid");
    Sim::new(testkit::scenario(topo, Time::from_us(10))).expect("builds")
}

#[test]
fn a_fat_tree_splits_by_pod_with_its_hosts() {
    // k = 4: 4 pods of 2 edge + 2 aggregation switches and 4 hosts, and 4 cores.
    let sim = fat_tree_sim(4, 1000, 1000);
    let o = split(&sim, 2);
    let topo = &sim.scenario.topology;
    let mut part_of_pod = [None; 4];
    for (s, spec) in topo.switches.iter().enumerate() {
        let Some(pod) = spec.pod else { continue };
        let p = part_of_pod[pod as usize].get_or_insert(o.switches[s]);
        assert_eq!(
            *p, o.switches[s],
            "pod {pod} is split: switch {}",
            spec.name
        );
    }
    for l in &topo.links {
        if let (NodeRef::Host(h), NodeRef::Switch(s)) | (NodeRef::Switch(s), NodeRef::Host(h)) =
            (l.a, l.b)
        {
            assert_eq!(
                o.hosts[h as usize], o.switches[s as usize],
                "host {h} with its ToR"
            );
        }
    }
    // Two pods (8 hosts) a part, and the 4 cores dealt 2 and 2.
    for part in 0..2u16 {
        assert_eq!(o.hosts.iter().filter(|&&p| p == part).count(), 8);
        let cores = (topo.switches.iter().zip(&o.switches))
            .filter(|(s, &p)| s.pod.is_none() && p == part)
            .count();
        assert_eq!(cores, 2);
    }
}

#[test]
fn more_parts_than_pods_leaves_parts_empty_but_valid() {
    let sim = fat_tree_sim(4, 1000, 1000);
    let o = split(&sim, 8);
    assert!(o.switches.iter().chain(&o.hosts).all(|&p| p < 8));
    let used: std::collections::BTreeSet<u16> = o.hosts.iter().copied().collect();
    assert_eq!(used.len(), 4, "one pod a part: {used:?}");
}

#[test]
fn the_lookahead_is_the_shortest_link_across_a_cut() {
    // Host links 300 ns (never cut: hosts go with their ToR), fabric links 700 ns.
    let sim = fat_tree_sim(4, 300, 700);
    let o = split(&sim, 2);
    assert_eq!(lookahead(&sim, &o), Some(Time::from_ns(700)));
    // One part: nothing crosses a cut.
    assert_eq!(lookahead(&sim, &split(&sim, 1)), None);
}

#[test]
fn a_chain_splits_switch_by_switch() {
    // host0 - sw0 - sw1 - host1: one tier, so each switch is a group with its host.
    let sim = Sim::new(testkit::scenario(
        testkit::chain3(Rate::gbps(100), Time::from_ns(500)),
        Time::from_us(10),
    ))
    .expect("builds");
    let o = split(&sim, 2);
    assert_ne!(o.switches[0], o.switches[1]);
    assert_eq!(o.hosts, vec![o.switches[0], o.switches[1]]);
    assert_eq!(lookahead(&sim, &o), Some(Time::from_ns(500)));
}

#[test]
fn a_chained_flow_across_parts_needs_the_lookahead() {
    // host0 (part of sw0) and host1 (part of sw1), 500 ns links: a flow from host1 chained
    // to one from host0 must start at least 500 ns after it completes; from host0, at once.
    let topo = testkit::chain3(Rate::gbps(100), Time::from_ns(500));
    let mut sc = testkit::scenario(topo, Time::from_us(10));
    sc.flows.push(testkit::flow(0, 1, Some(1000), Time::ZERO));
    sc.flows
        .push(testkit::flow(1, 0, Some(1000), Time::from_ns(499)));
    sc.flows[1].after = Some(0);
    sc.sim.threads = 2;
    let sim = Sim::new(sc.clone());
    let err = sim.err().expect("refused").0.join("\n");
    assert!(
        err.contains("flow 1 (from host `h1`) starts 499ns after flow 0"),
        "{err}"
    );
    sc.flows[1].start = Time::from_ns(500);
    assert!(
        Sim::new(sc.clone()).is_ok(),
        "one lookahead after is enough"
    );
    sc.flows[1].start = Time::ZERO;
    sc.flows[1].src = 0;
    sc.flows[1].dst = 1;
    assert!(Sim::new(sc).is_ok(), "the same sender needs no gap");
}

#[test]
fn sim_run_on_a_split_world_runs_every_part() {
    // Two flows crossing the chain's middle link both ways, run through `Sim::run` (not
    // `run::run_sim`): the split world gives one thread's results.
    let topo = testkit::chain3(Rate::gbps(100), Time::from_ns(500));
    let mut sc = testkit::scenario(topo, Time::from_us(40));
    sc.flows
        .push(testkit::flow(0, 1, Some(200_000), Time::ZERO));
    sc.flows
        .push(testkit::flow(1, 0, Some(100_000), Time::from_us(1)));
    sc.sim.stop_when_done = false;
    let run = |threads: u16| {
        let mut sc = sc.clone();
        sc.sim.threads = threads;
        let mut sim = Sim::new(sc).expect("builds");
        sim.run(|_| true);
        let mut r = sim.results(0.0);
        r.peak_memory_kb = 0;
        let split = r.threads.take();
        (r, split)
    };
    let (one, none) = run(1);
    let (two, stats) = run(2);
    assert!(none.is_none());
    let stats = stats.expect("ran split");
    assert!(stats.cut_frames > 0, "{stats:?}");
    assert_eq!(one, two);
    assert!(
        one.flows.iter().all(|f| f.fct_ns.is_some()),
        "both flows complete"
    );
}
