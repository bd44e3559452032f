//! The PFC deadlock detector.
//!
//! Nodes of the wait-for graph are egress (port, priority) pairs that are paused, hold packets
//! and transmitted nothing since the previous check. A node waits for the queues holding the
//! packets that keep its peer's ingress over XOFF: if (T, E, p) holds packets that arrived on
//! T's ingress port I, then the egress feeding I, (peer(I), p), waits for (T, E, p). A cycle of
//! such waits (a strongly connected component) that persists for `sim.deadlock_detection` is a
//! deadlock (Hu et al. HotNets 2016; Guo et al. 2016 §4.2).
//!
//! The check runs every `deadlock_detection / 10` (between 10 us and 1 ms) and returns at
//! once when no priority anywhere is paused, so it costs nothing in a network without pauses.

use super::Sim;
use crate::engine::Event;
use crate::monitor::failures::{DeadlockMember, DeadlockRecord};
use crate::units::Time;

/// A cycle being watched.
#[derive(Clone, Debug)]
struct Candidate {
    /// Sorted node ids (port × 8 + priority).
    members: Vec<u32>,
    /// When it was first seen.
    since: Time,
    /// Already reported.
    reported: bool,
}

/// Detector state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Detector {
    /// Transmitted frames per (port, priority) at the previous check.
    tx_seen: Vec<u64>,
    candidates: Vec<Candidate>,
    /// Reported deadlocks: (formed, detected, members in cycle order, flows).
    pub found: Vec<(Time, Time, Vec<u32>, Vec<u32>)>,
    interval: Time,
}

impl Sim {
    /// Start the detector (at build time).
    pub(crate) fn schedule_deadlock_detector(&mut self) {
        let d = self.scenario.sim.deadlock_detection;
        if d == Time::ZERO {
            return;
        }
        let interval = Time((d.ps() / 10).clamp(10_000_000, 1_000_000_000));
        self.dl.interval = interval;
        self.dl.tx_seen = vec![0; self.ports.len() * 8];
        self.q.schedule(interval, Event::DeadlockCheck);
    }

    pub(crate) fn on_deadlock_check(&mut self) {
        let now = self.now();
        let next = now + self.dl.interval;
        if next <= self.end {
            self.q.schedule(next, Event::DeadlockCheck);
        }
        if self.paused_count == 0 && self.dl.candidates.is_empty() {
            return;
        }
        // Nodes: paused, non-empty, not draining.
        let mut is_node = vec![false; self.ports.len() * 8];
        let mut nodes = Vec::new();
        for (p, port) in self.ports.iter().enumerate() {
            let mut m = port.pause.mask & !port.pause_ignore;
            while m != 0 {
                let prio = m.trailing_zeros() as usize;
                m &= m - 1;
                let i = p * 8 + prio;
                let ti = prio * self.ports.len() + p;
                let q = port.queue_of_prio[prio];
                if port.nonempty & (1 << q) != 0 && self.tx[ti].packets == self.dl.tx_seen[ti] {
                    is_node[i] = true;
                    nodes.push(i as u32);
                }
            }
        }
        for (i, c) in self.tx.iter().enumerate() {
            self.dl.tx_seen[i] = c.packets;
        }
        // Edges: upstream egress feeding an ingress → the node holding that ingress's packets.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for &n in &nodes {
            let port = &self.ports[(n / 8) as usize];
            let q = port.queue_of_prio[(n % 8) as usize];
            let mut seen: Vec<u32> = Vec::new();
            for e in &port.queues[q as usize] {
                if e.in_port == u32::MAX || seen.contains(&e.in_port) {
                    continue;
                }
                seen.push(e.in_port);
                let up = self.ports[e.in_port as usize].peer * 8 + e.tc as u32;
                if is_node[up as usize] {
                    edges.push((up, n));
                }
            }
        }
        let cycles = strongly_connected_cycles(&nodes, &edges);
        self.track_cycles(cycles, now);
    }

    fn track_cycles(&mut self, cycles: Vec<Vec<u32>>, now: Time) {
        let mut keep = Vec::new();
        for c in cycles {
            let mut sorted = c.clone();
            sorted.sort_unstable();
            let prev = self.dl.candidates.iter().position(|x| x.members == sorted);
            let mut cand = match prev {
                Some(i) => self.dl.candidates[i].clone(),
                None => Candidate {
                    members: sorted,
                    since: now,
                    reported: false,
                },
            };
            if !cand.reported && now - cand.since >= self.scenario.sim.deadlock_detection {
                cand.reported = true;
                let flows = self.flows_in(&c);
                self.dl.found.push((cand.since, now, c, flows));
                if self.scenario.sim.stop_on_deadlock {
                    self.stop_requested = true;
                }
            }
            keep.push(cand);
        }
        self.dl.candidates = keep;
    }

    /// Flows with packets in the queues of these nodes.
    fn flows_in(&self, nodes: &[u32]) -> Vec<u32> {
        let mut flows = Vec::new();
        for &n in nodes {
            let port = &self.ports[(n / 8) as usize];
            let q = port.queue_of_prio[(n % 8) as usize];
            for e in &port.queues[q as usize] {
                flows.push(self.arena.get(e.pkt).flow);
            }
        }
        flows.sort_unstable();
        flows.dedup();
        flows
    }

    /// The deadlocks found, named.
    pub(crate) fn deadlock_records(&self) -> Vec<DeadlockRecord> {
        self.dl
            .found
            .iter()
            .map(|(formed, detected, members, flows)| DeadlockRecord {
                formed_ns: formed.ns(),
                detected_ns: detected.ns(),
                members: members
                    .iter()
                    .map(|&n| {
                        let port = &self.ports[(n / 8) as usize];
                        DeadlockMember {
                            node: self.node_name(port.node).to_string(),
                            port: port.local as u32,
                            peer: self
                                .node_name(self.ports[port.peer as usize].node)
                                .to_string(),
                            prio: (n % 8) as u8,
                        }
                    })
                    .collect(),
                flows: flows.clone(),
            })
            .collect()
    }
}

/// The cycles of a directed graph: its strongly connected components with more than one node
/// (or a self-loop), each in an order that follows its edges where possible (Tarjan 1972).
pub(crate) fn strongly_connected_cycles(nodes: &[u32], edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
    let n = nodes.len();
    let idx = |x: u32| nodes.iter().position(|&y| y == x);
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut self_loop = vec![false; n];
    for &(a, b) in edges {
        if let (Some(i), Some(j)) = (idx(a), idx(b)) {
            adj[i].push(j);
            if i == j {
                self_loop[i] = true;
            }
        }
    }
    // Iterative Tarjan.
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0usize;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if *k < adj[v].len() {
                let w = adj[v][*k];
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("on stack");
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 || self_loop[v] {
                    comp.reverse();
                    out.push(comp.into_iter().map(|i| nodes[i]).collect());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strongly_connected_cycles;

    #[test]
    fn finds_a_ring_and_ignores_a_chain() {
        let nodes = [10, 20, 30, 40, 50];
        let ring = [(10, 20), (20, 30), (30, 40), (40, 10), (40, 50)];
        let c = strongly_connected_cycles(&nodes, &ring);
        assert_eq!(c.len(), 1);
        let mut m = c[0].clone();
        m.sort();
        assert_eq!(m, vec![10, 20, 30, 40]);
        let chain = [(10, 20), (20, 30), (30, 40)];
        assert!(strongly_connected_cycles(&nodes, &chain).is_empty());
        assert_eq!(
            strongly_connected_cycles(&nodes, &[(50, 50)]),
            vec![vec![50]]
        );
    }
}
