//! `rocesim sweep` end to end: the binary on sweep files over scenarios/incast.toml.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rocesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rocesim"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("runs")
}

/// Writes a sweep file into `dir` whose base is the repository's scenarios/incast.toml.
fn sweep_file(dir: &Path, name: &str, body: &str) -> PathBuf {
    let base = repo().join("scenarios/incast.toml");
    let text = format!(
        "base = {}\n{body}",
        toml_string(&base.canonicalize().unwrap().display().to_string())
    );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn toml_string(s: &str) -> String {
    format!("'{s}'")
}

/// sweep.csv as a header and rows.
fn table(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(dir.join("sweep.csv")).expect("sweep.csv");
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

const GRID: &str =
    "[grid]\n\"switch.lossless.headroom\" = [0.5, 1.0]\n\"nic.mtu\" = [1024, 2048]\n";

/// Every run of the grid wrote the normal result files, including the new metrics; its
/// summary.json agrees with its row (`drops`: the drops_lossless column).
fn every_run_wrote_its_files(out: &Path, rows: &[Vec<String>], drops: usize) {
    for (i, row) in rows.iter().enumerate() {
        let run = out.join(format!("run-{i}"));
        for f in [
            "summary.json",
            "flows.csv",
            "ports.csv",
            "links.csv",
            "report.html",
        ] {
            assert!(run.join(f).is_file(), "run-{i}/{f}");
        }
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap())
                .unwrap();
        assert!(s["fct_slowdown_by_size"]["1MB-10MB"].is_object());
        assert_eq!(
            s["drops"]["lossless"].as_u64().unwrap().to_string(),
            row[drops]
        );
    }
}

/// sweep.json holds the same rows as sweep.csv.
fn json_matches_csv(out: &Path, rows: &[Vec<String>], drops: usize) {
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(
        j["keys"],
        serde_json::json!(["switch.lossless.headroom", "nic.mtu"])
    );
    assert_eq!(j["ok"], 4);
    assert_eq!(j["failed"], 0);
    let runs = j["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(r["run"], i);
        assert_eq!(r["status"], "ok");
        assert_eq!(r["overrides"]["nic.mtu"].to_string(), rows[i][2]);
        assert_eq!(r["drops_lossless"].to_string(), rows[i][drops]);
    }
}

#[test]
fn grid_sweep_over_incast() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sweep_file(tmp.path(), "grid.toml", GRID);
    let out = tmp.path().join("out");
    let o = rocesim(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty(), "--quiet prints nothing");
    let (header, rows) = table(&out);
    assert_eq!(
        header,
        [
            "run",
            "switch.lossless.headroom",
            "nic.mtu",
            "status",
            "dir",
            "sim_time_ns",
            "wall_s",
            "events",
            "total_goodput_gbps",
            "pause_tx",
            "drops_lossless",
            "drops_lossy",
            "ecn_marked",
            "cnp_tx",
            "flows",
            "flows_completed",
            "fct_slowdown_p50",
            "fct_slowdown_p99",
        ]
    );
    assert_eq!(rows.len(), 4);
    // Rows in run order: the grid's first key varies slowest.
    let swept: Vec<(String, String)> = rows.iter().map(|r| (r[1].clone(), r[2].clone())).collect();
    let want = [
        ("0.5", "1024"),
        ("0.5", "2048"),
        ("1.0", "1024"),
        ("1.0", "2048"),
    ];
    for (i, (got, want)) in swept.iter().zip(want).enumerate() {
        assert_eq!((got.0.as_str(), got.1.as_str()), want, "row {i}");
        assert_eq!(rows[i][0], i.to_string());
        assert_eq!(rows[i][col(&header, "dir")], format!("run-{i}"));
    }
    let drops = col(&header, "drops_lossless");
    for r in &rows {
        assert_eq!(r[col(&header, "status")], "ok");
        let d: u64 = r[drops].parse().unwrap();
        if r[1] == "0.5" {
            assert!(d > 0, "half headroom drops: {r:?}");
        } else {
            assert_eq!(d, 0, "full headroom is lossless: {r:?}");
            assert_eq!(r[col(&header, "flows_completed")], "8");
            let p99: f64 = r[col(&header, "fct_slowdown_p99")].parse().unwrap();
            assert!(p99 >= 1.0);
        }
        assert_eq!(r[col(&header, "flows")], "8");
    }
    every_run_wrote_its_files(&out, &rows, drops);
    json_matches_csv(&out, &rows, drops);
}

