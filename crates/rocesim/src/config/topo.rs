//! `[topology]`: an explicit list of nodes and links, or one of the generated kinds; each
//! kind is its own declared table.

use serde_json::json;
use toml::Value;

use super::check::{idx, Ctx};
use super::declare::{KeyDoc, Leaf, SubTable, Table, TypeDoc, V};
use super::leaf::{choice, Int, RateV, Str, TimeV};
use super::lists::Names;
use crate::table;
use crate::topology::{self, ExplicitLink, LinkClass, Topology, TopologyDef};
use crate::units::{Rate, Time};

/// Largest node count a generated topology may have (a guard against typos like `k = 4000`).
pub const MAX_NODES: u64 = 2_000_000;

choice!(/// The topology kind.
    KindV ["explicit", "star", "dumbbell", "chain", "ring", "leaf_spine", "fat_tree", "clos3"]
    later []);

choice!(/// ECMP hashing across switches (`topology.ecmp_hash`).
    EcmpHashV -> crate::fabric::params::EcmpHash {
        "salted" => crate::fabric::params::EcmpHash::Salted,
        "polarized" => crate::fabric::params::EcmpHash::Polarized,
        "ns3" => crate::fabric::params::EcmpHash::Ns3
    } later []);

table! {
    /// Keys every topology kind takes.
    pub struct Common {
        /// ECMP hashing across switches: `"salted"` (each switch salts the 5-tuple hash with its
        /// own seed, so tiers choose independently) or `"polarized"` (one hash function and seed
        /// on every switch: a flow's choice at one tier predicts the next, the polarization real
        /// fabrics hit) or `"ns3"` (as the HPCC paper's ns-3 simulator hashes: MurmurHash3 x86-32
        /// of source IP, destination IP and ports seeded by the switch's node id, hosts
        /// numbered first, modulo the next-hop count, next hops in descending node-id order (as
        /// in ns-3's reference run, docs/validation.md); flows without
        /// an explicit `sport` get ns-3's ports, source 10000 + the number of earlier flows of
        /// the same pair, destination 100, so that each flow takes the path it takes in ns-3).
        /// Default: `"salted"`.
        ecmp_hash: EcmpHashV,
    }
}

/// `topology.ecmp_hash`, checked (`Salted` when absent or wrong; a wrong value is recorded).
pub fn ecmp_hash(c: &mut Ctx, v: Option<&Value>) -> crate::fabric::params::EcmpHash {
    v.and_then(|v| v.get("ecmp_hash"))
        .and_then(|x| EcmpHashV::read(c, x, "topology.ecmp_hash"))
        .unwrap_or_default()
}

/// A count of switches or hosts.
type N = Int<1, 1_000_000>;

table! {
    /// A link class: rate and one-way propagation delay.
    pub struct Link {
        /// Line rate. Required.
        rate: RateV,
        /// One-way propagation delay. Required.
        delay: TimeV,
    }
}

table! {
    /// An explicit link written as a table (rate and delay override `link`).
    pub struct LinkEntry {
        /// One end. Required.
        a: Str,
        /// The other end. Required.
        b: Str,
        /// Rate of this link. Default: `link`'s.
        rate: RateV,
        /// Delay of this link. Default: `link`'s.
        delay: TimeV,
    }
}

table! {
    /// Explicit topology: node names and links. A node's ports are numbered in the order its
    /// links appear; all switches have the role `switch`.
    pub struct Explicit {
        /// May be omitted. Default: `"explicit"`.
        kind: KindV,
        /// Host (NIC) names; `all` and names with `/` are reserved. Required.
        hosts: Names,
        /// Switch names. Required.
        switches: Names,
        /// Each a pair `["A", "S1"]` or a table `{ a, b, rate, delay }` (rate and delay
        /// optional, overriding `link`). Required.
        links: Links,
        /// Default class of every link; required unless every link gives rate and delay.
        /// Default: none.
        link: Link,
    }
}

table! {
    /// `kind = "star"`: one switch `sw0` with `hosts` hosts.
    pub struct Star {
        /// `"star"`. Required.
        kind: KindV,
        /// Number of hosts. Required.
        hosts: N,
        /// Host link class. Required.
        link: Link,
    }
}

