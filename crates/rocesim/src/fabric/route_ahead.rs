//! Routing one hop ahead: when a switch forwards a frame, it also looks up the egress port the
//! frame will take at the next switch, and the frame's arrival event carries it
//! ([`crate::engine::Event::LinkArrive`]'s `out`).
//!
//! The lookup is the one the next switch would make on arrival (its ECMP group for the
//! destination's rack, its own salt and hash), made one hop earlier while the packet is still
//! in cache, so no work is added: the next switch takes the port from the event instead of
//! routing. What it buys is time. A switch's egress port is known only after routing, itself a
//! chain of loads from the packet, and at a large fabric (5,120 switch ports at k = 16) its
//! first cache line was the longest wait of a hop. With the port in the event, the run loop
//! prefetches that line a wheel slot before the frame arrives, as it prefetches the packet.
//!
//! It is worth that only where ports are cold. At S1 (k = 8: 640 switch ports, 0.5 MiB of port
//! state) the ports stay in this machine's 2 MiB second-level cache, and routing ahead cost 4 %
//! more instructions a hop and 10 % more time; at S4 (k = 16: 4.3 MiB) it saved 3 % of the
//! time, and at k = 32 13 % (docs/performance.md, "Slots of a large fabric and routing one hop
//! ahead"). So the world turns it on only when the switches' ports outgrow [`CACHE_BUDGET`]
//! ([`RouteAhead::worth_it`]). Results are the same either way.
//!
//! The answer must be the one the next switch would give, so routing ahead is off whenever
//! routes can change between a frame's departure and its arrival: a scenario with faults
//! (links going down, reconvergence, static routes, aged MAC entries) routes on arrival, as
//! does a switch with a forwarding latency and a frame arriving from another thread's part.

use super::routing::{ecmp_choice, RoutingTable};

/// No egress port known ahead: the receiving switch routes the frame itself (a host's frame,
/// a frame to a host, routing ahead off, or no route).
pub const NO_OUT: u16 = u16::MAX;

/// Bytes of switch port state beyond which ports are likely cold when a frame arrives (the
/// second-level cache of one core on the machines this was measured on).
pub const CACHE_BUDGET: usize = 2 << 20;

/// Marks a switch that hashes as ns-3 does, in [`RouteAhead`]'s `peer` entries.
const NS3: u32 = 1 << 31;
/// A port whose peer is not a switch.
const NOT_A_SWITCH: u32 = u32::MAX;

/// For every switch port, the switch at its far end: what routing one hop ahead reads. Each
/// switch's ECMP salt and hash are copies of its own (`Switch::salt`, `Switch::ns3_hash`),
/// kept here because the next switch's own lines are what the lookup must not wait for. The
/// table is by (switch, local port), so that a switch's ports share one or two cache lines,
/// which every frame through that switch keeps warm (by port id, the entries of one switch
/// were spread over the table, and its lookups missed the cache at S4's size).
#[derive(Clone, Debug, Default)]
pub struct RouteAhead {
    /// Entries per switch (the most ports of any switch).
    stride: usize,
    /// `switch × stride + local port` → the far end's switch index, with [`NS3`] set when it
    /// hashes as ns-3 does, or [`NOT_A_SWITCH`]; empty when routing ahead is off.
    peer: Box<[u32]>,
    /// By switch: its ECMP salt (`Switch::salt`).
    salt: Box<[u32]>,
}

impl RouteAhead {
    /// Routing ahead off: every lookup answers [`NO_OUT`].
    pub fn off() -> Self {
        Self::default()
    }

