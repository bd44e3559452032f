//! `[[flow]]`: explicit flows; and the assembly of every flow of the scenario (explicit ones
//! first, then each `[[workload]]`'s), with their default UDP source ports.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::check::{at, Ctx};
use super::declare::{Leaf, SubTable, TypeDoc, V};
use super::leaf::{choice, leaf, Dscp, FlowSize, Int, RateV, Size, Str, TimeV};
use super::lists::Items;
use super::suggest;
use super::tcp::TcpCcV;
use super::workload::{self, Generated};
use crate::nic::params::NicParams;
use crate::nic::tcp::TcpCc;
use crate::table;
use crate::topology::Topology;
use crate::traffic::flow::FlowMem;
use crate::traffic::stream::FlowStream;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;
use toml::Value;

choice!(/// The operation of a flow (the TCP algorithm is set after, from `cc`).
    FlowKindV -> FlowKind { "rdma_write" => FlowKind::RdmaWrite, "rdma_read" => FlowKind::RdmaRead,
        "rdma_send" => FlowKind::RdmaSend, "tcp" => FlowKind::Tcp(TcpCc::Cubic) });

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
        /// DSCP of its data packets. Default: `nic.dscp` of `src`; `0` for TCP flows.
        dscp: Dscp,
        /// Operation: an RDMA WRITE, READ or SEND on its own QP, or a TCP connection (see
        /// `[tcp]`). Default: `"rdma_write"`.
        kind: FlowKindV,
        /// TCP flows only: window algorithm, `newreno`, `cubic` or `dctcp`.
        /// Default: `tcp.cc`.
        cc: TcpCcV,
        /// Pacing: the sender never exceeds this rate. Default: none.
        rate: RateV,
        /// Name in results; unique. Default: the flow id.
        name: Str,
        /// UDP source port (hashed by ECMP). Default: a deterministic function of `sim.seed`
        /// and the flow's index, in 49152–65535.
        sport: Int<0, 65535>,
        /// Registered memory region its operations touch at the side that translates
        /// addresses (the responder of a WRITE or SEND, the requester of a READ: the receiver
        /// of its data); one MTT entry per page (`nic.cache`). Default: the message size
        /// (`"1MiB"` for a long-lived flow).
        region: Region,
        /// How its packets walk the region: `"sequential"` or `"random"` (uniform MTU-aligned
        /// offsets drawn from the receiving NIC's seeded stream). Default: `"sequential"`.
        access: AccessV,
        /// Queue pairs carrying it between the same two hosts, each with its own PSN space,
        /// UDP source port and congestion control, the bytes split evenly; flows.csv keeps
        /// one row (sums). Default: `1`.
        qps: Qps,
    }
}

choice!(/// How a flow's packets walk its memory region (→ random).
    AccessV -> bool { "sequential" => false, "random" => true });

/// Queue pairs of one flow: 1 to 2^24 (the QP number space of a BTH).
pub type Qps = Int<1, { crate::traffic::flow::MAX_QPS as i64 }>;

leaf!(/// A registered memory region: a size above zero, at most 1 TiB.
Region -> u64, "size > 0, at most 1TiB", <Size as Leaf>::doc().schema, |c, v, k| {
    match Size::read(c, v, k)?.0 {
        0 => {
            c.err(k, "a memory region must be positive");
            None
        }
        b if b > 1 << 40 => {
            c.err(k, format!("{b} bytes is above the largest region, 1TiB"));
            None
        }
        b => Some(b),
    }
});

/// The `region`, `access` and `qps` keys of a flow or workload; `None` after errors.
pub fn mem_keys(
    ctx: &mut Ctx,
    region: &V<Region>,
    access: &V<AccessV>,
    qps: &V<Qps>,
) -> Option<FlowMem> {
    let r = ctx.get(region);
    let a = ctx.or(access, false);
    let q = ctx.or(qps, 1);
    if region.given() && r.is_none() {
        return None;
    }
    Some(FlowMem {
        region: r,
        random: a?,
        qps: q? as u32,
        ..FlowMem::default()
    })
}

