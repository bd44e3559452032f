//! End-to-end tests of `rocesim::config::load_str` / `load`: a complete scenario, every error class, several
//! errors at once, overrides, suggestions, and a no-panic property.

use std::path::Path;

use proptest::prelude::*;

use rocesim::config::{load, load_str, ConfigErrors, Scenario, TableFormat};
use rocesim::fabric::params::{BufferMode, Headroom};
use rocesim::faults::FaultKind;
use rocesim::nic::params::TransportKind;
use rocesim::topology::NodeRef;
use rocesim::traffic::FlowKind;
use rocesim::units::{Bytes, Rate, Time};

mod cases;
mod parts;

pub const PARKING_LOT: &str = r#"
[sim]
duration = "60ms"
seed = 1
warmup = "10ms"

[topology]
hosts = ["A", "B", "C", "D", "R"]
switches = ["S1", "S2"]
links = [["A","S1"], ["B","S1"], ["C","S1"], ["S1","S2"], ["D","S2"], ["R","S2"]]
link = { rate = "40Gbps", delay = "1us" }

[switch]
buffer_size = "12MB"
dscp_to_tc = { 26 = 3, 48 = 6 }
pfc_enable = [3]
buffer_mode = "dynamic"
lossless = { dynamic_th = -4, headroom = "auto", xon_offset = "2KB", reserved = 1248 }
lossy = { dynamic_th = 3 }
ecn = { queues = [3], kmin = "5KB", kmax = "200KB", pmax = 0.01, mark_on = "enqueue" }
congestion_detection = "wred"
scheduler = { 6 = "strict", 3 = { dwrr = 50 }, 0 = { dwrr = 50 } }
cable_length = "5m"
pfc_watchdog = { enabled = false, detection_time = "200ms", restoration_time = "200ms", action = "drop", poll_interval = "100ms" }

[switch.name.S2]
latency = "500ns"

[nic]
mtu = 2048
transport = "gbn"
cc = "none"
dscp = 26
cnp_dscp = 48
rcm = { step = "mtu_time", recovery_time = "55us", recovery_bytes = "64KB" }
dcqcn = { profile = "paper" }
pfc_prevention_tout = "100ms"
rx = { rate = "line", buffer = "256KB", xoff = "128KB", xon = "96KB" }
cache = { qpc_entries = 1024, mtt_entries = 2048, page_size = "4KiB", miss_latency = "1us" }

[nic.host.R]
rx = { rate = "20Gbps" }

[[flow]]
src = "A"
dst = "R"
size = "inf"
start = "0us"
dscp = 26
kind = "rdma_write"

[[flow]]
name = "b-to-r"
src = "B"
dst = "R"
size = "1MB"

[[flow]]
src = "D"
dst = "R"
size = 4096
start = "5us"

[[fault]]
kind = "nic_rx_stall"
host = "R"
at = "5ms"
until = "6ms"

[[fault]]
kind = "loss"
link = ["S1", "S2"]
every = 256

[output]
dir = "results/parking-lot"
throughput_interval = "100us"
queue_sample_interval = "10us"
format = "csv"
report = true
"#;

pub fn load_pl(text: &str, overrides: &[&str]) -> Result<Scenario, ConfigErrors> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_str(text, "parking-lot.toml", Path::new("."), &o)
}

pub fn errs(text: &str, overrides: &[&str]) -> ConfigErrors {
    match load_pl(text, overrides) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e,
    }
}

pub fn assert_key(e: &ConfigErrors, key: &str) {
    assert!(e.has_key(key), "no error for `{key}` in:\n{e}");
}

