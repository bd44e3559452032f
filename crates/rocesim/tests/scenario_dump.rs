//! Debug dump of every shipped scenario as the config layer types it, for comparing two
//! versions of the parser: `ROCESIM_DUMP_DIR=dir cargo test -p rocesim --test scenario_dump --
//! --ignored` writes one `{:#?}` file per (scenario, overrides) case (errors included); run it
//! on the old and on the new code and `diff -r` the two directories. (Together with
//! `scripts/compare_runs.sh`, which diffs the result files of two binaries.)

use std::path::{Path, PathBuf};

/// `--set` variants applied to one scenario; together they touch most keys.
const VARIANTS: &[(&str, &[&str])] = &[
    ("scenarios/parking-lot.toml", &["switch.lossless.headroom=2"]),
    ("scenarios/parking-lot.toml", &["switch.lossless.headroom=2.0"]),
    ("scenarios/parking-lot.toml", &["switch.lossless.headroom=0.5"]),
    ("scenarios/parking-lot.toml", &["switch.lossless.headroom=30KB"]),
    ("scenarios/parking-lot.toml", &["switch.buffer_mode=static", "switch.lossless.xoff=100KB", "switch.lossless.xon=80KB", "switch.lossy.limit=2MB"]),
    ("scenarios/parking-lot.toml", &["nic.cc=dcqcn", "nic.dcqcn.dce_tcp_g=1020"]),
    ("scenarios/parking-lot.toml", &["nic.cc=dcqcn", "nic.dcqcn.dce_tcp_g=0.5", "nic.dcqcn.initial_alpha_value=1"]),
    ("scenarios/parking-lot.toml", &["nic.cc=dcqcn", "nic.dcqcn.rpg_ai_rate=5Mbps", "nic.dcqcn.profile=nvidia", "nic.dcqcn.initial_alpha_value=1.0"]),
    ("scenarios/parking-lot.toml", &["nic.cc=dcqcn", "nic.host.R.dcqcn.profile=nvidia", "nic.dcqcn.rpg_time_reset=100us"]),
    ("scenarios/parking-lot.toml", &["nic.cc=hpcc", "nic.hpcc.t=12.48us", "nic.host.A.hpcc.eta=0.9"]),
    ("scenarios/parking-lot.toml", &["nic.cc=timely", "nic.timely.min_rtt=20us", "nic.timely.update=ack"]),
    ("scenarios/parking-lot.toml", &["nic.cc=dctcp", "nic.dctcp.g=0.5", "nic.dctcp.alpha_init=0"]),
    ("scenarios/parking-lot.toml", &["nic.cc=rcm", "nic.rcm.recovery_bytes=off", "nic.rcm.max_level=7"]),
    ("scenarios/parking-lot.toml", &["nic.host.R.rx.rate=20Gbps", "nic.host.R.mtu=512", "nic.rx.xoff=100KB"]),
    ("scenarios/parking-lot.toml", &["nic.pfc_prevention_tout=off", "nic.base_rtt=10us", "nic.transport=gb0", "nic.ttl=16", "nic.ack_every=4", "nic.rto=1ms", "nic.pfc_response=1us", "nic.pfc_quanta=100"]),
    ("scenarios/parking-lot.toml", &["nic.dscp_to_tc={ 26 = 2 }", "nic.pfc_enable=[2]", "nic.dscp=10", "nic.cnp_dscp=11", "nic.min_time_between_cnps=4us"]),
    ("scenarios/parking-lot.toml", &["switch.ecn={ queues = [3], kmin = \"10KB\", kmax = \"10KB\", pmax = 1.0, mark_on = \"dequeue\" }", "switch.congestion_detection=rcm_1b"]),
    ("scenarios/parking-lot.toml", &["switch.ecn=off", "switch.scheduler={ 6 = \"strict\", 3 = { dwrr = 50 }, 0 = { dwrr = 50 } }"]),
    ("scenarios/parking-lot.toml", &["switch.pfc_watchdog.enabled=true", "switch.pfc_watchdog.ports=server_facing", "switch.pfc_watchdog.action=forward"]),
    ("scenarios/parking-lot.toml", &["switch.name.S2.buffer_size=1MB", "switch.role.switch.lossless.dynamic_th=-2", "switch.name.S1.lossless.headroom=auto", "switch.cable_length=2km", "switch.latency=1us", "switch.pfc_response=2us", "switch.drop_lossless_on_incomplete_arp=true", "switch.dscp_to_tc={ 26 = 3 }", "switch.tc_to_queue={ 3 = 4 }"]),
    ("scenarios/parking-lot.toml", &["sim.deadlock_detection=off", "sim.stop_when_done=false", "sim.stop_on_deadlock=true", "sim.seed=7"]),
    ("scenarios/parking-lot.toml", &["output.throughput_interval=off", "output.queue_sample_interval=1us", "output.format=parquet", "output.report=false", "output.max_pfc_log=5", "output.dir=x/y"]),
    ("scenarios/parking-lot.toml", &["flow[0].size=1MB", "flow[1].start=5us", "flow[1].rate=10Gbps", "flow[2].kind=rdma_read", "flow[3].sport=1234", "flow[3].dscp=48"]),
    ("scenarios/topo-fat-tree.toml", &["switch.role.edge.buffer_size=2MB", "switch.role.core.lossless.headroom=1.5", "switch.name.agg0.pfc_quanta=10"]),
    ("scenarios/topo-fat-tree.toml", &["topology.oversubscription=2"]),
    ("scenarios/workload-poisson.toml", &["workload.0.cdf=fb_webserver", "workload.0.sampling=interpolated"]),
    ("scenarios/workload-poisson.toml", &["workload.0.hosts=leaf0/*"]),
    ("scenarios/workload-incast.toml", &["workload.0.count=2"]),
    ("scenarios/link-failure.toml", &["fault.0.reconverge=2ms"]),
    // Errors: the messages must stay clear.
    ("scenarios/parking-lot.toml", &["switch.lossless.xon_offst=1KB", "topology.linkz=3", "nic.cc=dcqcm", "flow[0].src=E", "sim.duration=5"]),
    ("scenarios/parking-lot.toml", &["switch.buffer_mode=static", "switch.lossless.xoff=100KB", "switch.lossless.xon=200KB", "nic.rx.xon=1MB", "nic.dcqcn.dce_tcp_g=2000", "nic.rcm.recovery_time=off", "nic.rcm.recovery_bytes=off"]),
    ("scenarios/topo-fat-tree.toml", &["topology.k=8", "switch.buffer_size=10KB"]),
    ("scenarios/parking-lot.toml", &["sim.duration", "a..b=1"]),
    // More keys: every fault kind, workload kinds appended by --set, generated topologies.
    ("scenarios/link-failure.toml", &["fault[1].kind=link_up", "fault[1].link=[\"spine0\", \"leaf0\"]", "fault[1].at=3ms", "fault[2].kind=loss", "fault[2].link=[\"leaf1\", \"spine1\"]", "fault[2].probability=0.01", "fault[2].from=spine1", "fault[2].until=4ms", "fault[3].kind=nic_rx_stall", "fault[3].host=h3", "fault[3].at=1ms", "fault[3].until=2ms", "fault[4].kind=route_override", "fault[4].switch=leaf0", "fault[4].dst=h7", "fault[4].via=spine1", "fault[5].kind=mac_age_out", "fault[5].switch=leaf1", "fault[5].host=h6"]),
    ("scenarios/workload-poisson.toml", &["workload[0].generator=hpcc", "workload[0].seed=5", "workload[0].dscp=10", "workload[0].until=1ms", "workload[1].kind=all_to_all", "workload[1].size=10KB", "workload[1].hosts=[\"h0\", \"h5\", \"leaf3/*\"]", "workload[2].kind=permutation", "workload[2].seed=3", "workload[2].at=5us"]),
    ("scenarios/two-podsets.toml", &["workload.0.servers_per_tor=2", "workload.0.connections=2", "workload.0.size=100KB"]),
    ("scenarios/workload-storage-read.toml", &["workload.0.queue_depth=2", "workload.0.io_size=4KiB", "workload.0.at=10us"]),
    ("scenarios/workload-incast.toml", &["workload[1].kind=incast", "workload[1].senders=[\"h1\", \"h2\"]", "workload[1].receiver=h3", "workload[1].size=inf", "workload[1].repeat=100us", "workload[1].until=1ms"]),
    ("scenarios/topo-ring.toml", &["topology.switches=5", "switch.role.switch.ecn.kmin=10KB"]),
    ("scenarios/topo-clos3.toml", &["switch.role.tor.buffer_size=4MB", "switch.role.spine.pfc_watchdog.enabled=true"]),
    ("scenarios/topo-dumbbell.toml", &["topology.fabric_link={ rate = \"10Gbps\", delay = \"5us\" }"]),
    ("scenarios/topo-star.toml", &["nic.host.h0.mtu=512", "nic.host.h1.rx={ rate = \"10Gbps\", xoff = \"64KB\", xon = \"32KB\" }"]),
    ("scenarios/link-failure.toml", &["fault[1].kind=loss", "fault[1].link=[\"leaf0\", \"leaf1\"]", "fault[2].kind=mac_age_out", "fault[2].switch=leaf9", "fault[2].host=h99"]),
    ("scenarios/workload-poisson.toml", &["workload[0].load=2", "workload[0].cdf=nope", "workload[1].kind=incast", "workload[1].size=0"]),
    ("scenarios/topo-fat-tree.toml", &["topology.k=5", "topology.oversubscription=0", "topology.host_link.rate=fast"]),
    ("scenarios/topo-ring.toml", &["topology.switches=2", "topology.hosts_per_switch=0"]),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shipped() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["scenarios", "benches"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                files.push(Path::new(dir).join(p.file_name().unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn dump(out: &Path, name: &str, file: &Path, sets: &[String]) {
    std::env::set_current_dir(root()).unwrap();
    let r = rocesim::config::load(file, sets);
    let text = match &r {
        Ok(s) => format!("{s:#?}\n"),
        Err(e) => format!("ERRORS\n{e}\n{e:#?}\n"),
    };
    std::fs::write(out.join(name), text).unwrap();
}

#[test]
#[ignore = "writes a dump for comparing parser versions; needs ROCESIM_DUMP_DIR"]
fn dump_shipped_scenarios() {
    let out = PathBuf::from(std::env::var("ROCESIM_DUMP_DIR").expect("set ROCESIM_DUMP_DIR"));
    std::fs::create_dir_all(&out).unwrap();
    for f in shipped() {
        let name = f.to_string_lossy().replace('/', "__") + ".txt";
        dump(&out, &name, &f, &[]);
    }
    for (i, (f, sets)) in VARIANTS.iter().enumerate() {
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_string()).collect();
        dump(&out, &format!("variant-{i:02}.txt"), Path::new(f), &sets);
    }
}
