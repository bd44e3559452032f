//! Expands a [`TopologyDef`] into a [`Topology`].
//!
//! Naming and numbering (SCENARIO.md, BENCHMARKS.md):
//! - hosts are `h0..`, numbered switch by switch (the hosts under the first ToR/edge/leaf come
//!   first);
//! - star has one switch `sw0`; dumbbell, chain and ring have `sw0..`; all with role `switch`;
//! - leaf-spine: `leaf0..`, `spine0..` (roles `leaf`, `spine`);
//! - fat-tree: `edge0..`, `agg0..`, `core0..` (roles `edge`, `agg`, `core`; hosts, edges and
//!   aggregation switches carry their pod index);
//! - 3-tier Clos: `tor0..`, `leaf0..` numbered across podsets (podset p holds tors
//!   `p·T .. p·T+T−1`), `spine0..` (roles `tor`, `leaf`, `spine`; pod = podset index).
//!
//! Switches are numbered tier by tier in the order above (e.g. fat-tree edges, then aggs, then
//! cores). Links are emitted host links first (switch by switch, in host order), then fabric
//! links from the lower tier upward, so a switch's ports are its hosts first, then its uplinks,
//! then its downlinks from the tier above in the order of the lower-tier switches.

use std::collections::{HashMap, VecDeque};

use super::{HostSpec, LinkClass, LinkSpec, NodeRef, SwitchSpec, Topology, TopologyDef};
use crate::topology::suggest::suggest;

/// Upper bound on the number of nodes (hosts plus switches) a generated topology may have; a
/// guard against a typo such as `k = 4000` exhausting memory.
pub const MAX_NODES: u64 = 1 << 24;

/// Build the topology a definition describes. Errors name what is wrong (unknown node in a
/// link, a count of zero, an odd fat-tree k, ...), all of them at once. Links in messages are
/// numbered from 1 in the order they are written. A topology that is otherwise valid is also
/// checked for connectivity ([`check_connected`]).
pub fn build(def: &TopologyDef) -> Result<Topology, Vec<String>> {
    let topo = match def {
        TopologyDef::Explicit {
            hosts,
            switches,
            links,
            link,
        } => build_explicit(hosts, switches, links, *link)?,
        TopologyDef::Star { hosts, link } => {
            let mut errs = Vec::new();
            positive(&mut errs, "star", "hosts", *hosts);
            rate_ok(&mut errs, "star", "link", link);
            fail(errs)?;
            let mut b = Builder::default();
            let sw = b.switch("sw0".into(), "switch", None);
            b.hosts_on(sw, *hosts, None, *link);
            b.topo
        }
        TopologyDef::Dumbbell {
            hosts_per_switch,
            link,
            fabric_link,
        } => {
            let mut errs = Vec::new();
            positive(&mut errs, "dumbbell", "hosts_per_switch", *hosts_per_switch);
            rate_ok(&mut errs, "dumbbell", "link", link);
            rate_ok(&mut errs, "dumbbell", "fabric_link", fabric_link);
            fail(errs)?;
            line_of_switches(2, *hosts_per_switch, *link, *fabric_link, false)
        }
        TopologyDef::Chain {
            switches,
            hosts_per_switch,
            link,
            fabric_link,
        } => {
            let mut errs = Vec::new();
            positive(&mut errs, "chain", "switches", *switches);
            positive(&mut errs, "chain", "hosts_per_switch", *hosts_per_switch);
            rate_ok(&mut errs, "chain", "link", link);
            rate_ok(&mut errs, "chain", "fabric_link", fabric_link);
            size_ok(
                &mut errs,
                "chain",
                *switches as u64 * (1 + *hosts_per_switch as u64),
            );
            fail(errs)?;
            line_of_switches(*switches, *hosts_per_switch, *link, *fabric_link, false)
        }
        TopologyDef::Ring {
            switches,
            hosts_per_switch,
            link,
            fabric_link,
        } => {
            let mut errs = Vec::new();
            if *switches < 3 {
                errs.push(format!(
                    "ring: switches = {switches}; a ring needs at least 3 switches \
                     (use kind = \"chain\" or \"dumbbell\" for fewer)"
                ));
            }
            positive(&mut errs, "ring", "hosts_per_switch", *hosts_per_switch);
            rate_ok(&mut errs, "ring", "link", link);
            rate_ok(&mut errs, "ring", "fabric_link", fabric_link);
            size_ok(
                &mut errs,
                "ring",
                *switches as u64 * (1 + *hosts_per_switch as u64),
            );
            fail(errs)?;
            line_of_switches(*switches, *hosts_per_switch, *link, *fabric_link, true)
        }
        TopologyDef::LeafSpine {
            leaves,
            spines,
            hosts_per_leaf,
            host_link,
            fabric_link,
        } => {
            let mut errs = Vec::new();
            positive(&mut errs, "leaf_spine", "leaves", *leaves);
            positive(&mut errs, "leaf_spine", "spines", *spines);
            positive(&mut errs, "leaf_spine", "hosts_per_leaf", *hosts_per_leaf);
            rate_ok(&mut errs, "leaf_spine", "host_link", host_link);
            rate_ok(&mut errs, "leaf_spine", "fabric_link", fabric_link);
            let (l, s, h) = (*leaves as u64, *spines as u64, *hosts_per_leaf as u64);
            size_ok(&mut errs, "leaf_spine", l * (1 + h) + s + l * s);
            fail(errs)?;
            leaf_spine(*leaves, *spines, *hosts_per_leaf, *host_link, *fabric_link)
        }
        TopologyDef::FatTree {
            k,
            host_link,
            fabric_link,
            oversubscription,
        } => {
            let mut errs = Vec::new();
            if *k < 2 {
                errs.push(format!(
                    "fat_tree: k = {k}; k must be an even number ≥ 2 (4, 8, 16, ...)"
                ));
            } else if k % 2 != 0 {
                errs.push(format!(
                    "fat_tree: k = {k} is odd; k must be even (4, 8, 16, ...)"
                ));
            }
            positive(&mut errs, "fat_tree", "oversubscription", *oversubscription);
            rate_ok(&mut errs, "fat_tree", "host_link", host_link);
            rate_ok(&mut errs, "fat_tree", "fabric_link", fabric_link);
            let k64 = *k as u64;
            let hosts = k64 * k64 * k64 / 4 * (*oversubscription as u64);
            size_ok(&mut errs, "fat_tree", hosts + 5 * k64 * k64 / 4);
            fail(errs)?;
            fat_tree(*k, *oversubscription, *host_link, *fabric_link)
        }
        TopologyDef::Clos3 {
            podsets,
            tors_per_podset,
            leaves_per_podset,
            spines,
            hosts_per_tor,
            host_link,
            fabric_link,
        } => {
            let mut errs = Vec::new();
            positive(&mut errs, "clos3", "podsets", *podsets);
            positive(&mut errs, "clos3", "tors_per_podset", *tors_per_podset);
            positive(&mut errs, "clos3", "leaves_per_podset", *leaves_per_podset);
            positive(&mut errs, "clos3", "spines", *spines);
            positive(&mut errs, "clos3", "hosts_per_tor", *hosts_per_tor);
            if *leaves_per_podset > 0 && *spines > 0 && spines % leaves_per_podset != 0 {
                errs.push(format!(
                    "clos3: spines = {spines} is not divisible by leaves_per_podset = \
                     {leaves_per_podset}; leaf j of every podset connects to its own group of \
                     spines/leaves_per_podset spines"
                ));
            }
            rate_ok(&mut errs, "clos3", "host_link", host_link);
            rate_ok(&mut errs, "clos3", "fabric_link", fabric_link);
            let (p, t, l, s, h) = (
                *podsets as u64,
                *tors_per_podset as u64,
                *leaves_per_podset as u64,
                *spines as u64,
                *hosts_per_tor as u64,
            );
            size_ok(&mut errs, "clos3", p * t * (1 + h) + p * l + s + p * t * l);
            fail(errs)?;
            clos3(
                *podsets,
                *tors_per_podset,
                *leaves_per_podset,
                *spines,
                *hosts_per_tor,
                *host_link,
                *fabric_link,
            )
        }
    };
    check_connected(&topo).map_err(|e| vec![e])?;
    Ok(topo)
}

