//! Workload tables: small-flow DSCP and the memory keys of every kind.

use crate::config::load_str;
use crate::traffic::FlowSpec;

#[test]
fn trace_tor_to_tor_and_storage_read_take_region_access_and_qps() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "start_ns,src,dst,size_bytes\n0,h0,h1,4096\n10,h2,h3,8192\n",
    )
    .unwrap();
    let head = r#"
[sim]
duration = "1ms"
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "100Gbps", delay = "1us" }
"#;
    let wl = [
        r#"kind = "trace"
file = "t.csv""#,
        r#"kind = "tor_to_tor"
connections = 1
size = "64KB""#,
        r#"kind = "storage_read"
client = "h0"
targets = ["h5", "h9"]
count = 2"#,
    ];
    for w in wl {
        let text =
            format!("{head}[[workload]]\n{w}\nregion = \"64MiB\"\naccess = \"random\"\nqps = 4\n");
        let sc = load_str(&text, "t.toml", dir.path(), &[]).unwrap();
        assert!(sc.flows.len() >= 2, "{w}");
        for f in &sc.flows {
            assert_eq!(f.mem().region, Some(64 << 20), "{w}");
            assert!(f.mem().random, "{w}");
            assert_eq!(f.mem().qps, 4, "{w}");
        }
        // Bad values are errors naming the workload's key, all at once.
        let bad = format!("{head}[[workload]]\n{w}\naccess = \"zigzag\"\nqps = 0\n");
        let e = load_str(&bad, "t.toml", dir.path(), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("workload[0].access") && e.contains("workload[0].qps"),
            "{w}: {e}"
        );
    }
}

#[test]
fn small_flows_take_the_small_flow_dscp() {
    let text = r#"
[sim]
duration = "10ms"
[topology]
kind = "star"
hosts = 8
link = { rate = "100Gbps", delay = "1us" }
[[workload]]
kind = "poisson"
cdf = "datamining"
load = 0.5
dscp = 26
small_flow_dscp = 30
small_flow_size = "50KB"
"#;
    let sc = load_str(text, "t.toml", std::path::Path::new("."), &[]).unwrap();
    let flows = all_flows(&sc);
    assert!(flows.len() > 20);
    let (mut small, mut large) = (0, 0);
    for f in &flows {
        let size = f.size.unwrap();
        let want = if size < 50_000 { 30 } else { 26 };
        assert_eq!(f.dscp, want, "{size} B");
        if size < 50_000 {
            small += 1;
        } else {
            large += 1;
        }
    }
    assert!(small > 0 && large > 0, "{small} small, {large} large");
}

/// A 100 us run on a star of `hosts` 100G hosts, followed by `workloads` (TOML tables).
fn star_run(hosts: u32, workloads: &str) -> String {
    format!(
        r#"
[sim]
duration = "100us"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "100Gbps", delay = "1us" }}
{workloads}"#
    )
}

/// A Poisson workload's arrivals stop at the end of the run: `until` 1,000 × `sim.duration`
/// gives the very flows of `until` = `sim.duration` (each host's stream is drawn in time
/// order, so the shorter list is a prefix), not 1,000 times as many that could never start.
#[test]
fn poisson_arrivals_stop_at_the_end_of_the_run() {
    let text = |until: &str| {
        let wl = format!(
            "[[workload]]\nkind = \"poisson\"\ncdf = \"googlerpc\"\nload = 0.5\nuntil = \"{until}\"\n"
        );
        star_run(4, &wl)
    };
    let dir = std::path::Path::new(".");
    let short = all_flows(&load_str(&text("100us"), "t.toml", dir, &[]).unwrap());
    let long = all_flows(&load_str(&text("100ms"), "t.toml", dir, &[]).unwrap());
    assert!(short.len() > 10, "{} flows", short.len());
    assert_eq!(long, short);
    let half = all_flows(&load_str(&text("50us"), "t.toml", dir, &[]).unwrap());
    assert!(half.len() < short.len());
    // Source ports are drawn from the flow index: compare the rest.
    let key = |f: &FlowSpec| (f.src, f.dst, f.size, f.start, f.dscp);
    let prefix: Vec<_> = short[..half.len()].iter().map(key).collect();
    assert_eq!(half.iter().map(key).collect::<Vec<_>>(), prefix);
}

/// Every flow of `sc`, listed and streamed, in id order.
fn all_flows(sc: &crate::config::Scenario) -> Vec<FlowSpec> {
    sc.each_flow().map(std::borrow::Cow::into_owned).collect()
}

/// A trailing generic Poisson workload is a stream (no flow is held), and its flows are those
/// the eager generator lists when a listed workload follows it: same ids, ends, sizes,
/// starts, DSCPs (small flows included) and source ports.
#[test]
fn a_streamed_poisson_workload_makes_the_flows_the_list_would_hold() {
    let poisson = "[[workload]]\nkind = \"poisson\"\ncdf = \"alistorage\"\nload = 0.6\n\
                   small_flow_dscp = 30\nsmall_flow_size = \"10KB\"\n";
    let incast = "[[workload]]\nkind = \"incast\"\nsenders = [\"h1\"]\nreceiver = \"h0\"\n\
                  size = \"1KB\"\nat = \"1ms\"\n";
    let dir = std::path::Path::new(".");
    let streamed = load_str(&star_run(6, poisson), "t.toml", dir, &[]).unwrap();
    let listed = load_str(
        &star_run(6, &format!("{poisson}{incast}")),
        "t.toml",
        dir,
        &[],
    )
    .unwrap();
    assert!(streamed.flows.is_empty(), "nothing listed");
    assert_eq!(streamed.streams.len(), 1);
    assert!(
        listed.streams.is_empty(),
        "a listed workload follows: the Poisson one is listed"
    );
    let n = streamed.flow_count();
    assert!(n > 50, "{n} flows");
    assert_eq!(
        listed.flows.len(),
        n + 1,
        "the Poisson flows and the incast's"
    );
    assert_eq!(all_flows(&streamed)[..], listed.flows[..n]);
    assert!(listed.flows[..n].iter().any(|f| f.dscp == 30));
}

/// Every workload is capped on its own, and all of them together are capped at
/// `MAX_FLOWS` before their list grows further: two incasts of 5.5 M flows each (under the cap
/// each) are refused at the second, with its key.
#[test]
fn workloads_together_are_capped_before_the_list_grows() {
    let wl = r#"
[[workload]]
kind = "incast"
senders = ["h1"]
receiver = "h0"
size = "1KB"
repeat = "1us"
count = 5500000
"#;
    let text = star_run(2, &format!("{wl}{wl}"));
    let e = load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap_err();
    assert!(
        e.iter().any(|x| x.key.starts_with("workload[1]")
            && x.message.contains("11000000 flows, more than 10000000")),
        "{e}"
    );
}
