//! Workload generators: each turns its parameters and a seed into a deterministic list of
//! [`FlowSpec`]s. Random choices come from rocesim's seeded streams
//! (`stream(seed, StreamKind::Workload, id)`), so one workload's draws do not depend on
//! another's. The exact HPCC generator of BENCHMARKS.md is [`super::poisson::hpcc_poisson`].
//!
//! `dscp` arguments give each flow's DSCP from its sending host. `after` indices of the
//! returned flows are local to the returned list; the caller offsets them into the scenario's
//! flow list.

use std::collections::{BTreeMap, HashSet};

use rand::RngExt;

use super::cdf::Cdf;
use super::flow::{FlowKind, FlowSpec};
use crate::engine::rng::{stream, SimRng, StreamKind};
use crate::topology::{NodeRef, Topology};
use crate::units::Time;

/// The lowest port of the dynamic range (RFC 6335) from which random UDP source ports are drawn.
pub const SPORT_MIN: u16 = 49152;

/// The random stream of generator `id` (a workload's index) and `sub` (e.g. a host).
pub fn workload_stream(seed: u64, id: u64, sub: u64) -> SimRng {
    stream(seed, StreamKind::Workload, (id << 32) ^ sub)
}

fn flow(src: u32, dst: u32, size: Option<u64>, start: Time, dscp: u8) -> FlowSpec {
    FlowSpec {
        name: None,
        src,
        dst,
        size,
        start,
        dscp,
        kind: FlowKind::RdmaWrite,
        rate_limit: None,
        sport: 0,
        after: None,
    }
}

/// Poisson arrivals (the generic generator).
#[derive(Clone, Debug)]
pub struct Poisson<'a> {
    /// The sending and receiving hosts.
    pub hosts: &'a [u32],
    /// Each host's link rate in bits/s, in the order of `hosts`.
    pub rates_bps: &'a [f64],
    /// Offered load, a fraction of each host's link rate, in (0, 1].
    pub load: f64,
    /// Arrivals are generated in [0, until).
    pub until: Time,
    /// Flow sizes, drawn with the CDF's sampling semantics.
    pub cdf: &'a Cdf,
}

/// Poisson flow arrivals at `load` per host: for each host its own stream, exponential
/// inter-arrivals with mean = mean_size × 8 / (rate × load), a uniform destination other than
/// itself among `hosts`, and a size from the CDF (truncated to whole bytes, at least 1). Flows
/// are sorted by (start, src). Fewer than two hosts give no flows.
pub fn poisson(p: &Poisson<'_>, seed: u64, id: u64, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let n = p.hosts.len();
    let mut flows = Vec::new();
    if n < 2 {
        return flows;
    }
    let mean_bits = p.cdf.mean() * 8.0;
    for (i, (&h, &rate)) in p.hosts.iter().zip(p.rates_bps).enumerate() {
        let mut rng = workload_stream(seed, id, i as u64);
        let mean_ps = mean_bits / (rate * p.load) * 1e12;
        let mut t: u64 = 0;
        loop {
            let u: f64 = rng.random();
            t = t.saturating_add((-(1.0 - u).ln() * mean_ps) as u64);
            if t >= p.until.ps() {
                break;
            }
            let mut d = rng.random_range(0..n - 1);
            if d >= i {
                d += 1;
            }
            let size = (p.cdf.sample(rng.random::<f64>()) as u64).max(1);
            flows.push(flow(h, p.hosts[d], Some(size), Time::from_ps(t), dscp(h)));
        }
    }
    flows.sort_by_key(|f| (f.start, f.src));
    flows
}

/// Incast rounds.
#[derive(Clone, Debug)]
pub struct Incast<'a> {
    /// The senders (the receiver, if among them, is left out).
    pub senders: &'a [u32],
    /// The receiving host.
    pub receiver: u32,
    /// Bytes each sender sends per round; `None` = long-lived.
    pub size: Option<u64>,
    /// Start of the first round.
    pub at: Time,
    /// Period between rounds (used when `rounds` > 1).
    pub repeat: Time,
    /// Number of rounds.
    pub rounds: u64,
}