#[test]
fn parking_lot_loads_with_typed_values() {
    let s = load_pl(PARKING_LOT, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.name, "parking-lot");
    assert_eq!(s.sim.duration, Time::from_ms(60));
    assert_eq!(s.sim.warmup, Time::from_ms(10));
    assert!(s.sim.stop_when_done);
    assert_eq!(s.topology.hosts.len(), 5);
    assert_eq!(s.topology.switches.len(), 2);
    assert_eq!(s.topology.links.len(), 6);
    assert!(s.topology.links.iter().all(|l| l.rate == Rate::gbps(40)));
    assert_eq!(s.topology.links[0].delay, Time::from_us(1));
    assert_eq!(s.switches.len(), 2);
    assert_eq!(s.switches[0].lossless.headroom, Headroom::Auto);
    assert_eq!(s.switches[0].buffer_mode, BufferMode::Dynamic);
    assert_eq!(s.switches[0].buffer_size, Bytes(12_000_000));
    assert_eq!(s.switches[0].latency, Time::ZERO);
    assert_eq!(s.switches[1].latency, Time::from_ns(500));
    assert_eq!(s.switches[0].ecn.unwrap().kmax, Bytes(200_000));
    assert_eq!(s.nics.len(), 5);
    assert!(s
        .nics
        .iter()
        .all(|n| n.mtu == 2048 && n.transport == TransportKind::Gbn));
    assert_eq!(s.nics[4].rx.rate, Some(Rate::gbps(20)));
    assert_eq!(s.nics[0].rx.rate, None);
    assert_eq!(s.nics[0].pfc_enable, 1 << 3);
    let ids = |n: &str| s.topology.hosts.iter().position(|h| h.name == n).unwrap() as u32;
    assert_eq!(s.flows.len(), 3);
    assert_eq!((s.flows[0].src, s.flows[0].dst), (ids("A"), ids("R")));
    assert_eq!(s.flows[0].size, None);
    assert_eq!(s.flows[0].kind, FlowKind::RdmaWrite);
    assert_eq!(
        (s.flows[1].src, s.flows[1].size),
        (ids("B"), Some(1_000_000))
    );
    assert_eq!(s.flows[1].name(), Some("b-to-r"));
    assert_eq!(
        (s.flows[2].src, s.flows[2].size, s.flows[2].dscp),
        (ids("D"), Some(4096), 26)
    );
    assert!(s.flows.iter().all(|f| (49152..=65535).contains(&f.sport)));
    assert_eq!(s.faults.len(), 2);
    assert_eq!(s.faults[0].kind, FaultKind::NicRxStall { host: ids("R") });
    let FaultKind::Loss { link, every, .. } = s.faults[1].kind.clone() else {
        panic!()
    };
    let l = s.topology.links[link as usize];
    assert_eq!((l.a, l.b), (NodeRef::Switch(0), NodeRef::Switch(1)));
    assert_eq!(every, Some(256));
    assert_eq!(s.output.dir, Path::new("results/parking-lot"));
    assert_eq!(s.output.format, TableFormat::Csv);
}

#[test]
fn sport_is_deterministic_per_seed() {
    let a = load_pl(PARKING_LOT, &[]).unwrap();
    let b = load_pl(PARKING_LOT, &[]).unwrap();
    let c = load_pl(PARKING_LOT, &["sim.seed=2"]).unwrap();
    let ports = |s: &Scenario| s.flows.iter().map(|f| f.sport).collect::<Vec<_>>();
    assert_eq!(ports(&a), ports(&b));
    assert_ne!(ports(&a), ports(&c));
}

#[test]
fn minimal_scenarios_and_examples_load() {
    let s = load_pl(
        "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = { rate = \"100G\", delay = \"1us\" }\n",
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.nics.len(), 3);
    assert_eq!(s.switches.len(), 1);
    assert_eq!(s.output.dir, Path::new("results/parking-lot"));
    assert_eq!(s.output.max_pfc_log, 1_000_000);
    // The example scenarios of the repository load.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let r = load(&p, &[]);
                if let Err(e) = &r {
                    // Sections this loader does not support yet are the only acceptable errors.
                    assert!(
                        e.iter().all(|x| x.message.contains("not supported yet")),
                        "{}:\n{e}",
                        p.display()
                    );
                }
            }
        }
    }
}

#[test]
fn static_xon_above_xoff() {
    let e = errs(
        PARKING_LOT,
        &[
            "switch.buffer_mode=static",
            "switch.lossless.xoff=180KB",
            "switch.lossless.xon=200KB",
        ],
    );
    let line = e.to_string();
    assert!(
        line.contains("parking-lot.toml: switch.lossless.xon: XON (200KB) is above XOFF (180KB)"),
        "{line}"
    );
}

