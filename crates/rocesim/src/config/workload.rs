//! `[[workload]]`: generated traffic. Each kind is its own declared table; its values are
//! checked and its hosts resolved here, and [`crate::traffic::workload`] expands it.

use toml::Value;

use super::check::{at, Ctx};
use super::declare::{KeyDoc, Table, V};
use super::flows::{memory, with_memory, AccessV, Env, FlowKindV, Qps, Region};
use super::leaf::{choice, Dscp, FlowSize, Int, Num, Pos32, Size, Str, TimeV};
use super::lists::{kinds_schema, Items, PodPair, Selector};
use super::suggest;
use super::tcp::TcpCcV;
use crate::table;
use crate::traffic::cdf::{Cdf, Sampling};
use crate::traffic::flow::FlowMem;
use crate::traffic::generators;
use crate::traffic::stream::StreamStyle;
use crate::traffic::workload::{self as wl, Workload};
use crate::traffic::FlowSpec;
use crate::units::{Bytes, Time};

choice!(/// The workload kind.
    KindV ["trace", "poisson", "incast", "permutation", "all_to_all", "tor_to_tor", "storage_read",
        "pingmesh"] later []);
choice!(/// How sizes are drawn from CDF points.
    SamplingV -> Sampling { "interpolated" => Sampling::Interpolated, "step" => Sampling::Step });
choice!(/// The Poisson arrival generator (→ whether it is HPCC's).
    GeneratorV -> bool { "rocesim" => false, "hpcc" => true });

/// A seed of a workload's random stream.
pub(super) type Seed = Int<0, { i64::MAX }>;