/// Check that every node can reach every other node over the links. The error names the nodes
/// that cannot reach the first host (or the first switch when there are no hosts), e.g.
/// "the topology is disconnected: `h7`, `S3` cannot reach `h0`"; long lists are cut short with a
/// count of the rest. An empty topology is connected.
pub fn check_connected(topo: &Topology) -> Result<(), String> {
    let nh = topo.hosts.len();
    let n = nh + topo.switches.len();
    if n == 0 {
        return Ok(());
    }
    let idx = |r: NodeRef| match r {
        NodeRef::Host(h) => h as usize,
        NodeRef::Switch(s) => nh + s as usize,
    };
    // Adjacency in compressed form: offsets into one neighbour array.
    let mut deg = vec![0u32; n + 1];
    for l in &topo.links {
        deg[idx(l.a)] += 1;
        deg[idx(l.b)] += 1;
    }
    let mut start = vec![0usize; n + 1];
    for i in 0..n {
        start[i + 1] = start[i] + deg[i] as usize;
    }
    let mut fill = start.clone();
    let mut nbr = vec![0usize; start[n]];
    for l in &topo.links {
        let (a, b) = (idx(l.a), idx(l.b));
        nbr[fill[a]] = b;
        fill[a] += 1;
        nbr[fill[b]] = a;
        fill[b] += 1;
    }
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    seen[0] = true;
    queue.push_back(0usize);
    while let Some(u) = queue.pop_front() {
        for &v in &nbr[start[u]..start[u + 1]] {
            if !seen[v] {
                seen[v] = true;
                queue.push_back(v);
            }
        }
    }
    let name = |i: usize| -> &str {
        if i < nh {
            &topo.hosts[i].name
        } else {
            &topo.switches[i - nh].name
        }
    };
    let missing: Vec<usize> = (0..n).filter(|&i| !seen[i]).collect();
    if missing.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 10;
    let mut list: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|&i| format!("`{}`", name(i)))
        .collect();
    if missing.len() > SHOWN {
        list.push(format!("and {} more", missing.len() - SHOWN));
    }
    Err(format!(
        "the topology is disconnected: {} cannot reach `{}`",
        list.join(", "),
        name(0)
    ))
}

