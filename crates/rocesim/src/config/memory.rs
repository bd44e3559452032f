//! The memory a run will need, estimated before it starts and checked against
//! `sim.max_memory`, so that a scenario too large for the machine is an error naming the key
//! that makes it large instead of an out-of-memory abort in the middle of the run.
//!
//! The estimate adds what grows with the scenario: ports (each with its queues, MMU and PFC
//! state), hosts (NIC state), the routing table (switches × racks), flows (spec, record and
//! result row), and the samples the time series keep (one row per sample and flow or queue).
//! Per-item sizes are measured on this code (a leaf-spine with 160k ports peaks at about
//! 2.6 KB per port), rounded up.

use super::check::Ctx;
use super::scenario::Scenario;
use crate::topology::NodeRef;
use crate::traffic::FlowKind;
use crate::units::Bytes;

/// Bytes per port: channel, eight queues, MMU and PFC state, counters. Measured: about 7 KB
/// per port on the k = 32 fat-tree (docs/performance.md's scale sweep; 3 KB had estimated
/// half of its 0.35 GB).
const PORT_BYTES: f64 = 7_000.0;
/// Bytes per host beyond its port: NIC, connection tables.
const HOST_BYTES: f64 = 1_000.0;
/// Bytes per flow: its spec, its record, its result row. Measured (scripts/soak.sh, 734,028
/// flows): about 176 B per flow while the run goes and 690 B at the peak, when the result
/// rows and the Arrow tables they are written from exist together.
const FLOW_BYTES: f64 = 700.0;
/// Bytes per queue pair beyond a flow's first: its own spec, record and QP state (measured:
/// 32 long flows of 20,000 QPs each peak 534 MB above one QP each, 855 B per QP).
const QP_BYTES: f64 = 1_000.0;
/// Bytes per routing-table entry (switch × rack): the entry and its share of ECMP groups.
const ROUTE_BYTES: f64 = 8.0;
/// Bytes per sample row (time, id, value) kept until the results are written, with the CSV
/// row it becomes.
const SAMPLE_BYTES: f64 = 64.0;
/// Bytes per switch counter sample row: the 112-byte snapshot kept while running and the
/// result row with its node and peer names built at the end.
const COUNTER_ROW_BYTES: f64 = 320.0;
/// Priorities per port a counter sample reports (data and one control class, typically).
const COUNTER_PRIOS: f64 = 2.0;
/// Finite flows each host is assumed to have active at once, for the throughput samples.
const ACTIVE_PER_HOST: f64 = 4.0;

/// 80 % of the machine's physical memory (`MemTotal` of /proc/meminfo), or 16 GiB where it is
/// unknown: the default of `sim.max_memory`.
pub fn default_max_memory() -> Bytes {
    let total_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .unwrap_or(16 << 20);
    Bytes(total_kb * 1024 / 5 * 4)
}

/// One part of the estimate: the key that makes it large, what it is, and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The key a user changes to make this part smaller.
    pub key: &'static str,
    /// What the bytes hold.
    pub what: &'static str,
    /// Estimated bytes.
    pub bytes: f64,
}

/// The estimate of `sc`, part by part.
pub fn estimate(sc: &Scenario) -> Vec<Part> {
    let topo = &sc.topology;
    let ports = 2.0 * topo.links.len() as f64;
    let racks = topo
        .links
        .iter()
        .filter_map(|l| match (l.a, l.b) {
            (NodeRef::Host(_), NodeRef::Switch(s)) | (NodeRef::Switch(s), NodeRef::Host(_)) => {
                Some(s)
            }
            _ => None,
        })
        .collect::<std::collections::BTreeSet<u32>>()
        .len() as f64;
    let hosts = topo.hosts.len() as f64;
    let flows = sc.flow_count() as f64;
    // A flow of `qps = Q` becomes Q queue pairs, each with its own spec, record and state.
    // Streamed flows are Poisson RDMA writes of one QP and a size: none counts below.
    let extra_qps = (sc.flows.iter())
        .map(|f| f.mem().qps.max(1) as f64 - 1.0)
        .sum::<f64>();
    let probes = (sc.flows.iter())
        .filter(|f| matches!(f.kind, FlowKind::Probe(_)))
        .count() as f64;
    let long = sc.flows.iter().filter(|f| f.size.is_none()).count() as f64;
    let finite = flows - long - probes;
    let duration = sc.sim.duration.ps() as f64;
    let samples = |i: Option<crate::units::Time>| i.map_or(0.0, |i| duration / i.ps() as f64);
    let active = long + finite.min(hosts * ACTIVE_PER_HOST);
    let switch_ports = ports - hosts;
    // Throughput and CC-rate rows per sample and flow; queue rows per sample and queue in use.
    let tput = 2.0 * samples(sc.output.throughput_interval) * active;
    let queues = samples(sc.output.queue_sample_interval) * switch_ports * 2.0;
    let counters = samples(sc.output.counters_interval) * switch_ports * COUNTER_PRIOS;
    // Each part of a run split across threads (`sim.threads`) holds the whole world.
    let copies = f64::from(sc.sim.threads.max(1));
    let split = copies > 1.0;
    vec![
        Part {
            key: if split { "sim.threads" } else { "topology" },
            what: match split {
                true => "ports, hosts and routing tables, once per thread",
                false => "ports, hosts and routing tables",
            },
            bytes: copies
                * (ports * PORT_BYTES
                    + hosts * HOST_BYTES
                    + topo.switches.len() as f64 * racks * ROUTE_BYTES),
        },
        Part {
            key: if split { "sim.threads" } else { "workload" },
            what: if split {
                "flows, once per thread"
            } else {
                "flows"
            },
            bytes: copies * (flows * FLOW_BYTES + extra_qps * QP_BYTES),
        },
        Part {
            key: "output.throughput_interval",
            what: "throughput and rate samples",
            bytes: tput * SAMPLE_BYTES,
        },
        Part {
            key: "output.queue_sample_interval",
            what: "queue-depth samples",
            bytes: queues * SAMPLE_BYTES,
        },
        Part {
            key: "output.counters_interval",
            what: "switch counter samples",
            bytes: counters * COUNTER_ROW_BYTES,
        },
    ]
}

fn gb(b: f64) -> String {
    format!("{:.1} GB", b / 1e9)
}

/// Record an error on the largest part's key when the estimate of `sc` is above its
/// `sim.max_memory`.
pub fn check(ctx: &mut Ctx, sc: &Scenario) {
    let parts = estimate(sc);
    let total: f64 = parts.iter().map(|p| p.bytes).sum();
    let limit = sc.sim.max_memory.0 as f64;
    if total <= limit {
        return;
    }
    let Some(big) = parts.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)) else {
        return;
    };
    let list: Vec<String> = (parts.iter())
        .map(|p| format!("{} {}", p.what, gb(p.bytes)))
        .collect();
    let msg = format!(
        "this run would need about {} of memory ({}), more than sim.max_memory ({}); the \
         largest part is the {}: make it smaller here, or raise sim.max_memory",
        gb(total),
        list.join(", "),
        gb(limit),
        big.what,
    );
    ctx.err(big.key, msg);
}