#[test]
fn headroom_against_largest_mtu() {
    // 2KB is below one 2048-byte-payload frame (2130 B).
    let e = errs(PARKING_LOT, &["switch.lossless.headroom=2KB"]);
    assert_key(&e, "switch.lossless.headroom");
    assert!(e.to_string().contains("2130B"), "{e}");
    // With a 1024-byte MTU everywhere 2KB is enough, unless one host uses a larger MTU.
    assert!(load_pl(
        PARKING_LOT,
        &["switch.lossless.headroom=2KB", "nic.mtu=1024"]
    )
    .is_ok());
    let e = errs(
        PARKING_LOT,
        &[
            "switch.lossless.headroom=2KB",
            "nic.mtu=1024",
            "nic.host.A.mtu=4096",
        ],
    );
    assert_key(&e, "switch.lossless.headroom");
    let s = load_pl(PARKING_LOT, &["switch.lossless.headroom=0.5"]).unwrap();
    assert_eq!(s.switches[0].lossless.headroom, Headroom::AutoScaled(0.5));
}

#[test]
fn several_errors_are_all_reported() {
    let text = PARKING_LOT
        .replace("duration = \"60ms\"", "duration = 60")
        .replace("mtu = 2048", "mtu = 20480")
        .replace("pmax = 0.01", "pmax = 7")
        .replace("src = \"D\"", "src = \"E\"")
        .replace("[output]", "[output]\nformatt = \"csv\"");
    let e = errs(&text, &[]);
    for k in [
        "sim.duration",
        "nic.mtu",
        "switch.ecn.pmax",
        "flow[2].src",
        "output.formatt",
    ] {
        assert_key(&e, k);
    }
    assert!(e.len() >= 5);
    assert_eq!(e.to_string().lines().count(), e.len());
}

#[test]
fn overrides_apply_before_checking() {
    let s = load_pl(
        PARKING_LOT,
        &[
            "sim.duration=20ms",
            "nic.mtu=1024",
            "switch.lossless.headroom=30KB",
            "flow[1].size=inf",
            "nic.transport=gb0",
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.sim.duration, Time::from_ms(20));
    assert!(s
        .nics
        .iter()
        .all(|n| n.mtu == 1024 && n.transport == TransportKind::Gb0));
    assert_eq!(
        s.switches[1].lossless.headroom,
        Headroom::Fixed(Bytes(30_000))
    );
    assert_eq!(s.flows[1].size, None);
    let e = errs(PARKING_LOT, &["nic.cc=dcqnc"]);
    assert!(e
        .iter()
        .any(|x| x.key == "nic.cc" && x.message.contains("did you mean `dcqcn`")));
    let s = load_pl(PARKING_LOT, &["nic.cc=dcqcn"]).unwrap();
    assert!(s
        .nics
        .iter()
        .all(|n| n.cc == rocesim::nic::params::CcKind::Dcqcn));
    let e = errs(PARKING_LOT, &["nic.mtu"]);
    assert_key(&e, "--set");
    let e = errs(PARKING_LOT, &["sim.duration.x=1"]);
    assert_key(&e, "--set");
}

#[test]
fn did_you_mean() {
    let text = PARKING_LOT.replace("links = [", "linkz = [");
    let e = errs(&text, &[]);
    let u = e.iter().find(|x| x.key == "topology.linkz").unwrap();
    assert_eq!(
        u.to_string(),
        "parking-lot.toml: topology.linkz: unknown key `topology.linkz`; did you mean `links`?"
    );
    let e = errs(PARKING_LOT, &["flow[0].dst=Rr"]);
    assert!(e.to_string().contains("did you mean `R`?"), "{e}");
    let e = errs(PARKING_LOT, &["nic.trasnport=gbn", "swich.x=1"]);
    assert!(e.to_string().contains("did you mean `transport`?"), "{e}");
    assert!(e.to_string().contains("did you mean `switch`?"), "{e}");
}

#[test]
fn syntax_errors_give_the_line() {
    let e = errs("[sim]\nduration = \"1ms\"\n[topology\nhosts = 3\n", &[]);
    assert_eq!(e.len(), 1);
    assert!(e.0[0].message.contains("line 3"), "{e}");
}

#[test]
fn trace_workload_relative_to_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("flows.csv"),
        "start_ns,src,dst,size_bytes\n100,A,R,1000\n200,B,C,5000\n",
    )
    .unwrap();
    let path = dir.path().join("pl.toml");
    std::fs::write(
        &path,
        format!("{PARKING_LOT}\n[[workload]]\nkind = \"trace\"\nfile = \"flows.csv\"\n"),
    )
    .unwrap();
    let s = load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.name, "pl");
    assert_eq!(s.flows.len(), 5);
    assert_eq!(s.flows[3].start, Time::from_ns(100));
    assert_eq!(s.flows[4].size, Some(5000));
    std::fs::write(
        dir.path().join("flows.csv"),
        "start_ns,src,dst,size_bytes\n100,A,X,1000\n",
    )
    .unwrap();
    let e = load(&path, &[]).unwrap_err();
    assert!(
        e.to_string()
            .contains("workload[0].file: flows.csv line 2: dst: unknown host `X`"),
        "{e}"
    );
}

