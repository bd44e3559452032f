//! Streamed flows (`traffic::stream`) run exactly as listed ones: the same scenario with its
//! Poisson workload streamed, and with the same flows listed, gives equal results.

use super::Sim;
use crate::config::{load_str, Scenario};
use crate::monitor::RunResults;

fn run(sc: Scenario) -> RunResults {
    run_holding(sc, false).0
}

/// Run `sc` (holding every flow to the end when `hold_all`); its results and the number of
/// flows it stopped holding.
fn run_holding(sc: Scenario, hold_all: bool) -> (RunResults, u32) {
    let mut sim = Sim::new(sc).expect("builds");
    sim.retiring.hold_all = hold_all;
    sim.run(|_| true);
    let mut r = sim.results(0.0);
    r.peak_memory_kb = 0;
    (r, sim.ctx.monitor.flows.base())
}

/// A star of `hosts` hosts at `rate` with PFC on class 3, ECN marking there and DCQCN
/// (congestion records name the flows' hosts), throughput sampled every `sample`; `sim` is the
/// `[sim]` table's body and `workloads` the `[[workload]]` tables.
fn dcqcn_star(sim: &str, (hosts, rate): (u32, &str), sample: &str, workloads: &str) -> Scenario {
    let text = format!(
        r#"
[sim]
{sim}
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "{rate}", delay = "1us" }}
[switch]
pfc_enable = [3]
ecn = {{ queues = [3], kmin = "5KB", kmax = "50KB", pmax = 0.2 }}
[nic]
mtu = 1000
cc = "dcqcn"
{workloads}
[output]
throughput_interval = "{sample}"
"#
    );
    load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap()
}

/// `[[workload]]` of Poisson arrivals of `cdf` sizes at `load` among `hosts` (a TOML list;
/// empty: every host).
fn poisson(cdf: &str, load: f64, hosts: &str) -> String {
    let hosts = if hosts.is_empty() {
        String::new()
    } else {
        format!("hosts = {hosts}\n")
    };
    format!("[[workload]]\nkind = \"poisson\"\ncdf = \"{cdf}\"\nload = {load}\n{hosts}")
}

/// Four 10G hosts at 40 % load of short AliStorage flows for `duration`.
fn soak(duration: &str) -> Scenario {
    let sim = format!("duration = \"{duration}\"\nwarmup = \"100us\"");
    dcqcn_star(&sim, (4, "10Gbps"), "50us", &poisson("alistorage", 0.4, ""))
}

/// `sc` with its streams listed; runs of the two must be equal.
fn listed(sc: &Scenario) -> Scenario {
    let mut l = sc.clone();
    l.list_streams();
    l
}

/// Flows that are over leave the run (their records go to the spill) and come back for the
/// results: the same run holding every flow gives equal results, and at its end the run held
/// a small part of its flows.
#[test]
fn released_flows_come_back_for_the_results() {
    let (a, released) = run_holding(soak("200ms"), false);
    let (b, none) = run_holding(soak("200ms"), true);
    let n = a.flows.len() as u32;
    assert!(n > 5000, "{n} flows");
    // A flow leaves once its QPs are released, after its congestion control settles (DCQCN's
    // rate recovery may take milliseconds), so the held ones are the last few milliseconds'.
    assert!(released > n * 8 / 10, "{released} of {n} released");
    assert_eq!(none, 0);
    assert!(
        a.congestion.iter().any(|c| c.sources.len() > 1),
        "flows were marked"
    );
    assert_eq!(a, b);
}

/// A star of 6 hosts with DCQCN and ECN, Poisson AliStorage flows at 60 % load for 300 us,
/// run streamed and listed: every result (rows, counters, samples, summary) is equal, and the
/// run has flows that complete and flows still running at the end.
#[test]
fn a_streamed_workload_runs_as_the_listed_one() {
    let sim = "duration = \"300us\"\nseed = 3";
    let streamed = dcqcn_star(sim, (6, "25Gbps"), "20us", &poisson("alistorage", 0.6, ""));
    assert!(streamed.flows.is_empty() && streamed.streams.len() == 1);
    let (a, b) = (run(listed(&streamed)), run(streamed));
    let done = a.flows.iter().filter(|f| f.end_ns.is_some()).count();
    assert!(
        done > 20 && done < a.flows.len(),
        "{done} of {} done",
        a.flows.len()
    );
    assert!(!a.throughput.is_empty());
    assert_eq!(a, b);
}

