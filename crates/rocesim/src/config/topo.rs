//! `[topology]`: the explicit list form or one of the generated kinds, checked and built.

use toml::{Table, Value};

use super::check::{at, idx, Ctx};
use crate::topology::{self, ExplicitLink, LinkClass, Topology, TopologyDef};

/// Topology kinds, as written in `kind`.
pub const KINDS: &[&str] = &[
    "explicit",
    "star",
    "dumbbell",
    "chain",
    "ring",
    "leaf_spine",
    "fat_tree",
    "clos3",
];

/// Largest node count a generated topology may have (a guard against typos like `k = 4000`).
pub const MAX_NODES: u64 = 2_000_000;

const P: &str = "topology";

/// A `{ rate, delay }` link class.
pub fn link_class(ctx: &mut Ctx, v: &Value, key: &str) -> Option<LinkClass> {
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, &["rate", "delay"]);
    let rate = ctx.req(t, key, "rate", "a rate like \"40Gbps\"", Ctx::rate);
    let delay = ctx.req(t, key, "delay", "a time like \"1us\"", Ctx::time);
    Some(LinkClass {
        rate: rate?,
        delay: delay?,
    })
}

fn count(ctx: &mut Ctx, t: &Table, key: &str, what: &str) -> Option<u32> {
    ctx.req(t, P, key, what, |c, v, k| {
        c.uint(v, k, 1, 1_000_000).map(|x| x as u32)
    })
}