/// Accumulates hosts, switches and links of a generated topology.
#[derive(Default)]
struct Builder {
    topo: Topology,
}

impl Builder {
    fn switch(&mut self, name: String, role: &str, pod: Option<u32>) -> u32 {
        self.topo.switches.push(SwitchSpec {
            name,
            role: role.to_string(),
            pod,
        });
        (self.topo.switches.len() - 1) as u32
    }

    fn link(&mut self, a: NodeRef, b: NodeRef, class: LinkClass) {
        self.topo.links.push(LinkSpec {
            a,
            b,
            rate: class.rate,
            delay: class.delay,
        });
    }

    /// Add `n` hosts `h<id>` attached to switch `sw`, each with one link (host end first).
    fn hosts_on(&mut self, sw: u32, n: u32, pod: Option<u32>, class: LinkClass) {
        for _ in 0..n {
            let id = self.topo.hosts.len() as u32;
            self.topo.hosts.push(HostSpec {
                name: format!("h{id}"),
                pod,
            });
            self.link(NodeRef::Host(id), NodeRef::Switch(sw), class);
        }
    }
}

fn fail(errs: Vec<String>) -> Result<(), Vec<String>> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn positive(errs: &mut Vec<String>, kind: &str, key: &str, v: u32) {
    if v == 0 {
        errs.push(format!("{kind}: {key} = 0; it must be at least 1"));
    }
}

fn rate_ok(errs: &mut Vec<String>, kind: &str, key: &str, c: &LinkClass) {
    if c.rate.bps() == 0 {
        errs.push(format!("{kind}: {key} has a rate of zero"));
    }
}

fn size_ok(errs: &mut Vec<String>, kind: &str, nodes: u64) {
    if nodes > MAX_NODES {
        errs.push(format!(
            "{kind}: {nodes} nodes is more than the {MAX_NODES} a topology may have"
        ));
    }
}

/// `n` switches `sw0..` in a line (closed into a ring when `ring`), `hps` hosts on each.
fn line_of_switches(n: u32, hps: u32, link: LinkClass, fabric: LinkClass, ring: bool) -> Topology {
    let mut b = Builder::default();
    for i in 0..n {
        b.switch(format!("sw{i}"), "switch", None);
    }
    for i in 0..n {
        b.hosts_on(i, hps, None, link);
    }
    for i in 1..n {
        b.link(NodeRef::Switch(i - 1), NodeRef::Switch(i), fabric);
    }
    if ring {
        b.link(NodeRef::Switch(n - 1), NodeRef::Switch(0), fabric);
    }
    b.topo
}

fn leaf_spine(leaves: u32, spines: u32, hpl: u32, host: LinkClass, fabric: LinkClass) -> Topology {
    let mut b = Builder::default();
    for i in 0..leaves {
        b.switch(format!("leaf{i}"), "leaf", None);
    }
    for i in 0..spines {
        b.switch(format!("spine{i}"), "spine", None);
    }
    for l in 0..leaves {
        b.hosts_on(l, hpl, None, host);
    }
    for l in 0..leaves {
        for s in 0..spines {
            b.link(NodeRef::Switch(l), NodeRef::Switch(leaves + s), fabric);
        }
    }
    b.topo
}

/// k-ary fat-tree (Al-Fares numbering, BENCHMARKS.md): k pods of k/2 edge and k/2 aggregation
/// switches, (k/2)² cores; aggregation j of a pod connects to cores j·k/2 .. j·k/2 + k/2 − 1.
/// It is the three-tier Clos below with pods as podsets.
fn fat_tree(k: u32, oversub: u32, host: LinkClass, fabric: LinkClass) -> Topology {
    let half = k / 2;
    let tiers = Tiers {
        pods: k,
        lower: half,
        middle: half,
        tops: half * half,
        hosts: oversub * half,
    };
    three_tier(&tiers, ["edge", "agg", "core"], host, fabric)
}

/// Three-tier Clos with podsets (Guo et al. 2016, Fig. 7).
fn clos3(
    podsets: u32,
    tpp: u32,
    lpp: u32,
    spines: u32,
    hpt: u32,
    host: LinkClass,
    fabric: LinkClass,
) -> Topology {
    let tiers = Tiers {
        pods: podsets,
        lower: tpp,
        middle: lpp,
        tops: spines,
        hosts: hpt,
    };
    three_tier(&tiers, ["tor", "leaf", "spine"], host, fabric)
}

/// Sizes of a three-tier Clos.
struct Tiers {
    /// Pods (podsets).
    pods: u32,
    /// Lower-tier switches (edge/ToR) per pod.
    lower: u32,
    /// Middle-tier switches (aggregation/leaf) per pod.
    middle: u32,
    /// Top-tier switches (core/spine), split evenly among the middle positions.
    tops: u32,
    /// Hosts per lower-tier switch.
    hosts: u32,
}