    /// Is routing ahead on (a table to look up)?
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        !self.peer.is_empty()
    }

    /// Is routing ahead worth its cost for a fabric of `switch_ports` switch ports? Only when
    /// their state outgrows [`CACHE_BUDGET`].
    pub fn worth_it(switch_ports: usize) -> bool {
        switch_ports.saturating_mul(std::mem::size_of::<super::port::Port>()) > CACHE_BUDGET
    }

    /// The table for switches with ECMP salts and hashes `ecmp` (`(salt, ns3)` by switch)
    /// whose ports lead to `peers` (by switch, by local port: `Some(switch)` for a port
    /// facing a switch, `None` for one facing a host).
    pub fn new(ecmp: &[(u32, bool)], peers: &[Vec<Option<u32>>]) -> Self {
        let stride = peers.iter().map(Vec::len).max().unwrap_or(0);
        let mut peer = vec![NOT_A_SWITCH; peers.len() * stride];
        for (s, ports) in peers.iter().enumerate() {
            for (l, p) in ports.iter().enumerate() {
                if let Some(&n) = p.as_ref() {
                    let ns3 = ecmp.get(n as usize).is_some_and(|e| e.1);
                    peer[s * stride + l] = n | if ns3 { NS3 } else { 0 };
                }
            }
        }
        RouteAhead {
            stride,
            peer: peer.into_boxed_slice(),
            salt: ecmp.iter().map(|e| e.0).collect(),
        }
    }

    /// The local egress port that the switch at the far end of local port `local` of switch
    /// `sw` will choose for a packet to host `dst` with ECMP key `hash` (`data`: a data
    /// packet, for ns-3's hash), or [`NO_OUT`] when that end is a host, routing ahead is off,
    /// or the switch has no route.
    #[inline(always)]
    pub fn out_at_peer(
        &self,
        routes: &RoutingTable,
        sw: u32,
        local: u16,
        dst: u32,
        hash: u32,
        data: bool,
    ) -> u16 {
        let i = sw as usize * self.stride + local as usize;
        let Some(&n) = self.peer.get(i) else {
            return NO_OUT;
        };
        if n == NOT_A_SWITCH {
            return NO_OUT;
        }
        let next = n & !NS3;
        let hops = routes.next_hops(next, dst);
        match hops.len() {
            0 => NO_OUT,
            1 => hops[0],
            k => {
                let salt = self.salt.get(next as usize).copied().unwrap_or(0);
                hops[ecmp_choice(n & NS3 != 0, salt, hash, dst, data, k)]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::ns3_hash::ns3_pick;
    use crate::fabric::routing::{ecmp_pick, GraphNode};

    /// Two hosts on ToRs 0 and 1, joined by two spines (2 and 3): ToR 0's ports are host 0
    /// (0), spine 2 (1), spine 3 (2).
    fn two_tier() -> RoutingTable {
        let hosts = [Some(0), Some(1)];
        let n = |s: u32| Some(GraphNode(2 + s));
        let peers = vec![
            vec![Some(GraphNode(0)), n(2), n(3)],
            vec![Some(GraphNode(1)), n(2), n(3)],
            vec![n(0), n(1)],
            vec![n(0), n(1)],
        ];
        RoutingTable::build(&hosts, &peers, false)
    }

    /// ECMP salt and hash of switches 0-3.
    const ECMP: [(u32, bool); 4] = [(7, false), (8, false), (9, false), (10, false)];

    /// The far ends of each switch's ports in `two_tier`.
    static PEERS: std::sync::LazyLock<Vec<Vec<Option<u32>>>> = std::sync::LazyLock::new(|| {
        vec![
            vec![None, Some(2), Some(3)],
            vec![None, Some(2), Some(3)],
            vec![Some(0), Some(1)],
            vec![Some(0), Some(1)],
        ]
    });

    #[test]
    fn the_answer_is_the_next_switchs_own_choice() {
        let routes = two_tier();
        // Spine 2's port 0 leads to ToR 0 (salt 7), spine 3's port 1 to ToR 1, ToR 0's port
        // 0 to a host.
        let ahead = RouteAhead::new(&ECMP, &PEERS);
        let mut spread = [0usize; 2];
        for hash in 0..200u32 {
            let hops = routes.next_hops(0, 1);
            assert_eq!(hops.len(), 2, "ToR 0 reaches host 1 over both spines");
            let own = hops[ecmp_pick(hash, 7, 2)];
            assert_eq!(ahead.out_at_peer(&routes, 2, 0, 1, hash, true), own);
            spread[own as usize - 1] += 1;
        }
        assert!(
            spread.iter().all(|&c| c > 50),
            "both spines chosen: {spread:?}"
        );
        // A ToR reaches its own host through its one access port.
        assert_eq!(ahead.out_at_peer(&routes, 2, 0, 0, 5, true), 0);
        // A spine has one way down to each ToR.
        assert_eq!(ahead.out_at_peer(&routes, 0, 1, 1, 5, true), 1);
    }

    #[test]
    fn only_fabrics_whose_ports_outgrow_the_cache_route_ahead() {
        // S1 (k = 8: 80 switches of 8 ports) keeps its ports in cache; S4 (k = 16: 320
        // switches of 16) does not.
        assert!(!RouteAhead::worth_it(80 * 8));
        assert!(RouteAhead::worth_it(320 * 16));
        assert!(!RouteAhead::worth_it(0));
    }

    #[test]
    fn hosts_unknown_ports_and_routing_off_answer_no_out() {
        let routes = two_tier();
        let ahead = RouteAhead::new(&ECMP, &PEERS);
        // ToR 0's port 0 faces host 0.
        assert_eq!(ahead.out_at_peer(&routes, 0, 0, 1, 3, true), NO_OUT);
        // No such switch, no such port.
        assert_eq!(ahead.out_at_peer(&routes, 9, 0, 1, 3, true), NO_OUT);
        assert_eq!(ahead.out_at_peer(&routes, 3, 2, 1, 3, true), NO_OUT);
        let off = RouteAhead::off();
        assert!(!off.is_on() && ahead.is_on());
        assert_eq!(off.out_at_peer(&routes, 2, 0, 1, 3, true), NO_OUT);
    }

    #[test]
    fn a_switch_hashing_as_ns3_does_is_asked_with_ns3s_hash() {
        let routes = two_tier();
        let mut ecmp = ECMP;
        ecmp[0] = (11, true);
        let ahead = RouteAhead::new(&ecmp, &PEERS);
        let hops = routes.next_hops(0, 1);
        let mut differ = false;
        for hash in 0..64u32 {
            let want = hops[ns3_pick(hash, 1, false, 11, 2)];
            assert_eq!(ahead.out_at_peer(&routes, 2, 0, 1, hash, false), want);
            differ |= want != hops[ecmp_pick(hash, 11, 2)];
        }
        assert!(differ, "the two hashes choose differently for some key");
    }
}
