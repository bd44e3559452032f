//! `[[fault]]`: NIC RX stalls, link failures, packet loss, static routes and MAC age-outs;
//! each kind is its own declared table.

use toml::Value;

use super::check::{at, idx, Ctx};
use super::declare::{KeyDoc, Leaf, Table, V};
use super::leaf::{choice, Int, Prob, Str, TimeV};
use super::lists::{kinds_schema, Items, NodePair};
use super::suggest;
use crate::faults::{FaultKind, FaultSpec};
use crate::table;
use crate::topology::{NodeRef, Topology};
use crate::units::Time;

choice!(/// Which frames a loss fault drops.
    FramesV ["data", "all"] later []);
choice!(/// What goes wrong.
    KindV ["nic_rx_stall", "link_down", "link_up", "loss", "route_override", "mac_age_out"]
    later []);

table! {
    /// `kind = "nic_rx_stall"`: the host's NIC stops its receive pipeline and pauses its
    /// switch without end (a PFC storm) unless the NIC watchdog stops it.
    pub struct RxStall {
        /// `"nic_rx_stall"`. Required.
        kind: KindV,
        /// When it starts; not after `sim.duration`. Default: `"0us"`.
        at: TimeV,
        /// When it is cleared; after `at`, not after `sim.duration`. Default: never.
        until: TimeV,
        /// The host whose receive pipeline stops. Required.
        host: Str,
    }
}

table! {
    /// `kind = "link_down"` or `"link_up"`: a link stops (or resumes) carrying packets.
    pub struct LinkChange {
        /// `"link_down"` or `"link_up"`. Required.
        kind: KindV,
        /// When it happens. Default: `"0us"`.
        at: TimeV,
        /// When it is cleared. Default: never.
        until: TimeV,
        /// The two ends of an existing link (either order). Required.
        link: NodePair,
        /// Routing reconverges this long after the change; until then packets follow the
        /// stale routes. Default: `"1ms"`.
        reconverge: TimeV,
    }
}

table! {
    /// `kind = "loss"`: frames crossing a link are dropped; give `every` or `probability`,
    /// not both. Each direction of each link draws from its own random stream.
    pub struct Loss {
        /// `"loss"`. Required.
        kind: KindV,
        /// When it starts. Default: `"0us"`.
        at: TimeV,
        /// When it is cleared. Default: never.
        until: TimeV,
        /// The two ends of an existing link (either order). Required.
        link: NodePair,
        /// Drop every Nth frame (data packets, or all frames with `frames = "all"`;
        /// deterministic); at least 1. Default: none.
        every: Int<1, { i64::MAX }>,
        /// Drop each frame (data packets, or all frames with `frames = "all"`) with this
        /// probability. Default: none.
        probability: Prob,
        /// Only packets leaving this end of the link. Default: both directions.
        from: Str,
        /// `"data"`: data packets only; `"all"`: ACK, NAK, CNP and PFC frames too (counted
        /// in `every` alike). Default: `"data"`.
        frames: FramesV,
    }
}

table! {
    /// `kind = "route_override"` or `"mac_age_out"`: a static route on a switch (two of
    /// them make a routing loop), or a switch forgetting a host's MAC while its ARP entry
    /// lives (lossless packets to it are flooded).
    pub struct SwitchFault {
        /// `"route_override"` or `"mac_age_out"`. Required.
        kind: KindV,
        /// When it starts. Default: `"0us"`.
        at: TimeV,
        /// When it is cleared. Default: never.
        until: TimeV,
        /// The switch. Required.
        switch: Str,
        /// `route_override`: the destination host. Default: required for that kind.
        dst: Str,
        /// `route_override`: the neighbour the switch sends `dst`'s packets to. Default:
        /// required for that kind.
        via: Str,
        /// `mac_age_out`: the host whose MAC the switch forgets. Default: required for that kind.
        host: Str,
    }
}

/// The key tables of the fault kinds, for the docs.
pub const KINDS: &[(&str, &[KeyDoc])] = &[
    ("fault.nic_rx_stall", RxStall::KEYS),
    ("fault.link_down", LinkChange::KEYS),
    ("fault.loss", Loss::KEYS),
    ("fault.route_override", SwitchFault::KEYS),
];

