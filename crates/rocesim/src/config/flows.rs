//! `[[flow]]` (explicit flows) and `[[workload]]` (generated traffic; `trace` for now).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use toml::{Table, Value};

use super::check::{at, idx, Ctx};
use super::suggest;
use crate::nic::params::NicParams;
use crate::topology::Topology;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;

/// Workload kinds of SCENARIO.md; only `trace` is supported so far.
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

fn workload(ctx: &mut Ctx, env: &Env<'_>, t: &Table, p: &str) -> Option<Vec<FlowSpec>> {
    let kind = ctx.req(t, p, "kind", "one of trace, poisson, ...", |c, v, k| {
        c.supported(v, k, &["trace", "poisson"], &WORKLOAD_KINDS[2..])
    })?;
    if kind == "poisson" {
        return poisson(ctx, env, t, p);
    }
    ctx.keys(t, p, &["kind", "file"]);
    let file = ctx.req(t, p, "file", "a CSV file path", Ctx::string)?;
    trace(ctx, env, &file, &at(p, "file"))
}

/// `kind = "poisson"`: Poisson arrivals at `load` of each host's link rate, sizes from `cdf`,
/// generated by the exact HPCC-style generator (`generator = "hpcc"`, the only one so far).
fn poisson(ctx: &mut Ctx, env: &Env<'_>, t: &Table, p: &str) -> Option<Vec<FlowSpec>> {
    use crate::traffic::cdf::Cdf;
    ctx.keys(
        t,
        p,
        &[
            "kind",
            "cdf",
            "load",
            "hosts",
            "until",
            "generator",
            "seed",
            "dscp",
        ],
    );
    let cdf = ctx.req(t, p, "cdf", "a distribution name", |c, v, k| {
        c.supported(v, k, Cdf::BUILTINS, &[])
    });
    let load = ctx.req(t, p, "load", "a load in (0, 1]", |c, v, k| {
        let x = c.number(v, k)?;
        if x <= 0.0 || x > 1.0 {
            c.err(k, format!("load must be in (0, 1], found {x}"));
            return None;
        }
        Some(x)
    });
    let sel = ctx.or(t, p, "hosts", "all".to_string(), Ctx::string);
    let until = ctx.opt(t, p, "until", Ctx::time).or(env.duration);
    let _gen = ctx.or(t, p, "generator", "hpcc", |c, v, k| {
        c.supported(v, k, &["hpcc"], &[])
    });
    let seed = ctx.or(t, p, "seed", 1u64, |c, v, k| c.uint(v, k, 0, u64::MAX >> 1));
    let dscp = ctx.opt(t, p, "dscp", Ctx::dscp);
    let (cdf, load, sel, until, seed) = (cdf?, load?, sel?, until?, seed?);
    let topo = env.topology?;
    let hosts = match crate::topology::select(topo, &sel) {
        Ok(h) => h,
        Err(e) => {
            ctx.err(at(p, "hosts"), e);
            return None;
        }
    };
    // Each host's arrival rate follows its own link rate; the generator takes one rate, so
    // the selected hosts must share it.
    let rate_of = |h: u32| {
        topo.links
            .iter()
            .find(|l| {
                l.a == crate::topology::NodeRef::Host(h) || l.b == crate::topology::NodeRef::Host(h)
            })
            .map(|l| l.rate)
    };
    let rate = hosts.first().and_then(|&h| rate_of(h))?;
    if hosts.iter().any(|&h| rate_of(h) != Some(rate)) {
        ctx.err(
            at(p, "hosts"),
            "the selected hosts have different link rates; split them into one workload per rate",
        );
        return None;
    }
    let arrivals = crate::traffic::poisson::hpcc_poisson(
        hosts.len() as u32,
        load,
        rate.bps() as f64,
        until.ns(),
        seed,
        &Cdf::builtin(cdf).expect("checked"),
    );
    Some(
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
                    dscp: dscp.unwrap_or_else(|| env.dscp_of(src)),
                    kind: FlowKind::RdmaWrite,
                    rate_limit: None,
                    sport: 0,
                    after: None,
                }
            })
            .collect(),
    )
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
        if let Some(fs) = workload(ctx, env, t, &idx("workload", i)) {
            flows.extend(fs.into_iter().map(|f| (f, false)));
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
            kind = "incast"
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
}
