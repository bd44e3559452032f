//! Forwarding: shortest-path next hops per (switch, destination rack) as shared ECMP groups,
//! and ECMP selection by a 5-tuple hash salted per switch, so that every switch spreads flows
//! independently.

use std::collections::{HashMap, VecDeque};

use crate::engine::handle;

/// Next-hop table of every switch, stored as a real switch stores it: each switch maps a
/// destination *rack* (the switch the destination host hangs on, i.e. its ToR prefix) to an
/// ECMP group, a list of local ports on shortest paths; the ToR itself maps the host to its
/// access port. Groups are shared between switches and destinations, so the table is
/// `switches × racks` small group ids (16 bits each while there are at most 65,536 groups:
/// about 80 KB for a k = 16 fat-tree) instead of one entry per (switch, host), and stays in
/// cache on the per-packet path.
#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    /// Per host: its rack (index into `rack_switch`), that rack's switch and its access port
    /// on it.
    host: Vec<HostRoute>,
    /// Per rack: the switch the rack's hosts hang on.
    rack_switch: Vec<u32>,
    /// `switch × racks + rack` → ECMP group id.
    route: GroupIds,
    /// Group `g` is `hops[span[g].0..span[g].1]` (both ends in one entry, so that a lookup
    /// reads one).
    span: Vec<(u32, u32)>,
    hops: Vec<u16>,
}

/// Where a host attaches: its rack and the local port of the rack's switch that reaches it.
#[derive(Clone, Copy, Debug, Default)]
struct HostRoute {
    /// Rack index, `u32::MAX` when the host's link is down (unreachable).
    rack: u32,
    /// The rack's switch (`rack_switch[rack]`, here so that a lookup need not read it
    /// there), `u32::MAX` when the host's link is down.
    switch: u32,
    /// The host's port on its rack switch, as a one-element ECMP group.
    port: [u16; 1],
}

/// A node in the routing graph: hosts are `0..hosts`, switches follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphNode(pub u32);

impl RoutingTable {
    /// Build from each switch's ports: `switch_peers[s][p]` is the graph node at the other end
    /// of local port `p` of switch `s` (`None` if that port's link is down); `host_switch[h]`
    /// is the switch host `h` hangs on (`None` if its link is down). Hosts never forward.
    /// A group lists its ports in local port order, or with `by_node` in descending order of
    /// the graph nodes they lead to, as ns-3's route computation listed next hops in the
    /// reference run (see `fabric::ns3_hash`).
    pub fn build(
        host_switch: &[Option<u32>],
        switch_peers: &[Vec<Option<GraphNode>>],
        by_node: bool,
    ) -> Self {
        let hosts = host_switch.len();
        let (host, rack_switch) = racks(host_switch, switch_peers);
        let rev = reverse_adjacency(switch_peers, hosts);
        let racks = rack_switch.len();
        let mut route = vec![0u32; switch_peers.len() * racks];
        let mut groups = EcmpGroups::default();
        for (r, &rsw) in rack_switch.iter().enumerate() {
            let dist = hops_to(rsw, &rev);
            for (s, peers) in switch_peers.iter().enumerate() {
                let d = dist[s];
                if d == u32::MAX || d == 1 {
                    continue; // unreachable, or the rack switch itself (host ports)
                }
                let mut set: Vec<u16> = peers
                    .iter()
                    .enumerate()
                    .filter(|(_, peer)| {
                        peer.is_some_and(|pn| {
                            pn.0 as usize >= hosts && dist[pn.0 as usize - hosts] == d - 1
                        })
                    })
                    .map(|(p, _)| p as u16)
                    .collect();
                if by_node {
                    set.sort_by_key(|&p| std::cmp::Reverse(peers[p as usize].map_or(0, |n| n.0)));
                }
                route[s * racks + r] = groups.id(set);
            }
        }
        let route = GroupIds::new(route, groups.start.len() - 1);
        RoutingTable {
            host,
            rack_switch,
            route,
            span: groups.start.windows(2).map(|w| (w[0], w[1])).collect(),
            hops: groups.hops,
        }
    }

    /// Local ports of switch `sw` on shortest paths to host `dst` (empty: unreachable).
    #[inline(always)]
    pub(crate) fn next_hops(&self, sw: u32, dst: u32) -> &[u16] {
        let h = handle::at(&self.host, dst as usize);
        if h.switch == sw {
            return if h.port[0] == u16::MAX { &[] } else { &h.port };
        }
        if h.rack == u32::MAX {
            return &[];
        }
        let g = self
            .route
            .get(sw as usize * self.rack_switch.len() + h.rack as usize);
        let (a, b) = *handle::at(&self.span, g);
        handle::span(&self.hops, a as usize..b as usize)
    }

