//! Tests of the workload generators.

use super::*;
use std::collections::{BTreeMap, HashSet};

use crate::topology::{build, LinkClass, NodeRef, Topology, TopologyDef};
use crate::traffic::cdf::Cdf;

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

/// The ToR-to-ToR parameters of the tests: pods 0 and 1, two servers per ToR, 8 connections.
fn t2t_params() -> TorToTor {
    TorToTor {
        pods: (0, 1),
        servers_per_tor: Some(2),
        connections: 8,
        size: None,
        at: Time::ZERO,
    }
}

/// The switch host `h` hangs from.
fn tor_of(topo: &Topology, h: u32) -> u32 {
    topo.links
        .iter()
        .find_map(|l| match (l.a, l.b) {
            (NodeRef::Host(x), NodeRef::Switch(s)) if x == h => Some(s),
            (NodeRef::Switch(s), NodeRef::Host(x)) if x == h => Some(s),
            _ => None,
        })
        .unwrap()
}

#[test]
fn tor_to_tor_pairs_tor_i_with_tor_i() {
    let topo = clos3();
    let f = tor_to_tor(&topo, &t2t_params(), 1, 0, &d26).unwrap();
    // 3 ToR pairs × 2 servers × 2 directions × 8 connections.
    assert_eq!(f.len(), 3 * 2 * 2 * 8);
    let ta = tors_of_pod(&topo, 0);
    let tb = tors_of_pod(&topo, 1);
    assert_eq!((ta.len(), tb.len()), (3, 3));
    // Index of a host's ToR within its pod.
    let tor_index = |h: u32| {
        ta.iter()
            .chain(&tb)
            .position(|(s, _)| *s == tor_of(&topo, h))
            .unwrap()
            % 3
    };
    // Position of a host under its ToR.
    let pos = |h: u32| {
        ta.iter()
            .chain(&tb)
            .find_map(|(_, hs)| hs.iter().position(|&y| y == h))
            .unwrap()
    };
    let mut per_pair: BTreeMap<(u32, u32), Vec<u16>> = BTreeMap::new();
    for x in &f {
        let (ps, pd) = (
            topo.hosts[x.src as usize].pod,
            topo.hosts[x.dst as usize].pod,
        );
        assert_ne!(ps, pd, "flows cross the podsets");
        assert_eq!(
            tor_index(x.src),
            tor_index(x.dst),
            "ToR i is paired with ToR i"
        );
        // Server j with server j: same position under its ToR, among the first two.
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
}

#[test]
fn tor_to_tor_defaults_and_errors() {
    let topo = clos3();
    let p = t2t_params();
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
    let e = tor_to_tor(
        &topo,
        &TorToTor {
            pods: (0, 2),
            ..p.clone()
        },
        1,
        0,
        &d26,
    )
    .unwrap_err();
    assert_eq!((e.key, e.message.as_str()), ("pods", "pod 2 has no hosts"));
    // 12 server pairs × 2 directions × 416,667 = 10,000,008 connections: one over the cap,
    // refused before any is generated (a fuzz case with u32::MAX ran out of memory).
    for connections in [416_667, u32::MAX] {
        let big = TorToTor {
            servers_per_tor: None,
            connections,
            ..p.clone()
        };
        let e = tor_to_tor(&topo, &big, 1, 0, &d26).unwrap_err();
        assert_eq!(e.key, "connections", "{}", e.message);
    }
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

fn fat_tree4() -> Topology {
    let l = LinkClass {
        rate: crate::units::Rate::gbps(100),
        delay: Time::from_us(1),
    };
    crate::topology::build::clos::fat_tree(4, 1, l, l).unwrap()
}

#[test]
fn pingmesh_levels_on_a_k4_fat_tree() {
    // k = 4: 16 hosts, 2 per edge switch, 4 per pod. Each host has 1 peer under its ToR,
    // 2 more in its pod (the other edge switch) and 12 in the other three pods.
    let topo = fat_tree4();
    let hosts: Vec<u32> = (0..16).collect();
    let peers = peers(&topo, &hosts);
    for (h, lv) in peers.iter().enumerate() {
        assert_eq!(
            [lv[0].len(), lv[1].len(), lv[2].len()],
            [1, 2, 12],
            "host {h}"
        );
        let pod = |x: u32| topo.hosts[x as usize].pod;
        assert!(lv[1].iter().all(|&p| pod(p) == pod(h as u32)));
        assert!(lv[2].iter().all(|&p| pod(p) != pod(h as u32)));
    }
}

#[test]
fn pingmesh_probe_schedule() {
    // 16 hosts, two levels, every 10 us in [5 us, 105 us): each host sends 10 probes per
    // level (its phase is in [5, 15) us, so exactly 10 start times fall before 105 us).
    let topo = fat_tree4();
    let hosts: Vec<u32> = (0..16).collect();
    let levels = [PingLevel::Tor, PingLevel::Dc];
    let p = Pingmesh {
        hosts: &hosts,
        interval: Time::from_us(10),
        size: 512,
        levels: &levels,
        at: Time::from_us(5),
        until: Time::from_us(105),
        timeout: Time::from_ms(1),
    };
    let flows = pingmesh(&topo, &p, 7, 0, &d26);
    assert_eq!(flows.len(), 16 * 2 * 10);
    let peers = peers(&topo, &hosts);
    for f in &flows {
        let FlowKind::Probe(pr) = f.kind else {
            panic!("not a probe")
        };
        assert!(peers[f.src as usize][pr.level as usize].contains(&f.dst));
        assert!(f.start >= p.at && f.start < p.until);
        assert_eq!((f.size, f.dscp, pr.timeout), (Some(512), 26, p.timeout));
    }
    // The same seed gives the same probes; another seed other phases.
    assert_eq!(flows, pingmesh(&topo, &p, 7, 0, &d26));
    assert_ne!(flows, pingmesh(&topo, &p, 8, 0, &d26));
}

/// Pingmesh probes as they were drawn from one materialized peer list per server (before the
/// lists were built per ToR): same streams, same draws.
fn pingmesh_by_server_lists(topo: &Topology, p: &Pingmesh<'_>, seed: u64) -> Vec<FlowSpec> {
    use rand::RngExt;
    let peers = peers(topo, p.hosts);
    let mut flows = Vec::new();
    let step = p.interval.ps().max(1);
    for (i, (&h, lv)) in p.hosts.iter().zip(&peers).enumerate() {
        let mut rng = workload_stream(seed, 0, i as u64);
        let mut t = p.at.ps() + rng.random_range(0..step);
        while t < p.until.ps() {
            for &level in p.levels {
                let cand = &lv[level as usize];
                if cand.is_empty() {
                    continue;
                }
                let dst = cand[rng.random_range(0..cand.len())];
                let mut f = flow(h, dst, Some(p.size), Time::from_ps(t), d26(h));
                f.kind = FlowKind::Probe(crate::traffic::flow::Probe {
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

#[test]
fn pingmesh_per_tor_lists_draw_what_per_server_lists_drew() {
    // Hosts out of order, one listed twice, one ToR's servers all probing: the generator that
    // builds peer lists per ToR yields the probes of per-server lists, flow for flow.
    let topo = fat_tree4();
    let levels = [PingLevel::Tor, PingLevel::Podset, PingLevel::Dc];
    for hosts in [
        (0..16).collect::<Vec<u32>>(),
        vec![9, 3, 0, 1, 14, 3, 7],
        vec![0, 1],
    ] {
        let p = Pingmesh {
            hosts: &hosts,
            interval: Time::from_us(3),
            size: 512,
            levels: &levels,
            at: Time::from_us(1),
            until: Time::from_us(40),
            timeout: Time::from_ms(1),
        };
        for seed in [1, 2, 3] {
            let want = pingmesh_by_server_lists(&topo, &p, seed);
            assert!(!want.is_empty());
            assert_eq!(
                pingmesh(&topo, &p, seed, 0, &d26),
                want,
                "{hosts:?} seed {seed}"
            );
        }
    }
}

/// The eager Poisson generator as it was before arrivals were produced lazily: every host's
/// whole stream drawn, then the flows stably sorted by (start, src).
fn eager_poisson(p: &Poisson<'_>, seed: u64, id: u64) -> Vec<(u32, u32, u64, Time)> {
    use rand::RngExt;
    let n = p.hosts.len();
    let mut flows = Vec::new();
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
            flows.push((h, p.hosts[d], size, Time::from_ps(t)));
        }
    }
    flows.sort_by_key(|f| (f.3, f.0));
    flows
}

#[test]
fn lazy_poisson_arrivals_equal_the_eager_sorted_list() {
    // Unsorted host ids, unequal rates, several seeds and workload indices: the lazy process
    // yields the eager list flow for flow (same draws, same (start, src) order).
    let hosts = [7, 2, 11, 5, 3];
    let rates = [10e9, 40e9, 10e9, 25e9, 100e9];
    let cdf = Cdf::builtin("alistorage").unwrap();
    for (seed, id, load) in [(1, 0, 0.1), (2, 3, 0.5), (99, 1, 0.9)] {
        let p = Poisson {
            hosts: &hosts,
            rates_bps: &rates,
            load,
            until: Time::from_ms(5),
            cdf: &cdf,
        };
        let want = eager_poisson(&p, seed, id);
        assert!(want.len() > 100, "{}", want.len());
        let mut lazy = PoissonArrivals::new(&p, seed, id);
        let mut got = Vec::new();
        while let Some(start) = lazy.peek_start() {
            let a = lazy.next().unwrap();
            assert_eq!(a.start, start);
            got.push((a.src, a.dst, a.size, a.start));
        }
        assert_eq!(got, want, "seed {seed}");
    }
}
