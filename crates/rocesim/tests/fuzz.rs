//! Generated scenarios: the shipped scenario files with random `--set` changes to their keys
//! (every declared key, with values of every type and at every extreme), each parsed,
//! checked and, when accepted, run for a short simulated time under a wall-clock limit.
//!
//! What must hold for every case: no panic, no hang past the limit, and every rejection names
//! a key. `ROCESIM_FUZZ_CASES` sets the number of cases (default 10,000, what CI runs);
//! `scripts/fuzz.sh` runs 100,000. `ROCESIM_FUZZ_TRACE` prints each case before it is parsed
//! (with `-- --nocapture`), to find a case that aborts the process, e.g. out of memory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rocesim::config::{load_str, schema};

/// Values of every kind a key may be given: numbers at the edges, units, words, lists,
/// tables and nonsense.
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "3",
    "7",
    "8",
    "64",
    "65535",
    "65536",
    "1000000",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "0.0",
    "0.5",
    "2.0",
    "1e20",
    "-1e20",
    "nan",
    "inf",
    "true",
    "false",
    "\"\"",
    "\"abc\"",
    "\"0us\"",
    "\"1ps\"",
    "\"1ns\"",
    "\"1s\"",
    "\"100000s\"",
    "\"0B\"",
    "\"1B\"",
    "\"1KB\"",
    "\"1000000GB\"",
    "\"0Gbps\"",
    "\"1bps\"",
    "\"100Gbps\"",
    "\"1Tbps\"",
    "\"auto\"",
    "\"off\"",
    "\"inf\"",
    "\"all\"",
    "\"h0\"",
    "\"S1\"",
    "\"tor0\"",
    "\"pod0/*\"",
    "\"5m\"",
    "\"0m\"",
    "[]",
    "[0]",
    "[3]",
    "[3, 4]",
    "[0, 1, 2, 3, 4, 5, 6, 7]",
    "[\"h0\", \"h1\"]",
    "[\"h0\", \"h0\"]",
    "{}",
    "{ 26 = 3 }",
    "{ 3 = 9 }",
    "{ 0 = \"strict\" }",
    "{ rate = \"1Gbps\", delay = \"0us\" }",
    "{ rate = \"100Gbps\", delay = \"1us\" }",
    "\"dcqcn\"",
    "\"hpcc\"",
    "\"timely\"",
    "\"dctcp\"",
    "\"none\"",
    "\"gbn\"",
    "\"gb0\"",
    "\"dynamic\"",
    "\"static\"",
    "\"websearch\"",
    "\"hadoop\"",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shipped scenario files (scenarios/ and benches/), as (name, text).
fn seeds() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["scenarios", "benches"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap();
            out.push((
                format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                text,
            ));
        }
    }
    out
}

/// Every dotted key a `--set` may name: the declared keys of every table (array tables at
/// index 0 and 1), plus the keys the seeds use.
fn key_paths(seeds: &[(String, String)]) -> Vec<String> {
    let mut keys = Vec::new();
    for (table, docs) in schema::doc_tables() {
        let prefix = match table.split_once('.') {
            Some(("workload", _)) => "workload[0]".to_string(),
            Some(("fault", _)) => "fault[0]".to_string(),
            Some(("topology", _)) => "topology".to_string(),
            _ if table == "flow" => "flow[0]".to_string(),
            _ => table.to_string(),
        };
        for k in docs.iter() {
            keys.push(format!("{prefix}.{}", k.name));
            if prefix.ends_with("[0]") {
                keys.push(format!("{}[1].{}", &prefix[..prefix.len() - 3], k.name));
            }
        }
    }
    for (_, text) in seeds {
        let v: toml::Table = toml::from_str(text).unwrap();
        leaves(&toml::Value::Table(v), String::new(), &mut keys);
    }
    keys.sort();
    keys.dedup();
    keys
}

fn leaves(v: &toml::Value, at: String, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                leaves(x, p, out);
            }
        }
        toml::Value::Array(a) if a.iter().all(toml::Value::is_table) && !a.is_empty() => {
            for (i, x) in a.iter().enumerate().take(2) {
                leaves(x, format!("{at}[{i}]"), out);
            }
        }
        _ => out.push(at),
    }
}

/// Cases accepted (and run) and rejected.
static RAN: AtomicU64 = AtomicU64::new(0);
static REJECTED: AtomicU64 = AtomicU64::new(0);
/// The case being checked and when it started (ms since the watchdog started; 0 = none), for
/// [`watchdog`].
static CURRENT: Mutex<String> = Mutex::new(String::new());
static CURRENT_SINCE_MS: AtomicU64 = AtomicU64::new(0);
/// A case may take this long, parsing included, before the watchdog aborts the test (a hang
/// inside parsing or the run would otherwise never end the test).
const HANG: Duration = Duration::from_secs(300);

