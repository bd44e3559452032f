//! Connectivity of a topology: every node must reach every other over the links.

use std::collections::VecDeque;

use crate::topology::{NodeRef, Topology};

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
