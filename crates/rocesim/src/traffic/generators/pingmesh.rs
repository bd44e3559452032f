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
    let adj = switch_adjacency(topo);
    let tor = tor_of(topo);
    let mut from_tor: Vec<Option<[Vec<u32>; 3]>> = vec![None; topo.switches.len()];
    (hosts.iter())
        .map(|&h| {
            let Some(t) = tor[h as usize] else {
                return Default::default();
            };
            let lists =
                from_tor[t as usize].get_or_insert_with(|| levels_from(topo, &adj, &tor, hosts, t));
            lists
                .clone()
                .map(|l| l.into_iter().filter(|&p| p != h).collect())
        })
        .collect()
}

/// Each switch's switch neighbours.
fn switch_adjacency(topo: &Topology) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); topo.switches.len()];
    for l in &topo.links {
        if let (NodeRef::Switch(a), NodeRef::Switch(b)) = (l.a, l.b) {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
    }
    adj
}

/// The servers of `hosts` (in order) at each level from ToR `t` (indexed like
/// [`PingLevel::ALL`]); the ToR's own servers, the server asking included, are at level
/// `Tor`. Servers whose ToRs are not connected to `t` are at no level.
fn levels_from(
    topo: &Topology,
    adj: &[Vec<u32>],
    tor: &[Option<u32>],
    hosts: &[u32],
    t: u32,
) -> [Vec<u32>; 3] {
    let d = switch_hops(topo, adj, t);
    let mut lv: [Vec<u32>; 3] = Default::default();
    for &p in hosts {
        let Some(pt) = tor[p as usize] else { continue };
        let hops = d[pt as usize];
        if hops != u32::MAX {
            lv[PingLevel::of_hops(hops) as usize].push(p);
        }
    }
    lv
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
    let adj = switch_adjacency(topo);
    let tor = tor_of(topo);
    // Hosts grouped by ToR (positions in `hosts`): the peer lists of one ToR's servers are
    // built once and dropped before the next ToR's, so memory stays O(hosts) where a list per
    // server would be O(hosts²) (48,000 servers: 9 GB).
    let mut by_tor: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, &h) in p.hosts.iter().enumerate() {
        if let Some(t) = tor[h as usize] {
            by_tor.entry(t).or_default().push(i);
        }
    }
    let mut per_host: Vec<Vec<FlowSpec>> = vec![Vec::new(); p.hosts.len()];
    for (t, members) in by_tor {
        let lists = levels_from(topo, &adj, &tor, p.hosts, t);
        for i in members {
            let h = p.hosts[i];
            // This server's peers at each level, found once (not per probe: a level's list
            // can hold every server of the fabric).
            let cands: [Candidates<'_>; 3] = std::array::from_fn(|l| Candidates::new(&lists[l], h));
            let mut rng = workload_stream(seed, id, i as u64);
            let step = p.interval.ps().max(1);
            let mut at = p.at.ps() + rng.random_range(0..step);
            while at < p.until.ps() {
                for &level in p.levels {
                    let cand = &cands[level as usize];
                    if cand.len == 0 {
                        continue;
                    }
                    let dst = cand.get(rng.random_range(0..cand.len));
                    let mut f = flow(h, dst, Some(p.size), Time::from_ps(at), dscp(h));
                    f.kind = FlowKind::Probe(Probe {
                        level,
                        timeout: p.timeout,
                    });
                    per_host[i].push(f);
                }
                at += step;
            }
        }
    }
    per_host.into_iter().flatten().collect()
}

/// The peers of server `h` at one level: the level's list of servers without `h` itself,
/// indexed without copying the list (`h` is in it at most at its own ToR's level).
struct Candidates<'a> {
    list: &'a [u32],
    me: u32,
    /// Where `h` is in `list` when it is there exactly once (the usual case).
    at: Option<usize>,
    /// `list` without `h`, when `h` is there more than once (a host listed twice).
    filtered: Option<Vec<u32>>,
    len: usize,
}

impl<'a> Candidates<'a> {
    fn new(list: &'a [u32], me: u32) -> Self {
        let mut at = None;
        let mut count = 0;
        for (j, &x) in list.iter().enumerate() {
            if x == me {
                count += 1;
                at.get_or_insert(j);
            }
        }
        let filtered = (count > 1).then(|| list.iter().copied().filter(|&x| x != me).collect());
        Candidates {
            list,
            me,
            at: if count == 1 { at } else { None },
            filtered,
            len: list.len() - count,
        }
    }

    /// The `k`-th peer (`k` < `len`), in the order of the host list.
    fn get(&self, k: usize) -> u32 {
        if let Some(f) = &self.filtered {
            return f[k];
        }
        let j = match self.at {
            Some(a) if k >= a => k + 1,
            _ => k,
        };
        debug_assert_ne!(self.list[j], self.me);
        self.list[j]
    }
}

/// The number of probes [`pingmesh`] makes at most (a guard against a mistyped interval).
pub fn probe_count(p: &Pingmesh<'_>) -> f64 {
    let span = p.until.saturating_sub(p.at);
    let per_host = span.ps() as f64 / p.interval.ps().max(1) as f64 + 1.0;
    per_host * p.hosts.len() as f64 * p.levels.len() as f64
}