/// Watch the cases: when one has taken [`HANG`] of wall time, print it and abort, so that a
/// hang fails the test with the case that hung.
fn watchdog() -> Instant {
    let epoch = Instant::now();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(5));
        let since = CURRENT_SINCE_MS.load(Ordering::Relaxed);
        let now = epoch.elapsed().as_millis() as u64;
        if since != 0 && now.saturating_sub(since) > HANG.as_millis() as u64 {
            let case = CURRENT.lock().map(|c| c.clone()).unwrap_or_default();
            eprintln!("a case hung for more than {HANG:?}: {case}");
            std::process::abort();
        }
    });
    epoch
}

/// One generated case: a seed and raw draws for its changes, resolved by [`sets`].
#[derive(Debug, Clone)]
struct Case {
    seed: usize,
    draws: Vec<(bool, u32, u32)>,
}

fn case(n_seeds: usize) -> impl Strategy<Value = Case> {
    let draw = (prop::bool::weighted(0.75), any::<u32>(), any::<u32>());
    (0..n_seeds, prop::collection::vec(draw, 1..4)).prop_map(|(seed, draws)| Case { seed, draws })
}

/// Values near `v` (a number scaled or shifted, a size or time with its number scaled, a flag
/// flipped), as TOML text.
fn near(v: &toml::Value) -> Vec<String> {
    match v {
        toml::Value::Integer(n) => [
            0,
            1,
            n - 1,
            n + 1,
            n.saturating_mul(2),
            n.saturating_mul(1000),
            -n,
            i64::MAX,
        ]
        .iter()
        .map(i64::to_string)
        .collect(),
        toml::Value::Float(f) => [0.0, f * 2.0, f / 2.0, 1e20, -f, f * 1e6]
            .iter()
            .map(|x| format!("{x:?}"))
            .collect(),
        toml::Value::Boolean(b) => vec![(!b).to_string()],
        toml::Value::String(s) => {
            let cut = s
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(s.len());
            let (num, unit) = s.split_at(cut);
            match num.parse::<f64>() {
                Ok(x) => [0.0, x / 1000.0, x * 1000.0, x * 1e9, x + 1.0]
                    .iter()
                    .map(|y| format!("\"{y}{unit}\""))
                    .chain([format!("\"{num}\""), format!("\"{num}xyz\"")])
                    .collect(),
                Err(_) => vec![format!("\"{s}{s}\""), "\"\"".into()],
            }
        }
        toml::Value::Array(a) => vec![
            "[]".into(),
            format!(
                "[{}]",
                a.iter()
                    .chain(a)
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ],
        _ => vec!["{}".into()],
    }
}

/// The value at dotted key `path` (with `[i]` indices) of `root`.
fn value_at<'a>(root: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    let mut v = root;
    for part in path.split('.') {
        let (name, idx) = match part.split_once('[') {
            Some((n, i)) => (n, i.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        v = v.get(name)?;
        if let Some(i) = idx {
            v = v.get(i)?;
        }
    }
    Some(v)
}

/// The `--set` changes of case `c` on seed `text`: mostly one of the seed's own keys with a
/// value near its own or from [`VALUES`], sometimes any declared key.
fn sets(c: &Case, text: &str, own: &[String], all: &[String]) -> Vec<String> {
    let root = toml::Value::Table(toml::from_str(text).unwrap());
    c.draws
        .iter()
        .map(|&(mine, k, v)| {
            let keys = if mine && !own.is_empty() { own } else { all };
            let key = &keys[k as usize % keys.len()];
            let mut pool = value_at(&root, key).map(near).unwrap_or_default();
            pool.extend(VALUES.iter().map(|s| s.to_string()));
            let nearby = pool.len() - VALUES.len();
            // Three times in four a value near the key's own, when it has one.
            let i = if nearby > 0 && v % 4 != 0 {
                (v / 2) as usize % nearby
            } else {
                (v / 2) as usize % pool.len()
            };
            format!("{key}={}", pool[i])
        })
        .collect()
}

/// CPU time of the calling thread so far, from Linux's `/proc/thread-self/schedstat` (its
/// first field, in ns); `None` where the system does not give it.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Check one case: parse, validate, and run it for 20 us of simulated time (its own
/// `sim.wall_limit` of 2 s stops a run that is slower than that). `Err` says what went wrong.
fn check(
    seeds: &[(String, String)],
    keys: &[Vec<String>],
    all: &[String],
    c: &Case,
) -> Result<(), String> {
    let (name, text) = &seeds[c.seed];
    let mut sets = sets(c, text, &keys[c.seed], all);
    sets.push("sim.wall_limit=2s".into());
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = EPOCH.get_or_init(watchdog);
    if let Ok(mut cur) = CURRENT.lock() {
        *cur = format!("{name} {sets:?}");
    }
    CURRENT_SINCE_MS.store(epoch.elapsed().as_millis().max(1) as u64, Ordering::Relaxed);
    let result = check_case(name, text, &sets);
    CURRENT_SINCE_MS.store(0, Ordering::Relaxed);
    result
}

/// Parse, validate and run one case (see [`check`]).
fn check_case(name: &str, text: &str, sets: &[String]) -> Result<(), String> {
    let base = repo().join(Path::new(name).parent().unwrap());
    if std::env::var("ROCESIM_FUZZ_TRACE").is_ok() {
        eprintln!("case {name} {sets:?}");
    }
    let run = std::panic::catch_unwind(|| match load_str(text, name, &base, sets) {
        Err(errors) => {
            if REJECTED.fetch_add(1, Ordering::Relaxed) < 15
                && std::env::var("ROCESIM_FUZZ_SHOW").is_ok()
            {
                eprintln!("{name} {sets:?}: {errors}");
            }
            errors
                .iter()
                .find(|e| e.key.is_empty() || e.message.is_empty())
                .map_or(Ok(()), |e| Err(format!("an error without a key: {e}")))
        }
        Ok(scenario) => {
            RAN.fetch_add(1, Ordering::Relaxed);
            let started = Instant::now();
            let cpu_before = thread_cpu();
            let flows = scenario.flow_count() as u32;
            let ports = 2 * scenario.topology.links.len() as u32;
            // Every case stays short: 20 us of simulated time at most.
            let limit = rocesim::units::Time::from_us(20);
            let _ = rocesim::run::simulate(scenario, |p, _| p.now < limit);
            // The wall limit, plus building the run and collecting its results, which take
            // time in proportion to the flows and ports: a case with host links of 100 Tb/s
            // lists 1.4 M Poisson flows (about 2 s alone to build, run and collect), one with
            // 24,000 hosts per ToR builds 2.3 M ports (about 5 s). A hang or anything
            // superlinear still fails. Judged on this thread's CPU time where the
            // system gives it, so that a machine busy with other work (or `nice`) does not
            // fail a case; the wall time may be six times the allowance.
            let wall = started.elapsed();
            let took = match (cpu_before, thread_cpu()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => wall,
            };
            if std::env::var("ROCESIM_FUZZ_TRACE").is_ok() && wall > Duration::from_secs(3) {
                eprintln!("slow: {wall:?} wall, {took:?} CPU, {flows} flows: {name} {sets:?}");
            }
            let allowed = Duration::from_secs(10) + Duration::from_micros(5) * (flows + ports);
            if took > allowed || wall > 6 * allowed {
                return Err(format!(
                    "ran {took:?} ({wall:?} wall), past the 2 s wall limit (+ {:?} for {flows} \
                     flows and {ports} ports)",
                    allowed - Duration::from_secs(2)
                ));
            }
            Ok(())
        }
    });
    match run {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panic: {msg}"))
        }
    }
}

#[test]
fn generated_scenarios_never_panic_hang_or_reject_without_a_key() {
    let cases: u32 = std::env::var("ROCESIM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let seeds = seeds();
    let all = key_paths(&seeds);
    assert!(all.len() > 200, "{} keys", all.len());
    let own: Vec<Vec<String>> = seeds
        .iter()
        .map(|(_, text)| {
            let mut k = Vec::new();
            leaves(
                &toml::Value::Table(toml::from_str(text).unwrap()),
                String::new(),
                &mut k,
            );
            k
        })
        .collect();
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 200,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let result = runner.run(&case(seeds.len()), |c| {
        check(&seeds, &own, &all, &c).map_err(|e| {
            let sets = sets(&c, &seeds[c.seed].1, &own[c.seed], &all);
            TestCaseError::fail(format!("{} {sets:?}: {e}", seeds[c.seed].0))
        })
    });
    let (ran, rejected) = (
        RAN.load(Ordering::Relaxed),
        REJECTED.load(Ordering::Relaxed),
    );
    eprintln!("{cases} cases: {ran} ran, {rejected} rejected");
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(ran > u64::from(cases) / 10 && rejected > u64::from(cases) / 10);
}