/// `size` must give each of `qps` QPs at least a byte.
pub fn check_split(ctx: &mut Ctx, key: &str, size: Option<u64>, mem: &FlowMem) -> bool {
    match size {
        Some(s) if s < u64::from(mem.qps) => {
            let q = mem.qps;
            ctx.err(
                key,
                format!("{q} QPs need at least {q} bytes; the flow has {s}"),
            );
            false
        }
        _ => true,
    }
}

/// `region`, `access` and `qps` of the workload (or flow) table `t` at `p`.
pub(super) fn memory(ctx: &mut Ctx, t: &toml::Table, p: &str) -> Option<FlowMem> {
    mem_keys(
        ctx,
        &V::of(t.get("region"), p, "region"),
        &V::of(t.get("access"), p, "access"),
        &V::of(t.get("qps"), p, "qps"),
    )
}

/// Give every flow of the workload at `p` its memory keys `mem`; `None` (with an error on
/// `qps`) when a flow is too small to give each QP a byte.
pub(super) fn with_memory(
    ctx: &mut Ctx,
    p: &str,
    mut flows: Vec<FlowSpec>,
    mem: FlowMem,
) -> Option<Vec<FlowSpec>> {
    let qps_key = at(p, "qps");
    for x in &mut flows {
        x.set_mem(mem);
        if !check_split(ctx, &qps_key, x.size, &mem) {
            return None;
        }
    }
    Some(flows)
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
    /// `tcp.cc`: the window algorithm of TCP flows that name none.
    pub tcp_cc: TcpCc,
    /// `topology.ecmp_hash`: with `"ns3"`, flows without a given port get ns-3's.
    pub ecmp_hash: crate::fabric::params::EcmpHash,
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
    /// The kind of a flow with operation `kind` and TCP algorithm `cc` (at key `key`), or
    /// an error when `cc` is given for an RDMA flow.
    pub fn kind_with_cc(
        &self,
        ctx: &mut Ctx,
        kind: FlowKind,
        cc: Option<TcpCc>,
        key: &str,
    ) -> Option<FlowKind> {
        match (kind, cc) {
            (FlowKind::Tcp(_), c) => Some(FlowKind::Tcp(c.unwrap_or(self.tcp_cc))),
            (_, Some(_)) => {
                ctx.err(key, "`cc` applies only to TCP flows (kind = \"tcp\")");
                None
            }
            (k, None) => Some(k),
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
    let cc = ctx.get(&t.cc);
    let kind = kind.and_then(|k| env.kind_with_cc(ctx, k, cc, &t.cc.key));
    let (rate_limit, sport) = (ctx.get(&t.rate), ctx.get(&t.sport).map(|x| x as u16));
    let mem = mem_keys(ctx, &t.region, &t.access, &t.qps);
    if let (Some(Some(s)), Some(m)) = (&size, &mem) {
        check_split(ctx, &t.qps.key, Some(*s), m);
    }
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
    let dscp = dscp.unwrap_or_else(|| match kind {
        Some(FlowKind::Tcp(_)) => 0,
        _ => env.dscp_of(src),
    });
    let mut f = FlowSpec::new(src, dst?, size?, start?, dscp, kind?);
    f.sport = sport.unwrap_or(0);
    f.set_name(name.map(String::into_boxed_str));
    f.set_rate_limit(rate_limit);
    f.set_mem(mem?);
    Some((f, sport.is_some()))
}

/// The most flows a scenario may define, explicit and generated together (the cap of one
/// workload, [`crate::traffic::workload::MAX_GENERATED_FLOWS`], applied to them all).
pub const MAX_FLOWS: usize = crate::traffic::workload::MAX_GENERATED_FLOWS as usize;

/// Check `[[flow]]` and `[[workload]]` (their tables with dotted keys) and return every flow
/// (explicit ones first, then each workload's in order): the listed flows, and the trailing
/// generic Poisson workloads as streams (`traffic::stream`) numbered after them. Source ports
/// not given are derived from `sim.seed` and the flow index.
pub fn parse(
    ctx: &mut Ctx,
    flows: &[(String, toml::Table)],
    workloads: &[(String, toml::Table)],
    env: &Env<'_>,
) -> Option<(Vec<FlowSpec>, Vec<FlowStream>)> {
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
    // Streams stay streams only while no listed workload follows them.
    let mut streams: Vec<FlowStream> = Vec::new();
    for (i, (p, t)) in workloads.iter().enumerate() {
        let Some(g) = workload::flows(ctx, env, t, p, i) else {
            continue;
        };
        let fs = match g {
            Generated::Listed(fs) => Some(fs),
            Generated::Stream(a, style) => {
                streams.push(FlowStream::new(a, style, 0));
                None
            }
        };
        // Each generator caps its own flows; the workloads together are capped too, so
        // that many of them cannot build a list of tens of millions before the memory
        // estimate sees it (the generated-scenario test found a 6.4 GB list).
        let total = out.len() + streams.iter().map(|s| s.count as usize).sum::<usize>();
        let total = total + fs.as_ref().map_or(0, Vec::len);
        if total > MAX_FLOWS {
            let msg = format!(
                "the flows and workloads up to this one generate {total} flows, more than \
                 {MAX_FLOWS} in all: shorten `until`, lower `load` or `count`, or split the run"
            );
            ctx.err(p.to_string(), msg);
            return None;
        }
        if let Some(fs) = fs {
            list_streams(&mut out, &mut streams);
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
    let ns3 = env.ecmp_hash == crate::fabric::params::EcmpHash::Ns3;
    if ns3 {
        // ns-3's source ports count earlier flows of a pair over the whole list.
        list_streams(&mut out, &mut streams);
    }
    let mut first = out.len() as u32;
    for s in &mut streams {
        s.first = first;
        first = s.end();
    }
    let ns3_ports = if ns3 { ns3_sports(&out) } else { Vec::new() };
    let with_ports = out.into_iter().enumerate().map(|(i, (mut f, given))| {
        if !given {
            f.sport = match ns3 {
                true => ns3_ports[i],
                false => crate::traffic::flow::default_sport(env.seed, i),
            };
        }
        f
    });
    // Collected in place, the list would keep the (spec, port given) pairs' larger slots.
    let mut flows: Vec<FlowSpec> = with_ports.collect();
    flows.shrink_to_fit();
    Some((flows, streams))
}

/// Append the flows of `streams` to `out` as listed flows (a listed workload follows them),
/// with their source ports still to be derived.
fn list_streams(out: &mut Vec<(FlowSpec, bool)>, streams: &mut Vec<FlowStream>) {
    for s in streams.drain(..) {
        out.extend(s.iter().map(|(_, mut f)| {
            f.sport = 0;
            (f, false)
        }));
    }
}

/// ns-3's source ports (`third.cc`): flows start in start-time order and each takes
/// 10000 + the number of earlier flows with the same source and destination.
fn ns3_sports(flows: &[(FlowSpec, bool)]) -> Vec<u16> {
    let mut order: Vec<usize> = (0..flows.len()).collect();
    order.sort_by_key(|&i| (flows[i].0.start, i));
    let mut next: HashMap<(u32, u32), u16> = HashMap::new();
    let mut ports = vec![0u16; flows.len()];
    for i in order {
        let f = &flows[i].0;
        let n = next.entry((f.src, f.dst)).or_insert(0);
        ports[i] = crate::fabric::ns3_hash::NS3_FIRST_SPORT.wrapping_add(*n);
        *n = n.wrapping_add(1);
    }
    ports
}

#[cfg(test)]
mod ns3_port_tests {
    use super::*;

    #[test]
    fn ns3_ports_count_earlier_flows_of_the_same_pair_in_start_order() {
        // third.cc: portNumder[src][dst] starts at 10000 and counts up as flows start.
        let f = |src, dst, start_us| {
            let mut spec = crate::sim::testkit::flow(src, dst, Some(1000), Time::from_us(start_us));
            spec.sport = 0;
            (spec, false)
        };
        // Listed out of start order: the port follows the start time.
        let flows = [f(0, 1, 5), f(0, 1, 1), f(1, 0, 2), f(0, 1, 9), f(0, 2, 3)];
        assert_eq!(ns3_sports(&flows), vec![10001, 10000, 10000, 10002, 10000]);
    }
}