/// A flow is held, and sampled, from its start: a flow chained to another (its `start` a gap
/// after its predecessor completes) has no throughput sample before it starts (it used to be
/// sampled at 0 Gb/s from t = 0, its gap taken for a start time).
#[test]
fn a_chained_flow_is_not_sampled_before_it_starts() {
    use super::testkit::{flow, scenario, star};
    use crate::units::{Rate, Time};
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(200),
    );
    sc.output.throughput_interval = Some(Time::from_us(5));
    sc.flows.push(flow(0, 1, Some(500_000), Time::ZERO));
    let mut chained = flow(0, 1, Some(100_000), Time::from_us(1));
    chained.after = Some(0);
    sc.flows.push(chained);
    let r = run(sc);
    let first_done = r.flows[0].end_ns.expect("the first flow completes");
    let second_start = r.flows[1].start_ns;
    assert!(
        second_start > first_done,
        "{second_start} after {first_done}"
    );
    let early: Vec<_> = (r.throughput.iter())
        .filter(|s| s.flow_id == 1 && s.time_ns <= second_start)
        .collect();
    assert!(early.is_empty(), "samples before its start: {early:?}");
    assert!(
        r.throughput.iter().any(|s| s.flow_id == 1),
        "sampled once started"
    );
}

/// Two streamed workloads (their flows interleave in time, so the second's ids are held while
/// the first's are still starting) with a warm-up and samples: equal to the same flows listed.
#[test]
fn two_streams_run_as_their_flows_listed() {
    let sim = "duration = \"400us\"\nwarmup = \"50us\"\nseed = 5";
    let wl = poisson("alistorage", 0.3, r#"["h0", "h1", "h2"]"#)
        + &poisson("googlerpc", 0.3, r#"["h3", "h4", "h5"]"#);
    let streamed = dcqcn_star(sim, (6, "25Gbps"), "20us", &wl);
    assert!(streamed.flows.is_empty() && streamed.streams.len() == 2);
    let first = streamed.streams[0].count as usize;
    let (a, b) = (run(listed(&streamed)), run(streamed));
    let n = a.flows.len();
    assert!(
        first > 5 && n - first > 5,
        "{first} and {} flows",
        n - first
    );
    let started =
        |r: &[crate::monitor::FlowResult]| r.iter().filter(|f| f.end_ns.is_some()).count();
    assert!(
        started(&a.flows.held_rows()[..first]) > 0 && started(&a.flows.held_rows()[first..]) > 0
    );
    assert_eq!(a, b);
}

/// A run's flow rows stored out of memory (as a long run's are) write the same result files,
/// byte for byte, as the rows held: flows.csv and .parquet, summary.json (its goodput map
/// and slowdown percentiles) and report.html.
#[test]
fn stored_flow_rows_write_the_same_files() {
    use crate::monitor::FlowTable;
    let held = run(soak("20ms"));
    let n = held.flows.len();
    assert!(n > 500 && !held.flows.is_stored(), "{n} flows");
    let mut stored = held.clone();
    let rows = held.flows.iter().map(std::borrow::Cow::into_owned);
    stored.flows = FlowTable::collect_rows(rows, n, 0, 97);
    assert!(stored.flows.is_stored());
    let dir = tempfile::tempdir().unwrap();
    let write = |r: &RunResults, name: &str| {
        let d = dir.path().join(name);
        let both = crate::config::TableFormat::Both;
        crate::output::write_results(r, &d, true, both).expect("written");
        d
    };
    let (a, b) = (write(&held, "held"), write(&stored, "stored"));
    let mut compared = 0;
    for name in crate::output::RESULT_FILES
        .iter()
        .chain(&crate::output::OPTIONAL_FILES)
    {
        let parquet = name.strip_suffix(".csv").map(|n| format!("{n}.parquet"));
        for file in std::iter::once(name.to_string()).chain(parquet) {
            let (x, y) = (std::fs::read(a.join(&file)), std::fs::read(b.join(&file)));
            assert_eq!(x.is_ok(), y.is_ok(), "{file}");
            if let (Ok(x), Ok(y)) = (x, y) {
                assert!(x == y, "{file} differs");
                compared += 1;
            }
        }
    }
    // summary.json, report.html, and the ten tables the run has as CSV and as Parquet.
    assert!(compared >= 22, "{compared} files compared");
}
