//! The explicit list form of a topology: named hosts and switches and the links between them.

use std::collections::HashMap;

use super::builder::{fail, rate_ok};
use crate::topology::suggest::suggest;
use crate::topology::{ExplicitLink, HostSpec, LinkClass, LinkSpec, NodeRef, SwitchSpec, Topology};

/// The topology of the lists `hosts`, `switches` and `links`; a link without its own rate or
/// delay takes those of `default`. Every error is listed: empty, reserved or duplicate names,
/// unknown nodes (with a suggestion), zero rates, self-links, hosts with more than one link.
pub fn build_explicit(
    hosts: &[String],
    switches: &[String],
    links: &[ExplicitLink],
    default: LinkClass,
) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    if hosts.is_empty() {
        errs.push("the topology has no hosts; list them in `hosts`".to_string());
    }
    rate_ok(&mut errs, "topology", "link", &default);
    let index = name_index(hosts, switches, &mut errs);
    let out = resolve_links(hosts, switches, links, default, &index, &mut errs);
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

/// Every node by name; reports empty, reserved (`all`, names with `/`) and duplicate names.
fn name_index<'a>(
    hosts: &'a [String],
    switches: &'a [String],
    errs: &mut Vec<String>,
) -> HashMap<&'a str, NodeRef> {
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
    index
}

/// The links with their ends resolved; reports unknown nodes, zero rates, self-links and hosts
/// with more than one link.
fn resolve_links(
    hosts: &[String],
    switches: &[String],
    links: &[ExplicitLink],
    default: LinkClass,
    index: &HashMap<&str, NodeRef>,
    errs: &mut Vec<String>,
) -> Vec<LinkSpec> {
    let resolve = |errs: &mut Vec<String>, i: usize, name: &str| -> Option<NodeRef> {
        let r = index.get(name).copied();
        if r.is_none() {
            let mut msg = format!("link {}: unknown node `{name}`", i + 1);
            if let Some(s) = suggest(name, hosts.iter().chain(switches.iter())) {
                msg.push_str(&format!("; did you mean `{s}`?"));
            }
            errs.push(msg);
        }
        r
    };
    let mut host_links: Vec<Vec<usize>> = vec![Vec::new(); hosts.len()];
    let mut out = Vec::with_capacity(links.len());
    for (i, l) in links.iter().enumerate() {
        let a = resolve(errs, i, &l.a);
        let b = resolve(errs, i, &l.b);
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
    one_link_per_host(hosts, &host_links, errs);
    out
}

/// Reports each host with more than one link (`host_links`: the link indices of each host).
fn one_link_per_host(hosts: &[String], host_links: &[Vec<usize>], errs: &mut Vec<String>) {
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
}
