//! Host selectors: `"h3"`, `"all"`, `"tor2/*"` (hosts under tor2), `"pod1/*"`.
//!
//! A selector names a set of hosts:
//! - a host name (`"h3"`, `"A"`): that host;
//! - `"all"`: every host;
//! - `"<switch>/*"`: the hosts directly attached to that switch (`"tor2/*"`, `"edge0/*"`,
//!   `"S1/*"`);
//! - `"pod<N>/*"`: the hosts whose pod (fat-tree pod, Clos podset) is N.
//!
//! A switch name takes precedence over the `pod<N>` form, so an explicit switch called `pod1`
//! still selects its own hosts. Selections are sorted host ids without duplicates; an empty
//! selection is an error, since it is nearly always a mistake.

use super::{NodeRef, Topology};
use crate::topology::suggest::suggest;

/// Host ids a selector picks, in host-id order. An error names the selector and what did not
/// match, with a "did you mean" suggestion when a name is close to an existing one.
pub fn select(topo: &Topology, selector: &str) -> Result<Vec<u32>, String> {
    let sel = selector.trim();
    if sel == "all" {
        if topo.hosts.is_empty() {
            return Err("selector `all`: the topology has no hosts".into());
        }
        return Ok((0..topo.hosts.len() as u32).collect());
    }
    if let Some(prefix) = sel.strip_suffix("/*") {
        return select_group(topo, selector, prefix);
    }
    match node_by_name(topo, sel) {
        Some(NodeRef::Host(h)) => Ok(vec![h]),
        Some(NodeRef::Switch(_)) => Err(format!(
            "selector `{selector}` names a switch, not a host; did you mean `{sel}/*` (the hosts \
             attached to it)?"
        )),
        None => {
            let mut msg = format!("selector `{selector}`: no host named `{sel}`");
            if let Some(s) = suggest(sel, topo.hosts.iter().map(|h| &h.name)) {
                msg.push_str(&format!("; did you mean `{s}`?"));
            } else if let Some(s) = suggest(sel, topo.switches.iter().map(|s| &s.name)) {
                msg.push_str(&format!("; did you mean `{s}/*`?"));
            }
            if generated_names(topo) {
                msg.push_str(&format!(
                    " (hosts are h0..h{}, or use \"all\", \"<switch>/*\", \"pod<N>/*\")",
                    topo.hosts.len() - 1
                ));
            }
            Err(msg)
        }
    }
}

