//! `[[flow]]` (explicit flows) and `[[workload]]` (generated traffic: `trace`, `poisson`,
//! `incast`, `permutation`, `all_to_all`, `tor_to_tor`, `storage_read`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use toml::{Table, Value};

use super::check::{at, idx, Ctx};
use super::suggest;
use crate::nic::params::NicParams;
use crate::topology::Topology;
use crate::traffic::cdf::Cdf;
use crate::traffic::generators;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;

/// Workload kinds of SCENARIO.md; all but `pingmesh` (the last) are supported.
pub const WORKLOAD_KINDS: &[&str] = &[
    "trace",
    "poisson",
    "incast",
    "permutation",
    "all_to_all",
    "tor_to_tor",
    "storage_read",
    "pingmesh",
];

/// At most this many errors are listed per trace file.
pub const MAX_TRACE_ERRORS: usize = 20;

/// The UDP source port of the flow at `index` when the scenario gives none: a deterministic
/// function of the seed and the index, in 49152..=65535 (the dynamic port range).
pub fn default_sport(seed: u64, index: usize) -> u16 {
    // SplitMix64 finalizer over seed and index.
    let mut z = seed
        ^ (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    49152 + (z % 16384) as u16
}

/// Host names → ids, with suggestions for unknown names.
pub struct Hosts<'t> {
    topo: &'t Topology,
    ids: HashMap<&'t str, u32>,
}

impl<'t> Hosts<'t> {
    /// Index the hosts of `topo`.
    pub fn new(topo: &'t Topology) -> Self {
        let ids = topo
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| (h.name.as_str(), i as u32))
            .collect();
        Hosts { topo, ids }
    }
    /// The id of host `name`, or why not.
    pub fn id(&self, name: &str) -> Result<u32, String> {
        if let Some(&i) = self.ids.get(name) {
            return Ok(i);
        }
        if self.topo.switches.iter().any(|s| s.name == name) {
            return Err(format!("`{name}` is a switch, not a host"));
        }
        let hint = suggest::hint(name, self.topo.hosts.iter().map(|h| h.name.as_str()));
        Err(format!("unknown host `{name}`{hint}"))
    }
}

/// What flows need from the rest of the scenario.
pub struct Env<'a> {
    /// Host lookup, when the topology is known.
    pub hosts: Option<Hosts<'a>>,
    /// Per-host NICs (for the default DSCP), when known.
    pub nics: Option<&'a [NicParams]>,
    /// Directory of the scenario file, for relative trace paths.
    pub base_dir: &'a Path,
    /// The built topology, when known (selectors, host link rates).
    pub topology: Option<&'a Topology>,
    /// `sim.duration`, when valid (the default end of generated arrivals).
    pub duration: Option<Time>,
}

impl Env<'_> {
    fn host(&self, ctx: &mut Ctx, name: &str, key: &str) -> Option<u32> {
        let hosts = self.hosts.as_ref()?;
        match hosts.id(name) {
            Ok(i) => Some(i),
            Err(e) => {
                ctx.err(key, e);
                None
            }
        }
    }
    fn dscp_of(&self, host: u32) -> u8 {
        self.nics
            .and_then(|n| n.get(host as usize))
            .map_or(NicParams::default().dscp, |n| n.dscp)
    }
}

fn tables<'v>(ctx: &mut Ctx, root: &'v Table, key: &str) -> Vec<(usize, &'v Table)> {
    let mut out = Vec::new();
    match root.get(key) {
        None => {}
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                if let Some(t) = ctx.table(v, &idx(key, i)) {
                    out.push((i, t));
                }
            }
        }
        Some(v) => ctx.expected(key, &format!("an array of tables ([[{key}]])"), v),
    }
    out
}

/// A flow size: `"inf"` (→ `Some(None)`), a size string, or integer bytes; never zero.
fn flow_size(c: &mut Ctx, v: &Value, k: &str) -> Option<Option<u64>> {
    match v {
        Value::String(s) if s == "inf" => Some(None),
        _ => match c.size(v, k)? {
            b if b.0 == 0 => {
                c.err(k, "a flow size must be positive (or \"inf\")");
                None
            }
            b => Some(Some(b.0)),
        },
    }
}

fn flow_kind(c: &mut Ctx, v: &Value, k: &str) -> Option<FlowKind> {
    c.supported(v, k, &["rdma_write", "rdma_read", "rdma_send"], &["tcp"])
        .map(|s| match s {
            "rdma_read" => FlowKind::RdmaRead,
            "rdma_send" => FlowKind::RdmaSend,
            _ => FlowKind::RdmaWrite,
        })
}

fn explicit_flow(ctx: &mut Ctx, env: &Env<'_>, t: &Table, p: &str) -> Option<(FlowSpec, bool)> {
    let before = ctx.count();
    ctx.keys(
        t,
        p,
        &[
            "name", "src", "dst", "size", "start", "dscp", "kind", "rate", "sport",
        ],
    );
    let name = ctx.opt(t, p, "name", Ctx::string);
    let src = ctx.req(t, p, "src", "a host name", Ctx::string);
    let dst = ctx.req(t, p, "dst", "a host name", Ctx::string);
    let size = ctx.req(t, p, "size", "\"inf\" or a size like \"1MB\"", flow_size);
    let start = ctx.or(t, p, "start", Time::ZERO, Ctx::time);
    let dscp = ctx.opt(t, p, "dscp", Ctx::dscp);
    let kind = ctx.or(t, p, "kind", FlowKind::RdmaWrite, flow_kind);
    let rate_limit = ctx.opt(t, p, "rate", Ctx::rate);
    let sport = ctx.opt(t, p, "sport", |c, v, k| {
        c.uint(v, k, 0, 65535).map(|x| x as u16)
    });
    if let (Some(s), Some(d)) = (&src, &dst) {
        if s == d {
            ctx.err(
                at(p, "dst"),
                format!("a flow cannot go from `{s}` to itself"),
            );
        }
    }
    let src_id = src.as_deref().and_then(|s| env.host(ctx, s, &at(p, "src")));
    let dst_id = dst.as_deref().and_then(|s| env.host(ctx, s, &at(p, "dst")));
    if ctx.count() != before {
        return None;
    }
    let (src, dst) = (src_id?, dst_id?);
    Some((
        FlowSpec {
            name,
            src,
            dst,
            size: size?,
            start: start?,
            dscp: dscp.unwrap_or_else(|| env.dscp_of(src)),
            kind: kind?,
            rate_limit,
            sport: sport.unwrap_or(0),
            after: None,
        },
        sport.is_some(),
    ))
}