table! {
    /// `kind = "dumbbell"`, `"chain"` or `"ring"`: switches `sw0`–`sw1`–… in a line (a ring
    /// closes it), `hosts_per_switch` hosts on each.
    pub struct Line {
        /// `"dumbbell"`, `"chain"` or `"ring"`. Required.
        kind: KindV,
        /// Number of switches: a dumbbell has 2, a ring at least 3; required for a chain and
        /// a ring. Default: `2` for a dumbbell.
        switches: Int<0, { u32::MAX as i64 }>,
        /// Hosts attached to each switch. Required.
        hosts_per_switch: N,
        /// Host link class. Required.
        link: Link,
        /// Switch-to-switch link class. Default: `link`.
        fabric_link: Link,
    }
}

table! {
    /// `kind = "leaf_spine"`: `leaf0..` (role `leaf`), `spine0..` (role `spine`); every leaf
    /// connects to every spine.
    pub struct LeafSpine {
        /// `"leaf_spine"`. Required.
        kind: KindV,
        /// Number of leaf switches. Required.
        leaves: N,
        /// Number of spine switches. Required.
        spines: N,
        /// Hosts attached to each leaf. Required.
        hosts_per_leaf: N,
        /// Host link class. Required.
        host_link: Link,
        /// Leaf-spine link class. Default: `host_link`.
        fabric_link: Link,
    }
}

table! {
    /// `kind = "fat_tree"`: `edge0..`, `agg0..`, `core0..` (roles `edge`, `agg`, `core`);
    /// hosts and pod switches carry their pod (`"pod1/*"`).
    pub struct FatTree {
        /// `"fat_tree"`. Required.
        kind: KindV,
        /// Switch port count, even. Required.
        k: N,
        /// Host link class. Required.
        host_link: Link,
        /// Switch-to-switch link class. Default: `host_link`.
        fabric_link: Link,
        /// Hosts per edge = oversubscription × k/2. Default: `1`.
        oversubscription: N,
    }
}

table! {
    /// `kind = "clos3"`: `tor0..`, `leaf0..`, `spine0..` (roles `tor`, `leaf`, `spine`) —
    /// Guo et al. 2016, Fig. 7.
    pub struct Clos3 {
        /// `"clos3"`. Required.
        kind: KindV,
        /// Number of podsets. Required.
        podsets: N,
        /// ToRs in each podset. Required.
        tors_per_podset: N,
        /// Leaves in each podset. Required.
        leaves_per_podset: N,
        /// Number of spine switches. Required.
        spines: N,
        /// Hosts attached to each ToR. Required.
        hosts_per_tor: N,
        /// Host link class. Required.
        host_link: Link,
        /// Switch-to-switch link class. Default: `host_link`.
        fabric_link: Link,
    }
}

/// The key tables of the topology kinds, for the docs.
pub const KINDS: &[(&str, &[KeyDoc])] = &[
    ("topology", Common::KEYS),
    ("topology.explicit", Explicit::KEYS),
    ("topology.star", Star::KEYS),
    ("topology.line", Line::KEYS),
    ("topology.leaf_spine", LeafSpine::KEYS),
    ("topology.fat_tree", FatTree::KEYS),
    ("topology.clos3", Clos3::KEYS),
];

/// `[topology]`: a table whose `kind` selects its keys.
pub struct TopologyV;
impl SubTable for TopologyV {}
impl Leaf for TopologyV {
    type Out = Value;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Value> {
        c.table(v, k).map(|_| v.clone())
    }
    fn doc() -> TypeDoc {
        TypeDoc {
            name: "table".into(),
            schema: super::lists::kinds_schema(KINDS),
        }
    }
}

