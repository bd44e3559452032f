//! Per-key cases of the checker on the parking-lot scenario of `main.rs`: an error at
//! the expected key with the expected words, and values that layers and profiles resolve to.

use super::{assert_key, load_pl, PARKING_LOT};
use rocesim::fabric::params::Headroom;
use rocesim::units::{Bytes, Rate, Time};

/// One case a line: `overrides (separated by " ; ") | key | words of its error message`.
const ERRORS: &str = r#"
sim.duration=5 | sim.duration | expected a time like "1us", found integer 5
sim.warmup=60ms | sim.warmup | is not before the end of the run
sim.seed=-3 | sim.seed | expected a non-negative integer, found -3
switch.buffer_size=12 parsecs | switch.buffer_size | invalid size
switch.dscp_to_tc={ 70 = 3 } | switch.dscp_to_tc.70 | not a number in 0..=63
switch.dscp_to_tc={ 26 = 9 } | switch.dscp_to_tc.26 | traffic class 9 is above 7
switch.lossless.headroom=100 | switch.lossless.headroom | smaller than one frame
switch.ecn.pmax=1.5 | switch.ecn.pmax | 1.5 is outside [0, 1]
switch.ecn.kmin=300KB | switch.ecn.kmin | kmin (300KB) is above kmax (200KB)
switch.congestion_detection=rcm_2 | switch.congestion_detection | unknown value `rcm_2`
switch.name.S9.latency=1us | switch.name.S9 | unknown switch `S9`
nic.mtu=10000 | nic.mtu | out of range
nic.mtu=32 | nic.mtu | out of range
nic.ack_every=0 | nic.ack_every | out of range
nic.dscp=64 | nic.dscp | DSCP 64 is above 63
nic.transport=tcp | nic.transport | unknown value `tcp`
nic.irn.rto_high=50us | nic.irn.rto_high | is below rto_low
nic.irn.rto_low=400us | nic.irn.rto_low | is below rto_low
nic.host.A.irn.rto_low=1ms | nic.host.A.irn.rto_low | is below rto_low
nic.irn.rto_low_threshold=0 | nic.irn.rto_low_threshold | out of range
nic.irn.bdp_cap=3MB | nic.irn.bdp_cap | at most 1024 fit
nic.irn.bdp_cap=0 | nic.irn.bdp_cap | must be positive
nic.irn.rto_low=5 | nic.irn.rto_low | expected a time
fault[1].frames=control | fault[1].frames | unknown value `control`
nic.cc=dcqnc | nic.cc | did you mean `dcqcn`?
nic.rx.xon=200KB | nic.rx.xon | XON (200KB) is above XOFF (128KB)
nic.rx.xoff=300KB | nic.rx.xoff | XOFF (300KB) is above the RX buffer (256KB)
nic.host.Z.mtu=1024 | nic.host.Z | unknown host `Z`
flow[0].src=Q | flow[0].src | unknown host `Q`
flow[0].dst=A | flow[0].dst | cannot go from `A` to itself
flow[0].size=-1 | flow[0].size | cannot be negative
flow[0].size=18446744073709551615 | flow[0].size | above the largest flow size, 1PiB
flow[0].size="2000000GB" | flow[0].size | above the largest flow size
switch.pfc_quanta=0 | switch.pfc_quanta | out of range
nic.pfc_quanta=0 | nic.pfc_quanta | out of range
nic.frame_overhead=10 | nic.frame_overhead | out of range
nic.frame_overhead=cisco | nic.frame_overhead | expected "rocev2" or a byte count
topology.ecmp_hash=polarised | topology.ecmp_hash | did you mean `polarized`?
flow[0].cc=cubic | flow[0].cc | `cc` applies only to TCP flows
flow[0].kind=tcp ; flow[0].cc=reno | flow[0].cc | unknown value `reno`
tcp.rto_min=0ms | tcp.rto_min | must be positive
tcp.mss=20 | tcp.mss | out of range
tcp.cc=bbr | tcp.cc | unknown value `bbr`
tcp.dctcp_g=2 | tcp.dctcp_g | outside (0, 1]
fault[0].at=70ms | fault[0].at | after the end of the run
fault[0].host=RR | fault[0].host | unknown host `RR`
fault[1].link=["A", "R"] | fault[1].link | there is no link between `A` and `R`
output.format=xml | output.format | unknown value `xml`
output.throughput_interval=5 | output.throughput_interval | expected a time like "1us" or "off"
topology.link.rate=40 | topology.link.rate | expected a rate like
topology.links[0][1]=S9 | topology | 
nic.dcqcn.rpg_time_rest=55us | nic.dcqcn.rpg_time_rest | did you mean `rpg_time_reset`?
nic.dcqcn.dce_tcp_g=1.5 | nic.dcqcn.dce_tcp_g | outside (0, 1]
nic.dcqcn.initial_alpha_value=1024 | nic.dcqcn.initial_alpha_value | mlx5 10-bit
nic.dcqcn.profile=mellanox | nic.dcqcn.profile | expected one of paper, nvidia
nic.dcqcn.dce_tcp_rtt=0us | nic.dcqcn.dce_tcp_rtt | must be positive
nic.dcqcn.rpg_time_reset="55" | nic.dcqcn.rpg_time_reset | no unit
nic.dcqcn.clamp_tgt_rate=1 | nic.dcqcn.clamp_tgt_rate | expected true or false
nic.rcm.recovery_time=off ; nic.rcm.recovery_bytes=off | nic.rcm | never recover
nic.rcm.step=rtt | nic.rcm.step | unknown value `rtt`
nic.rcm.max_level=0 | nic.rcm.max_level | out of range
nic.rcm.recovery_bytes=0 | nic.rcm.recovery_bytes | must be positive
nic.hpcc.etaa=0.9 | nic.hpcc.etaa | did you mean `eta`?
nic.hpcc.t=0us | nic.hpcc.t | must be positive
nic.hpcc.eta=1.5 | nic.hpcc.eta | 1.5 is outside (0, 1]
nic.timely.t_low=600us | nic.timely.t_low | t_low (600us) must be below t_high (500us)
nic.timely.update=rrt | nic.timely.update | did you mean `rtt`?
nic.timely.hai_after=0 | nic.timely.hai_after | out of range
nic.dctcp.alpha_init=1.5 | nic.dctcp.alpha_init | outside [0, 1]
nic.dctcp=3 | nic.dctcp | expected a table, found integer 3
nic.host.S1.mtu=1024 | nic.host.S1 | is a switch, not a host
nic.host.R.host.A.mtu=1024 | nic.host.R.host | unknown key
nic.host.R.rx.buffer=100KB | nic.host.R.rx.buffer | XOFF (128KB) is above the RX buffer
switch.role.tor.latency=1us | switch.role.tor | no switch has role `tor`
switch.role.swich.latency=1us | switch.role.swich | did you mean `switch`?
switch.name.R.latency=1us | switch.name.R | is a host, not a switch
switch.name.S2.role.x=1 | switch.name.S2.role | unknown key
switch.buffer_mode=static ; switch.name.S1.lossless.xon=300KB | switch.name.S1.lossless.xon | XON (300KB) is above XOFF (180KB)
switch.pfc_watchdog.action=dorp | switch.pfc_watchdog.action | did you mean `drop`?
switch.pfc_watchdog.poll_interval=0us | switch.pfc_watchdog.poll_interval | positive
switch.cable_length=5 parsecs | switch.cable_length | invalid length
switch.scheduler={ 3 = { dwr = 5 } } | switch.scheduler.3.dwr | unknown key
switch.scheduler={ 9 = "strict" } | switch.scheduler.9 | not a number in 0..=7
switch.lossless.headroom=-0.5 | switch.lossless.headroom | must be above 0 and at most 100
switch.lossless.headroom=1e20 | switch.lossless.headroom | must be above 0 and at most 100
switch.buffer_size=0 | switch.buffer_size | must be positive
switch.ecn=3 | switch.ecn | or "off"
topology.kind=leafspine | topology.kind | did you mean `leaf_spine`?
fault[1].every=0 | fault[1].every | out of range
fault[1].probability=0.5 | fault[1].probability | not both
fault[1].from=A | fault[1].from | `A` is not an end of the link
fault[0].until=1ms | fault[0].until | is not after `at`
fault[0].kind=link_down | fault[0].host | unknown key
fault[2].kind=route_override ; fault[2].switch=S1 ; fault[2].dst=R ; fault[2].via=R | fault[2].via | `R` is not a neighbour of `S1`
fault[2].kind=mac_age_out ; fault[2].switch=S2 ; fault[2].host=Q | fault[2].host | unknown host `Q`
workload[0].kind=incast ; workload[0].senders=all ; workload[0].receiver=R ; workload[0].size=1MB ; workload[0].count=2 | workload[0].count | needs `repeat`
workload[0].kind=poisson ; workload[0].cdf=websearh ; workload[0].load=0.5 | workload[0].cdf | did you mean `websearch`?
workload[0].kind=poisson ; workload[0].cdf=websearch ; workload[0].load=1.5 | workload[0].load | (0, 1]
workload[0].kind=permutation ; workload[0].hosts=A | workload[0].hosts | at least two hosts
workload[0].kind=all_to_all ; workload[0].seed=3 | workload[0].seed | unknown key
workload[0].kind=storage_read ; workload[0].client=R ; workload[0].targets=R ; workload[0].count=1 | workload[0].targets | no target other than the client
workload[0].kind=trace ; workload[0].file=missing.csv | workload[0].file | cannot read trace
switch.lossless.headroom=9223372036854775807 | switch.lossless.headroom | above the largest size accepted
workload[0].kind=pingmesh ; workload[0].interval=0us | workload[0].interval | above zero
workload[0].kind=pingmesh ; workload[0].levels=["tor","rack"] | workload[0].levels[1] | unknown level `rack`
workload[0].kind=pingmesh ; workload[0].levels=["dc"] | workload[0].levels | no two of the selected hosts
workload[0].kind=pingmesh ; workload[0].at=2ms ; workload[0].until=1ms | workload[0].at | starts at or after
workload[0].kind=incast ; workload[0].senders=all | workload[0].receiver | missing required key
flow[1].name=b-to-r ; flow[0].name=b-to-r | flow[1].name | already named
"#;