/// Every sender sends `size` to the receiver at `at + k × repeat` for k in 0..rounds; flows are
/// ordered round by round, senders in the given order.
pub fn incast(p: &Incast<'_>, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let mut flows = Vec::new();
    for k in 0..p.rounds {
        let start = Time::from_ps(p.at.ps() + k * p.repeat.ps());
        for &s in p.senders.iter().filter(|&&s| s != p.receiver) {
            flows.push(flow(s, p.receiver, p.size, start, dscp(s)));
        }
    }
    flows
}

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
    let mut rng = workload_stream(seed, id, 0);
    let mut flows = Vec::new();
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

/// A storage read test (LinkedIn, "Scaling storage in the datacenter with RoCE"): one client
/// reads from several targets with a fixed number of I/Os outstanding per target.
#[derive(Clone, Debug)]
pub struct StorageRead<'a> {
    /// The reading host.
    pub client: u32,
    /// The storage targets (the client, if among them, is left out).
    pub targets: &'a [u32],
    /// Bytes per I/O (the blog's test: 16 KiB).
    pub io_size: u64,
    /// I/Os outstanding per target (closed loop).
    pub queue_depth: u32,
    /// I/Os per target.
    pub count: u32,
    /// When the first I/Os are posted.
    pub at: Time,
}

