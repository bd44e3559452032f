//! How a partitioned run (`sim.threads = N`) splits the fabric: which thread simulates each
//! switch and host, which links cross a cut, and the lookahead (the shortest propagation
//! delay of a link across a cut: a frame sent at `t` reaches the other side no earlier than
//! `t + lookahead`, so the threads need exchange only once per window of that length).
//!
//! The split follows the fabric's pods without knowing its kind. Each switch's tier is its
//! hop distance to the nearest host (ToR 1, aggregation 2, core 3). Removing the top tier
//! leaves groups of switches joined below it (a fat-tree's pods, a leaf-spine's leaves);
//! each group goes with its hosts to the part with the fewest hosts so far, in order of the
//! group's lowest switch, and the top tier is dealt round-robin. A fabric of one tier (a
//! chain, a ring, a star) is split the same way, switch by switch.

use std::collections::VecDeque;

use super::Sim;
use crate::ids::PortId;
use crate::topology::{NodeRef, PortLocs};
use crate::units::Time;

/// Which part simulates each node of a partitioned run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owners {
    /// The part of each switch, by switch index.
    pub switches: Vec<u16>,
    /// The part of each host, by host index.
    pub hosts: Vec<u16>,
}

impl Owners {
    /// The part that simulates port `p`'s node.
    pub fn of_port(&self, loc: &PortLocs, p: PortId) -> u16 {
        match loc.get(p) {
            (NodeRef::Switch(s), _) => self.switches[s as usize],
            (NodeRef::Host(h), _) => self.hosts[h as usize],
        }
    }
}

/// The nodes a part simulates (on one thread of a partitioned run).
#[derive(Clone, Debug)]
pub(crate) struct Part {
    /// This part's index.
    pub index: u16,
    /// Every node's part.
    pub owners: Owners,
}

impl Part {
    /// This part simulates host `h`.
    #[inline]
    pub fn has_host(&self, h: u32) -> bool {
        self.owners.hosts[h as usize] == self.index
    }

    /// This part simulates port `p`'s node.
    pub fn has_port(&self, loc: &PortLocs, p: PortId) -> bool {
        self.owners.of_port(loc, p) == self.index
    }

    /// This part simulates switch `s`.
    #[inline]
    pub fn has_switch(&self, s: u32) -> bool {
        self.owners.switches[s as usize] == self.index
    }
}

/// The neighbours of every switch, and the switch each host hangs from (if any).
fn graph(sim: &Sim) -> (Vec<Vec<u32>>, Vec<Option<u32>>) {
    let mut adj = vec![Vec::new(); sim.switches.len()];
    let mut tor = vec![None; sim.nics.len()];
    for p in 0..sim.port_loc.len() as u32 {
        let (a, b) = (
            sim.port_loc.get(PortId(p)),
            sim.port_loc.get(PortId(p).peer()),
        );
        match (a.0, b.0) {
            (NodeRef::Switch(x), NodeRef::Switch(y)) if x != y => adj[x as usize].push(y),
            (NodeRef::Host(h), NodeRef::Switch(s)) => tor[h as usize] = Some(s),
            _ => {}
        }
    }
    (adj, tor)
}

/// Each switch's hop distance to the nearest host (`u32::MAX` when no host is reachable).
fn tiers(adj: &[Vec<u32>], tor: &[Option<u32>]) -> Vec<u32> {
    let mut tier = vec![u32::MAX; adj.len()];
    let mut q = VecDeque::new();
    for s in tor.iter().flatten() {
        if tier[*s as usize] == u32::MAX {
            tier[*s as usize] = 1;
            q.push_back(*s);
        }
    }
    while let Some(s) = q.pop_front() {
        for &n in &adj[s as usize] {
            if tier[n as usize] == u32::MAX {
                tier[n as usize] = tier[s as usize] + 1;
                q.push_back(n);
            }
        }
    }
    tier
}

/// Split `sim`'s fabric into `n` parts (see the module doc).
pub(crate) fn split(sim: &Sim, n: u16) -> Owners {
    let (adj, tor) = graph(sim);
    let tier = tiers(&adj, &tor);
    let top = tier
        .iter()
        .copied()
        .filter(|&t| t != u32::MAX)
        .max()
        .unwrap_or(1);
    let below = |s: usize| top == 1 || tier[s] < top;
    // Groups: switches below the top tier joined by links below it.
    let mut group = vec![u32::MAX; adj.len()];
    let mut ngroups = 0u32;
    for s in 0..adj.len() {
        if group[s] != u32::MAX || !below(s) {
            continue;
        }
        let mut q = VecDeque::from([s as u32]);
        group[s] = ngroups;
        while let Some(x) = q.pop_front() {
            for &y in &adj[x as usize] {
                let joined = top > 1 && below(y as usize);
                if joined && group[y as usize] == u32::MAX {
                    group[y as usize] = ngroups;
                    q.push_back(y);
                }
            }
        }
        ngroups += 1;
    }
    let mut hosts_of = vec![0u64; ngroups as usize];
    for s in tor.iter().flatten() {
        if group[*s as usize] != u32::MAX {
            hosts_of[group[*s as usize] as usize] += 1;
        }
    }
    let mut load = vec![0u64; n as usize];
    let mut part_of_group = Vec::with_capacity(ngroups as usize);
    for h in hosts_of {
        let p = (0..n as usize).min_by_key(|&i| (load[i], i)).unwrap_or(0);
        load[p] += h.max(1);
        part_of_group.push(p as u16);
    }
    let mut dealt = 0u16;
    let switches = (0..adj.len())
        .map(|s| match group[s] {
            u32::MAX => {
                dealt = dealt.wrapping_add(1);
                (dealt - 1) % n
            }
            g => part_of_group[g as usize],
        })
        .collect::<Vec<u16>>();
    let hosts = tor
        .iter()
        .enumerate()
        .map(|(h, t)| t.map_or(h as u16 % n, |s| switches[s as usize]))
        .collect();
    Owners { switches, hosts }
}

/// The shortest propagation delay of a link whose ends are in different parts (`None`
/// when no link crosses a cut).
pub(crate) fn lookahead(sim: &Sim, owners: &Owners) -> Option<Time> {
    (0..sim.port_loc.len() as u32)
        .map(PortId)
        .filter(|&p| owners.of_port(&sim.port_loc, p) != owners.of_port(&sim.port_loc, p.peer()))
        .map(|p| sim.ports().port(p).delay)
        .min()
}

/// Mark the wires of `sim`'s ports whose peers another part simulates.
pub(crate) fn cut_wires(sim: &mut Sim, owners: &Owners) {
    for p in 0..sim.port_loc.len() as u32 {
        let p = PortId(p);
        if owners.of_port(&sim.port_loc, p) == owners.of_port(&sim.port_loc, p.peer()) {
            continue;
        }
        match sim.port_loc.get(p) {
            (NodeRef::Switch(s), l) => sim.switches[s as usize].ports[l as usize].cut_wire(),
            (NodeRef::Host(h), _) => sim.nics[h as usize].port.cut_wire(),
        }
    }
}