/// The union of several selectors, as sorted host ids without duplicates. Every failing
/// selector is reported, one per line.
pub fn select_many(topo: &Topology, selectors: &[String]) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for s in selectors {
        match select(topo, s) {
            Ok(ids) => out.extend(ids),
            Err(e) => errs.push(e),
        }
    }
    if !errs.is_empty() {
        return Err(errs.join("\n"));
    }
    if selectors.is_empty() {
        return Err("an empty list of host selectors selects no hosts".into());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The host or switch with this exact name, if any. Host names are searched first. Linear in the
/// number of nodes; callers resolving many names should build their own map.
pub fn node_by_name(topo: &Topology, name: &str) -> Option<NodeRef> {
    if let Some(h) = topo.hosts.iter().position(|h| h.name == name) {
        return Some(NodeRef::Host(h as u32));
    }
    topo.switches
        .iter()
        .position(|s| s.name == name)
        .map(|s| NodeRef::Switch(s as u32))
}

/// True when the hosts are exactly `h0..h{n-1}` (a generated topology).
fn generated_names(topo: &Topology) -> bool {
    !topo.hosts.is_empty()
        && topo
            .hosts
            .iter()
            .enumerate()
            .all(|(i, h)| h.name.strip_prefix('h') == Some(i.to_string().as_str()))
}

/// `"<switch>/*"` or `"pod<N>/*"`.
fn select_group(topo: &Topology, selector: &str, prefix: &str) -> Result<Vec<u32>, String> {
    if let Some(NodeRef::Switch(s)) = node_by_name(topo, prefix) {
        let me = NodeRef::Switch(s);
        let mut ids: Vec<u32> = topo
            .links
            .iter()
            .filter_map(|l| match (l.a, l.b) {
                (NodeRef::Host(h), o) | (o, NodeRef::Host(h)) if o == me => Some(h),
                _ => None,
            })
            .collect();
        if ids.is_empty() {
            return Err(format!(
                "selector `{selector}`: no hosts are attached to switch `{prefix}`"
            ));
        }
        ids.sort_unstable();
        ids.dedup();
        return Ok(ids);
    }
    if let Some(n) = prefix
        .strip_prefix("pod")
        .and_then(|n| n.parse::<u32>().ok())
    {
        let ids: Vec<u32> = topo
            .hosts
            .iter()
            .enumerate()
            .filter(|(_, h)| h.pod == Some(n))
            .map(|(i, _)| i as u32)
            .collect();
        if !ids.is_empty() {
            return Ok(ids);
        }
        let pods = topo.hosts.iter().filter_map(|h| h.pod).max();
        return Err(match pods {
            Some(max) => format!("selector `{selector}`: no pod {n}; pods are 0..{max}"),
            None => format!("selector `{selector}`: this topology has no pods"),
        });
    }
    if let Some(NodeRef::Host(_)) = node_by_name(topo, prefix) {
        return Err(format!(
            "selector `{selector}`: `{prefix}` is a host; write `{prefix}` to select it"
        ));
    }
    let mut msg = format!("selector `{selector}`: no switch named `{prefix}`");
    if let Some(s) = suggest(prefix, topo.switches.iter().map(|s| &s.name)) {
        msg.push_str(&format!("; did you mean `{s}/*`?"));
    }
    Err(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{build, ExplicitLink, LinkClass, TopologyDef};
    use crate::units::{Rate, Time};

    fn lc() -> LinkClass {
        LinkClass {
            rate: Rate::gbps(100),
            delay: Time::from_us(1),
        }
    }

    fn ft4() -> Topology {
        build(&TopologyDef::FatTree {
            k: 4,
            host_link: lc(),
            fabric_link: lc(),
            oversubscription: 1,
        })
        .unwrap()
    }

    fn parking_lot() -> Topology {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let links = [
            ("A", "S1"),
            ("B", "S1"),
            ("C", "S1"),
            ("S1", "S2"),
            ("D", "S2"),
            ("R", "S2"),
        ]
        .iter()
        .map(|(a, b)| ExplicitLink {
            a: a.to_string(),
            b: b.to_string(),
            rate: None,
            delay: None,
        })
        .collect();
        build(&TopologyDef::Explicit {
            hosts: names(&["A", "B", "C", "D", "R"]),
            switches: names(&["S1", "S2"]),
            links,
            link: lc(),
        })
        .unwrap()
    }

    #[test]
    fn basic_selectors() {
        let t = ft4();
        assert_eq!(select(&t, "h3"), Ok(vec![3]));
        assert_eq!(select(&t, "all").unwrap().len(), 16);
        assert_eq!(select(&t, "edge2/*"), Ok(vec![4, 5]));
        assert_eq!(select(&t, "pod1/*"), Ok(vec![4, 5, 6, 7]));
        assert_eq!(select(&t, "pod3/*"), Ok(vec![12, 13, 14, 15]));
        let e = select(&t, "agg0/*").unwrap_err();
        assert_eq!(
            e,
            "selector `agg0/*`: no hosts are attached to switch `agg0`"
        );
    }

    #[test]
    fn clos_selectors() {
        let t = build(&TopologyDef::Clos3 {
            podsets: 2,
            tors_per_podset: 2,
            leaves_per_podset: 2,
            spines: 4,
            hosts_per_tor: 2,
            host_link: lc(),
            fabric_link: lc(),
        })
        .unwrap();
        assert_eq!(select(&t, "tor2/*"), Ok(vec![4, 5]));
        assert_eq!(select(&t, "pod1/*"), Ok(vec![4, 5, 6, 7]));
    }

    #[test]
    fn explicit_selectors() {
        let t = parking_lot();
        assert_eq!(select(&t, "R"), Ok(vec![4]));
        assert_eq!(select(&t, "S2/*"), Ok(vec![3, 4]));
        assert_eq!(node_by_name(&t, "S2"), Some(NodeRef::Switch(1)));
        assert_eq!(node_by_name(&t, "C"), Some(NodeRef::Host(2)));
        assert_eq!(node_by_name(&t, "S3"), None);
        assert_eq!(
            select(&t, "pod0/*").unwrap_err(),
            "selector `pod0/*`: this topology has no pods"
        );
        assert_eq!(
            select(&t, "S1").unwrap_err(),
            "selector `S1` names a switch, not a host; did you mean `S1/*` (the hosts attached \
             to it)?"
        );
        assert_eq!(
            select(&t, "S3/*").unwrap_err(),
            "selector `S3/*`: no switch named `S3`; did you mean `S1/*`?"
        );
        assert_eq!(
            select(&t, "r").unwrap_err(),
            "selector `r`: no host named `r`; did you mean `R`?"
        );
        assert_eq!(
            select(&t, "A/*").unwrap_err(),
            "selector `A/*`: `A` is a host; write `A` to select it"
        );
    }

    #[test]
    fn unknown_names_suggest() {
        let t = ft4();
        assert_eq!(
            select(&t, "h16").unwrap_err(),
            "selector `h16`: no host named `h16`; did you mean `h1`? (hosts are h0..h15, or use \
             \"all\", \"<switch>/*\", \"pod<N>/*\")"
        );
        assert_eq!(
            select(&t, "edg3/*").unwrap_err(),
            "selector `edg3/*`: no switch named `edg3`; did you mean `edge3/*`?"
        );
        assert_eq!(
            select(&t, "pod4/*").unwrap_err(),
            "selector `pod4/*`: no pod 4; pods are 0..3"
        );
        assert!(select(&t, "core1")
            .unwrap_err()
            .contains("did you mean `core1/*`"));
    }

    #[test]
    fn many() {
        let t = ft4();
        let sel = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            select_many(&t, &sel(&["h5", "edge0/*", "h1"])),
            Ok(vec![0, 1, 5])
        );
        assert_eq!(
            select_many(&t, &sel(&["pod0/*", "pod0/*"])),
            Ok(vec![0, 1, 2, 3])
        );
        let e = select_many(&t, &sel(&["h99", "h1", "edgex/*"])).unwrap_err();
        assert_eq!(e.lines().count(), 2);
        assert!(e.contains("`h99`") && e.contains("`edgex/*`"));
        assert!(select_many(&t, &[]).is_err());
    }
}
