//! ToR-to-ToR traffic between two pods, many connections per server pair so that ECMP
//! spreads them.

use std::collections::{BTreeMap, HashSet};

use rand::RngExt;

use super::{flow, workload_stream, SPORT_MIN};
use crate::topology::{NodeRef, Topology};
use crate::traffic::flow::FlowSpec;
use crate::units::Time;

/// The hosts of pod `pod`, grouped by the switch they hang from (their ToR), ToRs in switch-id
/// order and hosts in host-id order.
pub fn tors_of_pod(topo: &Topology, pod: u32) -> Vec<(u32, Vec<u32>)> {
    let mut by_tor: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for l in &topo.links {
        let (h, s) = match (l.a, l.b) {
            (NodeRef::Host(h), NodeRef::Switch(s)) | (NodeRef::Switch(s), NodeRef::Host(h)) => {
                (h, s)
            }
            _ => continue,
        };
        if topo.hosts.get(h as usize).and_then(|x| x.pod) == Some(pod) {
            by_tor.entry(s).or_default().push(h);
        }
    }
    by_tor
        .into_iter()
        .map(|(s, mut hs)| {
            hs.sort_unstable();
            hs.dedup();
            (s, hs)
        })
        .collect()
}

/// ToR-to-ToR traffic (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016,
/// §5.4 and Fig. 7).
#[derive(Clone, Debug)]
pub struct TorToTor {
    /// The two pods (podsets); ToR i of the first is paired with ToR i of the second.
    pub pods: (u32, u32),
    /// Servers taking part per ToR (the first ones by host id); `None` = all.
    pub servers_per_tor: Option<u32>,
    /// Connections per server pair and direction (the paper: 8).
    pub connections: u32,
    /// Bytes per connection; `None` = long-lived (the paper's).
    pub size: Option<u64>,
    /// Start of every connection.
    pub at: Time,
}

/// A generator's error: the scenario key at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenError {
    /// The key (within the workload table) the error is about.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

fn gen_err(key: &'static str, message: String) -> GenError {
    GenError { key, message }
}

/// Connections of ToR-to-ToR traffic between the ToRs `ta` and `tb` (paired in order), at most
/// [`crate::traffic::workload::MAX_GENERATED_FLOWS`]: counted before any is generated.
fn connection_count(
    ta: &[(u32, Vec<u32>)],
    tb: &[(u32, Vec<u32>)],
    p: &TorToTor,
) -> Result<u64, GenError> {
    let pairs: u64 = (ta.iter().zip(tb))
        .map(|((_, ha), (_, hb))| ha.len().min(hb.len()) as u64)
        .map(|avail| p.servers_per_tor.map_or(avail, |n| avail.min(n as u64)))
        .sum();
    let total = pairs * 2 * u64::from(p.connections);
    let max = crate::traffic::workload::MAX_GENERATED_FLOWS;
    if total > max {
        let each = p.connections;
        return Err(gen_err(
            "connections",
            format!(
                "{total} connections ({pairs} server pairs, both directions, {each} each); at most {max}"
            ),
        ));
    }
    Ok(total)
}

/// ToR i of pod A is paired with ToR i of pod B; server j of one ToR with server j of its
/// peer; each pair opens `connections` connections in each direction, each with its own random
/// UDP source port in 49152..=65535 (distinct within a pair and direction), so ECMP spreads
/// them. Flows are ordered by ToR pair, server, direction (A→B first), connection.
pub fn tor_to_tor(
    topo: &Topology,
    p: &TorToTor,
    seed: u64,
    id: u64,
    dscp: &dyn Fn(u32) -> u8,
) -> Result<Vec<FlowSpec>, GenError> {
    let (pa, pb) = p.pods;
    if pa == pb {
        return Err(gen_err("pods", format!("the two pods are the same ({pa})")));
    }
    let (ta, tb) = (tors_of_pod(topo, pa), tors_of_pod(topo, pb));
    for (pod, tors) in [(pa, &ta), (pb, &tb)] {
        if tors.is_empty() {
            return Err(gen_err("pods", format!("pod {pod} has no hosts")));
        }
    }
    if ta.len() != tb.len() {
        return Err(gen_err(
            "pods",
            format!(
                "pod {pa} has {} ToRs and pod {pb} has {}; ToR i of one is paired with ToR i of \
                 the other",
                ta.len(),
                tb.len()
            ),
        ));
    }
    if p.connections == 0 {
        return Err(gen_err("connections", "must be at least 1".into()));
    }
    let total = connection_count(&ta, &tb, p)?;
    let mut rng = workload_stream(seed, id, 0);
    let mut flows = Vec::with_capacity(total as usize);
    for ((sa, ha), (sb, hb)) in ta.iter().zip(&tb) {
        let avail = ha.len().min(hb.len());
        let n = match p.servers_per_tor {
            Some(0) => return Err(gen_err("servers_per_tor", "must be at least 1".into())),
            Some(n) if n as usize > avail => {
                let name = |s: &u32| topo.switches[*s as usize].name.clone();
                return Err(gen_err(
                    "servers_per_tor",
                    format!(
                        "{n} servers per ToR, but `{}` and `{}` have only {} and {}",
                        name(sa),
                        name(sb),
                        ha.len(),
                        hb.len()
                    ),
                ));
            }
            Some(n) => n as usize,
            None => avail,
        };
        for j in 0..n {
            for (s, d) in [(ha[j], hb[j]), (hb[j], ha[j])] {
                let mut used = HashSet::new();
                for _ in 0..p.connections {
                    let sport = loop {
                        let x = rng.random_range(SPORT_MIN..=u16::MAX);
                        if used.len() >= (u16::MAX - SPORT_MIN) as usize || used.insert(x) {
                            break x;
                        }
                    };
                    let mut f = flow(s, d, p.size, p.at, dscp(s));
                    f.sport = sport;
                    flows.push(f);
                }
            }
        }
    }
    Ok(flows)
}