fn names(ctx: &mut Ctx, t: &Table, key: &str) -> Option<Vec<String>> {
    let full = at(P, key);
    let v = match t.get(key) {
        Some(v) => v,
        None => {
            ctx.err(
                full,
                format!("missing required key `{key}` (a list of names)"),
            );
            return None;
        }
    };
    let a = ctx.array(v, &full)?;
    let mut out = Vec::with_capacity(a.len());
    let mut ok = true;
    for (i, x) in a.iter().enumerate() {
        match ctx.string(x, &idx(&full, i)) {
            Some(s) if s.is_empty() => {
                ctx.err(idx(&full, i), "a name cannot be empty");
                ok = false;
            }
            Some(s) => out.push(s),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn explicit_link(ctx: &mut Ctx, v: &Value, key: &str) -> Option<ExplicitLink> {
    match v {
        Value::Array(a) => {
            if a.len() != 2 {
                ctx.err(
                    key,
                    format!("a link is a pair of node names, found {} elements", a.len()),
                );
                return None;
            }
            let x = ctx.string(&a[0], &idx(key, 0));
            let y = ctx.string(&a[1], &idx(key, 1));
            Some(ExplicitLink {
                a: x?,
                b: y?,
                rate: None,
                delay: None,
            })
        }
        Value::Table(t) => {
            ctx.keys(t, key, &["a", "b", "rate", "delay"]);
            let x = ctx.req(t, key, "a", "a node name", Ctx::string);
            let y = ctx.req(t, key, "b", "a node name", Ctx::string);
            let rate = ctx.opt(t, key, "rate", Ctx::rate);
            let delay = ctx.opt(t, key, "delay", Ctx::time);
            Some(ExplicitLink {
                a: x?,
                b: y?,
                rate,
                delay,
            })
        }
        _ => {
            ctx.expected(
                key,
                "a pair [\"A\", \"S1\"] or a table { a, b, rate, delay }",
                v,
            );
            None
        }
    }
}

fn explicit(ctx: &mut Ctx, t: &Table) -> Option<TopologyDef> {
    ctx.keys(t, P, &["kind", "hosts", "switches", "links", "link"]);
    let hosts = names(ctx, t, "hosts");
    let switches = names(ctx, t, "switches");
    let mut links = Vec::new();
    let mut links_ok = true;
    match t.get("links") {
        None => {
            ctx.err(
                at(P, "links"),
                "missing required key `links` (a list of [a, b] pairs)",
            );
            links_ok = false;
        }
        Some(v) => {
            let key = at(P, "links");
            match ctx.array(v, &key) {
                Some(a) => {
                    for (i, x) in a.iter().enumerate() {
                        match explicit_link(ctx, x, &idx(&key, i)) {
                            Some(l) => links.push(l),
                            None => links_ok = false,
                        }
                    }
                }
                None => links_ok = false,
            }
        }
    }
    let all_given = links.iter().all(|l| l.rate.is_some() && l.delay.is_some());
    let link = match t.get("link") {
        Some(v) => link_class(ctx, v, &at(P, "link")),
        None if links_ok && all_given => {
            // Every link names its own rate and delay; the default is never used.
            Some(LinkClass {
                rate: crate::units::Rate::gbps(100),
                delay: crate::units::Time::ZERO,
            })
        }
        None => {
            ctx.err(
                at(P, "link"),
                "missing required key `link` (the default { rate, delay } of links that give none)",
            );
            None
        }
    };
    if !links_ok {
        return None;
    }
    Some(TopologyDef::Explicit {
        hosts: hosts?,
        switches: switches?,
        links,
        link: link?,
    })
}

fn class(ctx: &mut Ctx, t: &Table, key: &str) -> Option<LinkClass> {
    match t.get(key) {
        Some(v) => link_class(ctx, v, &at(P, key)),
        None => {
            ctx.err(
                at(P, key),
                format!("missing required key `{key}` ({{ rate, delay }})"),
            );
            None
        }
    }
}

/// `fabric_link`, defaulting to `dflt` when absent.
fn fabric(ctx: &mut Ctx, t: &Table, dflt: Option<LinkClass>) -> Option<LinkClass> {
    match t.get("fabric_link") {
        Some(v) => link_class(ctx, v, &at(P, "fabric_link")),
        None => dflt,
    }
}

fn too_big(ctx: &mut Ctx, nodes: u64) -> bool {
    if nodes > MAX_NODES {
        ctx.err(
            P,
            format!("this topology would have {nodes} nodes (at most {MAX_NODES})"),
        );
        true
    } else {
        false
    }
}

fn generated(ctx: &mut Ctx, t: &Table, kind: &str) -> Option<TopologyDef> {
    let before = ctx.count();
    let def = match kind {
        "star" => {
            ctx.keys(t, P, &["kind", "hosts", "link"]);
            let hosts = count(ctx, t, "hosts", "the number of hosts");
            let link = class(ctx, t, "link");
            TopologyDef::Star {
                hosts: hosts?,
                link: link?,
            }
        }
        "dumbbell" | "chain" | "ring" => {
            ctx.keys(
                t,
                P,
                &[
                    "kind",
                    "switches",
                    "hosts_per_switch",
                    "link",
                    "fabric_link",
                ],
            );
            let switches = if kind == "dumbbell" {
                match ctx.opt(t, P, "switches", |c, v, k| c.uint(v, k, 0, u32::MAX as u64)) {
                    Some(2) | None => Some(2),
                    Some(n) => {
                        ctx.err(
                            at(P, "switches"),
                            format!("a dumbbell has 2 switches, found {n}"),
                        );
                        None
                    }
                }
            } else {
                count(ctx, t, "switches", "the number of switches")
            };
            if kind == "ring" && matches!(switches, Some(1 | 2)) {
                ctx.err(at(P, "switches"), "a ring needs at least 3 switches");
            }
            let hps = count(ctx, t, "hosts_per_switch", "hosts attached to each switch");
            let link = class(ctx, t, "link");
            let fabric_link = fabric(ctx, t, link);
            let (switches, hosts_per_switch, link, fabric_link) =
                (switches?, hps?, link?, fabric_link?);
            if too_big(ctx, switches as u64 * (1 + hosts_per_switch as u64)) {
                return None;
            }
            match kind {
                "dumbbell" => TopologyDef::Dumbbell {
                    hosts_per_switch,
                    link,
                    fabric_link,
                },
                "chain" => TopologyDef::Chain {
                    switches,
                    hosts_per_switch,
                    link,
                    fabric_link,
                },
                _ => TopologyDef::Ring {
                    switches,
                    hosts_per_switch,
                    link,
                    fabric_link,
                },
            }
        }
        "leaf_spine" => {
            ctx.keys(
                t,
                P,
                &[
                    "kind",
                    "leaves",
                    "spines",
                    "hosts_per_leaf",
                    "host_link",
                    "fabric_link",
                ],
            );
            let leaves = count(ctx, t, "leaves", "the number of leaf switches");
            let spines = count(ctx, t, "spines", "the number of spine switches");
            let hpl = count(ctx, t, "hosts_per_leaf", "hosts attached to each leaf");
            let host_link = class(ctx, t, "host_link");
            let fabric_link = fabric(ctx, t, host_link);
            let (leaves, spines, hosts_per_leaf) = (leaves?, spines?, hpl?);
            if too_big(
                ctx,
                leaves as u64 * (1 + hosts_per_leaf as u64) + spines as u64,
            ) {
                return None;
            }
            TopologyDef::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                host_link: host_link?,
                fabric_link: fabric_link?,
            }
        }
        "fat_tree" => {
            ctx.keys(
                t,
                P,
                &["kind", "k", "host_link", "fabric_link", "oversubscription"],
            );
            let k = count(ctx, t, "k", "the switch port count, even");
            if let Some(k) = k {
                if k % 2 != 0 {
                    ctx.err(at(P, "k"), format!("k must be even, found {k}"));
                }
            }
            let os = ctx.or(t, P, "oversubscription", 1, |c, v, k| {
                c.uint(v, k, 1, 1_000_000).map(|x| x as u32)
            });
            let host_link = class(ctx, t, "host_link");
            let fabric_link = fabric(ctx, t, host_link);
            let (k, oversubscription) = (k?, os?);
            let k64 = k as u64;
            // k^3/4 × oversubscription hosts + 5k^2/4 switches.
            if too_big(
                ctx,
                k64 * k64 * k64 / 4 * oversubscription as u64 + 5 * k64 * k64 / 4,
            ) {
                return None;
            }
            TopologyDef::FatTree {
                k,
                host_link: host_link?,
                fabric_link: fabric_link?,
                oversubscription,
            }
        }
        "clos3" => {
            ctx.keys(
                t,
                P,
                &[
                    "kind",
                    "podsets",
                    "tors_per_podset",
                    "leaves_per_podset",
                    "spines",
                    "hosts_per_tor",
                    "host_link",
                    "fabric_link",
                ],
            );
            let podsets = count(ctx, t, "podsets", "the number of podsets");
            let tors = count(ctx, t, "tors_per_podset", "ToRs in each podset");
            let leaves = count(ctx, t, "leaves_per_podset", "leaves in each podset");
            let spines = count(ctx, t, "spines", "the number of spine switches");
            let hpt = count(ctx, t, "hosts_per_tor", "hosts attached to each ToR");
            let host_link = class(ctx, t, "host_link");
            let fabric_link = fabric(ctx, t, host_link);
            let (podsets, tors_per_podset, leaves_per_podset, spines, hosts_per_tor) =
                (podsets?, tors?, leaves?, spines?, hpt?);
            let nodes = podsets as u64
                * (tors_per_podset as u64 * (1 + hosts_per_tor as u64) + leaves_per_podset as u64)
                + spines as u64;
            if too_big(ctx, nodes) {
                return None;
            }
            TopologyDef::Clos3 {
                podsets,
                tors_per_podset,
                leaves_per_podset,
                spines,
                hosts_per_tor,
                host_link: host_link?,
                fabric_link: fabric_link?,
            }
        }
        _ => return None,
    };
    (ctx.count() == before).then_some(def)
}

/// Check `[topology]` and build it. `None` when it has errors (all recorded).
pub fn parse(ctx: &mut Ctx, root: &Table) -> Option<Topology> {
    let t = match root.get(P) {
        Some(v) => ctx.table(v, P)?,
        None => {
            ctx.err(P, "missing required section [topology]");
            return None;
        }
    };
    let kind = match t.get("kind") {
        None => "explicit",
        Some(v) => match ctx.choice(v, &at(P, "kind"), KINDS) {
            Some(k) => k,
            None => {
                // Keys cannot be checked against an unknown kind.
                return None;
            }
        },
    };
    // A def comes back only when every value it needs was valid; other mistakes in the
    // section (an unknown key) are reported but do not stop the topology from being built,
    // so that flows and faults can still be checked against its node names.
    let def = if kind == "explicit" {
        explicit(ctx, t)
    } else {
        generated(ctx, t, kind)
    }?;
    match topology::build(&def) {
        Ok(topo) => Some(topo),
        Err(errs) => {
            for e in errs {
                ctx.err(P, e);
            }
            None
        }
    }
}

/// The def of `[topology]` without building it (for tests of the checker alone).
#[cfg(test)]
pub fn def_only(ctx: &mut Ctx, root: &Table) -> Option<TopologyDef> {
    let t = ctx.table(root.get(P)?, P)?;
    let kind = match t.get("kind") {
        None => "explicit",
        Some(v) => ctx.choice(v, &at(P, "kind"), KINDS)?,
    };
    if kind == "explicit" {
        explicit(ctx, t)
    } else {
        generated(ctx, t, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Rate, Time};

    fn run(s: &str) -> (Option<TopologyDef>, Ctx) {
        let root: Table = s.parse().unwrap();
        let mut ctx = Ctx::new("t.toml");
        let d = def_only(&mut ctx, &root);
        (d, ctx)
    }

    #[test]
    fn explicit_pairs_and_tables() {
        let (d, ctx) = run(r#"
            [topology]
            hosts = ["A", "B"]
            switches = ["S1"]
            links = [["A", "S1"], { a = "B", b = "S1", rate = "100Gbps" }]
            link = { rate = "40Gbps", delay = "1us" }
        "#);
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let Some(TopologyDef::Explicit {
            hosts, links, link, ..
        }) = d
        else {
            panic!()
        };
        assert_eq!(hosts, ["A", "B"]);
        assert_eq!(
            link,
            LinkClass {
                rate: Rate::gbps(40),
                delay: Time::from_us(1)
            }
        );
        assert_eq!(links[1].rate, Some(Rate::gbps(100)));
        assert_eq!(links[1].delay, None);
    }

    #[test]
    fn unknown_key_suggests() {
        let (_, ctx) = run(r#"
            [topology]
            hosts = ["A"]
            switches = ["S1"]
            linkz = [["A", "S1"]]
            link = { rate = "40Gbps", delay = "1us" }
        "#);
        let e = ctx
            .errors
            .iter()
            .find(|e| e.key == "topology.linkz")
            .unwrap();
        assert_eq!(
            e.message,
            "unknown key `topology.linkz`; did you mean `links`?"
        );
        assert!(ctx.errors.iter().any(|e| e.key == "topology.links"));
    }

    #[test]
    fn generated_kinds_and_defaults() {
        let (d, ctx) = run(r#"
            [topology]
            kind = "fat_tree"
            k = 4
            host_link = { rate = "100G", delay = "1us" }
        "#);
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let Some(TopologyDef::FatTree {
            k,
            oversubscription,
            fabric_link,
            ..
        }) = d
        else {
            panic!()
        };
        assert_eq!((k, oversubscription), (4, 1));
        assert_eq!(fabric_link.rate, Rate::gbps(100));

        let (d, ctx) = run(r#"
            [topology]
            kind = "dumbbell"
            hosts_per_switch = 2
            link = { rate = "40G", delay = "1us" }
            fabric_link = { rate = "10G", delay = "2us" }
        "#);
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        assert!(matches!(
            d,
            Some(TopologyDef::Dumbbell {
                hosts_per_switch: 2,
                ..
            })
        ));
    }

    #[test]
    fn bad_counts_and_classes() {
        let (d, ctx) = run(r#"
            [topology]
            kind = "leaf_spine"
            leaves = -2
            spines = 2.5
            hosts_per_leaf = 0
            host_link = { rate = "40", delay = 1 }
        "#);
        assert!(d.is_none());
        for k in [
            "topology.leaves",
            "topology.spines",
            "topology.hosts_per_leaf",
            "topology.host_link.rate",
            "topology.host_link.delay",
        ] {
            assert!(
                ctx.errors.iter().any(|e| e.key == k),
                "no error for {k}: {:?}",
                ctx.errors
            );
        }
        let (_, ctx) = run("[topology]\nkind = \"fat_tree\"\nk = 3\nhost_link = { rate = \"1G\", delay = \"1us\" }\n");
        assert!(ctx
            .errors
            .iter()
            .any(|e| e.key == "topology.k" && e.message.contains("even")));
        let (_, ctx) = run("[topology]\nkind = \"fat_tree\"\nk = 4000\nhost_link = { rate = \"1G\", delay = \"1us\" }\n");
        assert!(ctx
            .errors
            .iter()
            .any(|e| e.key == "topology" && e.message.contains("nodes")));
        let (_, ctx) = run("[topology]\nkind = \"leafspine\"\n");
        assert!(ctx.errors[0].message.contains("did you mean `leaf_spine`?"));
    }
}