/// A three-tier Clos: every lower switch links to every middle switch of its pod; middle
/// switch j of every pod links to tops j·T/M .. (j+1)·T/M − 1. Switches are named
/// `<role><n>` with the roles given (lower, middle, top), numbered across pods; hosts are
/// numbered lower switch by lower switch.
fn three_tier(t: &Tiers, roles: [&str; 3], host: LinkClass, fabric: LinkClass) -> Topology {
    let lowers = t.pods * t.lower;
    let middles = t.pods * t.middle;
    let per_middle = t.tops / t.middle;
    let mut b = Builder::default();
    for i in 0..lowers {
        b.switch(format!("{}{i}", roles[0]), roles[0], Some(i / t.lower));
    }
    for i in 0..middles {
        b.switch(format!("{}{i}", roles[1]), roles[1], Some(i / t.middle));
    }
    for i in 0..t.tops {
        b.switch(format!("{}{i}", roles[2]), roles[2], None);
    }
    let middle_id = |m: u32| lowers + m;
    let top_id = |x: u32| lowers + middles + x;
    for l in 0..lowers {
        b.hosts_on(l, t.hosts, Some(l / t.lower), host);
    }
    for l in 0..lowers {
        let pod = l / t.lower;
        for j in 0..t.middle {
            b.link(
                NodeRef::Switch(l),
                NodeRef::Switch(middle_id(pod * t.middle + j)),
                fabric,
            );
        }
    }
    for m in 0..middles {
        let j = m % t.middle;
        for x in 0..per_middle {
            b.link(
                NodeRef::Switch(middle_id(m)),
                NodeRef::Switch(top_id(j * per_middle + x)),
                fabric,
            );
        }
    }
    b.topo
}

