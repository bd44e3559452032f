//! Paths through the fabric as routing sees them: the hops of a flow's first shortest path,
//! its base RTT, and the ideal completion time of a message alone in the network.

use super::Sim;
use crate::ids::PortId;
use crate::topology::NodeRef;
use crate::units::{Rate, Time};

impl Sim {
    /// The name of node `n`.
    pub(crate) fn node_name(&self, n: NodeRef) -> &str {
        let t = &self.scenario.topology;
        match n {
            NodeRef::Host(h) => &t.hosts[h as usize].name,
            NodeRef::Switch(s) => &t.switches[s as usize].name,
        }
    }

    /// The hops (rate, delay) of the first shortest path from host `src` to host `dst`, walked
    /// lazily (nothing is allocated: the results of a million flows each walk one).
    pub(crate) fn path(&self, src: u32, dst: u32) -> Hops<'_> {
        Hops {
            sim: self,
            next: Some(self.nics[src as usize].port.id),
            dst,
            left: 64,
        }
    }

    /// Base RTT of the path from `src` to `dst`: propagation both ways plus one data frame of
    /// `mtu` payload and one ACK serialized at every hop.
    pub(crate) fn base_rtt(&self, src: u32, dst: u32, mtu: u32) -> Time {
        let frame = self.scenario.nics[src as usize]
            .frame_overhead
            .data(mtu, false) as u64;
        let ack = self.scenario.nics[dst as usize].frame_overhead.ack() as u64;
        self.path(src, dst)
            .map(|(r, d)| d + d + r.tx_time(frame) + r.tx_time(ack))
            .fold(Time::ZERO, |a, b| a + b)
    }

    /// Ideal FCT of a `size`-byte message from `src` to `dst` alone in the network: the first
    /// frame is stored and forwarded at every hop, the rest stream at the bottleneck rate, and
    /// the last ACK returns over the same hops.
    pub(crate) fn ideal_fct(&self, src: u32, dst: u32, size: u64) -> Time {
        let nic = &self.scenario.nics[src as usize];
        let (mtu, o) = (nic.mtu as u64, nic.frame_overhead);
        let ack = self.scenario.nics[dst as usize].frame_overhead.ack() as u64;
        let npkts = size.div_ceil(mtu).max(1);
        let first = o.data(size.min(mtu) as u32, true) as u64;
        // Every packet carries the overhead, the first also a RETH (closed form: no loop
        // over the packets of a huge message).
        let total = size
            + npkts * o.data(0, false) as u64
            + (first - o.data(size.min(mtu) as u32, false) as u64);
        let mut bottleneck: Option<Rate> = None;
        let mut t = Time::ZERO;
        for (r, d) in self.path(src, dst) {
            bottleneck = Some(bottleneck.map_or(r, |b| b.min(r)));
            t += r.tx_time(first) + r.tx_time(ack) + d + d;
        }
        t + bottleneck.unwrap_or(Rate::gbps(100)).tx_time(total - first)
    }

    /// The node and local index of port `p`.
    pub(crate) fn port_owner(&self, p: PortId) -> (NodeRef, u16) {
        self.port_loc.get(p)
    }
}

/// The hops of a path, from the sender's NIC port to the port that delivers to the receiver:
/// each the (rate, delay) of the port the frame leaves by. At most 64 hops (a routing loop
/// cannot make it endless).
pub(crate) struct Hops<'a> {
    sim: &'a Sim,
    next: Option<PortId>,
    dst: u32,
    left: u32,
}

impl Iterator for Hops<'_> {
    type Item = (Rate, Time);

    fn next(&mut self) -> Option<(Rate, Time)> {
        let p = self.next.take()?;
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let port = self.sim.ports().port(p);
        if let NodeRef::Switch(s) = self.sim.port_loc.get(p.peer()).0 {
            let nh = self.sim.ctx.routes.next_hops(s, self.dst);
            self.next = nh
                .first()
                .map(|&l| self.sim.switches[s as usize].ports[l as usize].id);
        }
        Some((port.rate, port.delay))
    }
}
