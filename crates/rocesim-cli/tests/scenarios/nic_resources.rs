//! NIC resources as a bottleneck: the MTT cache and the slow receiver (Guo et al. 2016 §4.4),
//! the QPC cache and QP scalability (Wang et al. 2023), and bad cache settings.

use std::path::Path;

use super::{column, read_csv, rocesim, run_file, summary};

/// Line-rate goodput of 1024-byte payloads at `gbps`: payload over the 1106-byte frame.
fn line_goodput(gbps: f64) -> f64 {
    gbps * 1024.0 / 1106.0
}

/// Pause frames host `node` sent at or after `from_ns` (pfc.csv, XOFF and refreshes).
fn pauses_after(dir: &Path, node: &str, from_ns: u64) -> usize {
    let rows = read_csv(&dir.join("pfc.csv"));
    let h = &rows[0];
    let at = |n: &str| h.iter().position(|c| c == n).unwrap();
    let (t, nd, dirc, q) = (at("time_ns"), at("node"), at("direction"), at("quanta"));
    rows[1..]
        .iter()
        .filter(|r| r[nd] == node && r[dirc] == "tx" && r[q] != "0")
        .filter(|r| r[t].parse::<u64>().unwrap() >= from_ns)
        .count()
}

fn nic(dir: &Path, col: &str) -> f64 {
    // Row 0 of nics.csv is h0, the receiver.
    column(dir, "nics.csv", col)[0]
}

#[test]
fn mtt_below_its_coverage_misses_each_page_once_and_never_pauses() {
    // 2048 entries x 4 KiB = 8 MiB. A 4 MiB region is 1024 pages: each misses once (cold),
    // then every random write hits; after the 5 ms warm-up h0 sends no pause.
    let d = run_file("scenarios/slow-receiver.toml", &["flow[0].region=4MiB"]);
    assert_eq!(nic(d.path(), "mtt_misses"), 1024.0);
    assert_eq!(pauses_after(d.path(), "h0", 5_000_000), 0);
    let g = column(d.path(), "flows.csv", "goodput_gbps")[0];
    assert!((g / line_goodput(40.0) - 1.0).abs() < 0.02, "goodput {g}");
}

#[test]
fn mtt_above_its_coverage_stalls_the_receiver_and_it_pauses_more_with_the_region() {
    // Random writes over R bytes of 4 KiB pages miss with probability 1 - 8MiB/R; each miss
    // stalls the pipeline 1 us, so the receiver drains 1 KiB per (1 - 8MiB/R) us:
    // 8.192 Gb/s / (1 - 8MiB/R) when that is below the line (R = 16 MiB: 16.4; 64 MiB: 9.36;
    // 1 GiB: 8.26 Gb/s), and it holds its switch paused the rest of the time.
    let mut paused = Vec::new();
    for (region, mib) in [("16MiB", 16.0), ("64MiB", 64.0), ("1GiB", 1024.0)] {
        let set = format!("flow[0].region={region}");
        let d = run_file("scenarios/slow-receiver.toml", &[&set]);
        let expect = 8.192 / (1.0 - 8.0 / mib);
        let g = column(d.path(), "flows.csv", "goodput_gbps")[0];
        assert!(
            (g / expect - 1.0).abs() < 0.05,
            "{region}: goodput {g}, expected {expect}"
        );
        assert!(
            pauses_after(d.path(), "h0", 5_000_000) > 10,
            "{region}: h0 pauses its ToR"
        );
        let frac = nic(d.path(), "pausing_ns") / 10e6;
        paused.push(frac);
        let s = summary(d.path());
        assert!(s["nic"]["mtt_misses"].as_u64().unwrap() > 0);
    }
    assert!(
        paused.windows(2).all(|w| w[0] < w[1]),
        "paused share {paused:?}"
    );
}