fn build_explicit(
    hosts: &[String],
    switches: &[String],
    links: &[super::ExplicitLink],
    default: LinkClass,
) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    if hosts.is_empty() {
        errs.push("the topology has no hosts; list them in `hosts`".to_string());
    }
    rate_ok(&mut errs, "topology", "link", &default);
    let mut index: HashMap<&str, NodeRef> = HashMap::with_capacity(hosts.len() + switches.len());
    for (i, h) in hosts.iter().enumerate() {
        if h == "all" {
            errs.push("host name `all` is reserved: it is the selector for every host".into());
        }
        if h.trim().is_empty() {
            errs.push(format!("host {} has an empty name", i + 1));
        } else if index.contains_key(h.as_str()) {
            errs.push(format!("duplicate host name `{h}`"));
        } else {
            index.insert(h, NodeRef::Host(i as u32));
        }
    }
    for (i, s) in switches.iter().enumerate() {
        if s.trim().is_empty() {
            errs.push(format!("switch {} has an empty name", i + 1));
            continue;
        }
        match index.get(s.as_str()) {
            Some(NodeRef::Host(_)) => errs.push(format!("`{s}` is both a host and a switch")),
            Some(NodeRef::Switch(_)) => errs.push(format!("duplicate switch name `{s}`")),
            None => {
                index.insert(s, NodeRef::Switch(i as u32));
            }
        }
    }
    for n in hosts.iter().chain(switches.iter()) {
        if n.contains('/') {
            errs.push(format!(
                "name `{n}` contains `/`, which host selectors use (`tor2/*`); rename it"
            ));
        }
    }
    let all_names = || hosts.iter().chain(switches.iter());
    let resolve = |errs: &mut Vec<String>, i: usize, name: &str| -> Option<NodeRef> {
        match index.get(name) {
            Some(r) => Some(*r),
            None => {
                let mut msg = format!("link {}: unknown node `{name}`", i + 1);
                if let Some(s) = suggest(name, all_names()) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                errs.push(msg);
                None
            }
        }
    };
    let mut host_links: Vec<Vec<usize>> = vec![Vec::new(); hosts.len()];
    let mut out = Vec::with_capacity(links.len());
    for (i, l) in links.iter().enumerate() {
        let a = resolve(&mut errs, i, &l.a);
        let b = resolve(&mut errs, i, &l.b);
        if l.rate.is_some_and(|r| r.bps() == 0) {
            errs.push(format!("link {}: rate is zero", i + 1));
        }
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b {
            errs.push(format!("link {}: `{}` is linked to itself", i + 1, l.a));
            continue;
        }
        for r in [a, b] {
            if let NodeRef::Host(h) = r {
                host_links[h as usize].push(i);
            }
        }
        out.push(LinkSpec {
            a,
            b,
            rate: l.rate.unwrap_or(default.rate),
            delay: l.delay.unwrap_or(default.delay),
        });
    }
    for (h, ls) in host_links.iter().enumerate() {
        if ls.len() > 1 {
            let nums: Vec<String> = ls.iter().map(|i| (i + 1).to_string()).collect();
            errs.push(format!(
                "host `{}` has {} links (links {}); a host has one NIC port, so exactly one link",
                hosts[h],
                ls.len(),
                nums.join(", ")
            ));
        }
    }
    fail(errs)?;
    Ok(Topology {
        hosts: hosts
            .iter()
            .map(|n| HostSpec {
                name: n.clone(),
                pod: None,
            })
            .collect(),
        switches: switches
            .iter()
            .map(|n| SwitchSpec {
                name: n.clone(),
                role: "switch".into(),
                pod: None,
            })
            .collect(),
        links: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::ExplicitLink;
    use crate::units::{Rate, Time};

    fn lc(gbps: u64, us: u64) -> LinkClass {
        LinkClass {
            rate: Rate::gbps(gbps),
            delay: Time::from_us(us),
        }
    }

    fn ft(k: u32, o: u32) -> Topology {
        build(&TopologyDef::FatTree {
            k,
            host_link: lc(100, 1),
            fabric_link: lc(100, 1),
            oversubscription: o,
        })
        .unwrap()
    }

    fn degree(t: &Topology, n: NodeRef) -> usize {
        t.links.iter().filter(|l| l.a == n || l.b == n).count()
    }

    fn sw(t: &Topology, name: &str) -> u32 {
        t.switches.iter().position(|s| s.name == name).unwrap() as u32
    }

    /// Switches a host's single link goes to.
    fn host_switch(t: &Topology, h: u32) -> &str {
        let l = t
            .links
            .iter()
            .find(|l| l.a == NodeRef::Host(h) || l.b == NodeRef::Host(h))
            .unwrap();
        let other = if l.a == NodeRef::Host(h) { l.b } else { l.a };
        match other {
            NodeRef::Switch(s) => &t.switches[s as usize].name,
            NodeRef::Host(_) => panic!("host-host link"),
        }
    }

    /// Names of the neighbours of a switch, in port order.
    fn neighbours(t: &Topology, name: &str) -> Vec<String> {
        let me = NodeRef::Switch(sw(t, name));
        t.links
            .iter()
            .filter_map(|l| {
                let o = if l.a == me {
                    l.b
                } else if l.b == me {
                    l.a
                } else {
                    return None;
                };
                Some(match o {
                    NodeRef::Host(h) => t.hosts[h as usize].name.clone(),
                    NodeRef::Switch(s) => t.switches[s as usize].name.clone(),
                })
            })
            .collect()
    }

    fn role_count(t: &Topology, role: &str) -> usize {
        t.switches.iter().filter(|s| s.role == role).count()
    }

    fn explicit(hosts: &[&str], switches: &[&str], links: &[(&str, &str)]) -> TopologyDef {
        TopologyDef::Explicit {
            hosts: hosts.iter().map(|s| s.to_string()).collect(),
            switches: switches.iter().map(|s| s.to_string()).collect(),
            links: links
                .iter()
                .map(|(a, b)| ExplicitLink {
                    a: a.to_string(),
                    b: b.to_string(),
                    rate: None,
                    delay: None,
                })
                .collect(),
            link: lc(40, 1),
        }
    }

    #[test]
    fn fat_tree_k4_counts() {
        let t = ft(4, 1);
        assert_eq!(t.hosts.len(), 16);
        assert_eq!(t.switches.len(), 20);
        assert_eq!(role_count(&t, "edge"), 8);
        assert_eq!(role_count(&t, "agg"), 8);
        assert_eq!(role_count(&t, "core"), 4);
        // 16 host links + 8·2 edge–agg + 8·2 agg–core.
        assert_eq!(t.links.len(), 48);
        for s in 0..20 {
            assert_eq!(
                degree(&t, NodeRef::Switch(s)),
                4,
                "every switch has k ports"
            );
        }
    }

    #[test]
    fn fat_tree_k8_counts_and_rules() {
        let t = ft(8, 1);
        assert_eq!(t.hosts.len(), 128);
        assert_eq!(t.switches.len(), 80);
        assert_eq!(t.links.len(), 384);
        assert_eq!(role_count(&t, "edge"), 32);
        assert_eq!(role_count(&t, "agg"), 32);
        assert_eq!(role_count(&t, "core"), 16);
        // Host i attaches to edge ⌊i/4⌋.
        assert_eq!(host_switch(&t, 0), "edge0");
        assert_eq!(host_switch(&t, 3), "edge0");
        assert_eq!(host_switch(&t, 4), "edge1");
        assert_eq!(host_switch(&t, 127), "edge31");
        assert_eq!(host_switch(&t, 70), "edge17");
        // Pods: host 70 -> edge 17 -> pod 4.
        assert_eq!(t.hosts[70].pod, Some(4));
        assert_eq!(t.switches[sw(&t, "edge17") as usize].pod, Some(4));
        assert_eq!(t.switches[sw(&t, "agg17") as usize].pod, Some(4));
        assert_eq!(t.switches[sw(&t, "core3") as usize].pod, None);
        // Edge 17 (pod 4): hosts 68..71 first, then aggs 16..19.
        assert_eq!(
            neighbours(&t, "edge17"),
            ["h68", "h69", "h70", "h71", "agg16", "agg17", "agg18", "agg19"]
        );
        // Agg 17: j = 1 -> cores 4..7, after its pod's edges 16..19.
        assert_eq!(
            neighbours(&t, "agg17"),
            ["edge16", "edge17", "edge18", "edge19", "core4", "core5", "core6", "core7"]
        );
        // Core 5 (j = 1) connects to agg pod·4+1 of every pod.
        assert_eq!(
            neighbours(&t, "core5"),
            ["agg1", "agg5", "agg9", "agg13", "agg17", "agg21", "agg25", "agg29"]
        );
        // Hosts are h0.. in order, each with exactly one link, links first.
        for (i, h) in t.hosts.iter().enumerate() {
            assert_eq!(h.name, format!("h{i}"));
            assert_eq!(t.links[i].a, NodeRef::Host(i as u32));
        }
    }

    #[test]
    fn fat_tree_k16_counts() {
        let t = ft(16, 1);
        assert_eq!(t.hosts.len(), 1024);
        assert_eq!(t.switches.len(), 320);
        assert_eq!(t.links.len(), 1024 * 3);
    }

    #[test]
    fn fat_tree_oversubscribed() {
        let t = ft(4, 3);
        // 8 edges × 3·2 hosts.
        assert_eq!(t.hosts.len(), 48);
        assert_eq!(host_switch(&t, 5), "edge0");
        assert_eq!(host_switch(&t, 6), "edge1");
        assert_eq!(host_switch(&t, 47), "edge7");
        assert_eq!(degree(&t, NodeRef::Switch(sw(&t, "edge0"))), 8);
        assert_eq!(t.hosts[12].pod, Some(1));
    }

    fn fig7() -> Topology {
        build(&TopologyDef::Clos3 {
            podsets: 2,
            tors_per_podset: 24,
            leaves_per_podset: 4,
            spines: 64,
            hosts_per_tor: 24,
            host_link: lc(40, 1),
            fabric_link: lc(40, 1),
        })
        .unwrap()
    }

    #[test]
    fn clos3_guo_fig7() {
        let t = fig7();
        assert_eq!(t.hosts.len(), 1152);
        assert_eq!(role_count(&t, "tor"), 48);
        assert_eq!(role_count(&t, "leaf"), 8);
        assert_eq!(role_count(&t, "spine"), 64);
        // 1152 host links + 48·4 tor–leaf + 8·16 leaf–spine.
        assert_eq!(t.links.len(), 1152 + 192 + 128);
        for s in &t.switches {
            let d = degree(&t, NodeRef::Switch(sw(&t, &s.name)));
            let want = match s.role.as_str() {
                "tor" => 28,  // 24 hosts + 4 leaves: 6:1
                "leaf" => 40, // 24 ToRs + 16 spines: 3:2
                "spine" => 2, // one leaf per podset
                r => panic!("role {r}"),
            };
            assert_eq!(d, want, "{}", s.name);
        }
        // ToR 30 is in podset 1 and links to leaves 4..7.
        let n = neighbours(&t, "tor30");
        assert_eq!(n.len(), 28);
        assert_eq!(n[0], "h720");
        assert_eq!(&n[24..], ["leaf4", "leaf5", "leaf6", "leaf7"]);
        assert_eq!(t.switches[sw(&t, "tor30") as usize].pod, Some(1));
        assert_eq!(t.hosts[720].pod, Some(1));
        // Leaf 5 = position j = 1 of podset 1 -> spines 16..31.
        let n = neighbours(&t, "leaf5");
        assert_eq!(n[0], "tor24");
        assert_eq!(n[23], "tor47");
        let want: Vec<String> = (16..32).map(|s| format!("spine{s}")).collect();
        assert_eq!(&n[24..], &want[..]);
        assert_eq!(neighbours(&t, "spine17"), ["leaf1", "leaf5"]);
    }

    #[test]
    fn leaf_spine_counts() {
        let t = build(&TopologyDef::LeafSpine {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 4,
            host_link: lc(100, 1),
            fabric_link: lc(400, 1),
        })
        .unwrap();
        assert_eq!(t.hosts.len(), 16);
        assert_eq!(t.switches.len(), 6);
        assert_eq!(t.links.len(), 16 + 8);
        assert_eq!(host_switch(&t, 4), "leaf1");
        assert_eq!(
            neighbours(&t, "leaf1"),
            ["h4", "h5", "h6", "h7", "spine0", "spine1"]
        );
        assert_eq!(
            neighbours(&t, "spine1"),
            ["leaf0", "leaf1", "leaf2", "leaf3"]
        );
        assert_eq!(t.links[16].rate, Rate::gbps(400));
        assert_eq!(t.links[0].rate, Rate::gbps(100));
    }

    #[test]
    fn small_kinds() {
        let star = build(&TopologyDef::Star {
            hosts: 3,
            link: lc(100, 1),
        })
        .unwrap();
        assert_eq!(star.hosts.len(), 3);
        assert_eq!(star.switches.len(), 1);
        assert_eq!(star.switches[0].name, "sw0");
        assert_eq!(star.switches[0].role, "switch");
        assert_eq!(star.links.len(), 3);

        let db = build(&TopologyDef::Dumbbell {
            hosts_per_switch: 2,
            link: lc(100, 1),
            fabric_link: lc(40, 2),
        })
        .unwrap();
        assert_eq!(db.hosts.len(), 4);
        assert_eq!(db.switches.len(), 2);
        assert_eq!(neighbours(&db, "sw0"), ["h0", "h1", "sw1"]);
        assert_eq!(neighbours(&db, "sw1"), ["h2", "h3", "sw0"]);
        assert_eq!(db.links[4].rate, Rate::gbps(40));
        assert_eq!(db.links[4].delay, Time::from_us(2));

        let chain = build(&TopologyDef::Chain {
            switches: 4,
            hosts_per_switch: 1,
            link: lc(100, 1),
            fabric_link: lc(100, 1),
        })
        .unwrap();
        assert_eq!(chain.links.len(), 4 + 3);
        assert_eq!(neighbours(&chain, "sw1"), ["h1", "sw0", "sw2"]);
        assert_eq!(neighbours(&chain, "sw3"), ["h3", "sw2"]);

        let ring = build(&TopologyDef::Ring {
            switches: 4,
            hosts_per_switch: 2,
            link: lc(100, 1),
            fabric_link: lc(100, 1),
        })
        .unwrap();
        assert_eq!(ring.hosts.len(), 8);
        assert_eq!(ring.links.len(), 8 + 4);
        assert_eq!(neighbours(&ring, "sw0"), ["h0", "h1", "sw1", "sw3"]);
        assert_eq!(neighbours(&ring, "sw3"), ["h6", "h7", "sw2", "sw0"]);
    }

    #[test]
    fn every_kind_is_connected() {
        let l = lc(100, 1);
        let defs = [
            TopologyDef::Star { hosts: 1, link: l },
            TopologyDef::Dumbbell {
                hosts_per_switch: 1,
                link: l,
                fabric_link: l,
            },
            TopologyDef::Chain {
                switches: 5,
                hosts_per_switch: 2,
                link: l,
                fabric_link: l,
            },
            TopologyDef::Ring {
                switches: 3,
                hosts_per_switch: 1,
                link: l,
                fabric_link: l,
            },
            TopologyDef::LeafSpine {
                leaves: 3,
                spines: 1,
                hosts_per_leaf: 2,
                host_link: l,
                fabric_link: l,
            },
            TopologyDef::FatTree {
                k: 2,
                host_link: l,
                fabric_link: l,
                oversubscription: 1,
            },
            TopologyDef::FatTree {
                k: 6,
                host_link: l,
                fabric_link: l,
                oversubscription: 2,
            },
            TopologyDef::Clos3 {
                podsets: 3,
                tors_per_podset: 2,
                leaves_per_podset: 2,
                spines: 4,
                hosts_per_tor: 2,
                host_link: l,
                fabric_link: l,
            },
            explicit(
                &["A", "B", "C", "D", "R"],
                &["S1", "S2"],
                &[
                    ("A", "S1"),
                    ("B", "S1"),
                    ("C", "S1"),
                    ("S1", "S2"),
                    ("D", "S2"),
                    ("R", "S2"),
                ],
            ),
        ];
        for d in &defs {
            let t = build(d).unwrap_or_else(|e| panic!("{d:?}: {e:?}"));
            assert_eq!(check_connected(&t), Ok(()));
            // Every host has exactly one link.
            for h in 0..t.hosts.len() as u32 {
                assert_eq!(degree(&t, NodeRef::Host(h)), 1);
            }
        }
    }

    #[test]
    fn explicit_parking_lot() {
        let mut d = explicit(
            &["A", "B", "C", "D", "R"],
            &["S1", "S2"],
            &[
                ("A", "S1"),
                ("B", "S1"),
                ("C", "S1"),
                ("S1", "S2"),
                ("D", "S2"),
                ("R", "S2"),
            ],
        );
        if let TopologyDef::Explicit { links, .. } = &mut d {
            links[3].rate = Some(Rate::gbps(100));
        }
        let t = build(&d).unwrap();
        assert_eq!(t.links.len(), 6);
        assert_eq!(t.links[3].a, NodeRef::Switch(0));
        assert_eq!(t.links[3].b, NodeRef::Switch(1));
        assert_eq!(t.links[3].rate, Rate::gbps(100));
        assert_eq!(t.links[3].delay, Time::from_us(1));
        assert_eq!(t.links[0].rate, Rate::gbps(40));
        assert_eq!(t.switches[1].role, "switch");
        assert_eq!(t.hosts[4].name, "R");
        assert_eq!(neighbours(&t, "S2"), ["S1", "D", "R"]);
    }

    #[test]
    fn explicit_errors_all_at_once() {
        let d = explicit(
            &["A", "B", "A", "X"],
            &["S1", "X", "S1"],
            &[
                ("A", "S1"),
                ("B", "S9"),
                ("S1", "S1"),
                ("A", "S1"),
                ("Qxyz", "zzzz"),
            ],
        );
        let errs = build(&d).unwrap_err();
        let want = [
            "duplicate host name `A`",
            "`X` is both a host and a switch",
            "duplicate switch name `S1`",
            "link 2: unknown node `S9`; did you mean `S1`?",
            "link 3: `S1` is linked to itself",
            "link 5: unknown node `Qxyz`",
            "link 5: unknown node `zzzz`",
            "host `A` has 2 links (links 1, 4); a host has one NIC port, so exactly one link",
        ];
        for w in want {
            assert!(errs.iter().any(|e| e == w), "missing {w:?} in {errs:#?}");
        }
        assert_eq!(errs.len(), want.len(), "{errs:#?}");
    }

    #[test]
    fn explicit_reserved_names() {
        let errs = build(&explicit(
            &["all", "a/b"],
            &["S1"],
            &[("all", "S1"), ("a/b", "S1")],
        ))
        .unwrap_err();
        assert_eq!(
            errs,
            [
                "host name `all` is reserved: it is the selector for every host",
                "name `a/b` contains `/`, which host selectors use (`tor2/*`); rename it",
            ]
        );
    }

    #[test]
    fn explicit_no_hosts() {
        let errs = build(&explicit(&[], &["S1"], &[])).unwrap_err();
        assert_eq!(errs, ["the topology has no hosts; list them in `hosts`"]);
    }

    #[test]
    fn disconnected_is_named() {
        let d = explicit(
            &["h0", "h1", "h7"],
            &["S1", "S2", "S3"],
            &[("h0", "S1"), ("h1", "S1"), ("S1", "S2"), ("h7", "S3")],
        );
        let errs = build(&d).unwrap_err();
        assert_eq!(
            errs,
            ["the topology is disconnected: `h7`, `S3` cannot reach `h0`"]
        );
        // A host with no link at all.
        let d = explicit(&["A", "B"], &["S1"], &[("A", "S1")]);
        assert_eq!(
            build(&d).unwrap_err(),
            ["the topology is disconnected: `B` cannot reach `A`"]
        );
    }

    #[test]
    fn disconnected_long_list_is_cut() {
        let mut t = ft(4, 1);
        t.links.clear();
        let e = check_connected(&t).unwrap_err();
        assert!(
            e.starts_with("the topology is disconnected: `h1`, `h2`"),
            "{e}"
        );
        assert!(e.ends_with("and 25 more cannot reach `h0`"), "{e}");
    }

    #[test]
    fn generated_errors() {
        let l = lc(100, 1);
        let e = build(&TopologyDef::FatTree {
            k: 5,
            host_link: l,
            fabric_link: l,
            oversubscription: 0,
        })
        .unwrap_err();
        assert_eq!(
            e,
            [
                "fat_tree: k = 5 is odd; k must be even (4, 8, 16, ...)",
                "fat_tree: oversubscription = 0; it must be at least 1",
            ]
        );
        let e = build(&TopologyDef::FatTree {
            k: 0,
            host_link: l,
            fabric_link: l,
            oversubscription: 1,
        })
        .unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("fat_tree: k = 0"), "{e:?}");

        let e = build(&TopologyDef::Clos3 {
            podsets: 2,
            tors_per_podset: 0,
            leaves_per_podset: 3,
            spines: 64,
            hosts_per_tor: 24,
            host_link: l,
            fabric_link: l,
        })
        .unwrap_err();
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[0], "clos3: tors_per_podset = 0; it must be at least 1");
        assert!(e[1].starts_with("clos3: spines = 64 is not divisible by leaves_per_podset = 3"));

        let e = build(&TopologyDef::Star { hosts: 0, link: l }).unwrap_err();
        assert_eq!(e, ["star: hosts = 0; it must be at least 1"]);

        let e = build(&TopologyDef::LeafSpine {
            leaves: 0,
            spines: 0,
            hosts_per_leaf: 1,
            host_link: l,
            fabric_link: l,
        })
        .unwrap_err();
        assert_eq!(e.len(), 2);

        let e = build(&TopologyDef::Chain {
            switches: 0,
            hosts_per_switch: 2,
            link: l,
            fabric_link: l,
        })
        .unwrap_err();
        assert_eq!(e, ["chain: switches = 0; it must be at least 1"]);

        let e = build(&TopologyDef::Ring {
            switches: 2,
            hosts_per_switch: 1,
            link: l,
            fabric_link: l,
        })
        .unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("at least 3 switches"));

        let e = build(&TopologyDef::Dumbbell {
            hosts_per_switch: 0,
            link: l,
            fabric_link: l,
        })
        .unwrap_err();
        assert_eq!(e, ["dumbbell: hosts_per_switch = 0; it must be at least 1"]);

        let e = build(&TopologyDef::FatTree {
            k: 1000,
            host_link: l,
            fabric_link: l,
            oversubscription: 1,
        })
        .unwrap_err();
        assert!(e[0].contains("more than the"), "{e:?}");
    }
}
