//! Forwarding: shortest-path next hops per (switch, destination host), and ECMP selection by a
//! 5-tuple hash salted per switch, so that every switch spreads flows independently.

use std::collections::VecDeque;

/// Next-hop table of every switch: for each destination host, the local ports on a shortest
/// path to it. Flat arrays indexed by `switch × hosts + host`.
#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    hosts: usize,
    offsets: Vec<u32>,
    hops: Vec<u16>,
}

/// A node in the routing graph: hosts are `0..hosts`, switches follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphNode(pub u32);

impl RoutingTable {
    /// Build from each switch's ports: `switch_peers[s][p]` is the graph node at the other end
    /// of local port `p` of switch `s` (`None` if that port's link is down); `host_switch[h]`
    /// is the switch host `h` hangs on (`None` if its link is down). Hosts never forward.
    pub fn build(host_switch: &[Option<u32>], switch_peers: &[Vec<Option<GraphNode>>]) -> Self {
        let hosts = host_switch.len();
        let switches = switch_peers.len();
        let mut offsets = Vec::with_capacity(hosts * switches + 1);
        let mut hops = Vec::new();
        let mut dist_by_dst: Vec<Vec<u32>> = Vec::with_capacity(hosts);
        // Distances of every switch to each destination host, by BFS from the host.
        let mut rev: Vec<Vec<u32>> = vec![Vec::new(); switches];
        for (s, peers) in switch_peers.iter().enumerate() {
            for peer in peers.iter().flatten() {
                if (peer.0 as usize) >= hosts {
                    rev[peer.0 as usize - hosts].push(s as u32);
                }
            }
        }
        let mut queue = VecDeque::new();
        for &sw in host_switch.iter() {
            let mut dist = vec![u32::MAX; switches];
            if let Some(sw) = sw {
                dist[sw as usize] = 1;
                queue.push_back(sw);
                while let Some(s) = queue.pop_front() {
                    let d = dist[s as usize];
                    for &n in &rev[s as usize] {
                        if dist[n as usize] == u32::MAX {
                            dist[n as usize] = d + 1;
                            queue.push_back(n);
                        }
                    }
                }
            }
            dist_by_dst.push(dist);
        }
        for (s, peers) in switch_peers.iter().enumerate() {
            for (h, dist) in dist_by_dst.iter().enumerate() {
                offsets.push(hops.len() as u32);
                let d = dist[s];
                if d == u32::MAX {
                    continue;
                }
                for (p, peer) in peers.iter().enumerate() {
                    let Some(peer) = peer else { continue };
                    let pn = peer.0 as usize;
                    let good = if pn < hosts {
                        pn == h && d == 1
                    } else {
                        dist[pn - hosts] == d - 1
                    };
                    if good {
                        hops.push(p as u16);
                    }
                }
            }
        }
        offsets.push(hops.len() as u32);
        RoutingTable {
            hosts,
            offsets,
            hops,
        }
    }

    /// Local ports of switch `sw` on shortest paths to host `dst` (empty: unreachable).
    #[inline]
    pub fn next_hops(&self, sw: u32, dst: u32) -> &[u16] {
        let i = sw as usize * self.hosts + dst as usize;
        &self.hops[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Pick one of `n` equal-cost next hops for a packet with 5-tuple hash `hash` at a switch
/// with salt `salt` (a multiply-shift mix, then Lemire's range reduction).
#[inline]
pub fn ecmp_pick(hash: u32, salt: u32, n: usize) -> usize {
    let mut x = (hash ^ salt) as u64;
    x = (x ^ (x >> 16)).wrapping_mul(0x45d9_f3b3_7197_344d);
    x ^= x >> 29;
    (((x as u32) as u64 * n as u64) >> 32) as usize
}

/// The 5-tuple hash of a RoCEv2 flow (source and destination address, UDP ports, protocol).
pub fn flow_hash(src: u32, dst: u32, sport: u16, dport: u16) -> u32 {
    let key = ((src as u64) << 32 | dst as u64)
        ^ ((sport as u64) << 16 | dport as u64).rotate_left(23)
        ^ 17;
    (crate::engine::rng::splitmix64(key) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_paths_through_a_diamond() {
        // h0 - s0 ; s0 -> s1, s0 -> s2 ; s1 -> s3, s2 -> s3 ; s3 - h1
        let n = |x: u32| Some(GraphNode(x));
        let hosts = [Some(0), Some(3)];
        let peers = vec![
            vec![n(0), n(2 + 1), n(2 + 2)],
            vec![n(2), n(2 + 3)],
            vec![n(2), n(2 + 3)],
            vec![n(2 + 1), n(2 + 2), n(1)],
        ];
        let r = RoutingTable::build(&hosts, &peers);
        assert_eq!(r.next_hops(0, 1), &[1, 2]);
        assert_eq!(r.next_hops(0, 0), &[0]);
        assert_eq!(r.next_hops(1, 1), &[1]);
        assert_eq!(r.next_hops(3, 0), &[0, 1]);
        assert_eq!(r.next_hops(3, 1), &[2]);
    }

    #[test]
    fn ecmp_balances_within_binomial_band() {
        // VALIDATION.md §10 P4: 10^4 flows over 16 uplinks. Each count ~ Binomial(10^4, 1/16):
        // mean 625, sd 24.2. A 99 % band for all 16 links at once (Bonferroni, z = 3.42) is
        // ±83; and the chi-square statistic must be below χ²(15) at 99 % = 30.58.
        let mut counts = [0u32; 16];
        for f in 0..10_000u32 {
            let h = flow_hash(f % 128, 1000 + f / 128, 49152 + (f % 16384) as u16, 4791);
            counts[ecmp_pick(h, 0x1234_5678, 16)] += 1;
        }
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - 625.0).powi(2) / 625.0)
            .sum();
        assert!(chi2 < 30.58, "chi2 {chi2} {counts:?}");
        for c in counts {
            assert!((542..=708).contains(&c), "{counts:?}");
        }
    }
}
