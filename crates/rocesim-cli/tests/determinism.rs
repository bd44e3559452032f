//! Determinism: the same scenario and seed give byte-identical result files, on a scenario
//! that exercises every source of randomness (ECMP hashing of random source ports, Poisson
//! arrivals and destinations, probabilistic ECN marking, DCQCN reacting to it, PFC).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCENARIO: &str = "tests/determinism-fat-tree.toml";

/// Runs the scenario into a new directory with extra `--set` overrides.
fn run(sets: &[&str]) -> tempfile::TempDir {
    run_file(SCENARIO, sets).0
}

/// Runs `file` (relative to this crate) into a new directory with extra `--set` overrides;
/// returns the directory and what the run printed (without `--quiet`).
fn run_file(file: &str, sets: &[&str]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rocesim"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", file, "--out"])
        .arg(dir.path());
    for s in sets {
        cmd.args(["--set", s]);
    }
    let o = cmd.output().expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (dir, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The result files of `a` and `b` are the same, but for timing.
fn assert_same_files(a: &Path, b: &Path, what: &str) {
    let (fa, fb) = (files(a), files(b));
    assert!(fa.len() >= 10, "{:?}", fa.keys());
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (name, x) in &fa {
        let y = &fb[name];
        assert!(
            without_timing(name, x) == without_timing(name, y),
            "{} differs: {what}",
            name.display()
        );
    }
}

/// Every file under `dir` (relative path → contents), recursively.
fn files(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let text = std::fs::read_to_string(&p).unwrap();
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), text);
            }
        }
    }
    out
}

