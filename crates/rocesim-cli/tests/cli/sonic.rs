//! The switch-configuration commands: `headroom`, configuration `lint`, SONiC `config_db.json`
//! import and export.

use super::rocesim;

/// `rocesim headroom` prints every term of the delay budget; the values are the arithmetic of
/// 802.1Qbb / 802.3: 40 m at 5 ns/m is 200 ns, 2 × 200 ns at 100 Gb/s is 5,000 B; a 4096 B
/// payload travels in a 4096 + 82 + 16 = 4194 B frame, two of them 8,388 B; the 802.3 Annex
/// 31B maximum response at 100G is 394 quanta × 64 B = 25,216 B; the pause frame 84 B; the
/// frame that crossed XOFF, one more 4194 B frame.
#[test]
fn headroom_prints_the_delay_budget() {
    let o = rocesim(&[
        "headroom", "--speed", "100G", "--cable", "40m", "--mtu", "4096",
    ]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for (name, v) in [
        ("in flight", 5_000),
        ("frames", 8_388),
        ("response", 25_216),
        ("pause frame", 84),
        ("crossing", 4_194),
        ("xoff", 5_000 + 8_388 + 25_216 + 84 + 4_194),
        ("xon", 8_388),
        ("size", 42_882 + 8_388),
    ] {
        let line = out.lines().find(|l| l.trim_start().starts_with(name));
        let line = line.unwrap_or_else(|| panic!("no `{name}` line in {out}"));
        assert!(line.contains(&format!(" {v} B")), "{name}: {line}");
    }
    // A NIC that answers in 1 us: 100 Gb/s × 1 us = 12,500 B instead of 25,216 B.
    let o = rocesim(&[
        "headroom",
        "--speed",
        "100G",
        "--cable",
        "40m",
        "--mtu",
        "4096",
        "--nic-response",
        "1us",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(" {} B", 5_000 + 8_388 + 12_500 + 84 + 4_194)),
        "{out}"
    );
}

#[test]
fn headroom_rejects_bad_arguments_with_exit_2() {
    let o = rocesim(&[
        "headroom", "--speed", "fast", "--cable", "forty", "--mtu", "9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for key in ["--speed", "--cable", "--mtu"] {
        assert!(err.contains(&format!("error: {key}:")), "{err}");
    }
}

/// `lint` exits 0 when clean, 1 with configuration findings (each naming the device, the key
/// and the fix), 2 when the scenario is invalid; `run` prints the same findings as warnings.
#[test]
fn lint_exit_codes_and_run_warnings() {
    let f = "scenarios/topo-star.toml";
    assert_eq!(rocesim(&["lint", f]).status.code(), Some(0));
    let o = rocesim(&["lint", f, "--set", "nic.cc=dcqcn"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("[cc] switch `sw0`: switch.ecn"), "{out}");
    assert!(
        out.contains("fix: add a [switch.ecn] table marking queue 3"),
        "{out}"
    );
    let o = rocesim(&["lint", f, "--set", "switch.buffer_size=0"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = rocesim(&["run", f, "-q", "--out", out, "--set", "nic.cc=dcqcn"]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: scenarios/topo-star.toml: [cc] switch `sw0`"),
        "{err}"
    );
}

/// `rocesim config --export` writes one config_db.json per switch; a scenario that reads it
/// back lints clean of import warnings and exports the same file again.
#[test]
fn config_export_round_trips_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = rocesim(&["config", "scenarios/topo-leaf-spine.toml", "--export", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files: Vec<_> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(files.len() >= 2, "{files:?}");
    let first = std::fs::read_to_string(&files[0]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"], "3");
    assert_eq!(v["DSCP_TO_TC_MAP"]["ROCESIM"]["26"], "3");
    let sw = std::path::Path::new(&files[0])
        .parent()
        .unwrap()
        .file_name()
        .unwrap();
    let sw = sw.to_str().unwrap();
    let set = format!("switch.name.{sw}.config_db={}", files[0]);
    let again = tempfile::tempdir().unwrap();
    let a = again.path().to_str().unwrap();
    let o = rocesim(&[
        "config",
        "scenarios/topo-leaf-spine.toml",
        "--set",
        &set,
        "--export",
        a,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let second = std::fs::read_to_string(again.path().join(sw).join("config_db.json")).unwrap();
    assert_eq!(first, second);
}

/// Import warnings (unmodelled tables, ports the topology lacks) are printed but are not
/// findings: a clean configuration read from SONiC's own sample files lints with exit code 0.
#[test]
fn config_db_import_warnings_do_not_fail_lint() {
    let dir = tempfile::tempdir().unwrap();
    let repo = super::repo().canonicalize().unwrap();
    let f = dir.path().join("s.toml");
    let text = format!(
        "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n\
         link = {{ rate = \"25Gbps\", delay = \"100ns\" }}\n[switch]\nconfig_db = \"{}\"\n\
         [[flow]]\nsrc = \"h0\"\ndst = \"h2\"\nsize = \"10KB\"\n",
        repo.join("scenarios/sonic/config_db.json").display()
    );
    std::fs::write(&f, text).unwrap();
    let o = rocesim(&["lint", f.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("sonic/config_db.json: PORT: table not modelled"),
        "{out}"
    );
    assert!(
        out.contains("names 9 ports, the switch has 3: Ethernet12 to Ethernet32"),
        "{out}"
    );
}
