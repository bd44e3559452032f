//! Permutation (a random derangement of the hosts) and all-to-all traffic.

use rand::RngExt;

use super::{flow, workload_stream};
use crate::engine::rng::SimRng;
use crate::traffic::flow::FlowSpec;
use crate::units::Time;

/// A uniform random derangement of 0..n (no i maps to itself), by rejection of uniform
/// shuffles (about e shuffles expected). `n` must be at least 2.
pub fn derangement(n: usize, rng: &mut SimRng) -> Vec<usize> {
    assert!(n >= 2, "a derangement needs at least two elements");
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &x)| i != x) {
            return p;
        }
    }
}

/// Permutation traffic: host i of `hosts` sends `size` at `at` to host π(i), π a random
/// derangement from the workload stream, so every host sends one flow and receives one.
pub fn permutation(
    hosts: &[u32],
    size: Option<u64>,
    at: Time,
    seed: u64,
    id: u64,
    dscp: &dyn Fn(u32) -> u8,
) -> Vec<FlowSpec> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut rng = workload_stream(seed, id, 0);
    let p = derangement(hosts.len(), &mut rng);
    hosts
        .iter()
        .zip(&p)
        .map(|(&s, &d)| flow(s, hosts[d], size, at, dscp(s)))
        .collect()
}

/// All-to-all: every ordered pair (s, d), s ≠ d, sends `size` at `at`; n(n − 1) flows, ordered
/// by source then destination.
pub fn all_to_all(
    hosts: &[u32],
    size: Option<u64>,
    at: Time,
    dscp: &dyn Fn(u32) -> u8,
) -> Vec<FlowSpec> {
    let mut flows = Vec::with_capacity(hosts.len() * hosts.len().saturating_sub(1));
    for &s in hosts {
        for &d in hosts {
            if s != d {
                flows.push(flow(s, d, size, at, dscp(s)));
            }
        }
    }
    flows
}
