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

use super::view::PortView;
use super::Monitor;
use crate::engine::PacketArena;
use crate::fabric::port::{Port, QEntry};
use crate::ids::{PortId, Priority};
use crate::topology::NodeRef;
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

/// A reported deadlock.
#[derive(Clone, Debug)]
pub struct Deadlock {
    /// When its cycle formed.
    pub formed: Time,
    /// When it was reported.
    pub detected: Time,
    /// Its (port × 8 + priority) nodes, in cycle order.
    pub members: Vec<u32>,
    /// Flows with packets in its queues.
    pub flows: Vec<u32>,
}

/// What a check sees of the wait-for graph, before its cycles are looked for: the stuck
/// nodes (port × 8 + priority, ascending), the waits of each in the order its queue holds
/// them ((waiting node, node waited for), whether or not the first is stuck), and, when
/// asked, the flows queued at each stuck node.
#[derive(Clone, Debug, Default)]
pub struct Waits {
    /// Stuck nodes, ascending.
    pub nodes: Vec<u32>,
    /// (upstream node, stuck node) pairs, grouped by stuck node in `nodes`' order.
    pub waits: Vec<(u32, u32)>,
    /// (stuck node, flow) pairs, when the local phase was given an arena.
    pub flows: Vec<(u32, u32)>,
}

impl Waits {
    /// Join the waits of the parts of a partitioned run (each stuck node is in one part), in
    /// the order one check of the whole network makes them.
    pub fn join(parts: Vec<Waits>) -> Waits {
        let mut w = Waits::default();
        for p in parts {
            w.nodes.extend(p.nodes);
            w.waits.extend(p.waits);
            w.flows.extend(p.flows);
        }
        w.nodes.sort_unstable();
        let pos = |n: u32| w.nodes.binary_search(&n).unwrap_or(usize::MAX);
        let order: Vec<usize> = w.waits.iter().map(|&(_, n)| pos(n)).collect();
        let mut idx: Vec<usize> = (0..w.waits.len()).collect();
        idx.sort_by_key(|&i| order[i]);
        w.waits = idx.into_iter().map(|i| w.waits[i]).collect();
        w
    }

    /// The flows queued at these nodes, ascending.
    pub fn flows_of(&self, nodes: &[u32]) -> Vec<u32> {
        let mut f: Vec<u32> = (self.flows.iter())
            .filter(|(n, _)| nodes.contains(n))
            .map(|&(_, f)| f)
            .collect();
        f.sort_unstable();
        f.dedup();
        f
    }
}

/// Detector state.
#[derive(Clone, Debug, Default)]
pub struct Detector {
    /// Transmitted frames per (port, priority) at the previous check.
    tx_seen: Vec<u64>,
    candidates: Vec<Candidate>,
    /// Reported deadlocks.
    pub found: Vec<Deadlock>,
    /// Check period (zero: off).
    pub interval: Time,
    /// Report a cycle that persists this long.
    pub persist: Time,
}

impl Detector {
    /// A detector reporting cycles that persist for `persist` (zero: off) in a network of
    /// `nports` ports.
    pub fn new(persist: Time, nports: usize) -> Self {
        if persist == Time::ZERO {
            return Detector::default();
        }
        Detector {
            interval: Time((persist.ps() / 10).clamp(10_000_000, 1_000_000_000)),
            persist,
            tx_seen: vec![0; nports * 8],
            ..Default::default()
        }
    }

    /// Look for cycles now; returns true when a new deadlock was reported.
    pub fn check(
        &mut self,
        now: Time,
        ports: PortView,
        monitor: &Monitor,
        arena: &PacketArena,
    ) -> bool {
        if self.idle(monitor.paused_count) {
            return false;
        }
        let waits = self.local(ports, monitor, None);
        self.conclude(now, &waits, |c| flows_in(c, ports, arena))
    }

    /// Nothing is paused (`paused`: egress priorities paused network-wide) and no cycle is
    /// being watched: a check would find nothing and change nothing.
    pub fn idle(&self, paused: u32) -> bool {
        paused == 0 && self.candidates.is_empty()
    }