#[test]
fn with_2mib_pages_the_mtt_covers_4gib_and_no_pause_follows_warm_up() {
    // 2048 x 2 MiB = 4 GiB: at most one cold miss per page, no pause after warm-up.
    let d = run_file(
        "scenarios/slow-receiver.toml",
        &[
            "flow[0].region=4GiB",
            "nic.cache.page_size=2MiB",
            "sim.duration=20ms",
            "sim.warmup=10ms",
        ],
    );
    assert!(nic(d.path(), "mtt_misses") <= 2048.0);
    assert_eq!(pauses_after(d.path(), "h0", 10_000_000), 0);
}

fn qp_goodput(sets: &[&str]) -> f64 {
    let d = run_file("scenarios/qp-scalability.toml", sets);
    let g = column(d.path(), "flows.csv", "goodput_gbps");
    assert_eq!(g.len(), 1, "one row per flow whatever its QPs");
    g[0]
}

#[test]
fn qpc_cache_keeps_goodput_flat_while_the_qps_fit_and_it_falls_beyond() {
    // 64 QPC entries, no other cache: up to 64 QPs every packet hits after the first round
    // (line goodput, 92.59 Gb/s); at 128 the round robin always needs the evicted context:
    // each 1 KiB packet waits for one 1 us fetch, then its 1106-byte frame takes 88.48 ns at
    // 100G: 8192 bits / 1.08848 us = 7.526 Gb/s.
    let cache = "nic.cache={ qpc_entries = 64 }";
    for q in [1, 16, 64] {
        let set = format!("flow[0].qps={q}");
        let g = qp_goodput(&["nic.profile=ideal", cache, &set]);
        assert!((g / line_goodput(100.0) - 1.0).abs() < 0.03, "{q} QPs: {g}");
    }
    let g = qp_goodput(&["nic.profile=ideal", cache, "flow[0].qps=128"]);
    let expect = 8192.0 / (1000.0 + 1106.0 * 8.0 / 100.0);
    assert!(
        (g / expect - 1.0).abs() < 0.05,
        "128 QPs: {g}, expected {expect}"
    );
}

#[test]
fn srnic_keeps_10k_qps_at_the_frame_overhead_goodput() {
    // SRNIC's 2.3 MB of QPC holds 10,000 contexts and it has no WQE cache: after the cold
    // round (10,000 x 1 us) 10K QPs run at line goodput, within 5 %.
    let g = qp_goodput(&[
        "nic.profile=srnic",
        "flow[0].qps=10000",
        "sim.duration=14ms",
        "sim.warmup=12ms",
    ]);
    assert!((g / line_goodput(100.0) - 1.0).abs() < 0.05, "10K QPs: {g}");
}

#[test]
fn bad_cache_and_qp_settings_name_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        r#"
[topology]
kind = "star"
hosts = 2
link = { rate = "40Gbps", delay = "1us" }

[nic]
cache = { qpc_entries = 0, mtt_entries = 2048, page_size = "3KiB" }

