//! `[[fault]]`: NIC RX stalls, link failures and packet loss.

use toml::{Table, Value};

use super::check::{at, idx, Ctx};
use super::suggest;
use crate::faults::{FaultKind, FaultSpec};
use crate::topology::{NodeRef, Topology};
use crate::units::Time;

/// Fault kinds; the last two are known but not supported yet.
pub const KINDS: &[&str] = &[
    "nic_rx_stall",
    "link_down",
    "link_up",
    "loss",
    "route_override",
    "mac_age_out",
];
const LATER: &[&str] = &[];

fn node_name(topo: &Topology, n: NodeRef) -> &str {
    match n {
        NodeRef::Host(i) => topo.hosts.get(i as usize).map_or("?", |h| h.name.as_str()),
        NodeRef::Switch(i) => topo
            .switches
            .get(i as usize)
            .map_or("?", |s| s.name.as_str()),
    }
}

fn find_node(topo: &Topology, name: &str) -> Result<NodeRef, String> {
    if let Some(i) = topo.hosts.iter().position(|h| h.name == name) {
        return Ok(NodeRef::Host(i as u32));
    }
    if let Some(i) = topo.switches.iter().position(|s| s.name == name) {
        return Ok(NodeRef::Switch(i as u32));
    }
    let all = topo
        .hosts
        .iter()
        .map(|h| h.name.as_str())
        .chain(topo.switches.iter().map(|s| s.name.as_str()));
    Err(format!("unknown node `{name}`{}", suggest::hint(name, all)))
}

/// `link = ["a", "b"]`: the index of the first link between those nodes, and the two ends.
fn link(ctx: &mut Ctx, v: &Value, key: &str, topo: Option<&Topology>) -> Option<(u32, NodeRef)> {
    let pair = match v {
        Value::Array(a) if a.len() == 2 => {
            let x = ctx.string(&a[0], &idx(key, 0));
            let y = ctx.string(&a[1], &idx(key, 1));
            (x?, y?)
        }
        _ => {
            ctx.expected(key, "a pair of node names like [\"S1\", \"S2\"]", v);
            return None;
        }
    };
    let topo = topo?;
    let a = find_node(topo, &pair.0)
        .map_err(|e| ctx.err(idx(key, 0), e))
        .ok();
    let b = find_node(topo, &pair.1)
        .map_err(|e| ctx.err(idx(key, 1), e))
        .ok();
    let (a, b) = (a?, b?);
    match topo
        .links
        .iter()
        .position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
    {
        Some(i) => Some((i as u32, topo.links[i].a)),
        None => {
            ctx.err(
                key,
                format!("there is no link between `{}` and `{}`", pair.0, pair.1),
            );
            None
        }
    }
}