    /// What one part of a partitioned run (or the whole network) sees: its stuck nodes, in
    /// node order, and whom each waits for. With `arena`, also the flows queued at each
    /// stuck node. Updates the transmit counts the next check compares against.
    pub fn local(
        &mut self,
        ports: PortView,
        monitor: &Monitor,
        arena: Option<&PacketArena>,
    ) -> Waits {
        monitor.assert_settled();
        let nodes = self.stuck_nodes(ports, monitor);
        for (i, c) in monitor.tx.iter().enumerate() {
            self.tx_seen[i] = c.packets;
        }
        let mut w = Waits::default();
        for &node in &nodes {
            let port = ports.port(PortId(node / 8));
            let mut seen: Vec<u32> = Vec::new();
            for e in queue_of(port, node) {
                if let Some(a) = arena {
                    w.flows.push((node, a.get(e.pkt()).flow));
                }
                let Some(in_port) = ingress_port(ports, port, e) else {
                    continue;
                };
                if seen.contains(&in_port.0) {
                    continue;
                }
                seen.push(in_port.0);
                w.waits.push((in_port.peer().0 * 8 + e.tc().0 as u32, node));
            }
        }
        w.nodes = nodes;
        w
    }

    /// The cycles among the stuck nodes of `w` (the whole network's), tracked from check to
    /// check; reports those that persisted, with their flows (`flows`). Returns true when a
    /// new deadlock was reported.
    pub fn conclude(&mut self, now: Time, w: &Waits, flows: impl Fn(&[u32]) -> Vec<u32>) -> bool {
        let edges: Vec<(u32, u32)> = (w.waits.iter().copied())
            .filter(|(up, _)| w.nodes.binary_search(up).is_ok())
            .collect();
        let cycles = strongly_connected_cycles(&w.nodes, &edges);
        self.track_cycles(cycles, now, flows)
    }

    /// Nodes: paused, non-empty, not draining.
    fn stuck_nodes(&self, ports: PortView, monitor: &Monitor) -> Vec<u32> {
        let mut nodes = Vec::new();
        for (p, port) in ports.iter() {
            for prio in Priority::in_mask(port.pause.mask & !port.pause_ignore) {
                let i = p.idx() * 8 + prio.idx();
                let ti = monitor.tx_index(p, prio);
                let q = port.queue_of(prio);
                if port.nonempty & q.bit() != 0 && monitor.tx[ti].packets == self.tx_seen[ti] {
                    nodes.push(i as u32);
                }
            }
        }
        nodes
    }

    fn track_cycles(
        &mut self,
        cycles: Vec<Vec<u32>>,
        now: Time,
        flows: impl Fn(&[u32]) -> Vec<u32>,
    ) -> bool {
        let mut keep = Vec::new();
        let mut reported = false;
        for c in cycles {
            let mut sorted = c.clone();
            sorted.sort_unstable();
            let prev = self.candidates.iter().position(|x| x.members == sorted);
            let mut cand = match prev {
                Some(i) => self.candidates[i].clone(),
                None => Candidate {
                    members: sorted,
                    since: now,
                    reported: false,
                },
            };
            if !cand.reported && now - cand.since >= self.persist {
                cand.reported = true;
                reported = true;
                let flows = flows(&c);
                self.found.push(Deadlock {
                    formed: cand.since,
                    detected: now,
                    members: c,
                    flows,
                });
            }
            keep.push(cand);
        }
        self.candidates = keep;
        reported
    }
}

/// The queue a (port × 8 + priority) node names.
fn queue_of(port: &Port, node: u32) -> impl Iterator<Item = &QEntry> {
    let q = port.queue_of(Priority((node % 8) as u8));
    port.queues[q.idx()].iter()
}

/// The network-wide id of the port entry `e` (queued at switch port `port`) arrived on.
fn ingress_port(ports: PortView, port: &Port, e: &QEntry) -> Option<PortId> {
    match port.node {
        NodeRef::Switch(s) if e.in_local() != u16::MAX => {
            Some(ports.switches[s as usize].ports[e.in_local() as usize].id)
        }
        _ => None,
    }
}

/// Flows with packets in the queues of these nodes.
fn flows_in(nodes: &[u32], ports: PortView, arena: &PacketArena) -> Vec<u32> {
    let mut flows = Vec::new();
    for &n in nodes {
        let port = ports.port(PortId(n / 8));
        for e in queue_of(port, n) {
            flows.push(arena.get(e.pkt()).flow);
        }
    }
    flows.sort_unstable();
    flows.dedup();
    flows
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