/// Flows of a trace file: CSV with header `start_ns,src,dst,size_bytes[,dscp]`.
fn trace(ctx: &mut Ctx, env: &Env<'_>, file: &str, key: &str) -> Option<Vec<FlowSpec>> {
    let path = env.base_dir.join(file);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            ctx.err(key, format!("cannot read trace `{}`: {e}", path.display()));
            return None;
        }
    };
    let mut errors: Vec<String> = Vec::new();
    let mut flows = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let with_dscp = match lines.next() {
        None => {
            ctx.err(
                key,
                format!("{file} is empty (expected the header start_ns,src,dst,size_bytes[,dscp])"),
            );
            return None;
        }
        Some((n, h)) => {
            let cols: Vec<&str> = h
                .split(',')
                .map(|c| c.trim().trim_start_matches('\u{feff}'))
                .collect();
            match cols.as_slice() {
                ["start_ns", "src", "dst", "size_bytes"] => false,
                ["start_ns", "src", "dst", "size_bytes", "dscp"] => true,
                _ => {
                    let found: String = h.chars().take(80).collect();
                    ctx.err(
                        key,
                        format!(
                            "{file} line {}: expected the header `start_ns,src,dst,size_bytes` or \
                             `start_ns,src,dst,size_bytes,dscp`, found `{found}`",
                            n + 1
                        ),
                    );
                    return None;
                }
            }
        }
    };
    let ncols = if with_dscp { 5 } else { 4 };
    for (n, line) in lines {
        let ln = n + 1;
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() != ncols {
            errors.push(format!(
                "{file} line {ln}: expected {ncols} columns, found {}",
                cols.len()
            ));
            continue;
        }
        let mut row_errs = Vec::new();
        let start = match cols[0]
            .parse::<u64>()
            .ok()
            .and_then(|ns| ns.checked_mul(1000))
        {
            Some(ps) => Some(Time(ps)),
            None => {
                row_errs.push(format!(
                    "start_ns `{}` is not a time in nanoseconds",
                    cols[0]
                ));
                None
            }
        };
        let host = |name: &str, col: &str, errs: &mut Vec<String>| match &env.hosts {
            None => None,
            Some(h) => match h.id(name) {
                Ok(i) => Some(i),
                Err(e) => {
                    errs.push(format!("{col}: {e}"));
                    None
                }
            },
        };
        let src = host(cols[1], "src", &mut row_errs);
        let dst = host(cols[2], "dst", &mut row_errs);
        if cols[1] == cols[2] {
            row_errs.push(format!("a flow cannot go from `{}` to itself", cols[1]));
        }
        let size = match cols[3].parse::<u64>() {
            Ok(s) if s > 0 => Some(s),
            _ => {
                row_errs.push(format!(
                    "size_bytes `{}` is not a positive integer",
                    cols[3]
                ));
                None
            }
        };
        let dscp = if with_dscp {
            match cols[4].parse::<u8>() {
                Ok(d) if d <= 63 => Some(Some(d)),
                _ => {
                    row_errs.push(format!("dscp `{}` is not in 0..=63", cols[4]));
                    None
                }
            }
        } else {
            Some(None)
        };
        if !row_errs.is_empty() {
            errors.extend(
                row_errs
                    .into_iter()
                    .map(|e| format!("{file} line {ln}: {e}")),
            );
            continue;
        }
        if let (Some(start), Some(src), Some(dst), Some(size), Some(dscp)) =
            (start, src, dst, size, dscp)
        {
            flows.push(FlowSpec {
                name: None,
                src,
                dst,
                size: Some(size),
                start,
                dscp: dscp.unwrap_or_else(|| env.dscp_of(src)),
                kind: FlowKind::RdmaWrite,
                rate_limit: None,
                sport: 0,
                after: None,
            });
        }
    }
    let total = errors.len();
    for e in errors.into_iter().take(MAX_TRACE_ERRORS) {
        ctx.err(key, e);
    }
    if total > MAX_TRACE_ERRORS {
        ctx.err(
            key,
            format!("{file}: {} more errors not shown", total - MAX_TRACE_ERRORS),
        );
    }
    (total == 0).then_some(flows)
}

/// Upper bound on the flows one workload may generate (a guard against a mistyped period or
/// load that would exhaust memory).
pub const MAX_GENERATED_FLOWS: u64 = 10_000_000;

/// Keys of each workload kind (besides `kind`).
fn workload_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "trace" => &["kind", "file"],
        "poisson" => &[
            "kind",
            "cdf",
            "sampling",
            "load",
            "hosts",
            "until",
            "generator",
            "seed",
            "dscp",
        ],
        "incast" => &[
            "kind", "senders", "receiver", "size", "at", "repeat", "count", "until", "dscp",
        ],
        "permutation" => &["kind", "hosts", "size", "at", "seed", "dscp"],
        "all_to_all" => &["kind", "hosts", "size", "at", "dscp"],
        "tor_to_tor" => &[
            "kind",
            "pods",
            "servers_per_tor",
            "connections",
            "size",
            "at",
            "seed",
            "dscp",
        ],
        "storage_read" => &[
            "kind",
            "client",
            "targets",
            "io_size",
            "queue_depth",
            "count",
            "at",
            "dscp",
        ],
        _ => &["kind"],
    }
}

/// What every generated workload shares: its table, path, index and the scenario around it.
struct Wl<'e, 'a> {
    env: &'e Env<'a>,
    t: &'e Table,
    p: String,
    /// The workload's index in `[[workload]]` (its random stream id).
    index: u64,
    /// `sim.seed`, the default of `seed`.
    sim_seed: u64,
}

impl Wl<'_, '_> {
    fn key(&self, k: &str) -> String {
        at(&self.p, k)
    }

