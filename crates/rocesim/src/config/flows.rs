//! `[[flow]]`: explicit flows; and the assembly of every flow of the scenario (explicit ones
//! first, then each `[[workload]]`'s), with their default UDP source ports.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::check::{at, Ctx};
use super::declare::{Leaf, V};
use super::leaf::{choice, Dscp, FlowSize, Int, RateV, Str, TimeV};
use super::lists::Items;
use super::suggest;
use super::workload;
use crate::nic::params::NicParams;
use crate::table;
use crate::topology::Topology;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;

choice!(/// The RDMA operation of a flow.
    FlowKindV -> FlowKind { "rdma_write" => FlowKind::RdmaWrite, "rdma_read" => FlowKind::RdmaRead,
        "rdma_send" => FlowKind::RdmaSend } later ["tcp"]);

table! {
    /// `[[flow]]`: one RDMA message (or a long-lived stream) on its own queue pair.
    pub struct Flow {
        /// Sender. Required.
        src: Str,
        /// Receiver; not `src`. Required.
        dst: Str,
        /// Message size; `"inf"` = long-lived. Required.
        size: FlowSize,
        /// When the sender posts the message. Default: `"0us"`.
        start: TimeV,
        /// DSCP of its data packets. Default: `nic.dscp` of `src`.
        dscp: Dscp,
        /// Operation; `tcp`: not supported yet. Default: `"rdma_write"`.
        kind: FlowKindV,
        /// Pacing: the sender never exceeds this rate. Default: none.
        rate: RateV,
        /// Name in results; unique. Default: the flow id.
        name: Str,
        /// UDP source port (hashed by ECMP). Default: a deterministic function of `sim.seed`
        /// and the flow's index, in 49152–65535.
        sport: Int<0, 65535>,
    }
}

/// Elements of `[[flow]]`.
pub struct FlowItems;
impl Items for FlowItems {
    fn schema() -> serde_json::Value {
        <Flow as Leaf>::doc().schema
    }
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
            .map(|(i, h)| (h.name.as_str(), i as u32));
        Hosts {
            topo,
            ids: ids.collect(),
        }
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
    /// Directory of the scenario file, for relative paths.
    pub base_dir: &'a Path,
    /// The built topology, when known.
    pub topology: Option<&'a Topology>,
    /// `sim.duration`, when valid.
    pub duration: Option<Time>,
    /// `sim.seed`.
    pub seed: u64,
}

impl Env<'_> {
    /// The host named by `f` (required), when the topology is known.
    pub fn host(&self, ctx: &mut Ctx, f: &V<Str>) -> Option<u32> {
        let name = ctx.req(f, "a host name")?;
        match self.hosts.as_ref()?.id(&name) {
            Ok(i) => Some(i),
            Err(e) => {
                ctx.err(&f.key, e);
                None
            }
        }
    }
    /// The default DSCP of flows from `host`: its `nic.dscp`.
    pub fn dscp_of(&self, host: u32) -> u8 {
        self.nics
            .and_then(|n| n.get(host as usize))
            .map_or(NicParams::default().dscp, |n| n.dscp)
    }
}

/// One explicit flow and whether it gave its source port.
fn flow(ctx: &mut Ctx, env: &Env<'_>, t: &Flow) -> Option<(FlowSpec, bool)> {
    let before = ctx.count();
    let (name, src_name, dst_name) = (ctx.get(&t.name), ctx.get(&t.src), ctx.get(&t.dst));
    let size = ctx.req(&t.size, "\"inf\" or a size like \"1MB\"");
    let (start, dscp) = (ctx.or(&t.start, Time::ZERO), ctx.get(&t.dscp));
    let kind = ctx.or(&t.kind, FlowKind::RdmaWrite);
    let (rate_limit, sport) = (ctx.get(&t.rate), ctx.get(&t.sport).map(|x| x as u16));
    if let (Some(s), Some(d)) = (&src_name, &dst_name) {
        if s == d {
            ctx.err(&t.dst.key, format!("a flow cannot go from `{s}` to itself"));
        }
    }
    let (src, dst) = (env.host(ctx, &t.src), env.host(ctx, &t.dst));
    if ctx.count() != before {
        return None;
    }
    let src = src?;
    let f = FlowSpec {
        name: name.map(String::into_boxed_str),
        src,
        dst: dst?,
        size: size?,
        start: start?,
        dscp: dscp.unwrap_or_else(|| env.dscp_of(src)),
        kind: kind?,
        rate_limit,
        sport: sport.unwrap_or(0),
        after: None,
    };
    Some((f, sport.is_some()))
}

/// Check `[[flow]]` and `[[workload]]` (their tables with dotted keys) and return every flow
/// (explicit ones first, then each workload's in order). Source ports not given are derived
/// from `sim.seed` and the flow index.
pub fn parse(
    ctx: &mut Ctx,
    flows: &[(String, toml::Table)],
    workloads: &[(String, toml::Table)],
    env: &Env<'_>,
) -> Option<Vec<FlowSpec>> {
    let before = ctx.count();
    let mut out: Vec<(FlowSpec, bool)> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for (p, t) in flows {
        if let Some(toml::Value::String(n)) = t.get("name") {
            if !names.insert(n.clone()) {
                ctx.err(
                    at(p, "name"),
                    format!("another flow is already named `{n}`"),
                );
            }
        }
        let v = toml::Value::Table(t.clone());
        if let Some(f) = Flow::read(ctx, &v, p).and_then(|t| flow(ctx, env, &t)) {
            out.push(f);
        }
    }
    for (i, (p, t)) in workloads.iter().enumerate() {
        if let Some(fs) = workload::flows(ctx, env, t, p, i) {
            // Chains (`after`) are local to the workload; ports a generator drew are kept.
            let base = out.len() as u32;
            out.extend(fs.into_iter().map(|mut f| {
                f.after = f.after.map(|a| a + base);
                let given = f.sport != 0;
                (f, given)
            }));
        }
    }
    if ctx.count() != before || env.hosts.is_none() {
        return None;
    }
    let with_ports = out.into_iter().enumerate().map(|(i, (mut f, given))| {
        if !given {
            f.sport = crate::traffic::flow::default_sport(env.seed, i);
        }
        f
    });
    Some(with_ports.collect())
}