/// The parking lot with one (valid) workload, for the `workload[0]` cases to change.
fn with_workload() -> String {
    format!("{PARKING_LOT}\n[[workload]]\nkind = \"all_to_all\"\n")
}

#[test]
fn errors_name_their_key() {
    let text = with_workload();
    assert!(load_pl(&text, &[]).is_ok());
    for case in ERRORS.lines().filter(|l| !l.is_empty()) {
        let [sets, key, words] = [0, 1, 2].map(|i| case.split(" |").nth(i).unwrap_or("").trim());
        let sets: Vec<&str> = sets.split(" ; ").collect();
        let e = load_pl(&text, &sets)
            .err()
            .unwrap_or_else(|| panic!("{sets:?}: no error"));
        assert!(e.iter().all(|x| x.file == "parking-lot.toml"), "{e}");
        let found = e.iter().find(|x| x.key == key);
        let found = found.unwrap_or_else(|| panic!("{sets:?}: no error at `{key}` in:\n{e}"));
        assert!(
            found.message.contains(words),
            "{sets:?}: `{}` lacks `{words}`",
            found.message
        );
    }
}

#[test]
fn dcqcn_integers_are_mlx5_fixed_point_and_profiles_come_first() {
    let s = load_pl(
        PARKING_LOT,
        &[
            "nic.dcqcn.dce_tcp_g=1020",
            "nic.dcqcn.initial_alpha_value=512",
        ],
    );
    let d = &s.unwrap().nics[0].cc_params.dcqcn;
    assert_eq!((d.g, d.initial_alpha_value), (4.0 / 1024.0, 0.5));
    let sets = [
        "nic.dcqcn.dce_tcp_g=0.5",
        "nic.dcqcn.initial_alpha_value=1.0",
    ];
    let d = load_pl(PARKING_LOT, &sets).unwrap().nics[0]
        .cc_params
        .dcqcn
        .clone();
    assert_eq!((d.g, d.initial_alpha_value), (0.5, 1.0));
    // `profile` is applied first whatever its place; the other keys override it.
    let text = PARKING_LOT.replace(
        "dcqcn = { profile = \"paper\" }",
        "dcqcn = { rpg_ai_rate = \"5Mbps\", profile = \"nvidia\" }",
    );
    let s = load_pl(&text, &[]).unwrap();
    let d = &s.nics[0].cc_params.dcqcn;
    assert_eq!((d.rpg_ai_rate, d.rpg_threshold), (Rate::mbps(5), 1));
    assert_eq!(s.nics[0].min_time_between_cnps, Time::from_us(4));
}