/// Elements of `[[fault]]`.
pub struct FaultItems;
impl Items for FaultItems {
    fn schema() -> serde_json::Value {
        kinds_schema(KINDS)
    }
}

fn node_name(topo: &Topology, n: NodeRef) -> &str {
    match n {
        NodeRef::Host(i) => &topo.hosts[i as usize].name,
        NodeRef::Switch(i) => &topo.switches[i as usize].name,
    }
}

fn find_node(topo: &Topology, name: &str) -> Result<NodeRef, String> {
    if let Some(n) = crate::topology::node_by_name(topo, name) {
        return Ok(n);
    }
    let hosts = topo.hosts.iter().map(|h| h.name.as_str());
    let all = hosts.chain(topo.switches.iter().map(|s| s.name.as_str()));
    Err(format!("unknown node `{name}`{}", suggest::hint(name, all)))
}

/// `link = ["a", "b"]`: the index of the first link between those nodes, and its `a` end.
fn link(c: &mut Ctx, f: &V<NodePair>, topo: Option<&Topology>) -> Option<(u32, NodeRef)> {
    let (x, y) = c.req(f, "a pair of node names")?;
    let topo = topo?;
    let a = find_node(topo, &x)
        .map_err(|e| c.err(idx(&f.key, 0), e))
        .ok();
    let b = find_node(topo, &y)
        .map_err(|e| c.err(idx(&f.key, 1), e))
        .ok();
    let (a, b) = (a?, b?);
    let i = topo
        .links
        .iter()
        .position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a));
    match i {
        Some(i) => Some((i as u32, topo.links[i].a)),
        None => {
            c.err(&f.key, format!("there is no link between `{x}` and `{y}`"));
            None
        }
    }
}

/// The index of the node named by `f` among `names` (`what`: host or switch).
fn named<'a, I: Iterator<Item = &'a str> + Clone>(
    c: &mut Ctx,
    f: &V<Str>,
    what: &str,
    names: Option<I>,
) -> Option<u32> {
    let n = c.req(f, &format!("a {what} name"))?;
    let mut names = names?;
    match names.clone().position(|x| x == n) {
        Some(i) => Some(i as u32),
        None => {
            let hint = suggest::hint(&n, names.by_ref());
            c.err(&f.key, format!("unknown {what} `{n}`{hint}"));
            None
        }
    }
}

fn hosts(topo: Option<&Topology>) -> Option<impl Iterator<Item = &str> + Clone> {
    topo.map(|t| t.hosts.iter().map(|h| h.name.as_str()))
}

fn switches(topo: Option<&Topology>) -> Option<impl Iterator<Item = &str> + Clone> {
    topo.map(|t| t.switches.iter().map(|s| s.name.as_str()))
}

fn loss(c: &mut Ctx, t: &Loss, topo: Option<&Topology>, p: &str) -> Option<FaultKind> {
    let l = link(c, &t.link, topo);
    let every = c.get(&t.every).map(|x| x as u64);
    let probability = c.get(&t.probability);
    match (t.every.given(), t.probability.given()) {
        (true, true) => c.err(
            &t.probability.key,
            "give either `every` or `probability`, not both",
        ),
        (false, false) => c.err(
            p,
            "a loss fault needs `every` (every Nth packet) or `probability`",
        ),
        _ => {}
    }
    let from = c.get(&t.from);
    let all_frames = c.get(&t.frames) == Some("all");
    let (topo, (link, a)) = (topo?, l?);
    let lk = &topo.links[link as usize];
    let from_a = match from {
        None => None,
        Some(n) if n == node_name(topo, a) => Some(true),
        Some(n) if n == node_name(topo, lk.b) => Some(false),
        Some(n) => {
            c.err(&t.from.key, format!("`{n}` is not an end of the link"));
            return None;
        }
    };
    Some(FaultKind::Loss {
        link,
        from_a,
        every,
        probability,
        all_frames,
    })
}