fn fault(
    ctx: &mut Ctx,
    t: &Table,
    p: &str,
    topo: Option<&Topology>,
    duration: Option<Time>,
) -> Option<FaultSpec> {
    let before = ctx.count();
    let kind = ctx.req(
        t,
        p,
        "kind",
        "nic_rx_stall, link_down, link_up or loss",
        |c, v, k| c.supported(v, k, KINDS, LATER),
    )?;
    let at_ = ctx.or(t, p, "at", Time::ZERO, Ctx::time);
    let until = ctx.opt(t, p, "until", Ctx::time);
    let mut keys = vec!["kind", "at", "until"];
    let fk = match kind {
        "nic_rx_stall" => {
            keys.push("host");
            ctx.keys(t, p, &keys);
            let name = ctx.req(t, p, "host", "a host name", Ctx::string);
            match (name, topo) {
                (Some(n), Some(topo)) => match topo.hosts.iter().position(|h| h.name == n) {
                    Some(i) => Some(FaultKind::NicRxStall { host: i as u32 }),
                    None => {
                        let hint = suggest::hint(&n, topo.hosts.iter().map(|h| h.name.as_str()));
                        ctx.err(at(p, "host"), format!("unknown host `{n}`{hint}"));
                        None
                    }
                },
                _ => None,
            }
        }
        "route_override" | "mac_age_out" => {
            let route = kind == "route_override";
            keys.extend(if route {
                &["switch", "dst", "via"][..]
            } else {
                &["switch", "host"][..]
            });
            ctx.keys(t, p, &keys);
            let sw = ctx.req(t, p, "switch", "a switch name", Ctx::string);
            let host_key = if route { "dst" } else { "host" };
            let host = ctx.req(t, p, host_key, "a host name", Ctx::string);
            let via = if route {
                ctx.req(t, p, "via", "a neighbour's name", Ctx::string)
            } else {
                None
            };
            match (sw, host, topo) {
                (Some(sw), Some(host), Some(topo)) => {
                    let s = topo.switches.iter().position(|x| x.name == sw);
                    let h = topo.hosts.iter().position(|x| x.name == host);
                    if s.is_none() {
                        let hint =
                            suggest::hint(&sw, topo.switches.iter().map(|x| x.name.as_str()));
                        ctx.err(at(p, "switch"), format!("unknown switch `{sw}`{hint}"));
                    }
                    if h.is_none() {
                        let hint = suggest::hint(&host, topo.hosts.iter().map(|x| x.name.as_str()));
                        ctx.err(at(p, host_key), format!("unknown host `{host}`{hint}"));
                    }
                    match (s, h, route) {
                        (Some(s), Some(h), false) => Some(FaultKind::MacAgeOut {
                            switch: s as u32,
                            host: h as u32,
                        }),
                        (Some(s), Some(h), true) => {
                            let via = via?;
                            let me = NodeRef::Switch(s as u32);
                            let l = topo.links.iter().position(|l| {
                                (l.a == me && node_name(topo, l.b) == via)
                                    || (l.b == me && node_name(topo, l.a) == via)
                            });
                            match l {
                                Some(l) => Some(FaultKind::RouteOverride {
                                    switch: s as u32,
                                    dst: h as u32,
                                    link: l as u32,
                                }),
                                None => {
                                    ctx.err(
                                        at(p, "via"),
                                        format!("`{via}` is not a neighbour of `{sw}`"),
                                    );
                                    None
                                }
                            }
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        "link_down" | "link_up" => {
            keys.extend(["link", "reconverge"]);
            ctx.keys(t, p, &keys);
            let l = ctx.req(t, p, "link", "a pair of node names", |c, v, k| {
                link(c, v, k, topo)
            });
            let reconverge = ctx.or(t, p, "reconverge", Time::from_ms(1), Ctx::time)?;
            l.map(|(link, _)| {
                if kind == "link_down" {
                    FaultKind::LinkDown { link, reconverge }
                } else {
                    FaultKind::LinkUp { link, reconverge }
                }
            })
        }
        _ => {
            keys.extend(["link", "every", "probability", "from"]);
            ctx.keys(t, p, &keys);
            let l = ctx.req(t, p, "link", "a pair of node names", |c, v, k| {
                link(c, v, k, topo)
            });
            let every = ctx.opt(t, p, "every", |c, v, k| c.uint(v, k, 1, u64::MAX));
            let probability = ctx.opt(t, p, "probability", Ctx::probability);
            match (t.contains_key("every"), t.contains_key("probability")) {
                (true, true) => ctx.err(
                    at(p, "probability"),
                    "give either `every` or `probability`, not both",
                ),
                (false, false) => ctx.err(
                    p,
                    "a loss fault needs `every` (every Nth packet) or `probability`",
                ),
                _ => {}
            }
            let from = ctx.opt(t, p, "from", Ctx::string);
            match (l, topo) {
                (Some((link, a)), Some(topo)) => {
                    let lk = &topo.links[link as usize];
                    let from_a = match &from {
                        None => Some(None),
                        Some(n) if n == node_name(topo, a) => Some(Some(true)),
                        Some(n) if n == node_name(topo, lk.b) => Some(Some(false)),
                        Some(n) => {
                            ctx.err(at(p, "from"), format!("`{n}` is not an end of the link"));
                            None
                        }
                    };
                    from_a.map(|from_a| FaultKind::Loss {
                        link,
                        from_a,
                        every,
                        probability,
                    })
                }
                _ => None,
            }
        }
    };
    if let (Some(a), Some(d)) = (at_, duration) {
        if a > d {
            ctx.err(
                at(p, "at"),
                format!("{a} is after the end of the run ({d})"),
            );
        }
    }
    if let Some(u) = until {
        if let Some(d) = duration.filter(|d| u > *d) {
            ctx.err(
                at(p, "until"),
                format!("{u} is after the end of the run ({d})"),
            );
        }
        if let Some(a) = at_.filter(|a| u <= *a) {
            ctx.err(at(p, "until"), format!("{u} is not after `at` ({a})"));
        }
    }
    if ctx.count() != before {
        return None;
    }
    Some(FaultSpec {
        kind: fk?,
        at: at_?,
        until,
    })
}

/// Check every `[[fault]]`. `None` when there are errors or the topology is unknown.
pub fn parse(
    ctx: &mut Ctx,
    root: &Table,
    topo: Option<&Topology>,
    duration: Option<Time>,
) -> Option<Vec<FaultSpec>> {
    let before = ctx.count();
    let mut out = Vec::new();
    match root.get("fault") {
        None => {}
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                let p = idx("fault", i);
                if let Some(t) = ctx.table(v, &p) {
                    if let Some(f) = fault(ctx, t, &p, topo, duration) {
                        out.push(f);
                    }
                }
            }
        }
        Some(v) => ctx.expected("fault", "an array of tables ([[fault]])", v),
    }
    (ctx.count() == before && topo.is_some()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{HostSpec, LinkSpec, SwitchSpec};
    use crate::units::Rate;

    fn topo() -> Topology {
        let l = |a, b| LinkSpec {
            a,
            b,
            rate: Rate::gbps(40),
            delay: Time::from_us(1),
        };
        Topology {
            hosts: ["A", "B"]
                .iter()
                .map(|n| HostSpec {
                    name: n.to_string(),
                    pod: None,
                })
                .collect(),
            switches: ["S1", "S2"]
                .iter()
                .map(|n| SwitchSpec {
                    name: n.to_string(),
                    role: "switch".into(),
                    pod: None,
                })
                .collect(),
            links: vec![
                l(NodeRef::Host(0), NodeRef::Switch(0)),
                l(NodeRef::Switch(0), NodeRef::Switch(1)),
                l(NodeRef::Host(1), NodeRef::Switch(1)),
            ],
        }
    }

    fn run(s: &str) -> (Option<Vec<FaultSpec>>, Ctx) {
        let t = topo();
        let mut ctx = Ctx::new("f.toml");
        let r = parse(
            &mut ctx,
            &s.parse().unwrap(),
            Some(&t),
            Some(Time::from_ms(10)),
        );
        (r, ctx)
    }

    #[test]
    fn valid_faults() {
        let (f, ctx) = run(r#"
            [[fault]]
            kind = "nic_rx_stall"
            host = "B"
            at = "5ms"
            until = "6ms"
            [[fault]]
            kind = "link_down"
            link = ["S2", "S1"]
            at = "1ms"
            [[fault]]
            kind = "loss"
            link = ["S1", "S2"]
            every = 256
            from = "S2"
            at = "0us"
            "#);
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let f = f.unwrap();
        assert_eq!(f[0].kind, FaultKind::NicRxStall { host: 1 });
        assert_eq!(f[0].until, Some(Time::from_ms(6)));
        assert_eq!(
            f[1].kind,
            FaultKind::LinkDown {
                link: 1,
                reconverge: Time::from_ms(1)
            }
        );
        assert_eq!(
            f[2].kind,
            FaultKind::Loss {
                link: 1,
                from_a: Some(false),
                every: Some(256),
                probability: None
            }
        );
    }

    #[test]
    fn fault_errors() {
        let (f, ctx) = run(r#"
            [[fault]]
            kind = "nic_rx_stall"
            host = "Bb"
            at = "20ms"
            [[fault]]
            kind = "link_down"
            link = ["A", "S2"]
            at = "1ms"
            until = "1ms"
            [[fault]]
            kind = "loss"
            link = ["S1", "S3"]
            probability = 2.0
            at = "1ms"
            [[fault]]
            kind = "mac_age_out"
            at = "1ms"
            [[fault]]
            kind = "route_override"
            switch = "S1"
            dst = "A"
            via = "S9"
            "#);
        assert!(f.is_none());
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "fault[0].host",
            "fault[0].at",
            "fault[1].link",
            "fault[1].until",
            "fault[2].link[1]",
            "fault[2].probability",
            "fault[3].switch",
            "fault[3].host",
            "fault[4].via",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
    }
}
