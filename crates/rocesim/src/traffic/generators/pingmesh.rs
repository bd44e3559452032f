//! RDMA Pingmesh (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016, §5.3):
//! every server periodically sends small RDMA probes (512 B of payload) to servers at three
//! levels of the fabric (its own ToR, its podset, the rest of the data centre) and logs the
//! round-trip time or the error.
//!
//! A probe here is a one-message RDMA WRITE of `size` bytes on its own QP; its RTT is the time
//! from posting to the final ACK at the sender (the completion the prober waits for).

use std::collections::VecDeque;

use rand::RngExt;

use super::{flow, workload_stream};
use crate::topology::{NodeRef, Topology};
use crate::traffic::flow::{FlowKind, FlowSpec, Probe};
use crate::units::Time;

/// How far apart a probe's two servers are, as Pingmesh groups its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PingLevel {
    /// Both servers hang from the same ToR.
    Tor,
    /// Different ToRs joined through one switch above them (same podset or pod; in a
    /// two-tier leaf-spine, any two ToRs).
    Podset,
    /// Farther apart: across podsets, through the spine or core.
    Dc,
}

impl PingLevel {
    /// All levels, nearest first.
    pub const ALL: [PingLevel; 3] = [PingLevel::Tor, PingLevel::Podset, PingLevel::Dc];

    /// The level's name in scenario files and results (`tor`, `podset`, `dc`).
    pub fn name(self) -> &'static str {
        match self {
            PingLevel::Tor => "tor",
            PingLevel::Podset => "podset",
            PingLevel::Dc => "dc",
        }
    }

    /// The level of two servers whose ToRs are `hops` switch-to-switch links apart: 0 is the
    /// same ToR, 1–2 (one switch between, as ToR–leaf–ToR) the podset, more the data centre.
    pub fn of_hops(hops: u32) -> PingLevel {
        match hops {
            0 => PingLevel::Tor,
            1 | 2 => PingLevel::Podset,
            _ => PingLevel::Dc,
        }
    }
}

/// A Pingmesh workload, checked.
#[derive(Clone, Debug)]
pub struct Pingmesh<'a> {
    /// The probing servers; each probes the others of this list.
    pub hosts: &'a [u32],
    /// Time between two probes of one server to one level.
    pub interval: Time,
    /// Probe payload, bytes (Guo et al.: 512).
    pub size: u64,
    /// The levels probed.
    pub levels: &'a [PingLevel],
    /// Probes start in [at, until).
    pub at: Time,
    /// See `at`.
    pub until: Time,
    /// A probe not acknowledged within this time is an error.
    pub timeout: Time,
}

/// The ToR (first switch) of every host, `None` for a host without a link to a switch.
fn tor_of(topo: &Topology) -> Vec<Option<u32>> {
    let mut tor = vec![None; topo.hosts.len()];
    for l in &topo.links {
        if let (NodeRef::Host(h), NodeRef::Switch(s)) | (NodeRef::Switch(s), NodeRef::Host(h)) =
            (l.a, l.b)
        {
            tor[h as usize].get_or_insert(s);
        }
    }
    tor
}

/// Switch-to-switch hop counts from switch `from` (breadth first; `u32::MAX` unreachable).
fn switch_hops(topo: &Topology, adj: &[Vec<u32>], from: u32) -> Vec<u32> {
    let mut d = vec![u32::MAX; topo.switches.len()];
    d[from as usize] = 0;
    let mut q = VecDeque::from([from]);
    while let Some(s) = q.pop_front() {
        for &n in &adj[s as usize] {
            if d[n as usize] == u32::MAX {
                d[n as usize] = d[s as usize] + 1;
                q.push_back(n);
            }
        }
    }
    d
}

/// For each server of `hosts` (in order), its peers among `hosts` at each level
/// (indexed like [`PingLevel::ALL`]). Servers whose ToRs are not connected are no one's peers.
pub fn peers(topo: &Topology, hosts: &[u32]) -> Vec<[Vec<u32>; 3]> {
    let mut adj = vec![Vec::new(); topo.switches.len()];
    for l in &topo.links {
        if let (NodeRef::Switch(a), NodeRef::Switch(b)) = (l.a, l.b) {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
    }
    let tor = tor_of(topo);
    let mut hops_from: Vec<Option<Vec<u32>>> = vec![None; topo.switches.len()];
    let mut out = Vec::with_capacity(hosts.len());
    for &h in hosts {
        let mut lv: [Vec<u32>; 3] = Default::default();
        if let Some(t) = tor[h as usize] {
            let d = hops_from[t as usize].get_or_insert_with(|| switch_hops(topo, &adj, t));
            for &p in hosts.iter().filter(|&&p| p != h) {
                let Some(pt) = tor[p as usize] else { continue };
                let hops = d[pt as usize];
                if hops != u32::MAX {
                    lv[PingLevel::of_hops(hops) as usize].push(p);
                }
            }
        }
        out.push(lv);
    }
    out
}

/// The probes: each server starts at a random phase in [at, at + interval) and then, every
/// `interval`, sends one probe to each requested level where it has peers, to a peer drawn
/// uniformly at random (Pingmesh's servers ping lists of peers; a random draw covers them
/// evenly). Flows are ordered by server, then time, then level; each carries
/// [`FlowKind::Probe`] with its level.
pub fn pingmesh(
    topo: &Topology,
    p: &Pingmesh<'_>,
    seed: u64,
    id: u64,
    dscp: &dyn Fn(u32) -> u8,
) -> Vec<FlowSpec> {
    let peers = peers(topo, p.hosts);
    let mut flows = Vec::new();
    let step = p.interval.ps().max(1);
    for (i, (&h, lv)) in p.hosts.iter().zip(&peers).enumerate() {
        let mut rng = workload_stream(seed, id, i as u64);
        let mut t = p.at.ps() + rng.random_range(0..step);
        while t < p.until.ps() {
            for &level in p.levels {
                let cand = &lv[level as usize];
                if cand.is_empty() {
                    continue;
                }
                let dst = cand[rng.random_range(0..cand.len())];
                let mut f = flow(h, dst, Some(p.size), Time::from_ps(t), dscp(h));
                f.kind = FlowKind::Probe(Probe {
                    level,
                    timeout: p.timeout,
                });
                flows.push(f);
            }
            t += step;
        }
    }
    flows
}

/// The number of probes [`pingmesh`] makes at most (a guard against a mistyped interval).
pub fn probe_count(p: &Pingmesh<'_>) -> f64 {
    let span = p.until.saturating_sub(p.at);
    let per_host = span.ps() as f64 / p.interval.ps().max(1) as f64 + 1.0;
    per_host * p.hosts.len() as f64 * p.levels.len() as f64
}