    /// A host selector (a string or a list of strings) at `key`; `default` when absent.
    fn selector(&self, ctx: &mut Ctx, key: &str, default: Option<&str>) -> Option<Vec<u32>> {
        let sels: Vec<String> = match self.t.get(key) {
            None => match default {
                Some(d) => vec![d.to_string()],
                None => {
                    ctx.err(
                        self.key(key),
                        format!(
                            "missing required key `{key}` (a host selector: \"all\", \"h3\", \
                             \"tor2/*\", \"pod1/*\" or a list of them)"
                        ),
                    );
                    return None;
                }
            },
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => {
                let mut out = Vec::new();
                for (i, v) in a.iter().enumerate() {
                    out.push(ctx.string(v, &idx(&self.key(key), i))?);
                }
                out
            }
            Some(v) => {
                ctx.expected(&self.key(key), "a host selector or a list of them", v);
                return None;
            }
        };
        let topo = self.env.topology?;
        match crate::topology::select_many(topo, &sels) {
            Ok(h) => Some(h),
            Err(e) => {
                ctx.err(self.key(key), e);
                None
            }
        }
    }

    /// A required host name at `key`.
    fn host(&self, ctx: &mut Ctx, key: &str) -> Option<u32> {
        let name = ctx.req(self.t, &self.p, key, "a host name", Ctx::string)?;
        self.env.host(ctx, &name, &self.key(key))
    }

    /// `seed`, default `sim.seed`.
    fn seed(&self, ctx: &mut Ctx) -> Option<u64> {
        ctx.or(self.t, &self.p, "seed", self.sim_seed, |c, v, k| {
            c.uint(v, k, 0, u64::MAX >> 1)
        })
    }

    /// `at`, default 0.
    fn at(&self, ctx: &mut Ctx) -> Option<Time> {
        ctx.or(self.t, &self.p, "at", Time::ZERO, Ctx::time)
    }

    /// `size` ("inf" or a size), default `default` when given.
    fn size(&self, ctx: &mut Ctx, default: Option<Option<u64>>) -> Option<Option<u64>> {
        match default {
            Some(d) => ctx.or(self.t, &self.p, "size", d, flow_size),
            None => ctx.req(
                self.t,
                &self.p,
                "size",
                "\"inf\" or a size like \"1MB\"",
                flow_size,
            ),
        }
    }

    /// A positive integer at `key`.
    fn count(&self, ctx: &mut Ctx, key: &str, default: Option<u64>) -> Option<u64> {
        let read = |c: &mut Ctx, v: &Value, k: &str| c.uint(v, k, 1, u32::MAX as u64);
        match default {
            Some(d) => ctx.or(self.t, &self.p, key, d, read),
            None => ctx.req(self.t, &self.p, key, "a positive integer", read),
        }
    }

    /// The DSCP of a flow from `src`: the `dscp` key, else the sender's `nic.dscp`.
    fn dscp(&self, ctx: &mut Ctx) -> Option<impl Fn(u32) -> u8 + '_> {
        let given = match self.t.get("dscp") {
            None => None,
            Some(v) => Some(ctx.dscp(v, &self.key("dscp"))?),
        };
        Some(move |src: u32| given.unwrap_or_else(|| self.env.dscp_of(src)))
    }

    /// Report more than [`MAX_GENERATED_FLOWS`] flows at `key`.
    fn too_many(&self, ctx: &mut Ctx, n: f64, key: &str) -> bool {
        if n > MAX_GENERATED_FLOWS as f64 {
            ctx.err(
                self.key(key),
                format!(
                    "this workload would generate about {n:.0} flows (at most {MAX_GENERATED_FLOWS})"
                ),
            );
            return true;
        }
        false
    }
}

/// The line rate of host `h`'s link.
fn host_rate(topo: &Topology, h: u32) -> Option<crate::units::Rate> {
    use crate::topology::NodeRef;
    topo.links
        .iter()
        .find(|l| l.a == NodeRef::Host(h) || l.b == NodeRef::Host(h))
        .map(|l| l.rate)
}

fn workload(
    ctx: &mut Ctx,
    env: &Env<'_>,
    t: &Table,
    p: &str,
    index: usize,
    sim_seed: u64,
) -> Option<Vec<FlowSpec>> {
    let kind = ctx.req(
        t,
        p,
        "kind",
        "one of trace, poisson, incast, permutation, all_to_all, tor_to_tor, storage_read",
        |c, v, k| c.supported(v, k, &WORKLOAD_KINDS[..7], &WORKLOAD_KINDS[7..]),
    )?;
    ctx.keys(t, p, workload_keys(kind));
    let w = Wl {
        env,
        t,
        p: p.to_string(),
        index: index as u64,
        sim_seed,
    };
    match kind {
        "trace" => {
            let file = ctx.req(t, p, "file", "a CSV file path", Ctx::string)?;
            trace(ctx, env, &file, &at(p, "file"))
        }
        "poisson" => poisson(ctx, &w),
        "incast" => incast(ctx, &w),
        "permutation" | "all_to_all" => pairs(ctx, &w, kind),
        "tor_to_tor" => tor_to_tor(ctx, &w),
        "storage_read" => storage_read(ctx, &w),
        _ => None,
    }
}