#[test]
fn headroom_integer_is_bytes_float_is_a_multiple_of_auto() {
    let h = |v: &str| {
        load_pl(PARKING_LOT, &[v]).unwrap().switches[0]
            .lossless
            .headroom
    };
    assert_eq!(
        h("switch.lossless.headroom=4000"),
        Headroom::Fixed(Bytes(4000))
    );
    assert_eq!(h("switch.lossless.headroom=2.0"), Headroom::AutoScaled(2.0));
    assert_eq!(h("switch.lossless.headroom=auto"), Headroom::Auto);
}

#[test]
fn layers_change_only_the_keys_they_name() {
    let sets = [
        "switch.role.switch.latency=1us",
        "switch.role.switch.lossless.dynamic_th=-2",
        "switch.name.S2.buffer_size=1MB",
        "nic.hpcc.t=12.48us",
        "nic.host.R.hpcc.eta=0.9",
    ];
    let s = load_pl(PARKING_LOT, &sets).unwrap();
    let (s1, s2) = (&s.switches[0], &s.switches[1]);
    assert_eq!(
        (s1.latency, s1.buffer_size),
        (Time::from_us(1), Bytes(12_000_000))
    );
    // [switch.name.S2] of the file sets latency = "500ns" over the role's.
    assert_eq!(
        (s2.latency, s2.buffer_size),
        (Time::from_ns(500), Bytes(1_000_000))
    );
    assert_eq!((s1.lossless.dynamic_th, s2.lossless.dynamic_th), (-2, -2));
    assert_eq!(
        s1.lossless.xon_offset,
        Bytes(2_000),
        "keys a layer does not name are kept"
    );
    let (a, r) = (&s.nics[0].cc_params.hpcc, &s.nics[4].cc_params.hpcc);
    assert_eq!((a.eta, r.eta), (0.95, 0.9));
    assert_eq!(
        (a.t, r.t),
        (Some(Time::from_ns(12_480)), Some(Time::from_ns(12_480)))
    );
    assert_eq!(
        (s.nics[0].rx.rate, s.nics[4].rx.rate),
        (None, Some(Rate::gbps(20)))
    );
}