    /// Number of distinct ECMP groups (including the empty one).
    pub fn groups(&self) -> usize {
        self.span.len()
    }
}

/// The group ids of the route entries, as narrow as the number of groups allows (chosen
/// once, when the table is built; the per-packet branch always goes the same way).
#[derive(Clone, Debug)]
enum GroupIds {
    /// At most 65,536 groups: 2 bytes per entry.
    Narrow(Box<[u16]>),
    /// More groups: 4 bytes per entry.
    Wide(Box<[u32]>),
}

impl Default for GroupIds {
    fn default() -> Self {
        GroupIds::Narrow(Box::default())
    }
}

impl GroupIds {
    /// The entries `ids`, every one below `groups`, stored as narrow as `groups` allows.
    fn new(ids: Vec<u32>, groups: usize) -> Self {
        if groups <= 1 << 16 {
            GroupIds::Narrow(ids.iter().map(|&g| g as u16).collect())
        } else {
            GroupIds::Wide(ids.into_boxed_slice())
        }
    }

    /// The group id of entry `i`.
    #[inline(always)]
    fn get(&self, i: usize) -> usize {
        match self {
            GroupIds::Narrow(ids) => *handle::at(ids, i) as usize,
            GroupIds::Wide(ids) => *handle::at(ids, i) as usize,
        }
    }
}

/// Racks: the distinct switches hosts hang on, in order of first appearance, and each host's
/// rack and port on it.
fn racks(
    host_switch: &[Option<u32>],
    switch_peers: &[Vec<Option<GraphNode>>],
) -> (Vec<HostRoute>, Vec<u32>) {
    let mut rack_of_switch = vec![u32::MAX; switch_peers.len()];
    let mut rack_switch = Vec::new();
    let mut host = Vec::with_capacity(host_switch.len());
    for (h, sw) in host_switch.iter().enumerate() {
        let Some(sw) = *sw else {
            host.push(HostRoute {
                rack: u32::MAX,
                switch: u32::MAX,
                port: [0],
            });
            continue;
        };
        if rack_of_switch[sw as usize] == u32::MAX {
            rack_of_switch[sw as usize] = rack_switch.len() as u32;
            rack_switch.push(sw);
        }
        let port = switch_peers[sw as usize]
            .iter()
            .position(|p| *p == Some(GraphNode(h as u32)))
            .map_or(u16::MAX, |p| p as u16);
        host.push(HostRoute {
            rack: rack_of_switch[sw as usize],
            switch: sw,
            port: [port],
        });
    }
    (host, rack_switch)
}

/// For each switch, the switches with a link toward it.
fn reverse_adjacency(switch_peers: &[Vec<Option<GraphNode>>], hosts: usize) -> Vec<Vec<u32>> {
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); switch_peers.len()];
    for (s, peers) in switch_peers.iter().enumerate() {
        for peer in peers.iter().flatten() {
            if (peer.0 as usize) >= hosts {
                rev[peer.0 as usize - hosts].push(s as u32);
            }
        }
    }
    rev
}

/// Switch hops from every switch to `target` (the target counts 1; `u32::MAX`: unreachable),
/// by breadth-first search over the reverse adjacency.
fn hops_to(target: u32, rev: &[Vec<u32>]) -> Vec<u32> {
    let mut dist = vec![u32::MAX; rev.len()];
    let mut queue = VecDeque::new();
    dist[target as usize] = 1;
    queue.push_back(target);
    while let Some(s) = queue.pop_front() {
        let d = dist[s as usize];
        for &n in &rev[s as usize] {
            if dist[n as usize] == u32::MAX {
                dist[n as usize] = d + 1;
                queue.push_back(n);
            }
        }
    }
    dist
}

/// Distinct ECMP groups (sets of local ports), stored once each as real switches store them.
struct EcmpGroups {
    ids: HashMap<Vec<u16>, u32>,
    start: Vec<u32>,
    hops: Vec<u16>,
}

impl Default for EcmpGroups {
    fn default() -> Self {
        let mut g = EcmpGroups {
            ids: HashMap::new(),
            start: vec![0],
            hops: Vec::new(),
        };
        // Group 0 is the empty group: unreachable.
        let empty = g.id(Vec::new());
        debug_assert_eq!(empty, 0);
        g
    }
}