#[test]
fn generated_topology_roles() {
    let base = "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n\
                host_link = { rate = \"100G\", delay = \"1us\" }\n";
    let s = load_pl(
        &format!("{base}[switch.role.spine]\nbuffer_size = \"32MB\"\n"),
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for (sw, p) in s.topology.switches.iter().zip(&s.switches) {
        let want = if sw.role == "spine" {
            32_000_000
        } else {
            12_000_000
        };
        assert_eq!(p.buffer_size, Bytes(want), "{}", sw.name);
    }
    let e = errs(
        &format!("{base}[switch.role.tor]\nbuffer_size = \"32MB\"\n"),
        &[],
    );
    assert_key(&e, "switch.role.tor");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,300}") {
        let _ = load_str(&s, "x.toml", Path::new("."), &[]);
    }

    #[test]
    fn mutated_scenarios_never_panic(
        cuts in proptest::collection::vec((0usize..4000, 0usize..40, "[a-z0-9\\[\\]{}=\",.\\- \n]{0,12}"), 1..5),
        sets in proptest::collection::vec("[a-z_.\\[\\]0-9]{1,30}=[a-zA-Z0-9\\-\"\\[\\]{}.]{0,12}", 0..3),
    ) {
        let mut text = PARKING_LOT.to_string();
        for (at, len, ins) in cuts {
            let mut a = at.min(text.len());
            while !text.is_char_boundary(a) { a -= 1; }
            let mut b = (a + len).min(text.len());
            while !text.is_char_boundary(b) { b -= 1; }
            text.replace_range(a..b, &ins);
        }
        let _ = load_str(&text, "x.toml", Path::new("."), &sets);
    }

    #[test]
    fn random_values_never_panic(key in proptest::sample::select(vec![
        "sim.duration", "sim.seed", "switch.buffer_size", "switch.lossless.headroom", "nic.mtu",
        "nic.rx.xoff", "flow[0].size", "flow[1].start", "fault[0].at", "topology.link.rate",
        "switch.scheduler.3", "switch.dscp_to_tc", "output.max_pfc_log", "topology.kind",
        "topology.hosts", "topology.links[2]", "fault[1].link",
    ]), value in "[-a-zA-Z0-9.\"\\[\\]{}= ]{0,16}") {
        let _ = load_str(PARKING_LOT, "x.toml", Path::new("."), &[format!("{key}={value}")]);
    }
}

/// Every TOML example in docs/scenario.md loads (fragments are completed with a small base).
#[test]
fn documentation_examples_load() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md"),
    )
    .expect("docs/scenario.md");
    let sim = "[sim]\nduration = \"60ms\"\n";
    let explicit = "[topology]\nhosts = [\"A\", \"B\", \"C\", \"D\", \"R\"]\nswitches = [\"S1\", \"S2\"]\n\
                    links = [[\"A\",\"S1\"], [\"B\",\"S1\"], [\"C\",\"S1\"], [\"S1\",\"S2\"], [\"D\",\"S2\"], [\"R\",\"S2\"]]\n\
                    link = { rate = \"40Gbps\", delay = \"1us\" }\n";
    let leaf_spine =
        "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n\
                      host_link = { rate = \"100G\", delay = \"1us\" }\n";
    let mut n = 0;
    for block in doc.split("```toml").skip(1) {
        let block = block.split("```").next().unwrap_or("");
        if block.contains("kind = \"trace\"") {
            continue; // needs its CSV file; covered by trace_workload_relative_to_the_scenario
        }
        let text = if block.contains("[sim]") && block.contains("[topology]") {
            block.to_string()
        } else if block.contains("[sim]") {
            format!("{block}{explicit}")
        } else if block.contains("[topology]") {
            format!("{sim}{block}")
        } else if block.contains("[switch") {
            format!("{sim}{leaf_spine}{block}")
        } else {
            format!("{sim}{explicit}{block}")
        };
        if let Err(e) = load_pl(&text, &[]) {
            panic!("documentation example does not load:\n{block}\n{e}");
        }
        n += 1;
    }
    assert!(n >= 10, "only {n} examples found");
}