#[test]
fn incast_rounds_and_workload_order() {
    let sets = [
        "workload[0].kind=incast",
        "workload[0].senders=[\"A\", \"B\", \"R\"]",
        "workload[0].receiver=R",
        "workload[0].size=64KB",
        "workload[0].repeat=10us",
        "workload[0].count=3",
    ];
    let s = load_pl(&with_workload(), &sets).unwrap();
    // Three explicit flows, then 2 senders × 3 rounds.
    assert_eq!(s.flows.len(), 3 + 6);
    let starts: Vec<Time> = s.flows[3..].iter().map(|f| f.start).collect();
    assert_eq!(
        starts.iter().filter(|t| **t == Time::from_us(20)).count(),
        2
    );
    assert!(s.flows[3..]
        .iter()
        .all(|f| f.dst == 4 && f.size == Some(64_000)));
}

#[test]
fn tcp_flows_default_to_dscp_0_and_the_tcp_section_cc() {
    use rocesim::nic::tcp::TcpCc;
    use rocesim::traffic::FlowKind;
    let text = with_workload();
    let sc = load_pl(
        &text,
        &["flow[2].kind=tcp", "tcp.cc=newreno", "tcp.rto_min=1ms"],
    )
    .expect("valid");
    assert_eq!(sc.flows[2].kind, FlowKind::Tcp(TcpCc::NewReno));
    // Flow 2 names no DSCP: a TCP flow takes 0, not nic.dscp (26).
    assert_eq!(sc.flows[2].dscp, 0);
    assert_eq!(sc.flows[1].dscp, 26);
    assert_eq!(sc.tcp.rto_min, Time::from_ms(1));
    let sc = load_pl(&text, &["flow[0].kind=tcp", "flow[0].cc=dctcp"]).expect("valid");
    assert_eq!(sc.flows[0].kind, FlowKind::Tcp(TcpCc::Dctcp));
    // A workload of TCP flows: every generated flow is TCP, DSCP 0, default algorithm cubic.
    let sc = load_pl(&text, &["workload[0].flow_kind=tcp"]).expect("valid");
    let generated: Vec<_> = sc.flows.iter().skip(3).collect();
    assert!(!generated.is_empty());
    assert!(generated
        .iter()
        .all(|f| f.kind == FlowKind::Tcp(TcpCc::Cubic) && f.dscp == 0));
    let e = load_pl(&text, &["workload[0].cc=cubic"]).expect_err("cc without tcp");
    assert!(e.iter().any(|x| x.key == "workload[0].cc"), "{e}");
}