#[test]
fn same_table_whatever_the_number_of_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sweep_file(
        tmp.path(),
        "seeds.toml",
        "seeds = [1, 2]\n[grid]\n\"nic.mtu\" = [1024, 4096]\n",
    );
    let mut tables = Vec::new();
    for jobs in ["1", "2"] {
        let out = tmp.path().join(format!("out{jobs}"));
        let o = rocesim(&[
            "sweep",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            jobs,
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (header, mut rows) = table(&out);
        assert_eq!(header[1..3], ["nic.mtu", "sim.seed"]);
        // wall_s is the only column that may differ.
        let w = col(&header, "wall_s");
        for r in &mut rows {
            r[w].clear();
        }
        tables.push(rows);
    }
    assert_eq!(tables[0].len(), 4);
    assert_eq!(tables[0], tables[1]);
}

#[test]
fn a_bad_value_fails_its_run_only() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sweep_file(
        tmp.path(),
        "list.toml",
        "[[run]]\nnic.mtu = 1024\n\n[[run]]\nnic.mtu = \"abc\"\n\n[[run]]\nnic.mtu = 2048\nswitch.lossless.headroom = 1.0\n",
    );
    let out = tmp.path().join("out");
    let o = rocesim(&[
        "sweep",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("run 1") && err.contains("nic.mtu"), "{err}");
    let (header, rows) = table(&out);
    assert_eq!(
        header[1..4],
        ["nic.mtu", "switch.lossless.headroom", "status"]
    );
    assert_eq!(rows.len(), 3);
    let status = col(&header, "status");
    assert_eq!(rows[0][status], "ok");
    assert!(
        rows[1][status].starts_with("error: nic.mtu:"),
        "{:?}",
        rows[1][status]
    );
    assert_eq!(
        rows[1][col(&header, "events")],
        "",
        "no metrics for a failed run"
    );
    assert_eq!(rows[2][status], "ok");
    // A run without a key leaves its cell empty.
    assert_eq!(rows[0][2], "");
    assert_eq!(rows[2][2], "1.0");
    assert!(!out.join("run-1").exists());
    assert!(out.join("run-2/summary.json").is_file());
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(j["failed"], 1);
    assert!(j["runs"][1]["events"].is_null());
}

#[test]
fn sweep_file_errors_exit_2_and_run_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bad = tmp.path().join("bad.toml");
    std::fs::write(
        &bad,
        "bsae = 'x'\nseeds = 3\n[grid]\n\"nic.mtu\" = 1024\n\"switch.lossless.headroom\" = []\n",
    )
    .unwrap();
    let o = rocesim(&[
        "sweep",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let file = bad.display().to_string();
    for key in [
        "bsae",
        "base",
        "seeds",
        "grid.nic.mtu",
        "grid.switch.lossless.headroom",
    ] {
        assert!(
            err.contains(&format!("error: {file}: {key}: ")),
            "{key} not reported:\n{err}"
        );
    }
    assert!(err.contains("did you mean `base`"), "{err}");
    assert!(err.contains("5 error(s); nothing was run"), "{err}");
    assert!(!out.exists(), "nothing written");

    // A swept key the scenario does not have is an error of the sweep file too.
    let typo = sweep_file(
        tmp.path(),
        "typo.toml",
        "[grid]\n\"switch.lossless.headrom\" = [0.5]\n",
    );
    let o = rocesim(&[
        "sweep",
        typo.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("grid.switch.lossless.headrom: not a scenario key")
            && err.contains("headroom"),
        "{err}"
    );
    assert!(!out.exists());

    // A missing file and a missing base scenario.
    let o = rocesim(&["sweep", "no/such/sweep.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let nobase = tmp.path().join("nobase.toml");
    std::fs::write(&nobase, "base = 'missing.toml'\n").unwrap();
    let o = rocesim(&["sweep", nobase.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(": base: the base scenario"));
}

#[test]
fn shipped_sweeps_run() {
    let tmp = tempfile::tempdir().unwrap();
    for (f, n) in [
        ("sweeps/incast-headroom.toml", 8),
        ("sweeps/parking-lot-cc.toml", 4),
        ("sweeps/loss-tolerance.toml", 15),
        ("sweeps/irn-vs-roce.toml", 2),
    ] {
        let out = tmp.path().join(f);
        let o = rocesim(&["sweep", f, "--out", out.to_str().unwrap(), "--quiet"]);
        assert!(
            o.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (header, rows) = table(&out);
        assert_eq!(rows.len(), n, "{f}");
        let status = col(&header, "status");
        assert!(rows.iter().all(|r| r[status] == "ok"), "{f}: {rows:?}");
    }
    // The parking lot: without CC, D gets about 3x each of A, B, C; with DCQCN or RCM all four
    // get about a quarter of the bottleneck.
    for (i, unfair) in [(0, true), (1, false), (2, false), (3, false)] {
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                tmp.path()
                    .join(format!("sweeps/parking-lot-cc.toml/run-{i}/summary.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let g = |k: &str| s["goodput_gbps"][k].as_f64().unwrap();
        let ratio = g("D") / ((g("A") + g("B") + g("C")) / 3.0);
        if unfair {
            assert!((ratio - 3.0).abs() < 0.2, "run {i}: {ratio}");
        } else {
            assert!((ratio - 1.0).abs() < 0.1, "run {i}: {ratio}");
        }
    }
    // Loss tolerance without loss: every transport gets the line goodput, 100 × 1024 / 1106 =
    // 92.59 Gb/s (IRN's BDP-FC window of 77 packets covers the 76.7-packet BDP).
    let (header, rows) = table(&tmp.path().join("sweeps/loss-tolerance.toml"));
    let p = col(&header, "fault.0.probability");
    let g = col(&header, "total_goodput_gbps");
    let lossless: Vec<f64> = (rows.iter())
        .filter(|r| r[p].parse::<f64>().unwrap() == 0.0)
        .map(|r| r[g].parse().unwrap())
        .collect();
    assert_eq!(lossless.len(), 3);
    assert!(
        lossless.iter().all(|x| (x / 92.59 - 1.0).abs() < 0.01),
        "{lossless:?}"
    );
}

#[test]
fn bench_sweep_times_one_at_a_time_and_all_cores() {
    let tmp = tempfile::tempdir().unwrap();
    let file = sweep_file(tmp.path(), "grid.toml", GRID);
    let o = rocesim(&["bench", "--sweep", file.to_str().unwrap(), "--repeat", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let secs = |prefix: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?} in {text}"));
        line.rsplit(':')
            .next()
            .unwrap()
            .trim()
            .trim_end_matches(" s")
            .parse()
            .unwrap()
    };
    let (one, all) = (
        secs("one run at a time"),
        secs(&format!("{} at a time", num_cores())),
    );
    assert!(one > 0.0 && all > 0.0, "{text}");
    let ratio: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("ratio: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no ratio in {text}"));
    // The times are printed to the millisecond, the ratio to 0.001.
    let slack = 0.0005 / one * (1.0 + all / one) + 0.0005;
    assert!((ratio - all / one).abs() <= slack, "{text}");
}

fn num_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