table! {
    /// `kind = "trace"`: flows from a CSV file (`start_ns,src,dst,size_bytes[,dscp]`).
    pub struct Trace {
        /// `"trace"`. Required.
        kind: KindV,
        /// The CSV path, relative to the scenario file's directory. Required.
        file: Str,
        /// Registered memory region of each flow (see `[[flow]]`). Default: the flow's size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per flow (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

table! {
    /// `kind = "poisson"`: Poisson flow arrivals at a target load on every selected host.
    pub struct Poisson {
        /// `"poisson"`. Required.
        kind: KindV,
        /// Flow-size distribution: a built-in name or a CDF file path. Required.
        cdf: Str,
        /// Overrides how sizes are drawn from the CDF points. Default: the source's.
        sampling: SamplingV,
        /// Offered load, a fraction of each host's link rate, in (0, 1]. Required.
        load: Num,
        /// Senders and receivers (at least two). Default: `"all"`.
        hosts: Selector,
        /// Arrivals are generated in [0, `until`), and never past `sim.duration` (a flow
        /// that would start after the run ends is not generated: it could not run). Default:
        /// `sim.duration`.
        until: TimeV,
        /// `rocesim`: one stream per host; `hpcc`: the exact SplitMix64 generator of
        /// BENCHMARKS.md. Default: `"rocesim"`.
        generator: GeneratorV,
        /// Master seed of the workload's random stream. Default: `sim.seed`.
        seed: Seed,
        /// DSCP of the generated flows. Default: `nic.dscp` of the sender; `0` for TCP.
        dscp: Dscp,
        /// DSCP of the flows smaller than `small_flow_size` (small-flow prioritisation: map
        /// it to a higher lossless class). Default: none (they use `dscp`).
        small_flow_dscp: Dscp,
        /// Flows below this size use `small_flow_dscp`. Default: `"100KB"`.
        small_flow_size: Size,
        /// What the generated flows are, as a flow's `kind` (`"tcp"`: TCP connections).
        /// Default: `"rdma_write"`.
        flow_kind: FlowKindV,
        /// TCP flows only: their window algorithm. Default: `tcp.cc`.
        cc: TcpCcV,
        /// Registered memory region of each flow (see `[[flow]]`). Default: the flow's size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per flow (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

table! {
    /// `kind = "incast"`: every sender writes `size` to the receiver at the same instant,
    /// once or in rounds.
    pub struct Incast {
        /// `"incast"`. Required.
        kind: KindV,
        /// The senders; the receiver is left out if selected. Required.
        senders: Selector,
        /// The receiver. Required.
        receiver: Str,
        /// Bytes per sender per round. Required.
        size: FlowSize,
        /// Start of the first round. Default: `"0us"`.
        at: TimeV,
        /// Period between rounds; above zero. Default: none.
        repeat: TimeV,
        /// Number of rounds; more than one needs `repeat`. Default: 1, or every round before
        /// `until` when `repeat` is given.
        count: Pos32,
        /// With `repeat` and no `count`: rounds start before this time.
        /// Default: `sim.duration`.
        until: TimeV,
        /// DSCP of the generated flows. Default: `nic.dscp` of the sender; `0` for TCP.
        dscp: Dscp,
        /// DSCP of the flows smaller than `small_flow_size` (small-flow prioritisation: map
        /// it to a higher lossless class). Default: none (they use `dscp`).
        small_flow_dscp: Dscp,
        /// Flows below this size use `small_flow_dscp`. Default: `"100KB"`.
        small_flow_size: Size,
        /// What the generated flows are, as a flow's `kind` (`"tcp"`: TCP connections).
        /// Default: `"rdma_write"`.
        flow_kind: FlowKindV,
        /// TCP flows only: their window algorithm. Default: `tcp.cc`.
        cc: TcpCcV,
        /// Registered memory region of each flow (see `[[flow]]`). Default: the flow's size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per flow (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

table! {
    /// `kind = "permutation"` (each host sends one flow to a distinct other host, a random
    /// derangement) or `"all_to_all"` (every ordered pair; no `seed`).
    pub struct Pairs {
        /// `"permutation"` or `"all_to_all"`. Required.
        kind: KindV,
        /// The hosts (at least two). Default: `"all"`.
        hosts: Selector,
        /// Bytes per flow. Default: `"inf"`.
        size: FlowSize,
        /// When the flows start. Default: `"0us"`.
        at: TimeV,
        /// `permutation` only: master seed of the random stream. Default: `sim.seed`.
        seed: Seed,
        /// DSCP of the generated flows. Default: `nic.dscp` of the sender; `0` for TCP.
        dscp: Dscp,
        /// DSCP of the flows smaller than `small_flow_size` (small-flow prioritisation: map
        /// it to a higher lossless class). Default: none (they use `dscp`).
        small_flow_dscp: Dscp,
        /// Flows below this size use `small_flow_dscp`. Default: `"100KB"`.
        small_flow_size: Size,
        /// What the generated flows are, as a flow's `kind` (`"tcp"`: TCP connections).
        /// Default: `"rdma_write"`.
        flow_kind: FlowKindV,
        /// TCP flows only: their window algorithm. Default: `tcp.cc`.
        cc: TcpCcV,
        /// Registered memory region of each flow (see `[[flow]]`). Default: the flow's size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per flow (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

table! {
    /// `kind = "tor_to_tor"`: Guo et al. 2016 §5.4; ToR i of one pod paired with ToR i of
    /// the other, server j with server j, `connections` per pair and direction.
    pub struct TorToTor {
        /// `"tor_to_tor"`. Required.
        kind: KindV,
        /// The two pods; they need the same number of ToRs. Default: `[0, 1]`.
        pods: PodPair,
        /// How many servers of each ToR take part (the first ones). Default: all.
        servers_per_tor: Pos32,
        /// Connections per server pair and direction. Default: `8`.
        connections: Pos32,
        /// Bytes per connection. Default: `"inf"`.
        size: FlowSize,
        /// When the flows start. Default: `"0us"`.
        at: TimeV,
        /// Master seed of the random stream (source ports). Default: `sim.seed`.
        seed: Seed,
        /// DSCP of the generated flows. Default: `nic.dscp` of the sender; `0` for TCP.
        dscp: Dscp,
        /// DSCP of the flows smaller than `small_flow_size` (small-flow prioritisation: map
        /// it to a higher lossless class). Default: none (they use `dscp`).
        small_flow_dscp: Dscp,
        /// Flows below this size use `small_flow_dscp`. Default: `"100KB"`.
        small_flow_size: Size,
        /// What the generated flows are, as a flow's `kind` (`"tcp"`: TCP connections).
        /// Default: `"rdma_write"`.
        flow_kind: FlowKindV,
        /// TCP flows only: their window algorithm. Default: `tcp.cc`.
        cc: TcpCcV,
        /// Registered memory region of each flow (see `[[flow]]`). Default: the flow's size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per flow (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

table! {
    /// `kind = "storage_read"`: a client reads I/Os (RDMA READs) from targets, `queue_depth`
    /// outstanding per target, closed loop.
    pub struct StorageRead {
        /// `"storage_read"`. Required.
        kind: KindV,
        /// The reader. Required.
        client: Str,
        /// The storage targets; the client is left out if selected. Required.
        targets: Selector,
        /// Bytes per I/O; above zero. Default: `"16KiB"`.
        io_size: Size,
        /// I/Os outstanding per target. Default: `1`.
        queue_depth: Pos32,
        /// I/Os per target. Required.
        count: Pos32,
        /// When the first I/Os start. Default: `"0us"`.
        at: TimeV,
        /// DSCP of the generated flows. Default: `nic.dscp` of the sender.
        dscp: Dscp,
        /// DSCP of the flows smaller than `small_flow_size` (small-flow prioritisation: map
        /// it to a higher lossless class). Default: none (they use `dscp`).
        small_flow_dscp: Dscp,
        /// Flows below this size use `small_flow_dscp`. Default: `"100KB"`.
        small_flow_size: Size,
        /// Registered memory region of each I/O at the client, which translates the
        /// addresses of its READs (see `[[flow]]`). Default: the I/O size.
        region: Region,
        /// `"sequential"` or `"random"` (see `[[flow]]`). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs per I/O (see `[[flow]]`). Default: `1`.
        qps: Qps,
    }
}

/// The key tables of the workload kinds, for the docs.
pub const KINDS: &[(&str, &[KeyDoc])] = &[
    ("workload.trace", Trace::KEYS),
    ("workload.poisson", Poisson::KEYS),
    ("workload.incast", Incast::KEYS),
    ("workload.permutation", Pairs::KEYS),
    ("workload.tor_to_tor", TorToTor::KEYS),
    ("workload.storage_read", StorageRead::KEYS),
    ("workload.pingmesh", super::pingmesh::PingmeshT::KEYS),
];

/// Elements of `[[workload]]`.
pub struct WorkloadItems;
impl Items for WorkloadItems {
    fn schema() -> serde_json::Value {
        kinds_schema(KINDS)
    }
}

/// The hosts a selector at `f` picks (`default` when absent; required when `None`).
pub(super) fn select(
    ctx: &mut Ctx,
    env: &Env<'_>,
    f: &V<Selector>,
    default: Option<&str>,
) -> Option<Vec<u32>> {
    let sels = match default {
        Some(d) => ctx.or(f, vec![d.to_string()])?,
        None => ctx.req(
            f,
            "a host selector: \"all\", \"h3\", \"tor2/*\", \"pod1/*\" or a list of them",
        )?,
    };
    match crate::topology::select_many(env.topology?, &sels) {
        Ok(h) => Some(h),
        Err(e) => {
            ctx.err(&f.key, e);
            None
        }
    }
}

/// `cdf` (a built-in name or a file relative to the scenario) with its `sampling` override.
fn cdf(ctx: &mut Ctx, env: &Env<'_>, t: &Poisson) -> Option<Cdf> {
    let sampling = ctx.get(&t.sampling);
    let name = ctx.req(&t.cdf, "a built-in distribution name or a CDF file path")?;
    let cdf = match Cdf::builtin(&name) {
        Some(c) => c,
        None => {
            let path = env.base_dir.join(&name);
            if !name.contains(['/', '\\', '.']) && !path.exists() {
                let hint = suggest::hint(&name, Cdf::BUILTINS.iter().copied());
                let list = Cdf::BUILTINS.join(", ");
                let msg = format!(
                    "unknown distribution `{name}`{hint} (built-ins: {list}; or a CDF file path)"
                );
                ctx.err(&t.cdf.key, msg);
                return None;
            }
            match crate::traffic::cdf_file::read_cdf(&path) {
                Ok(f) => f.cdf,
                Err(e) => {
                    ctx.err(&t.cdf.key, e);
                    return None;
                }
            }
        }
    };
    Some(match sampling {
        Some(s) => cdf.with_sampling(s),
        None => cdf,
    })
}

fn poisson(ctx: &mut Ctx, env: &Env<'_>, t: &Poisson) -> Option<Workload> {
    let cdf = cdf(ctx, env, t);
    let load = ctx.req(&t.load, "a load in (0, 1]").filter(|&x| {
        let ok = x > 0.0 && x <= 1.0;
        if !ok {
            ctx.err(&t.load.key, format!("load must be in (0, 1], found {x}"));
        }
        ok
    });
    // Flows that start after the run ends never run: a long `until` with a short
    // `sim.duration` (a sweep's shortened run) must not build millions of them.
    let until = if t.until.given() {
        ctx.get(&t.until)
            .map(|u| env.duration.map_or(u, |d| u.min(d)))
    } else {
        env.duration
    };
    let hpcc = ctx.or(&t.generator, false);
    let seed = ctx.or(&t.seed, env.seed as i64);
    let hosts = select(ctx, env, &t.hosts, Some("all"));
    let (cdf, load, until, hpcc, seed, hosts) = (cdf?, load?, until?, hpcc?, seed? as u64, hosts?);
    Some(Workload::Poisson {
        cdf,
        load,
        hosts,
        until,
        hpcc,
        seed,
    })
}

fn incast(ctx: &mut Ctx, env: &Env<'_>, t: &Incast) -> Option<Workload> {
    let senders = select(ctx, env, &t.senders, None);
    let receiver = env.host(ctx, &t.receiver);
    let size = ctx.req(&t.size, "\"inf\" or a size like \"1MB\"");
    let at = ctx.or(&t.at, Time::ZERO);
    let repeat = ctx.get(&t.repeat).filter(|r| {
        if *r == Time::ZERO {
            ctx.err(&t.repeat.key, "the period must be positive");
        }
        *r > Time::ZERO
    });
    let (count, until) = (ctx.get(&t.count), ctx.get(&t.until));
    let ok = [
        t.repeat.given() == repeat.is_some(),
        t.count.given() == count.is_some(),
    ];
    if !ok.iter().all(|x| *x) || t.until.given() != until.is_some() {
        return None;
    }
    let count = count.map(|c| c as u64);
    let (senders, receiver, size, at) = (senders?, receiver?, size?, at?);
    Some(Workload::Incast {
        senders,
        receiver,
        size,
        at,
        repeat,
        count,
        until,
    })
}

fn pairs(ctx: &mut Ctx, env: &Env<'_>, t: &Pairs, kind: &str) -> Option<Workload> {
    if kind == "all_to_all" && t.seed.given() {
        ctx.unknown_key(&t.seed.key);
    }
    let hosts = select(ctx, env, &t.hosts, Some("all"));
    let (size, at) = (ctx.or(&t.size, None), ctx.or(&t.at, Time::ZERO));
    let seed = ctx.or(&t.seed, env.seed as i64);
    let seed = (kind == "permutation").then_some(seed? as u64);
    Some(Workload::Pairs {
        hosts: hosts?,
        size: size?,
        at: at?,
        seed,
    })
}

fn tor_to_tor(ctx: &mut Ctx, t: &TorToTor, env: &Env<'_>) -> Option<Workload> {
    let pods = ctx.or(&t.pods, (0, 1));
    let servers = ctx.get(&t.servers_per_tor);
    let connections = ctx.or(&t.connections, 8);
    let (size, at) = (ctx.or(&t.size, None), ctx.or(&t.at, Time::ZERO));
    let seed = ctx.or(&t.seed, env.seed as i64);
    if t.servers_per_tor.given() && servers.is_none() {
        return None;
    }
    let params = generators::TorToTor {
        pods: pods?,
        servers_per_tor: servers.map(|s| s as u32),
        connections: connections? as u32,
        size: size?,
        at: at?,
    };
    Some(Workload::TorToTor {
        params,
        seed: seed? as u64,
    })
}

fn storage_read(ctx: &mut Ctx, env: &Env<'_>, t: &StorageRead) -> Option<Workload> {
    let client = env.host(ctx, &t.client);
    let targets = select(ctx, env, &t.targets, None);
    let io_size = match ctx.or(&t.io_size, crate::units::Bytes(16 * 1024)) {
        Some(b) if b.0 == 0 => {
            ctx.err(&t.io_size.key, "an I/O size must be positive");
            None
        }
        b => b.map(|b| b.0),
    };
    let queue_depth = ctx.or(&t.queue_depth, 1).map(|x| x as u32);
    let count = ctx.req(&t.count, "a positive integer").map(|x| x as u32);
    let at = ctx.or(&t.at, Time::ZERO);
    let (client, targets, io_size, queue_depth, count) =
        (client?, targets?, io_size?, queue_depth?, count?);
    Some(Workload::StorageRead {
        client,
        targets,
        io_size,
        queue_depth,
        count,
        at: at?,
    })
}

/// The flows of a trace file.
fn trace(ctx: &mut Ctx, env: &Env<'_>, t: &Trace) -> Option<Vec<FlowSpec>> {
    let file = ctx.req(&t.file, "a CSV file path")?;
    let path = env.base_dir.join(&file);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            ctx.err(
                &t.file.key,
                format!("cannot read trace `{}`: {e}", path.display()),
            );
            return None;
        }
    };
    let host = |n: &str| env.hosts.as_ref().map(|h| h.id(n));
    match crate::traffic::trace::parse(&text, &file, &host, &|h| env.dscp_of(h)) {
        Ok(f) => Some(f),
        Err(es) => {
            es.into_iter().for_each(|e| ctx.err(&t.file.key, e));
            None
        }
    }
}

/// Give DSCP `dscp` to every flow smaller than `limit` (small-flow prioritisation, which
/// Congdon et al. 2017 use in both arms of their comparison).
fn small_flows_dscp(flows: &mut [FlowSpec], limit: Bytes, dscp: u8) {
    for f in flows.iter_mut() {
        if f.size.is_some_and(|s| s < limit.0) {
            f.dscp = dscp;
        }
    }
}

/// A workload's flows: listed, or (a generic Poisson workload without memory keys) an arrival
/// process and the fields every flow takes, from which `flows::parse` makes a stream
/// (`traffic::stream`) or the same list.
pub enum Generated {
    /// Every flow, in the workload's order.
    Listed(Vec<FlowSpec>),
    /// Flows made on demand.
    Stream(crate::traffic::generators::PoissonArrivals, StreamStyle),
}

/// A stream of `arrivals` dressed by `style`, or the error (with its key) that `arrivals`
/// carries.
fn stream(
    ctx: &mut Ctx,
    p: &str,
    arrivals: Result<generators::PoissonArrivals, wl::WlError>,
    style: StreamStyle,
) -> Option<Generated> {
    match arrivals {
        Ok(a) => Some(Generated::Stream(a, style)),
        Err((key, msg)) => {
            ctx.err(at(p, key), msg);
            None
        }
    }
}

/// The flows of the workload table `t` at `p` (index `index`); `None` after errors.
pub fn flows(
    ctx: &mut Ctx,
    env: &Env<'_>,
    t: &toml::Table,
    p: &str,
    index: usize,
) -> Option<Generated> {
    let kind = V::<KindV>::of(t.get("kind"), p, "kind");
    let what = "one of trace, poisson, incast, permutation, all_to_all, tor_to_tor, \
                storage_read, pingmesh";
    let kind = ctx.req(&kind, what)?;
    let v = Value::Table(t.clone());
    let w = match kind {
        "trace" => {
            let f = ctx.with(&v, p, |c, t| trace(c, env, t));
            let mem = memory(ctx, t, p);
            return with_memory(ctx, p, f?, mem?).map(Generated::Listed);
        }
        "poisson" => ctx.with(&v, p, |c, t| poisson(c, env, t)),
        "incast" => ctx.with(&v, p, |c, t| incast(c, env, t)),
        "permutation" | "all_to_all" => ctx.with(&v, p, |c, t| pairs(c, env, t, kind)),
        "tor_to_tor" => ctx.with(&v, p, |c, t| tor_to_tor(c, t, env)),
        "pingmesh" => ctx.with(&v, p, |c, t| super::pingmesh::pingmesh(c, env, t)),
        _ => ctx.with(&v, p, |c, t| storage_read(c, env, t)),
    };
    let flow_kind = ctx.get(&V::<FlowKindV>::of(t.get("flow_kind"), p, "flow_kind"));
    let cc = ctx.get(&V::<TcpCcV>::of(t.get("cc"), p, "cc"));
    let flow_kind = env.kind_with_cc(
        ctx,
        flow_kind.unwrap_or(crate::traffic::FlowKind::RdmaWrite),
        cc,
        &at(p, "cc"),
    );
    let tcp = matches!(flow_kind, Some(crate::traffic::FlowKind::Tcp(_)));
    let dscp_given = V::<Dscp>::of(t.get("dscp"), p, "dscp");
    let given = ctx.get(&dscp_given);
    let dscp = move |src: u32| given.unwrap_or_else(|| if tcp { 0 } else { env.dscp_of(src) });
    let e = wl::Env {
        topo: env.topology?,
        index: index as u64,
        dscp: &dscp,
        duration: env.duration,
    };
    let small_dscp = V::<Dscp>::of(t.get("small_flow_dscp"), p, "small_flow_dscp");
    let small_size = V::<Size>::of(t.get("small_flow_size"), p, "small_flow_size");
    let small = ctx.get(&small_dscp);
    let limit = ctx.or(&small_size, Bytes(100_000))?;
    let mem = memory(ctx, t, p);
    let w = w?;
    if mem.as_ref() == Some(&FlowMem::default()) {
        if let Some(a) = wl::poisson_arrivals(&w, &e) {
            let kind = t.contains_key("flow_kind").then_some(flow_kind?);
            let style = StreamStyle {
                dscp_by_host: (0..e.topo.hosts.len() as u32).map(&dscp).collect(),
                kind: kind.unwrap_or(crate::traffic::FlowKind::RdmaWrite),
                small: small.map(|d| (limit.0, d)),
                sport_seed: env.seed,
            };
            return stream(ctx, p, a, style);
        }
    }
    match wl::expand(&w, &e) {
        Ok(mut f) => {
            let kind = flow_kind?;
            if t.contains_key("flow_kind") {
                f.iter_mut().for_each(|x| x.kind = kind);
            }
            if let Some(d) = small {
                small_flows_dscp(&mut f, limit, d);
            }
            with_memory(ctx, p, f, mem?).map(Generated::Listed)
        }
        Err((key, msg)) => {
            if !msg.is_empty() {
                ctx.err(at(p, key), msg);
            }
            None
        }
    }
}