/// Each I/O is an RDMA READ whose data flows from the target to the client (src = target,
/// dst = client). The first `queue_depth` I/Os per target start at `at`; I/O k ≥ queue_depth
/// starts when I/O k − queue_depth of the same target completes (`after`, gap 0). Flows are
/// ordered I/O round by round: index = k × targets + t.
pub fn storage_read(p: &StorageRead<'_>, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let targets: Vec<u32> = p
        .targets
        .iter()
        .copied()
        .filter(|&t| t != p.client)
        .collect();
    let nt = targets.len();
    let qd = p.queue_depth.max(1) as usize;
    let mut flows = Vec::with_capacity(nt * p.count as usize);
    for k in 0..p.count as usize {
        for (t, &target) in targets.iter().enumerate() {
            let mut f = flow(target, p.client, Some(p.io_size), p.at, dscp(target));
            f.kind = FlowKind::RdmaRead;
            if k >= qd {
                f.start = Time::ZERO;
                f.after = Some(((k - qd) * nt + t) as u32);
            }
            flows.push(f);
        }
    }
    flows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{build, LinkClass, TopologyDef};

    fn d26(_: u32) -> u8 {
        26
    }

    #[test]
    fn w2_poisson_offered_load_matches_the_target() {
        // VALIDATION.md §9 W2: offered load over 100 ms is ρ ± 2 % for ρ ∈ {0.3, 0.5, 0.7}:
        // Σ bytes × 8 / (hosts × rate × 100 ms). 1024 hosts at 100 Gb/s, WebSearch.
        let hosts: Vec<u32> = (0..1024).collect();
        let rates = vec![100e9; hosts.len()];
        let cdf = Cdf::websearch();
        let until = Time::from_ms(100);
        for (k, rho) in [0.3, 0.5, 0.7].into_iter().enumerate() {
            let p = Poisson {
                hosts: &hosts,
                rates_bps: &rates,
                load: rho,
                until,
                cdf: &cdf,
            };
            let flows = poisson(&p, 1, k as u64, &d26);
            let bytes: u64 = flows.iter().map(|f| f.size.unwrap()).sum();
            let offered = bytes as f64 * 8.0 / (hosts.len() as f64 * 100e9 * until.secs_f64());
            eprintln!("rho {rho}: {} flows, offered {offered:.4}", flows.len());
            assert!((offered / rho - 1.0).abs() < 0.02, "rho {rho}: {offered}");
            assert!(flows.iter().all(|f| f.src != f.dst && f.start < until));
            assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
        }
    }

    #[test]
    fn w2_hpcc_generator_offered_load() {
        // The same W2 check for the exact HPCC generator.
        for rho in [0.3, 0.5, 0.7] {
            let a = super::super::poisson::hpcc_poisson(
                1024,
                rho,
                100e9,
                100_000_000,
                1,
                &Cdf::websearch(),
            );
            let bytes: u64 = a.iter().map(|f| f.size).sum();
            let offered = bytes as f64 * 8.0 / (1024.0 * 100e9 * 0.1);
            assert!((offered / rho - 1.0).abs() < 0.02, "rho {rho}: {offered}");
        }
    }

    #[test]
    fn poisson_is_deterministic_and_uses_per_host_rates() {
        let hosts = [3, 5, 9];
        let rates = [100e9, 100e9, 25e9];
        let cdf = Cdf::builtin("fb_hadoop").unwrap();
        let p = Poisson {
            hosts: &hosts,
            rates_bps: &rates,
            load: 0.5,
            until: Time::from_ms(20),
            cdf: &cdf,
        };
        let a = poisson(&p, 7, 0, &d26);
        assert_eq!(a, poisson(&p, 7, 0, &d26));
        assert_ne!(a, poisson(&p, 8, 0, &d26));
        assert_ne!(a, poisson(&p, 7, 1, &d26));
        // Arrival counts follow each host's rate: 20 ms × rate × 0.5 / (mean × 8), a Poisson
        // count (about 1038 and 260 flows, standard deviations 3 % and 6 %).
        let count = |h: u32| a.iter().filter(|f| f.src == h).count() as f64;
        let expect = |rate: f64| 0.02 * rate * 0.5 / (cdf.mean() * 8.0);
        assert!(
            (count(3) / expect(100e9) - 1.0).abs() < 0.15,
            "{}",
            count(3)
        );
        assert!((count(9) / expect(25e9) - 1.0).abs() < 0.25, "{}", count(9));
        assert!(a.iter().all(|f| hosts.contains(&f.dst) && f.dst != f.src));
    }

    #[test]
    fn incast_rounds() {
        let senders = [0, 1, 2, 3];
        let f = incast(
            &Incast {
                senders: &senders,
                receiver: 2,
                size: Some(1000),
                at: Time::from_us(10),
                repeat: Time::from_us(100),
                rounds: 3,
            },
            &d26,
        );
        assert_eq!(f.len(), 9);
        assert!(f
            .iter()
            .all(|x| x.dst == 2 && x.src != 2 && x.size == Some(1000)));
        assert_eq!(f[0].start, Time::from_us(10));
        assert_eq!(f[3].start, Time::from_us(110));
        assert_eq!(f[8].start, Time::from_us(210));
    }

    #[test]
    fn permutation_is_a_derangement() {
        let hosts: Vec<u32> = (10..30).collect();
        for seed in 0..20 {
            let f = permutation(&hosts, None, Time::ZERO, seed, 0, &d26);
            assert_eq!(f.len(), hosts.len());
            assert!(f.iter().all(|x| x.src != x.dst && x.size.is_none()));
            let mut dsts: Vec<u32> = f.iter().map(|x| x.dst).collect();
            dsts.sort_unstable();
            assert_eq!(dsts, hosts, "every host receives exactly once");
        }
        let a = permutation(&hosts, None, Time::ZERO, 1, 0, &d26);
        assert_eq!(a, permutation(&hosts, None, Time::ZERO, 1, 0, &d26));
        let two = permutation(&[4, 7], Some(5), Time::ZERO, 3, 0, &d26);
        assert_eq!((two[0].dst, two[1].dst), (7, 4));
    }

    #[test]
    fn all_to_all_has_every_ordered_pair() {
        let hosts: Vec<u32> = (0..6).collect();
        let f = all_to_all(&hosts, Some(100), Time::from_us(1), &d26);
        assert_eq!(f.len(), 6 * 5);
        let pairs: HashSet<(u32, u32)> = f.iter().map(|x| (x.src, x.dst)).collect();
        assert_eq!(pairs.len(), 30);
        assert!(pairs.iter().all(|(s, d)| s != d));
    }

    fn clos3() -> Topology {
        let l = LinkClass {
            rate: crate::units::Rate::gbps(40),
            delay: Time::from_us(1),
        };
        build(&TopologyDef::Clos3 {
            podsets: 2,
            tors_per_podset: 3,
            leaves_per_podset: 2,
            spines: 4,
            hosts_per_tor: 4,
            host_link: l,
            fabric_link: l,
        })
        .expect("clos3 builds")
    }

    #[test]
    fn tor_to_tor_pairs_tor_i_with_tor_i() {
        let topo = clos3();
        let p = TorToTor {
            pods: (0, 1),
            servers_per_tor: Some(2),
            connections: 8,
            size: None,
            at: Time::ZERO,
        };
        let f = tor_to_tor(&topo, &p, 1, 0, &d26).unwrap();
        // 3 ToR pairs × 2 servers × 2 directions × 8 connections.
        assert_eq!(f.len(), 3 * 2 * 2 * 8);
        let tor_of = |h: u32| {
            topo.links
                .iter()
                .find_map(|l| match (l.a, l.b) {
                    (NodeRef::Host(x), NodeRef::Switch(s)) if x == h => Some(s),
                    (NodeRef::Switch(s), NodeRef::Host(x)) if x == h => Some(s),
                    _ => None,
                })
                .unwrap()
        };
        let ta = tors_of_pod(&topo, 0);
        let tb = tors_of_pod(&topo, 1);
        assert_eq!((ta.len(), tb.len()), (3, 3));
        let mut per_pair: BTreeMap<(u32, u32), Vec<u16>> = BTreeMap::new();
        for x in &f {
            let (ps, pd) = (
                topo.hosts[x.src as usize].pod,
                topo.hosts[x.dst as usize].pod,
            );
            assert_ne!(ps, pd, "flows cross the podsets");
            let i = ta
                .iter()
                .chain(&tb)
                .position(|(s, _)| *s == tor_of(x.src))
                .unwrap()
                % 3;
            let k = ta
                .iter()
                .chain(&tb)
                .position(|(s, _)| *s == tor_of(x.dst))
                .unwrap()
                % 3;
            assert_eq!(i, k, "ToR i is paired with ToR i");
            // Server j with server j: same position under its ToR, among the first two.
            let pos = |h: u32| {
                ta.iter()
                    .chain(&tb)
                    .find_map(|(_, hs)| hs.iter().position(|&y| y == h))
                    .unwrap()
            };
            assert_eq!(pos(x.src), pos(x.dst));
            assert!(pos(x.src) < 2);
            assert!(x.sport >= SPORT_MIN && x.size.is_none());
            per_pair.entry((x.src, x.dst)).or_default().push(x.sport);
        }
        assert_eq!(
            per_pair.len(),
            3 * 2 * 2,
            "both directions of each server pair"
        );
        for (pair, ports) in &per_pair {
            assert_eq!(ports.len(), 8, "{pair:?}");
            let distinct: HashSet<&u16> = ports.iter().collect();
            assert_eq!(distinct.len(), 8, "distinct sports for {pair:?}");
        }
        // Defaults: all servers.
        let all = tor_to_tor(
            &topo,
            &TorToTor {
                servers_per_tor: None,
                ..p.clone()
            },
            1,
            0,
            &d26,
        )
        .unwrap();
        assert_eq!(all.len(), 3 * 4 * 2 * 8);
        let e = tor_to_tor(
            &topo,
            &TorToTor {
                servers_per_tor: Some(5),
                ..p.clone()
            },
            1,
            0,
            &d26,
        )
        .unwrap_err();
        assert_eq!(e.key, "servers_per_tor");
        let e = tor_to_tor(&topo, &TorToTor { pods: (0, 2), ..p }, 1, 0, &d26).unwrap_err();
        assert_eq!((e.key, e.message.as_str()), ("pods", "pod 2 has no hosts"));
    }

    #[test]
    fn storage_read_chains_by_queue_depth() {
        let targets = [1, 2, 3, 0];
        let f = storage_read(
            &StorageRead {
                client: 0,
                targets: &targets,
                io_size: 16384,
                queue_depth: 2,
                count: 5,
                at: Time::from_us(3),
            },
            &d26,
        );
        assert_eq!(f.len(), 3 * 5);
        for (i, x) in f.iter().enumerate() {
            assert_eq!(
                (x.dst, x.kind, x.size),
                (0, FlowKind::RdmaRead, Some(16384))
            );
            assert_eq!(x.src, targets[i % 3]);
            if i < 6 {
                assert_eq!((x.after, x.start), (None, Time::from_us(3)));
            } else {
                assert_eq!((x.after, x.start), (Some(i as u32 - 6), Time::ZERO));
                assert_eq!(f[i - 6].src, x.src, "chained to the same target");
            }
        }
        // At most queue_depth I/Os per target are outstanding: each chain link is 2 back.
        let qd1 = storage_read(
            &StorageRead {
                client: 0,
                targets: &[5],
                io_size: 1,
                queue_depth: 1,
                count: 3,
                at: Time::ZERO,
            },
            &d26,
        );
        let after: Vec<Option<u32>> = qd1.iter().map(|x| x.after).collect();
        assert_eq!(after, vec![None, Some(0), Some(1)]);
    }
}