#[test]
fn memory_estimate_names_the_key_that_makes_a_run_too_large() {
    let text = with_workload();
    // One sample per picosecond over 60 ms of a flow's throughput cannot fit.
    let e = load_pl(&text, &["output.throughput_interval=1ps"]).unwrap_err();
    assert_key(&e, "output.throughput_interval");
    assert!(e.to_string().contains("sim.max_memory"), "{e}");
    // Switch counters every picosecond: about 6e10 samples of each active (port, priority).
    let e = load_pl(&text, &["output.counters_interval=1ps"]).unwrap_err();
    assert_key(&e, "output.counters_interval");
    let e = load_pl(&text, &["output.counters_interval=0us"]).unwrap_err();
    assert_key(&e, "output.counters_interval");
    assert!(load_pl(&text, &["output.counters_interval=10us"]).is_ok());
    // A limit below what even the parking lot needs, then the same limit raised.
    let e = load_pl(&text, &["sim.max_memory=10KB"]).unwrap_err();
    assert!(
        e.iter()
            .any(|x| x.message.contains("more than sim.max_memory")),
        "{e}"
    );
    assert!(load_pl(&text, &["sim.max_memory=1GB"]).is_ok());
}

#[test]
fn memory_estimate_counts_every_queue_pair_of_a_flow() {
    // The parking lot's all-to-all is tens of flows; with a million QPs each, that is tens of
    // millions of QP records (about 1 KB each: spec, record, QP state): far over 4 GB. The
    // fuzz test found this: the estimate counted flows, not QPs, and the run allocated 24 GB.
    let text = with_workload();
    let e = load_pl(&text, &["workload[0].qps=1000000", "sim.max_memory=4GB"]).unwrap_err();
    assert_key(&e, "workload");
    assert!(e.to_string().contains("sim.max_memory"), "{e}");
    assert!(load_pl(&text, &["workload[0].qps=100", "sim.max_memory=4GB"]).is_ok());
}

#[test]
fn memory_estimate_counts_the_world_once_per_thread() {
    // Each part of a run split across threads holds the whole world: a limit that one copy
    // fits in, 256 copies do not, and the error names sim.threads.
    let text = with_workload();
    let quiet = [
        "output.throughput_interval=\"off\"",
        "output.queue_sample_interval=\"off\"",
        "sim.max_memory=2MB",
    ];
    let one = load_pl(&text, &quiet);
    assert!(one.is_ok(), "{:?}", one.err());
    let e = load_pl(&text, &[&quiet[..], &["sim.threads=256"]].concat()).unwrap_err();
    assert_key(&e, "sim.threads");
    assert!(e.to_string().contains("once per thread"), "{e}");
}

#[test]
fn memory_estimate_admits_a_k32_fat_tree_with_a_million_flows() {
    // k = 32: 8192 hosts. WebSearch at 30 % of 100G averages about 1.9e7 flows per second
    // over all hosts, so 60 ms of arrivals is about 10^6 flows. Queue depths sampled every
    // 10 us at its 40,960 switch ports would not fit (about 2.5e8 rows), so they are off, as
    // in the benchmarks.
    let text = r#"
[sim]
duration = "60ms"
max_memory = "16GB"
[output]
queue_sample_interval = "off"
[topology]
kind = "fat_tree"
k = 32
host_link = { rate = "100Gbps", delay = "1us" }
fabric_link = { rate = "100Gbps", delay = "1us" }
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
"#;
    let s = load_pl(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.flow_count() > 1_000_000, "{} flows", s.flow_count());
}