/// Explicit links: pairs or tables.
pub struct Links;
impl SubTable for Links {}
impl Leaf for Links {
    type Out = Vec<ExplicitLink>;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Self::Out> {
        let mut ok = true;
        let mut out = Vec::new();
        for (i, x) in c.array(v, k)?.iter().enumerate() {
            match explicit_link(c, x, &idx(k, i)) {
                Some(l) => out.push(l),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
    fn doc() -> TypeDoc {
        TypeDoc {
            name: "list".into(),
            schema: json!({ "type": "array", "items": { "anyOf": [
                { "type": "array", "items": { "type": "string" }, "minItems": 2, "maxItems": 2 },
                LinkEntry::doc().schema ] } }),
        }
    }
}

fn explicit_link(c: &mut Ctx, v: &Value, k: &str) -> Option<ExplicitLink> {
    match v {
        Value::Array(a) if a.len() != 2 => {
            let n = a.len();
            c.err(
                k,
                format!("a link is a pair of node names, found {n} elements"),
            );
            None
        }
        Value::Array(a) => {
            let x = c.string(&a[0], &idx(k, 0));
            let y = c.string(&a[1], &idx(k, 1));
            Some(ExplicitLink {
                a: x?,
                b: y?,
                rate: None,
                delay: None,
            })
        }
        Value::Table(_) => {
            let t = LinkEntry::read(c, v, k)?;
            let (a, b) = (c.req(&t.a, "a node name"), c.req(&t.b, "a node name"));
            let (rate, delay) = (c.get(&t.rate), c.get(&t.delay));
            Some(ExplicitLink {
                a: a?,
                b: b?,
                rate,
                delay,
            })
        }
        _ => {
            c.expected(
                k,
                "a pair [\"A\", \"S1\"] or a table { a, b, rate, delay }",
                v,
            );
            None
        }
    }
}

/// A required link class.
fn class(c: &mut Ctx, f: &V<Link>) -> Option<LinkClass> {
    let t = c.req(f, "{ rate, delay }")?;
    let rate = c.req(&t.rate, "a rate like \"40Gbps\"");
    let delay = c.req(&t.delay, "a time like \"1us\"");
    Some(LinkClass {
        rate: rate?,
        delay: delay?,
    })
}

/// `fabric_link`, defaulting to the host link class.
fn fabric(c: &mut Ctx, f: &V<Link>, dflt: Option<LinkClass>) -> Option<LinkClass> {
    if f.given() {
        class(c, f)
    } else {
        dflt
    }
}

fn count(c: &mut Ctx, f: &V<N>, what: &str) -> Option<u32> {
    c.req(f, what).map(|x| x as u32)
}

fn explicit(c: &mut Ctx, t: &Explicit) -> Option<TopologyDef> {
    let hosts = c.req(&t.hosts, "a list of names");
    let switches = c.req(&t.switches, "a list of names");
    let links = c.req(&t.links, "a list of [a, b] pairs");
    let all_given = links
        .as_ref()
        .is_some_and(|l| l.iter().all(|l| l.rate.is_some() && l.delay.is_some()));
    let link = match (t.link.given(), all_given) {
        (true, _) => class(c, &t.link),
        // Every link names its own rate and delay; the default is never used.
        (false, true) => Some(LinkClass {
            rate: Rate::gbps(100),
            delay: Time::ZERO,
        }),
        (false, false) => c
            .req(
                &t.link,
                "the default { rate, delay } of links that give none",
            )
            .and(None),
    };
    Some(TopologyDef::Explicit {
        hosts: hosts?,
        switches: switches?,
        links: links?,
        link: link?,
    })
}

fn star(c: &mut Ctx, t: &Star) -> Option<TopologyDef> {
    let hosts = count(c, &t.hosts, "the number of hosts");
    let link = class(c, &t.link);
    Some(TopologyDef::Star {
        hosts: hosts?,
        link: link?,
    })
}

fn too_big(c: &mut Ctx, nodes: u64) -> Option<()> {
    if nodes > MAX_NODES {
        c.err(
            "topology",
            format!("this topology would have {nodes} nodes (at most {MAX_NODES})"),
        );
        return None;
    }
    Some(())
}

fn line(c: &mut Ctx, t: &Line, kind: &str) -> Option<TopologyDef> {
    let switches = if kind == "dumbbell" {
        match c.get(&t.switches) {
            Some(2) | None => Some(2),
            Some(n) => {
                c.err(
                    &t.switches.key,
                    format!("a dumbbell has 2 switches, found {n}"),
                );
                None
            }
        }
    } else {
        let raw = t.switches.raw.as_ref();
        if raw.is_none() {
            c.req(&t.switches, "the number of switches");
        }
        raw.and_then(|v| N::read(c, v, &t.switches.key))
    };
    if kind == "ring" && matches!(switches, Some(1 | 2)) {
        c.err(&t.switches.key, "a ring needs at least 3 switches");
    }
    let hosts_per_switch = count(c, &t.hosts_per_switch, "hosts attached to each switch");
    let link = class(c, &t.link);
    let fabric_link = fabric(c, &t.fabric_link, link);
    let (switches, hosts_per_switch) = (switches? as u32, hosts_per_switch?);
    let (link, fabric_link) = (link?, fabric_link?);
    too_big(c, u64::from(switches) * (1 + u64::from(hosts_per_switch)))?;
    Some(match kind {
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
    })
}

fn leaf_spine(c: &mut Ctx, t: &LeafSpine) -> Option<TopologyDef> {
    let leaves = count(c, &t.leaves, "the number of leaf switches");
    let spines = count(c, &t.spines, "the number of spine switches");
    let hosts_per_leaf = count(c, &t.hosts_per_leaf, "hosts attached to each leaf");
    let host_link = class(c, &t.host_link);
    let fabric_link = fabric(c, &t.fabric_link, host_link);
    let (leaves, spines, hosts_per_leaf) = (leaves?, spines?, hosts_per_leaf?);
    let nodes = u64::from(leaves) * (1 + u64::from(hosts_per_leaf)) + u64::from(spines);
    too_big(c, nodes)?;
    let (host_link, fabric_link) = (host_link?, fabric_link?);
    Some(TopologyDef::LeafSpine {
        leaves,
        spines,
        hosts_per_leaf,
        host_link,
        fabric_link,
    })
}

fn fat_tree(c: &mut Ctx, t: &FatTree) -> Option<TopologyDef> {
    let k = count(c, &t.k, "the switch port count, even");
    if let Some(k) = k.filter(|k| k % 2 != 0) {
        c.err(&t.k.key, format!("k must be even, found {k}"));
    }
    let oversubscription = c.or(&t.oversubscription, 1).map(|x| x as u32);
    let host_link = class(c, &t.host_link);
    let fabric_link = fabric(c, &t.fabric_link, host_link);
    let (k, oversubscription) = (k?, oversubscription?);
    let k64 = u64::from(k);
    // k^3/4 × oversubscription hosts + 5k^2/4 switches.
    too_big(
        c,
        k64 * k64 * k64 / 4 * u64::from(oversubscription) + 5 * k64 * k64 / 4,
    )?;
    let (host_link, fabric_link) = (host_link?, fabric_link?);
    Some(TopologyDef::FatTree {
        k,
        host_link,
        fabric_link,
        oversubscription,
    })
}

fn clos3(c: &mut Ctx, t: &Clos3) -> Option<TopologyDef> {
    let podsets = count(c, &t.podsets, "the number of podsets");
    let tors = count(c, &t.tors_per_podset, "ToRs in each podset");
    let leaves = count(c, &t.leaves_per_podset, "leaves in each podset");
    let spines = count(c, &t.spines, "the number of spine switches");
    let hosts = count(c, &t.hosts_per_tor, "hosts attached to each ToR");
    let host_link = class(c, &t.host_link);
    let fabric_link = fabric(c, &t.fabric_link, host_link);
    let (podsets, tors_per_podset, leaves_per_podset, spines, hosts_per_tor) =
        (podsets?, tors?, leaves?, spines?, hosts?);
    let per_podset = u64::from(tors_per_podset) * (1 + u64::from(hosts_per_tor));
    too_big(
        c,
        u64::from(podsets) * (per_podset + u64::from(leaves_per_podset)) + u64::from(spines),
    )?;
    Some(TopologyDef::Clos3 {
        podsets,
        tors_per_podset,
        leaves_per_podset,
        spines,
        hosts_per_tor,
        host_link: host_link?,
        fabric_link: fabric_link?,
    })
}

/// The typed definition of `[topology]` (the table `v`); `None` when it has errors.
pub fn def(c: &mut Ctx, v: &Value) -> Option<TopologyDef> {
    const P: &str = "topology";
    let kind = match v.get("kind") {
        None => "explicit",
        // Keys cannot be checked against an unknown kind.
        Some(k) => KindV::read(c, k, "topology.kind")?,
    };
    let before = c.count();
    // Keys of every kind are read by `ecmp_hash`; the kind's own table checks the rest.
    let mut own = v.clone();
    if let Some(t) = own.as_table_mut() {
        t.remove("ecmp_hash");
    }
    let v = &own;
    // An explicit topology with only unknown keys is still built, so that flows and faults
    // can be checked against its node names.
    let def = match kind {
        "explicit" => c.with(v, P, explicit),
        "star" => c.with(v, P, star),
        "dumbbell" | "chain" | "ring" => c.with(v, P, |c, t| line(c, t, kind)),
        "leaf_spine" => c.with(v, P, leaf_spine),
        "fat_tree" => c.with(v, P, fat_tree),
        _ => c.with(v, P, clos3),
    }?;
    (kind == "explicit" || c.count() == before).then_some(def)
}

/// Check `[topology]` and build it; `None` when it has errors (all recorded).
pub fn parse(c: &mut Ctx, v: Option<&Value>) -> Option<Topology> {
    let Some(v) = v else {
        c.err("topology", "missing required section [topology]");
        return None;
    };
    match topology::build(&def(c, v)?) {
        Ok(topo) => Some(topo),
        Err(errs) => {
            for e in errs {
                c.err("topology", e);
            }
            None
        }
    }
}