impl EcmpGroups {
    /// The id of group `set`, added if new.
    fn id(&mut self, set: Vec<u16>) -> u32 {
        let (start, hops) = (&mut self.start, &mut self.hops);
        *self.ids.entry(set).or_insert_with_key(|set| {
            hops.extend_from_slice(set);
            start.push(hops.len() as u32);
            start.len() as u32 - 2
        })
    }
}

/// Which of `n` equal-cost next hops a switch with ECMP salt (or, hashing as ns-3 does, seed)
/// `salt` gives a packet to host `dst` with ECMP key `hash` (`data`: a data packet, which
/// ns-3's hash reads the ports of in the other order): [`super::ns3_hash::ns3_pick`] when
/// `ns3`, else [`ecmp_pick`]. The one choice a switch makes on arrival
/// (`Switch::ecmp_index`) and the previous switch makes for it when routing one hop ahead
/// (`fabric::route_ahead`).
#[inline(always)]
pub fn ecmp_choice(ns3: bool, salt: u32, hash: u32, dst: u32, data: bool, n: usize) -> usize {
    if ns3 {
        if n == 1 {
            return 0;
        }
        super::ns3_hash::ns3_pick(hash, dst, data, salt, n)
    } else {
        ecmp_pick(hash, salt, n)
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

    /// A switch asks for an ECMP choice on every hop, one next hop or several
    /// (`Switch::forward`): with one, every hash in either mode must give it.
    #[test]
    fn a_single_next_hop_is_always_chosen() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (hash, salt, dst) = (x as u32, (x >> 32) as u32, (x >> 40) as u32);
            for ns3 in [false, true] {
                assert_eq!(ecmp_choice(ns3, salt, hash, dst, x & 1 == 0, 1), 0);
            }
        }
    }

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
        let r = RoutingTable::build(&hosts, &peers, false);
        assert_eq!(r.next_hops(0, 1), &[1, 2]);
        assert_eq!(r.next_hops(0, 0), &[0]);
        assert_eq!(r.next_hops(1, 1), &[1]);
        assert_eq!(r.next_hops(3, 0), &[0, 1]);
        assert_eq!(r.next_hops(3, 1), &[2]);
    }

    #[test]
    fn racks_share_ecmp_groups_and_hosts_get_their_port() {
        // h0, h1 on s0; h2 on s3; s0 and s3 joined by s1 and s2. A downed host is unreachable.
        let n = |x: u32| Some(GraphNode(x));
        let hosts = [Some(0), Some(0), Some(3), None];
        let h = 4;
        let peers = vec![
            vec![n(0), n(h + 1), n(h + 2), n(1)],
            vec![n(h), n(h + 3)],
            vec![n(h), n(h + 3)],
            vec![n(h + 1), n(h + 2), n(2), None],
        ];
        let r = RoutingTable::build(&hosts, &peers, false);
        assert_eq!(r.next_hops(0, 0), &[0]);
        assert_eq!(r.next_hops(0, 1), &[3]);
        assert_eq!(r.next_hops(0, 2), &[1, 2]);
        assert_eq!(r.next_hops(3, 0), &[0, 1]);
        assert_eq!(r.next_hops(3, 1), &[0, 1]);
        assert_eq!(r.next_hops(3, 2), &[2]);
        assert_eq!(r.next_hops(1, 2), &[1]);
        assert_eq!(r.next_hops(1, 0), &[0]);
        assert!(r.next_hops(0, 3).is_empty() && r.next_hops(1, 3).is_empty());
        // Groups: empty, {1, 2}, {0, 1}, {1}, {0}.
        assert_eq!(r.groups(), 5);
        // In node order (ns-3's): s0's ports 1 and 2 lead to s1 and s2, listed s2 first.
        let r = RoutingTable::build(&hosts, &peers, true);
        assert_eq!(r.next_hops(0, 2), &[2, 1]);
        assert_eq!(r.next_hops(3, 0), &[1, 0]);
    }

    #[test]
    fn group_ids_are_narrow_up_to_65536_groups_and_wide_beyond() {
        let ids: Vec<u32> = (0..1u32 << 16).rev().collect();
        let narrow = GroupIds::new(ids.clone(), 1 << 16);
        assert!(matches!(narrow, GroupIds::Narrow(_)));
        assert_eq!((narrow.get(0), narrow.get(65_535)), (65_535, 0));
        let mut ids = ids;
        ids.push(65_536);
        ids.push(100_000);
        let wide = GroupIds::new(ids, 100_001);
        assert!(matches!(wide, GroupIds::Wide(_)));
        assert_eq!(
            (wide.get(0), wide.get(65_536), wide.get(65_537)),
            (65_535, 65_536, 100_000)
        );
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
