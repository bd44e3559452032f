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

    /// The hops (rate, delay) of the first shortest path from host `src` to host `dst`.
    pub(crate) fn path(&self, src: u32, dst: u32) -> Vec<(Rate, Time)> {
        let ports = self.ports();
        let mut hops = Vec::new();
        let mut p = self.nics[src as usize].port.id;
        for _ in 0..64 {
            let port = ports.port(p);
            hops.push((port.rate, port.delay));
            match self.port_loc[p.peer().idx()].0 {
                NodeRef::Host(_) => return hops,
                NodeRef::Switch(s) => {
                    let nh = self.ctx.routes.next_hops(s, dst);
                    let Some(&l) = nh.first() else { return hops };
                    p = self.switches[s as usize].ports[l as usize].id;
                }
            }
        }
        hops
    }

    /// Base RTT of the path from `src` to `dst`: propagation both ways plus one data frame of
    /// `mtu` payload and one ACK serialized at every hop.
    pub(crate) fn base_rtt(&self, src: u32, dst: u32, mtu: u32) -> Time {
        let frame = self.scenario.nics[src as usize]
            .frame_overhead
            .data(mtu, false) as u64;
        let ack = self.scenario.nics[dst as usize].frame_overhead.ack() as u64;
        self.path(src, dst)
            .iter()
            .map(|&(r, d)| d + d + r.tx_time(frame) + r.tx_time(ack))
            .fold(Time::ZERO, |a, b| a + b)
    }

    /// Ideal FCT of a `size`-byte message from `src` to `dst` alone in the network: the first
    /// frame is stored and forwarded at every hop, the rest stream at the bottleneck rate, and
    /// the last ACK returns over the same hops.
    pub(crate) fn ideal_fct(&self, src: u32, dst: u32, size: u64) -> Time {
        let nic = &self.scenario.nics[src as usize];
        let (mtu, o) = (nic.mtu as u64, nic.frame_overhead);
        let ack = self.scenario.nics[dst as usize].frame_overhead.ack() as u64;
        let path = self.path(src, dst);
        let npkts = size.div_ceil(mtu).max(1);
        let first = o.data(size.min(mtu) as u32, true) as u64;
        // Every packet carries the overhead, the first also a RETH (closed form: no loop
        // over the packets of a huge message).
        let total = size
            + npkts * o.data(0, false) as u64
            + (first - o.data(size.min(mtu) as u32, false) as u64);
        let bottleneck = path.iter().map(|h| h.0).min().unwrap_or(Rate::gbps(100));
        let mut t = bottleneck.tx_time(total - first);
        for &(r, d) in &path {
            t += r.tx_time(first) + r.tx_time(ack) + d + d;
        }
        t
    }

    /// The node and local index of port `p`.
    pub(crate) fn port_owner(&self, p: PortId) -> (NodeRef, u16) {
        self.port_loc[p.idx()]
    }
}
