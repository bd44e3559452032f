//! Building scenarios in code, for tests and benchmarks that should not depend on the
//! scenario-file layer.

use std::path::PathBuf;

use crate::config::{OutputParams, Scenario, SimParams, TableFormat};
use crate::fabric::params::SwitchParams;
use crate::nic::params::NicParams;
use crate::topology::{HostSpec, LinkSpec, NodeRef, SwitchSpec, Topology};
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::{Rate, Time};

/// A scenario over `topo` with default switch and NIC parameters, no flows, no sampling.
pub fn scenario(topo: Topology, duration: Time) -> Scenario {
    Scenario {
        name: "test".into(),
        sim: SimParams {
            duration,
            seed: 1,
            warmup: Time::ZERO,
            stop_when_done: true,
            deadlock_detection: Time::from_ms(10),
            stop_on_deadlock: false,
            wall_limit: None,
            max_memory: crate::config::memory::default_max_memory(),
            threads: 1,
            route_ahead: crate::config::scenario::RouteAheadMode::Auto,
        },
        switches: vec![SwitchParams::default(); topo.switches.len()],
        nics: vec![NicParams::default(); topo.hosts.len()],
        topology: topo,
        flows: Vec::new(),
        streams: Vec::new(),
        faults: Vec::new(),
        output: OutputParams {
            dir: PathBuf::from("results/test"),
            throughput_interval: None,
            queue_sample_interval: None,
            counters_interval: None,
            format: TableFormat::Csv,
            report: false,
            max_pfc_log: 1_000_000,
        },
        tcp: Default::default(),
    }
}

/// A flow of `size` bytes (`None` = long-lived) from host `src` to `dst` at `start`, DSCP 26.
pub fn flow(src: u32, dst: u32, size: Option<u64>, start: Time) -> FlowSpec {
    let mut f = FlowSpec::new(src, dst, size, start, 26, FlowKind::RdmaWrite);
    f.sport = 49152 + (src * 131 + dst * 7) as u16 % 16000;
    f
}

/// A TCP flow of `size` bytes (`None` = long-lived) from `src` to `dst` at `start` with
/// window algorithm `cc`, DSCP 0.
pub fn tcp_flow(
    src: u32,
    dst: u32,
    size: Option<u64>,
    start: Time,
    cc: crate::nic::tcp::TcpCc,
) -> FlowSpec {
    let mut f = flow(src, dst, size, start);
    f.dscp = 0;
    f.kind = FlowKind::Tcp(cc);
    f
}

/// Hosts with the given names, in no pod.
pub fn named_hosts(names: impl IntoIterator<Item = impl Into<String>>) -> Vec<HostSpec> {
    (names.into_iter())
        .map(|n| HostSpec {
            name: n.into(),
            pod: None,
        })
        .collect()
}

/// Switches of role "switch" with the given names, in no pod.
pub fn named_switches(names: impl IntoIterator<Item = impl Into<String>>) -> Vec<SwitchSpec> {
    (names.into_iter())
        .map(|n| SwitchSpec {
            name: n.into(),
            role: "switch".into(),
            pod: None,
        })
        .collect()
}

/// Hosts `h0..h{n-1}`.
pub fn hosts(n: u32) -> Vec<HostSpec> {
    named_hosts((0..n).map(|i| format!("h{i}")))
}

/// Switches `sw0..sw{n-1}`.
pub fn switches(n: u32) -> Vec<SwitchSpec> {
    named_switches((0..n).map(|i| format!("sw{i}")))
}

/// `n` hosts `h0..` on one switch `sw0`, every link `rate` and `delay`.
pub fn star(n: u32, rate: Rate, delay: Time) -> Topology {
    Topology {
        hosts: hosts(n),
        switches: switches(1),
        links: (0..n)
            .map(|i| LinkSpec {
                a: NodeRef::Host(i),
                b: NodeRef::Switch(0),
                rate,
                delay,
            })
            .collect(),
    }
}

/// Two hosts joined by one cable, no switch.
pub fn back_to_back(rate: Rate, delay: Time) -> Topology {
    Topology {
        hosts: hosts(2),
        switches: vec![],
        links: vec![LinkSpec {
            a: NodeRef::Host(0),
            b: NodeRef::Host(1),
            rate,
            delay,
        }],
    }
}

/// Liu et al. 2015 Fig. 3: A, B, C on S1; S1–S2; D and R on S2; all links `rate`, `delay`.
pub fn parking_lot(rate: Rate, delay: Time) -> Topology {
    let h = |i| NodeRef::Host(i);
    let s = |i| NodeRef::Switch(i);
    let l = |a, b| LinkSpec { a, b, rate, delay };
    Topology {
        hosts: named_hosts(["A", "B", "C", "D", "R"]),
        switches: named_switches(["S1", "S2"]),
        links: vec![
            l(h(0), s(0)),
            l(h(1), s(0)),
            l(h(2), s(0)),
            l(s(0), s(1)),
            l(h(3), s(1)),
            l(h(4), s(1)),
        ],
    }
}

/// h0 – sw0 – sw1 – h1: a path of three links (0: h0–sw0, 1: sw0–sw1, 2: sw1–h1), every link
/// `rate` and `delay`.
pub fn chain3(rate: Rate, delay: Time) -> Topology {
    let l = |a, b| LinkSpec { a, b, rate, delay };
    Topology {
        hosts: hosts(2),
        switches: switches(2),
        links: vec![
            l(NodeRef::Host(0), NodeRef::Switch(0)),
            l(NodeRef::Switch(0), NodeRef::Switch(1)),
            l(NodeRef::Switch(1), NodeRef::Host(1)),
        ],
    }
}