/// `text` without its timing-only parts: the `wall_s`, `events_per_s` and `peak_memory_kb`
/// lines of summary.json, and the wall time and event rate of report.html
/// (`... in 0.009 s wall (10.3M/s) ...`).
fn without_timing(name: &Path, text: &str) -> String {
    match name.to_str() {
        Some("summary.json") => text
            .lines()
            .filter(|l| {
                !["\"wall_s\"", "\"events_per_s\"", "\"peak_memory_kb\""]
                    .iter()
                    .any(|k| l.trim_start().starts_with(k))
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some("report.html") => mask_wall(text),
        _ => text.to_string(),
    }
}

/// Replaces each `<seconds> s wall (<rate>)` of a report with `WALL`.
fn mask_wall(text: &str) -> String {
    const MARK: &str = " s wall (";
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(MARK) {
        let head = &rest[..i];
        let num = head.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let close = rest[i..].find(')').map_or(rest.len(), |j| i + j + 1);
        out.push_str(num);
        out.push_str("WALL");
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Data bytes sent (priority 3) on each switch port whose peer's name starts with `peer`.
fn uplink_bytes(dir: &Path, node: &str, peer: &str) -> Vec<u64> {
    let mut r = csv::Reader::from_path(dir.join("ports.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (n, p, prio, tx) = (col("node"), col("peer"), col("prio"), col("tx_bytes"));
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| rec[n].starts_with(node) && rec[p].starts_with(peer) && &rec[prio] == "3")
        .map(|rec| rec[tx].parse().unwrap())
        .collect()
}

#[test]
fn same_seed_gives_identical_files_with_ecmp_poisson_and_dcqcn() {
    let (a, b) = (run(&[]), run(&[]));
    assert_same_files(a.path(), b.path(), "two runs with the same seed");
    let fa = files(a.path());

    // The run exercised the randomness it is meant to check.
    let s = summary(a.path());
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    assert!(n(&s["ecn_marked"]) > 0, "probabilistic ECN marks");
    assert!(n(&s["cnp_tx"]) > 0, "DCQCN reacts");
    assert!(n(&s["pfc"]["pause_tx"]) > 0, "PFC pauses");
    assert!(n(&s["flows"]["count"]) > 50, "Poisson arrivals");
    // ECMP spreads traffic over both uplinks of every edge switch and over every core switch.
    let edge_up = uplink_bytes(a.path(), "edge", "agg");
    assert_eq!(edge_up.len(), 16);
    assert!(edge_up.iter().all(|&b| b > 0), "edge uplinks {edge_up:?}");
    let agg_up = uplink_bytes(a.path(), "agg", "core");
    assert_eq!(agg_up.len(), 16);
    assert!(
        agg_up.iter().filter(|&&b| b > 0).count() >= 12,
        "agg uplinks {agg_up:?}"
    );

    // The randomness comes from the seed: another seed gives other flows.
    let c = run(&["sim.seed=7"]);
    let fc = files(c.path());
    let flows = Path::new("flows.csv");
    assert_ne!(fa[flows], fc[flows], "sim.seed changes the workload");
}

#[test]
fn wall_time_is_masked() {
    let t = "<td>95315 in 0.009 s wall (10.3M/s), 62528 packet hops</td>";
    assert_eq!(mask_wall(t), "<td>95315 in WALL, 62528 packet hops</td>");
}

/// The line a run split across threads prints about its parts (`None`: one thread).
fn threads_line(stdout: &str) -> Option<&str> {
    stdout.lines().find(|l| l.starts_with("threads "))
}

#[test]
fn threads_give_one_threads_files_with_ecmp_poisson_dcqcn_and_samplers() {
    // Every source of randomness, ECN marking, DCQCN, PFC pauses and the three samplers
    // (10 us counters too), split by pod over 2 and 3 threads: the files of one thread.
    let counters = "output.counters_interval=\"10us\"";
    let (one, _) = run_file(SCENARIO, &[counters]);
    for n in ["2", "3"] {
        let set = format!("sim.threads={n}");
        let (split, out) = run_file(SCENARIO, &[counters, &set]);
        let line = threads_line(&out).unwrap_or_else(|| panic!("no threads line: {out}"));
        assert!(line.starts_with(&format!("threads {n}: ")), "{line}");
        assert!(
            !line.contains("frames across parts 0"),
            "the parts exchanged frames: {line}"
        );
        assert_same_files(one.path(), split.path(), &format!("sim.threads = {n}"));
    }
}

#[test]
fn routing_ahead_changes_no_file() {
    // The next switch's egress port looked up one hop ahead (carried by the frame's arrival)
    // must be the port that switch would choose itself: under each ECMP hash, with random
    // source ports, and with frames crossing between threads' parts.
    for hash in ["salted", "polarized", "ns3"] {
        let h = format!("topology.ecmp_hash=\"{hash}\"");
        let off = run(&[&h, "sim.route_ahead=\"off\""]);
        let on = run(&[&h, "sim.route_ahead=\"on\""]);
        assert_same_files(
            off.path(),
            on.path(),
            &format!("route_ahead on, {hash} hash"),
        );
    }
    let off = run(&["sim.route_ahead=\"off\""]);
    let split = run(&["sim.route_ahead=\"on\"", "sim.threads=2"]);
    assert_same_files(off.path(), split.path(), "route_ahead on, two threads");
    // With faults it stays off, and a run that asked for it says so.
    let failure = "../../scenarios/link-failure.toml";
    let said = |dir: &Path| {
        summary(dir)["warnings"]
            .to_string()
            .contains("sim.route_ahead")
    };
    let (asked, _) = run_file(failure, &["sim.route_ahead=\"on\""]);
    let (auto, _) = run_file(failure, &[]);
    assert!(said(asked.path()), "{}", summary(asked.path())["warnings"]);
    assert!(!said(auto.path()), "{}", summary(auto.path())["warnings"]);
}

#[test]
fn threads_give_one_threads_files_with_faults_and_deadlocks() {
    // A link that fails and comes back (frames on a cut wire are lost), and a PFC deadlock
    // the detector reports from the stuck queues of both parts.
    for (file, sets) in [
        ("../../scenarios/link-failure.toml", vec![]),
        ("../../scenarios/deadlock-ring.toml", vec![]),
    ] {
        let (one, _) = run_file(file, &sets);
        let mut split_sets = sets.clone();
        split_sets.push("sim.threads=2");
        let (split, out) = run_file(file, &split_sets);
        assert!(threads_line(&out).is_some(), "{file} ran split: {out}");
        assert_same_files(one.path(), split.path(), file);
    }
    let (dl, _) = run_file("../../scenarios/deadlock-ring.toml", &["sim.threads=2"]);
    let s = summary(dl.path());
    let found = s["deadlocks"].as_array().map_or(0, Vec::len);
    assert!(found > 0, "a deadlock is reported: {}", s["deadlocks"]);
}

#[test]
fn a_split_run_whose_flows_all_finish_is_repeated_on_one_thread() {
    // One thread stops at the event that completes the last flow (sim.stop_when_done); the
    // parts have run to the end of that window, so the run is repeated on one thread.
    let (one, _) = run_file("../../scenarios/incast.toml", &[]);
    let (split, out) = run_file("../../scenarios/incast.toml", &["sim.threads=2"]);
    let line = threads_line(&out).unwrap_or_default();
    assert!(out.contains("repeated on one thread"), "{out}");
    assert!(!line.contains("frames across parts"), "{line}");
    assert_same_files(one.path(), split.path(), "incast, repeated on one thread");
}