/// `cdf` (a built-in name or a file path relative to the scenario file) and the optional
/// `sampling` override.
fn cdf_key(ctx: &mut Ctx, w: &Wl<'_, '_>) -> Option<Cdf> {
    use crate::traffic::cdf::Sampling;
    let sampling = ctx.opt(w.t, &w.p, "sampling", |c, v, k| {
        c.choice(v, k, &["interpolated", "step"]).map(|s| match s {
            "step" => Sampling::Step,
            _ => Sampling::Interpolated,
        })
    });
    let name = ctx.req(
        w.t,
        &w.p,
        "cdf",
        "a built-in distribution name or a CDF file path",
        Ctx::string,
    )?;
    let key = w.key("cdf");
    let cdf = match Cdf::builtin(&name) {
        Some(c) => c,
        None => {
            let path = w.env.base_dir.join(&name);
            let looks_like_path = name.contains(['/', '\\', '.']);
            if !looks_like_path && !path.exists() {
                let hint = suggest::hint(&name, Cdf::BUILTINS.iter().copied());
                ctx.err(
                    key,
                    format!(
                        "unknown distribution `{name}`{hint} (built-ins: {}; or a CDF file path)",
                        Cdf::BUILTINS.join(", ")
                    ),
                );
                return None;
            }
            match crate::traffic::cdf_file::read_cdf(&path) {
                Ok(f) => f.cdf,
                Err(e) => {
                    ctx.err(key, e);
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

/// `kind = "poisson"`: Poisson arrivals at `load` of each host's link rate, sizes from `cdf`.
/// `generator = "rocesim"` (default) uses a rocesim stream per host
/// ([`generators::poisson`]); `"hpcc"` the exact SplitMix64 generator of BENCHMARKS.md
/// ([`crate::traffic::poisson::hpcc_poisson`]).
fn poisson(ctx: &mut Ctx, w: &Wl<'_, '_>) -> Option<Vec<FlowSpec>> {
    use crate::traffic::cdf::Sampling;
    let (t, p) = (w.t, w.p.as_str());
    let cdf = cdf_key(ctx, w);
    let load = ctx.req(t, p, "load", "a load in (0, 1]", |c, v, k| {
        let x = c.number(v, k)?;
        if x <= 0.0 || x > 1.0 {
            c.err(k, format!("load must be in (0, 1], found {x}"));
            return None;
        }
        Some(x)
    });
    let until = match ctx.opt(t, p, "until", Ctx::time) {
        Some(u) => Some(u),
        None if t.contains_key("until") => None,
        None => w.env.duration,
    };
    let gen = ctx.or(t, p, "generator", "rocesim", |c, v, k| {
        c.choice(v, k, &["rocesim", "hpcc"])
    });
    let seed = w.seed(ctx);
    let dscp = w.dscp(ctx);
    let hosts = w.selector(ctx, "hosts", Some("all"));
    let (cdf, load, until, gen, seed, dscp, hosts) =
        (cdf?, load?, until?, gen?, seed?, dscp?, hosts?);
    let topo = w.env.topology?;
    let rates: Vec<f64> = hosts
        .iter()
        .map(|&h| host_rate(topo, h).map_or(0.0, |r| r.bps() as f64))
        .collect();
    if let Some(i) = rates.iter().position(|&r| r <= 0.0) {
        ctx.err(
            w.key("hosts"),
            format!("host `{}` has no link", topo.hosts[hosts[i] as usize].name),
        );
        return None;
    }
    if hosts.len() < 2 {
        ctx.err(
            w.key("hosts"),
            "Poisson traffic needs at least two hosts (each sends to the others)",
        );
        return None;
    }
    let expected: f64 = rates
        .iter()
        .map(|r| until.secs_f64() * r * load)
        .sum::<f64>()
        / (cdf.mean() * 8.0).max(1.0);
    if w.too_many(ctx, expected, "until") {
        return None;
    }
    if gen == "hpcc" {
        if cdf.sampling != Sampling::Interpolated {
            ctx.err(
                w.key("generator"),
                "the hpcc generator samples sizes by interpolation; this `cdf` uses step \
                 sampling (set sampling = \"interpolated\" or generator = \"rocesim\")",
            );
            return None;
        }
        if rates.iter().any(|&r| r != rates[0]) {
            ctx.err(
                w.key("hosts"),
                "the hpcc generator takes one link rate and the selected hosts have different \
                 ones; split them into one workload per rate or use generator = \"rocesim\"",
            );
            return None;
        }
        let arrivals = crate::traffic::poisson::hpcc_poisson(
            hosts.len() as u32,
            load,
            rates[0],
            until.ns(),
            seed,
            &cdf,
        );
        return Some(
            arrivals
                .into_iter()
                .map(|a| {
                    let src = hosts[a.src as usize];
                    FlowSpec {
                        name: None,
                        src,
                        dst: hosts[a.dst as usize],
                        size: Some(a.size),
                        start: Time::from_ns(a.start_ns),
                        dscp: dscp(src),
                        kind: FlowKind::RdmaWrite,
                        rate_limit: None,
                        sport: 0,
                        after: None,
                    }
                })
                .collect(),
        );
    }
    let params = generators::Poisson {
        hosts: &hosts,
        rates_bps: &rates,
        load,
        until,
        cdf: &cdf,
    };
    Some(generators::poisson(&params, seed, w.index, &dscp))
}

/// `kind = "incast"`: `senders` → `receiver`, `size` each, at `at`; `repeat` (a period) with
/// `count` rounds, or rounds starting before `until` (default `sim.duration`).
fn incast(ctx: &mut Ctx, w: &Wl<'_, '_>) -> Option<Vec<FlowSpec>> {
    let (t, p) = (w.t, w.p.as_str());
    let senders = w.selector(ctx, "senders", None);
    let receiver = w.host(ctx, "receiver");
    let size = w.size(ctx, None);
    let start = w.at(ctx);
    let repeat = ctx.opt(t, p, "repeat", |c, v, k| {
        let r = c.time(v, k)?;
        if r == Time::ZERO {
            c.err(k, "the period must be positive");
            return None;
        }
        Some(r)
    });
    let repeat_ok = repeat.is_some() || !t.contains_key("repeat");
    let count = ctx.opt(t, p, "count", |c, v, k| c.uint(v, k, 1, u32::MAX as u64));
    let count_ok = count.is_some() || !t.contains_key("count");
    let until = ctx.opt(t, p, "until", Ctx::time);
    let until_ok = until.is_some() || !t.contains_key("until");
    let dscp = w.dscp(ctx);
    let (senders, receiver, size, start, dscp) = (senders?, receiver?, size?, start?, dscp?);
    if !(repeat_ok && count_ok && until_ok) {
        return None;
    }
    let rounds = match (repeat, count) {
        (_, Some(n)) if n > 1 && repeat.is_none() => {
            ctx.err(
                w.key("count"),
                "more than one round needs `repeat` (the period)",
            );
            return None;
        }
        (_, Some(n)) => {
            if until.is_some() {
                ctx.err(w.key("until"), "give either `count` or `until`, not both");
                return None;
            }
            n
        }
        (Some(r), None) => {
            let end = until.or(w.env.duration)?;
            if start >= end {
                ctx.err(
                    w.key("at"),
                    format!("the first round starts at or after the end ({end})"),
                );
                return None;
            }
            (end.ps() - start.ps()).div_ceil(r.ps())
        }
        (None, None) => {
            if until.is_some() {
                ctx.err(w.key("until"), "`until` needs `repeat` (the period)");
                return None;
            }
            1
        }
    };
    let n_senders = senders.iter().filter(|&&s| s != receiver).count();
    if n_senders == 0 {
        ctx.err(w.key("senders"), "no sender other than the receiver");
        return None;
    }
    if w.too_many(ctx, (rounds as f64) * n_senders as f64, "repeat") {
        return None;
    }
    let params = generators::Incast {
        senders: &senders,
        receiver,
        size,
        at: start,
        repeat: repeat.unwrap_or(Time::ZERO),
        rounds,
    };
    Some(generators::incast(&params, &dscp))
}

/// `kind = "permutation"` (a random derangement) and `"all_to_all"` (every ordered pair) over
/// `hosts`, `size` (default "inf") at `at`.
fn pairs(ctx: &mut Ctx, w: &Wl<'_, '_>, kind: &str) -> Option<Vec<FlowSpec>> {
    let hosts = w.selector(ctx, "hosts", Some("all"));
    let size = w.size(ctx, Some(None));
    let start = w.at(ctx);
    let seed = if kind == "permutation" {
        w.seed(ctx)
    } else {
        Some(0)
    };
    let dscp = w.dscp(ctx);
    let (hosts, size, start, seed, dscp) = (hosts?, size?, start?, seed?, dscp?);
    if hosts.len() < 2 {
        ctx.err(w.key("hosts"), format!("`{kind}` needs at least two hosts"));
        return None;
    }
    if kind == "permutation" {
        return Some(generators::permutation(
            &hosts, size, start, seed, w.index, &dscp,
        ));
    }
    let n = hosts.len() as f64;
    if w.too_many(ctx, n * (n - 1.0), "hosts") {
        return None;
    }
    Some(generators::all_to_all(&hosts, size, start, &dscp))
}

/// `kind = "tor_to_tor"` (Guo et al. 2016 §5.4): ToR i of `pods[0]` paired with ToR i of
/// `pods[1]`, server j with server j, `connections` long-lived connections per server pair
/// and direction, each with a random UDP source port.
fn tor_to_tor(ctx: &mut Ctx, w: &Wl<'_, '_>) -> Option<Vec<FlowSpec>> {
    let (t, p) = (w.t, w.p.as_str());
    let pods = ctx.or(t, p, "pods", (0, 1), |c, v, k| {
        let a = c.array(v, k)?;
        if a.len() != 2 {
            c.err(
                k,
                format!(
                    "expected two pod numbers like [0, 1], found {} values",
                    a.len()
                ),
            );
            return None;
        }
        let x = c.uint(&a[0], &idx(k, 0), 0, u32::MAX as u64);
        let y = c.uint(&a[1], &idx(k, 1), 0, u32::MAX as u64);
        Some((x? as u32, y? as u32))
    });
    let servers = ctx.opt(t, p, "servers_per_tor", |c, v, k| {
        c.uint(v, k, 1, u32::MAX as u64)
    });
    let servers_ok = servers.is_some() || !t.contains_key("servers_per_tor");
    let connections = w.count(ctx, "connections", Some(8));
    let size = w.size(ctx, Some(None));
    let start = w.at(ctx);
    let seed = w.seed(ctx);
    let dscp = w.dscp(ctx);
    let (pods, connections, size, start, seed, dscp) =
        (pods?, connections?, size?, start?, seed?, dscp?);
    if !servers_ok {
        return None;
    }
    let topo = w.env.topology?;
    let params = generators::TorToTor {
        pods,
        servers_per_tor: servers.map(|s| s as u32),
        connections: connections as u32,
        size,
        at: start,
    };
    match generators::tor_to_tor(topo, &params, seed, w.index, &dscp) {
        Ok(f) => Some(f),
        Err(e) => {
            ctx.err(w.key(e.key), e.message);
            None
        }
    }
}

/// `kind = "storage_read"` (LinkedIn's RoCE storage test): `client` reads `io_size` I/Os from
/// each of `targets`, `queue_depth` outstanding per target (closed loop), `count` per target.
fn storage_read(ctx: &mut Ctx, w: &Wl<'_, '_>) -> Option<Vec<FlowSpec>> {
    let (t, p) = (w.t, w.p.as_str());
    let client = w.host(ctx, "client");
    let targets = w.selector(ctx, "targets", None);
    let io_size = ctx.or(t, p, "io_size", 16 * 1024, |c, v, k| {
        match c.size(v, k)? {
            b if b.0 == 0 => {
                c.err(k, "an I/O size must be positive");
                None
            }
            b => Some(b.0),
        }
    });
    let qd = w.count(ctx, "queue_depth", Some(1));
    let count = w.count(ctx, "count", None);
    let start = w.at(ctx);
    let dscp = w.dscp(ctx);
    let (client, targets, io_size, qd, count, start, dscp) =
        (client?, targets?, io_size?, qd?, count?, start?, dscp?);
    let nt = targets.iter().filter(|&&x| x != client).count();
    if nt == 0 {
        ctx.err(w.key("targets"), "no target other than the client");
        return None;
    }
    if w.too_many(ctx, nt as f64 * count as f64, "count") {
        return None;
    }
    let params = generators::StorageRead {
        client,
        targets: &targets,
        io_size,
        queue_depth: qd as u32,
        count: count as u32,
        at: start,
    };
    Some(generators::storage_read(&params, &dscp))
}

/// Check `[[flow]]` and `[[workload]]` and return every flow (explicit ones first, then each
/// workload's in order). Source ports not given are derived from `seed` and the flow index.
pub fn parse(ctx: &mut Ctx, root: &Table, env: &Env<'_>, seed: u64) -> Option<Vec<FlowSpec>> {
    let before = ctx.count();
    let mut flows: Vec<(FlowSpec, bool)> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for (i, t) in tables(ctx, root, "flow") {
        let p = idx("flow", i);
        if let Some(Value::String(n)) = t.get("name") {
            if !names.insert(n.clone()) {
                ctx.err(
                    at(&p, "name"),
                    format!("another flow is already named `{n}`"),
                );
            }
        }
        if let Some(f) = explicit_flow(ctx, env, t, &p) {
            flows.push(f);
        }
    }
    for (i, t) in tables(ctx, root, "workload") {
        if let Some(fs) = workload(ctx, env, t, &idx("workload", i), i, seed) {
            // Chains (`after`) are local to the workload; ports a generator drew are kept.
            let base = flows.len() as u32;
            flows.extend(fs.into_iter().map(|mut f| {
                f.after = f.after.map(|a| a + base);
                let given = f.sport != 0;
                (f, given)
            }));
        }
    }
    if ctx.count() != before || env.hosts.is_none() {
        return None;
    }
    Some(
        flows
            .into_iter()
            .enumerate()
            .map(|(i, (mut f, given))| {
                if !given {
                    f.sport = default_sport(seed, i);
                }
                f
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{HostSpec, SwitchSpec};
    use crate::units::Rate;

    fn topo() -> Topology {
        Topology {
            hosts: ["A", "B", "C", "R"]
                .iter()
                .map(|n| HostSpec {
                    name: n.to_string(),
                    pod: None,
                })
                .collect(),
            switches: vec![SwitchSpec {
                name: "S1".into(),
                role: "switch".into(),
                pod: None,
            }],
            links: vec![],
        }
    }

    fn run(s: &str, dir: &Path) -> (Option<Vec<FlowSpec>>, Ctx) {
        let t = topo();
        let env = Env {
            hosts: Some(Hosts::new(&t)),
            nics: None,
            base_dir: dir,
            topology: Some(&t),
            duration: Some(Time::from_ms(10)),
        };
        let mut ctx = Ctx::new("f.toml");
        let r = parse(&mut ctx, &s.parse().unwrap(), &env, 7);
        (r, ctx)
    }

    #[test]
    fn explicit_flows() {
        let (f, ctx) = run(
            r#"
            [[flow]]
            src = "A"
            dst = "R"
            size = "inf"
            [[flow]]
            name = "short"
            src = "B"
            dst = "C"
            size = "1MB"
            start = "5us"
            dscp = 10
            kind = "rdma_read"
            rate = "10Gbps"
            sport = 1000
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert_eq!((f[0].src, f[0].dst, f[0].size, f[0].dscp), (0, 3, None, 26));
        assert!((49152..=65535).contains(&f[0].sport));
        assert_eq!(f[0].sport, default_sport(7, 0));
        assert_eq!(f[1].name.as_deref(), Some("short"));
        assert_eq!(
            (f[1].size, f[1].start, f[1].dscp),
            (Some(1_000_000), Time::from_us(5), 10)
        );
        assert_eq!(
            (f[1].kind, f[1].rate_limit, f[1].sport),
            (FlowKind::RdmaRead, Some(Rate::gbps(10)), 1000)
        );
    }

    #[test]
    fn flow_errors() {
        let (f, ctx) = run(
            r#"
            [[flow]]
            src = "Q"
            dst = "S1"
            size = 0
            kind = "tcp"
            [[flow]]
            src = "A"
            dst = "A"
            size = "1MB"
            dscp = 70
            sprot = 5
            [[workload]]
            kind = "pingmesh"
            "#,
            Path::new("."),
        );
        assert!(f.is_none());
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "flow[0].src",
            "flow[0].dst",
            "flow[0].size",
            "flow[0].kind",
            "flow[1].dst",
            "flow[1].dscp",
            "flow[1].sprot",
            "workload[0].kind",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
        let e = ctx.errors.iter().find(|e| e.key == "flow[0].src").unwrap();
        assert_eq!(e.message, "unknown host `Q`");
        let e = ctx.errors.iter().find(|e| e.key == "flow[0].dst").unwrap();
        assert!(e.message.contains("is a switch"));
        let e = ctx
            .errors
            .iter()
            .find(|e| e.key == "flow[1].sprot")
            .unwrap();
        assert!(e.message.contains("did you mean `sport`?"));
    }

    #[test]
    fn trace_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("ok.csv"),
            "start_ns,src,dst,size_bytes,dscp\n0,A,R,1000,26\n\n1500,B,C,2048,3\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("bad.csv"),
            "start_ns,src,dst,size_bytes\n0,A,R,1000\n10,Aa,R,1\n-1,A,B,x\n5,A,B\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("nohdr.csv"), "0,A,R,1000\n").unwrap();
        let (f, ctx) = run(
            "[[flow]]\nsrc = \"A\"\ndst = \"B\"\nsize = 1\n[[workload]]\nkind = \"trace\"\nfile = \"ok.csv\"\n",
            dir.path(),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(
            (f[1].src, f[1].dst, f[1].size, f[1].dscp),
            (0, 3, Some(1000), 26)
        );
        assert_eq!((f[2].start, f[2].dscp), (Time::from_ns(1500), 3));
        assert_eq!(f[2].sport, default_sport(7, 2));

        let (f, ctx) = run(
            "[[workload]]\nkind = \"trace\"\nfile = \"bad.csv\"\n",
            dir.path(),
        );
        assert!(f.is_none());
        let msgs: Vec<&str> = ctx.errors.iter().map(|e| e.message.as_str()).collect();
        assert!(ctx.errors.iter().all(|e| e.key == "workload[0].file"));
        assert!(
            msgs.contains(&"bad.csv line 3: src: unknown host `Aa`; did you mean `A`?"),
            "{msgs:?}"
        );
        assert!(
            msgs.contains(&"bad.csv line 4: start_ns `-1` is not a time in nanoseconds"),
            "{msgs:?}"
        );
        assert!(
            msgs.contains(&"bad.csv line 4: size_bytes `x` is not a positive integer"),
            "{msgs:?}"
        );
        assert!(
            msgs.contains(&"bad.csv line 5: expected 4 columns, found 3"),
            "{msgs:?}"
        );

        let (_, ctx) = run(
            "[[workload]]\nkind = \"trace\"\nfile = \"nohdr.csv\"\n",
            dir.path(),
        );
        assert!(ctx.errors[0]
            .message
            .starts_with("nohdr.csv line 1: expected the header"));
        let (_, ctx) = run(
            "[[workload]]\nkind = \"trace\"\nfile = \"missing.csv\"\n",
            dir.path(),
        );
        assert!(ctx.errors[0].message.starts_with("cannot read trace"));
    }

    /// A generated topology's scenario pieces, parsed through `parse` with sim.seed 7.
    fn run_on(topo: &Topology, s: &str, dir: &Path) -> (Option<Vec<FlowSpec>>, Ctx) {
        let env = Env {
            hosts: Some(Hosts::new(topo)),
            nics: None,
            base_dir: dir,
            topology: Some(topo),
            duration: Some(Time::from_ms(2)),
        };
        let mut ctx = Ctx::new("w.toml");
        let r = parse(&mut ctx, &s.parse().unwrap(), &env, 7);
        (r, ctx)
    }

    fn gen_topo(def: crate::topology::TopologyDef) -> Topology {
        crate::topology::build(&def).unwrap()
    }

    fn leaf_spine() -> Topology {
        let l = crate::topology::LinkClass {
            rate: Rate::gbps(100),
            delay: Time::from_us(1),
        };
        gen_topo(crate::topology::TopologyDef::LeafSpine {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 4,
            host_link: l,
            fabric_link: l,
        })
    }

    fn clos3() -> Topology {
        let l = crate::topology::LinkClass {
            rate: Rate::gbps(40),
            delay: Time::from_us(1),
        };
        gen_topo(crate::topology::TopologyDef::Clos3 {
            podsets: 2,
            tors_per_podset: 2,
            leaves_per_podset: 2,
            spines: 4,
            hosts_per_tor: 3,
            host_link: l,
            fabric_link: l,
        })
    }

    fn keys_of(ctx: &Ctx) -> Vec<&str> {
        ctx.errors.iter().map(|e| e.key.as_str()).collect()
    }

    #[test]
    fn poisson_workloads() {
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "poisson"
            cdf = "websearch"
            load = 0.5
            [[workload]]
            kind = "poisson"
            cdf = "fb_webserver"
            sampling = "interpolated"
            load = 0.3
            hosts = ["leaf0/*", "h5"]
            until = "1ms"
            seed = 3
            dscp = 10
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        let second: Vec<&FlowSpec> = f.iter().filter(|x| x.dscp == 10).collect();
        assert!(!second.is_empty() && second.len() < f.len());
        assert!(second
            .iter()
            .all(|x| [0, 1, 2, 3, 5].contains(&x.src) && [0, 1, 2, 3, 5].contains(&x.dst)));
        assert!(second.iter().all(|x| x.start < Time::from_ms(1)));
        assert!(f
            .iter()
            .all(|x| x.start < Time::from_ms(2) && x.src != x.dst));
        // Default seed = sim.seed: the same list again, a different one with another seed.
        let again = run_on(
            &t,
            "[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.5\n",
            Path::new("."),
        )
        .0
        .unwrap();
        assert_eq!(again, f[..again.len()].to_vec());
        let other = run_on(
            &t,
            "[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.5\nseed = 8\n",
            Path::new("."),
        )
        .0
        .unwrap();
        assert_ne!(again, other);
    }

    #[test]
    fn poisson_hpcc_generator_is_the_benchmark_one() {
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "poisson"
            generator = "hpcc"
            cdf = "websearch"
            load = 0.3
            until = "1ms"
            seed = 1
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        let a =
            crate::traffic::poisson::hpcc_poisson(16, 0.3, 100e9, 1_000_000, 1, &Cdf::websearch());
        assert_eq!(f.len(), a.len());
        for (x, y) in f.iter().zip(&a) {
            assert_eq!(
                (x.src, x.dst, x.size, x.start),
                (y.src, y.dst, Some(y.size), Time::from_ns(y.start_ns))
            );
        }
        // Step sampling is not what the hpcc generator does.
        let (f, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"poisson\"\ngenerator = \"hpcc\"\ncdf = \"fb_webserver\"\nload = 0.3\n",
            Path::new("."),
        );
        assert!(f.is_none());
        assert_eq!(keys_of(&ctx), ["workload[0].generator"]);
    }

    #[test]
    fn poisson_cdf_files_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("homa.txt"), "1500\n1000 0.5\n2000 1\n").unwrap();
        std::fs::write(dir.path().join("bad.txt"), "0 0\n100 50\n50 100\n").unwrap();
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"poisson\"\ncdf = \"homa.txt\"\nload = 0.2\n",
            dir.path(),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert!(f
            .iter()
            .all(|x| x.size == Some(1000) || x.size == Some(2000)));
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "poisson"
            cdf = "bad.txt"
            load = 1.5
            sampling = "stpe"
            generator = "ns3"
            hostz = "all"
            [[workload]]
            kind = "poisson"
            cdf = "websarch"
            load = 0.5
            hosts = "tor9/*"
            [[workload]]
            kind = "poisson"
            cdf = "missing.txt"
            "#,
            dir.path(),
        );
        assert!(f.is_none());
        let keys = keys_of(&ctx);
        for k in [
            "workload[0].cdf",
            "workload[0].load",
            "workload[0].sampling",
            "workload[0].generator",
            "workload[0].hostz",
            "workload[1].cdf",
            "workload[1].hosts",
            "workload[2].cdf",
            "workload[2].load",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
        let msg = |k: &str| {
            ctx.errors
                .iter()
                .filter(|e| e.key == k)
                .map(|e| e.message.clone())
                .collect::<Vec<_>>()
                .join(" | ")
        };
        assert!(msg("workload[0].cdf").contains("bad.txt line 3: sizes must not decrease"));
        assert!(msg("workload[0].hostz").contains("did you mean `hosts`?"));
        assert!(
            msg("workload[0].sampling").contains("did you mean `step`?"),
            "{}",
            msg("workload[0].sampling")
        );
        assert!(msg("workload[1].cdf").contains("did you mean `websearch`?"));
        assert!(msg("workload[2].cdf").contains("cannot read CDF file"));
        assert!(msg("workload[2].load").contains("missing required key `load`"));
    }

    #[test]
    fn incast_workloads() {
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[flow]]
            src = "h1"
            dst = "h2"
            size = 100
            [[workload]]
            kind = "incast"
            senders = "all"
            receiver = "h0"
            size = "64KB"
            at = "10us"
            [[workload]]
            kind = "incast"
            senders = ["h1", "h2", "h3"]
            receiver = "h4"
            size = "1KB"
            repeat = "100us"
            count = 3
            [[workload]]
            kind = "incast"
            senders = "leaf1/*"
            receiver = "h0"
            size = "inf"
            repeat = "500us"
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        // 1 explicit + 15 senders + 3 × 3 + 4 rounds (0, 0.5, 1, 1.5 ms before 2 ms) × 4.
        assert_eq!(f.len(), 1 + 15 + 9 + 16);
        assert!(f[1..16]
            .iter()
            .all(|x| x.dst == 0 && x.start == Time::from_us(10)));
        assert_eq!(f[16 + 8].start, Time::from_us(200));
        assert_eq!(f[25 + 15].start, Time::from_us(1500));
        assert!(f[25..].iter().all(|x| x.size.is_none()));
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "incast"
            receiver = "h99"
            size = "1KB"
            count = 2
            [[workload]]
            kind = "incast"
            senders = "h0"
            receiver = "h0"
            size = "1KB"
            "#,
            Path::new("."),
        );
        assert!(f.is_none());
        let keys = keys_of(&ctx);
        for k in [
            "workload[0].senders",
            "workload[0].receiver",
            "workload[1].senders",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
        let (_, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"incast\"\nsenders = \"all\"\nreceiver = \"h0\"\nsize = 1\ncount = 2\n",
            Path::new("."),
        );
        assert_eq!(keys_of(&ctx), ["workload[0].count"]);
        let (_, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"incast\"\nsenders = \"all\"\nreceiver = \"h0\"\nsize = 1\nrepeat = \"1ps\"\nuntil = \"1s\"\n",
            Path::new("."),
        );
        assert_eq!(keys_of(&ctx), ["workload[0].repeat"]);
        assert!(ctx.errors[0].message.contains("would generate about"));
    }

    #[test]
    fn permutation_and_all_to_all_workloads() {
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "permutation"
            [[workload]]
            kind = "all_to_all"
            hosts = ["leaf0/*", "leaf1/*"]
            size = "10KB"
            at = "5us"
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert_eq!(f.len(), 16 + 8 * 7);
        let mut dsts: Vec<u32> = f[..16].iter().map(|x| x.dst).collect();
        dsts.sort_unstable();
        assert_eq!(dsts, (0..16).collect::<Vec<u32>>());
        assert!(f[..16].iter().all(|x| x.src != x.dst && x.size.is_none()));
        assert!(f[16..]
            .iter()
            .all(|x| x.src < 8 && x.dst < 8 && x.size == Some(10_000)));
        let (f, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"permutation\"\nhosts = \"h3\"\n[[workload]]\nkind = \"all_to_all\"\nseed = 1\n",
            Path::new("."),
        );
        assert!(f.is_none());
        assert_eq!(keys_of(&ctx), ["workload[0].hosts", "workload[1].seed"]);
    }

    #[test]
    fn tor_to_tor_workloads() {
        let t = clos3();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[workload]]
            kind = "tor_to_tor"
            pods = [0, 1]
            servers_per_tor = 2
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        // 2 ToR pairs × 2 servers × 2 directions × 8 connections.
        assert_eq!(f.len(), 64);
        // h0 (tor0, podset 0) ↔ h6 (tor2, podset 1); h1 ↔ h7; h3 (tor1) ↔ h9 (tor3).
        for (a, b) in [(0, 6), (1, 7), (3, 9), (4, 10)] {
            assert_eq!(f.iter().filter(|x| (x.src, x.dst) == (a, b)).count(), 8);
            assert_eq!(f.iter().filter(|x| (x.src, x.dst) == (b, a)).count(), 8);
        }
        // The generator's ports are kept (not replaced by the default per-index ports).
        let ports: HashSet<u16> = f[..8].iter().map(|x| x.sport).collect();
        assert_eq!(ports.len(), 8);
        assert_ne!(f[0].sport, default_sport(7, 0));
        let (f, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"tor_to_tor\"\npods = [0, 3]\nconnections = 0\n[[workload]]\nkind = \"tor_to_tor\"\nservers_per_tor = 4\n[[workload]]\nkind = \"tor_to_tor\"\npods = [1]\n",
            Path::new("."),
        );
        assert!(f.is_none());
        assert_eq!(
            keys_of(&ctx),
            [
                "workload[0].connections",
                "workload[1].servers_per_tor",
                "workload[2].pods"
            ]
        );
    }

    #[test]
    fn storage_read_workloads() {
        let t = leaf_spine();
        let (f, ctx) = run_on(
            &t,
            r#"
            [[flow]]
            src = "h1"
            dst = "h2"
            size = 100
            [[workload]]
            kind = "storage_read"
            client = "h0"
            targets = "leaf0/*"
            queue_depth = 4
            count = 10
            "#,
            Path::new("."),
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert_eq!(f.len(), 1 + 3 * 10);
        for (i, x) in f.iter().enumerate().skip(1) {
            assert_eq!(
                (x.dst, x.kind, x.size),
                (0, FlowKind::RdmaRead, Some(16384))
            );
            let local = i - 1;
            if local < 12 {
                assert_eq!(x.after, None);
            } else {
                // Offset by the explicit flow before the workload.
                let a = x.after.unwrap() as usize;
                assert_eq!(a, i - 12);
                assert_eq!(f[a].src, x.src);
            }
        }
        let (f, ctx) = run_on(
            &t,
            "[[workload]]\nkind = \"storage_read\"\nclient = \"h0\"\ntargets = \"h0\"\nio_size = 0\nqueue_depth = 0\n",
            Path::new("."),
        );
        assert!(f.is_none());
        assert_eq!(
            keys_of(&ctx),
            [
                "workload[0].io_size",
                "workload[0].queue_depth",
                "workload[0].count"
            ]
        );
    }

    #[test]
    fn the_benchmark_and_workload_scenarios_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut n = 0;
        for dir in ["benches", "scenarios"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let mine = dir == "benches" || name.starts_with("workload-");
                if !mine || !name.ends_with(".toml") {
                    continue;
                }
                let sc = match crate::config::load(&path, &[]) {
                    Ok(sc) => sc,
                    Err(e) => panic!("{}: {e}", path.display()),
                };
                if name == "s1.toml" {
                    // BENCHMARKS.md S1: the hpcc generator's 1418 flows, 2,237,781,528 bytes.
                    assert_eq!(sc.flows.len(), 1418);
                    let bytes: u64 = sc.flows.iter().map(|f| f.size.unwrap()).sum();
                    assert_eq!(bytes, 2_237_781_528);
                }
                n += 1;
            }
        }
        assert!(n >= 3);
    }
}
