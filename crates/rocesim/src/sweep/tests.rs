//! Sweep files, their expansion into runs, and a whole sweep run in the library.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use toml::Value;

use super::load::key_prefix;
use super::*;

fn parse(text: &str) -> Result<Sweep, Vec<ConfigError>> {
    parse_str(text, "t.toml", Path::new(env!("CARGO_MANIFEST_DIR")))
}

fn incast() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/incast.toml")
}

#[test]
fn grid_is_a_product_in_file_order() {
    let s = parse(
        "base = \"../../scenarios/incast.toml\"\n[grid]\nswitch.lossless.headroom = [0.5, 1.0]\n\"nic.mtu\" = [1024, 2048, 4096]\n",
    )
    .unwrap();
    assert_eq!(s.keys, ["switch.lossless.headroom", "nic.mtu"]);
    assert_eq!(s.runs.len(), 6);
    assert_eq!(
        s.runs[1].overrides(&s.keys),
        ["switch.lossless.headroom=0.5", "nic.mtu=2048"]
    );
    assert_eq!(
        s.runs[3].overrides(&s.keys),
        ["switch.lossless.headroom=1.0", "nic.mtu=1024"]
    );
}

#[test]
fn run_list_with_seeds_and_repeat() {
    let s = parse(
        "base = \"../../scenarios/incast.toml\"\nseeds = [1, 2]\nrepeat = 2\n[[run]]\nnic.cc = \"dcqcn\"\nswitch.ecn = { kmin = \"40KB\" }\n[[run]]\nnic.cc = \"none\"\n",
    )
    .unwrap();
    assert_eq!(s.keys, ["nic.cc", "switch.ecn.kmin", "sim.seed"]);
    assert_eq!(s.runs.len(), 8);
    assert_eq!(
        s.runs[0].overrides(&s.keys),
        ["nic.cc=\"dcqcn\"", "switch.ecn.kmin=\"40KB\"", "sim.seed=1"]
    );
    assert_eq!(s.runs[1].rep, 1);
    assert_eq!(
        s.runs[7].overrides(&s.keys),
        ["nic.cc=\"none\"", "sim.seed=2"]
    );
    // The rendered text reads back as the same value, as with --set.
    assert_eq!(
        crate::config::overrides::parse_value("\"dcqcn\""),
        Value::String("dcqcn".into())
    );
}

#[test]
fn every_error_is_listed_with_its_key() {
    let errs = parse("bases = 1\nseeds = [-1]\nrepeat = 0\n[grid]\nnic.mtu = 1024\n\"x\" = []\n")
        .unwrap_err();
    let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
    for k in [
        "bases",
        "base",
        "grid.nic.mtu",
        "grid.x",
        "seeds[0]",
        "repeat",
    ] {
        assert!(keys.contains(&k), "{k} missing in {keys:?}");
    }
    assert!(errs.iter().all(|e| e.file == "t.toml"));
    assert!(
        errs[0].message.contains("did you mean `base`"),
        "{}",
        errs[0].message
    );
    let both = parse("base = \"x.toml\"\n[grid]\na = [1]\n[[run]]\na = 2\n").unwrap_err();
    assert!(both
        .iter()
        .any(|e| e.key == "run" && e.message.contains("not both")));
}

#[test]
fn prefixes() {
    assert!(key_prefix("foo", "foo.bar"));
    assert!(key_prefix("foo.bar", "foo.bar"));
    assert!(!key_prefix("fo", "foo.bar"));
    assert!(key_prefix("flow", "flow[0].size"));
}

#[test]
fn a_grid_in_code_is_the_grid_of_a_file() {
    let text = format!(
        "base = '{}'\nseeds = [3]\n[grid]\n\"nic.mtu\" = [1024, 2048]\n\"nic.cc\" = [\"none\", \"dcqcn\"]\n",
        incast().display()
    );
    let file = parse_str(&text, "g.toml", Path::new("")).unwrap();
    let code = Sweep::from_grid(
        "g",
        &incast(),
        vec![
            (
                "nic.mtu".into(),
                vec![Value::Integer(1024), Value::Integer(2048)],
            ),
            (
                "nic.cc".into(),
                vec![Value::String("none".into()), Value::String("dcqcn".into())],
            ),
        ],
        Some(vec![3]),
        None,
    )
    .unwrap();
    assert_eq!(code, file);
    let bad = Sweep::from_grid("g", &incast(), vec![("nic.mtu".into(), vec![])], None, None);
    assert_eq!(bad.unwrap_err()[0].key, "grid.nic.mtu");
}

#[test]
fn run_gives_one_row_per_run_and_resume_skips_finished_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = Sweep::from_grid(
        "r",
        &incast(),
        vec![(
            "nic.mtu".into(),
            vec![Value::Integer(1024), Value::String("abc".into())],
        )],
        None,
        None,
    )
    .unwrap();
    let opts = Options {
        jobs: Some(2),
        out: Some(tmp.path().to_path_buf()),
        resume: false,
    };
    let stop = AtomicBool::new(false);
    let first = run(sweep.clone(), &opts, &stop).unwrap();
    let recs = first.table().records();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].status, Status::Ok);
    assert_eq!(
        recs[0].overrides,
        [("nic.mtu".into(), Value::Integer(1024))]
    );
    assert!(recs[0].metrics.as_ref().is_some_and(|m| m.flows == 8));
    assert!(matches!(&recs[1].status, Status::Failed(m) if m.starts_with("nic.mtu:")));
    assert!(recs[1].metrics.is_none());
    assert!(tmp.path().join("sweep.csv").is_file() && tmp.path().join("sweep.json").is_file());

    // Resumed: run 0 is read back from its summary.json (its wall time is not renewed).
    let summary = tmp.path().join("run-0/summary.json");
    let before = std::fs::metadata(&summary).unwrap().modified().unwrap();
    let again = run(
        sweep,
        &Options {
            resume: true,
            ..opts
        },
        &stop,
    )
    .unwrap();
    assert_eq!(
        std::fs::metadata(&summary).unwrap().modified().unwrap(),
        before
    );
    let (a, b) = (&first.rows[0], &again.rows[0]);
    assert_eq!(b.status, Status::Ok);
    let (ma, mb) = (a.metrics.as_ref().unwrap(), b.metrics.as_ref().unwrap());
    assert_eq!(
        (ma.events, ma.pause_tx, ma.flows_completed),
        (mb.events, mb.pause_tx, mb.flows_completed)
    );
    assert_eq!(
        crate::output::round_sig(ma.total_goodput_gbps),
        mb.total_goodput_gbps
    );
    assert_eq!(again.rows[1], first.rows[1]);
}

#[test]
fn status_text_reads_back() {
    for s in [
        Status::Ok,
        Status::Incomplete,
        Status::NotRun,
        Status::Failed("nic.mtu: expected a non-negative integer, found -5".into()),
    ] {
        assert_eq!(Status::from_text(&s.text()), Some(s));
    }
    assert_eq!(Status::from_text("done"), None);
}