fn switch_fault(
    c: &mut Ctx,
    t: &SwitchFault,
    topo: Option<&Topology>,
    kind: &str,
) -> Option<FaultKind> {
    let route = kind == "route_override";
    let (host, other) = if route {
        (&t.dst, &t.host)
    } else {
        (&t.host, &t.dst)
    };
    for f in [other]
        .into_iter()
        .chain((!route).then_some(&t.via))
        .filter(|f| f.given())
    {
        c.unknown_key(&f.key);
    }
    let sw_name = c.req(&t.switch, "a switch name");
    let s = sw_name
        .as_ref()
        .and_then(|_| named(c, &t.switch, "switch", switches(topo)));
    let h = named(c, host, "host", hosts(topo));
    if !route {
        return Some(FaultKind::MacAgeOut {
            switch: s?,
            host: h?,
        });
    }
    let via = c.req(&t.via, "a neighbour's name")?;
    let (topo, s, h) = (topo?, s?, h?);
    let me = NodeRef::Switch(s);
    let l = topo.links.iter().position(|l| {
        (l.a == me && node_name(topo, l.b) == via) || (l.b == me && node_name(topo, l.a) == via)
    });
    match l {
        Some(l) => Some(FaultKind::RouteOverride {
            switch: s,
            dst: h,
            link: l as u32,
        }),
        None => {
            let sw = sw_name.unwrap_or_default();
            c.err(&t.via.key, format!("`{via}` is not a neighbour of `{sw}`"));
            None
        }
    }
}

/// The kind-specific part of the fault at `p`.
fn kind(c: &mut Ctx, v: &Value, p: &str, kind: &str, topo: Option<&Topology>) -> Option<FaultKind> {
    match kind {
        "nic_rx_stall" => c.with(v, p, |c, t: &RxStall| {
            let host = named(c, &t.host, "host", hosts(topo))?;
            Some(FaultKind::NicRxStall { host })
        }),
        "link_down" | "link_up" => c.with(v, p, |c, t: &LinkChange| {
            let l = link(c, &t.link, topo);
            let reconverge = c.or(&t.reconverge, Time::from_ms(1))?;
            let link = l?.0;
            Some(if kind == "link_down" {
                FaultKind::LinkDown { link, reconverge }
            } else {
                FaultKind::LinkUp { link, reconverge }
            })
        }),
        "loss" => c.with(v, p, |c, t| loss(c, t, topo, p)),
        _ => c.with(v, p, |c, t| switch_fault(c, t, topo, kind)),
    }
}

/// The times of the fault at `p`, checked against the run's `duration`.
fn times(c: &mut Ctx, v: &Value, p: &str, duration: Option<Time>) -> (Option<Time>, Option<Time>) {
    let (at_f, until_f) = (
        V::<TimeV>::of(v.get("at"), p, "at"),
        V::<TimeV>::of(v.get("until"), p, "until"),
    );
    let at_ = c.or(&at_f, Time::ZERO);
    let until = c.get(&until_f);
    if let (Some(a), Some(d)) = (at_, duration.filter(|d| at_.is_some_and(|a| a > *d))) {
        c.err(&at_f.key, format!("{a} is after the end of the run ({d})"));
    }
    if let Some(u) = until {
        if let Some(d) = duration.filter(|d| u > *d) {
            c.err(
                &until_f.key,
                format!("{u} is after the end of the run ({d})"),
            );
        }
        if let Some(a) = at_.filter(|a| u <= *a) {
            c.err(&until_f.key, format!("{u} is not after `at` ({a})"));
        }
    }
    (at_, until)
}

/// Check every `[[fault]]` (each table with its dotted key); `None` when there are errors
/// or the topology is unknown.
pub fn parse(
    c: &mut Ctx,
    faults: &[(String, toml::Table)],
    topo: Option<&Topology>,
    duration: Option<Time>,
) -> Option<Vec<FaultSpec>> {
    let before = c.count();
    let mut out = Vec::new();
    for (p, t) in faults {
        let Some(k) = t.get("kind") else {
            let msg = "missing required key `kind` (nic_rx_stall, link_down, link_up or loss)";
            c.err(at(p, "kind"), msg);
            continue;
        };
        let Some(k) = KindV::read(c, k, &at(p, "kind")) else {
            continue;
        };
        let v = Value::Table(t.clone());
        let fk = kind(c, &v, p, k, topo);
        let (at_, until) = times(c, &v, p, duration);
        if let (Some(kind), Some(at)) = (fk, at_) {
            out.push(FaultSpec { kind, at, until });
        }
    }
    (c.count() == before && topo.is_some()).then_some(out)
}