[[flow]]
src = "h1"
dst = "h0"
size = "inf"
qps = 16777217
"#,
    )
    .unwrap();
    let o = rocesim(&["run", path.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for key in ["nic.cache.qpc_entries", "nic.cache.page_size", "qps"] {
        assert!(err.contains(key), "{key} named in: {err}");
    }
    assert!(err.contains("power of two"), "{err}");
}

#[test]
fn rx_pipeline_per_packet_time_and_pcie_rate_cap_the_receiver() {
    // One QP at 100G (line goodput 92.59 Gb/s). A 200 ns per-packet time drains 1 KiB per
    // 200 ns: 40.96 Gb/s. A 50 Gb/s PCIe DMA of the payload: 50 Gb/s of payload.
    let base = ["nic.profile=ideal", "flow[0].qps=1"];
    let g = qp_goodput(&[base[0], base[1], "nic.rx.per_packet=200ns"]);
    assert!((g / 40.96 - 1.0).abs() < 0.02, "per_packet: {g}");
    let g = qp_goodput(&[base[0], base[1], "nic.rx.pcie_rate=50Gbps"]);
    assert!((g / 50.0 - 1.0).abs() < 0.02, "pcie_rate: {g}");
}

#[test]
fn pcie_latency_delays_delivery_and_completion_by_itself() {
    // A 1 MB write on an idle path: the last byte is placed 2 us later, and its ACK leaves
    // 2 us later, so delivery and completion move by exactly 2 us.
    let run = |lat: &str| {
        let set = format!("nic.rx.pcie_latency={lat}");
        let d = run_file(
            "scenarios/qp-scalability.toml",
            &[
                "nic.profile=ideal",
                "flow[0].qps=1",
                "flow[0].size=1MB",
                &set,
            ],
        );
        let c = |n| column(d.path(), "flows.csv", n)[0];
        (c("delivered_ns"), c("end_ns"))
    };
    let (d0, e0) = run("0us");
    let (d1, e1) = run("2us");
    assert_eq!((d1 - d0, e1 - e0), (2000.0, 2000.0));
}

#[test]
fn a_flow_over_many_qps_is_one_row_with_its_bytes_split_evenly() {
    // 1,000,000 bytes over 3 QPs (333,334 + 333,333 + 333,333): one row, every byte
    // delivered once, completed.
    let d = run_file(
        "scenarios/qp-scalability.toml",
        &["nic.profile=ideal", "flow[0].qps=3", "flow[0].size=1000000"],
    );
    let c = |n| column(d.path(), "flows.csv", n);
    assert_eq!(c("bytes_delivered"), vec![1_000_000.0]);
    assert_eq!(c("size_bytes"), vec![1_000_000.0]);
    assert_eq!(summary(d.path())["flows"]["completed"], 1);
}

/// h1 writes to h0 over `qps` QPs at 100G; only h0 models a QPC, of 4 entries, and its
/// receive pipeline takes 50 ns a packet (below the 88.48 ns frame). Returns the directory.
fn receiver_qpc(qps: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rx-qpc.toml");
    let text = format!(
        r#"
[sim]
duration = "2ms"
warmup = "1ms"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
buffer_size = "12MB"
pfc_enable = [3]
[nic]
mtu = 1024
[nic.host.h0]
cache = {{ qpc_entries = 4, miss_latency = "1us" }}
rx = {{ per_packet = "50ns" }}
[[flow]]
src = "h1"
dst = "h0"
size = "inf"
qps = {qps}
"#
    );
    std::fs::write(&path, text).unwrap();
    let out = run_file(path.to_str().unwrap(), &[]);
    drop(dir);
    out
}

#[test]
fn a_receiver_whose_qpc_is_too_small_for_the_converging_qps_is_the_bottleneck() {
    // 4 QPs fit h0's 4 contexts: 4 cold misses, then every packet hits and the flow runs
    // at the line's goodput. 8 QPs served round robin: LRU has always evicted the context
    // the next packet needs, so every packet stalls h0's pipeline 1 us after its 50 ns:
    // 8192 b / 1.05 us = 7.80 Gb/s, and h0 pauses its switch.
    let fits = receiver_qpc(4);
    assert_eq!(nic(fits.path(), "qpc_misses"), 4.0);
    let g = column(fits.path(), "flows.csv", "goodput_gbps")[0];
    assert!((g / line_goodput(100.0) - 1.0).abs() < 0.02, "4 QPs: {g}");
    let over = receiver_qpc(8);
    let (hits, misses) = (nic(over.path(), "qpc_hits"), nic(over.path(), "qpc_misses"));
    assert!(
        hits == 0.0 && misses > 1000.0,
        "{hits} hits, {misses} misses"
    );
    assert_eq!(nic(over.path(), "rx_stall_ns"), misses * 1000.0);
    let g = column(over.path(), "flows.csv", "goodput_gbps")[0];
    let expect = 8192.0 / 1050.0;
    assert!((g / expect - 1.0).abs() < 0.02, "8 QPs: {g} vs {expect}");
    assert!(pauses_after(over.path(), "h0", 1_000_000) > 10);
    // The sender models no cache: nothing stalled its transmit pipeline.
    assert_eq!(column(over.path(), "nics.csv", "tx_stall_ns")[1], 0.0);
}
