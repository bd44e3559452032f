//! Fault injection in the world: start and clear the scenario's faults, and reconverge
//! routing after a link changes state.

use super::Sim;
use crate::engine::rng::{stream, StreamKind};
use crate::engine::Event;
use crate::fabric::link::Loss;
use crate::fabric::routing::{GraphNode, RoutingTable};
use crate::faults::FaultKind;
use crate::ids::PortId;
use crate::topology::NodeRef;

impl Sim {
    pub(crate) fn on_fault(&mut self, index: u32, start: bool) {
        let kind = self.scenario.faults[index as usize].kind.clone();
        match kind {
            FaultKind::NicRxStall { host } => {
                if self.part.as_ref().is_none_or(|p| p.has_host(host)) {
                    let ctx = &mut self.ctx;
                    self.nics[host as usize].set_rx_stall(start, ctx);
                }
            }
            FaultKind::LinkDown { link, reconverge } | FaultKind::LinkUp { link, reconverge } => {
                let up = matches!(kind, FaultKind::LinkUp { .. }) == start;
                let now = self.now();
                self.ctx.events.schedule(now + reconverge, Event::Reroute);
                self.set_link(link, up);
            }
            FaultKind::RouteOverride { switch, dst, link } => {
                let sw = &mut self.switches[switch as usize];
                let port = sw.ports.iter().position(|p| p.link == link);
                let port = port.filter(|_| start).map(|p| p as u16);
                sw.set_static_route(dst, port);
            }
            FaultKind::MacAgeOut { switch, host } => {
                self.switches[switch as usize].set_mac_aged(host, start);
            }
            FaultKind::Loss {
                link,
                from_a,
                every,
                probability,
                all_frames: all,
            } => {
                let ports: &[u32] = match from_a {
                    Some(true) => &[2 * link],
                    Some(false) => &[2 * link + 1],
                    None => &[2 * link, 2 * link + 1],
                };
                for &p in ports {
                    // Each direction of each link draws from its own stream.
                    let id = (u64::from(index) + 1) << 32 | u64::from(p);
                    let loss = match (start, every, probability) {
                        (false, _, _) => Loss::None,
                        (true, Some(n), _) => Loss::Every { n, seen: 0, all },
                        (true, None, Some(p)) => Loss::Random { p, all },
                        (true, None, None) => Loss::None,
                    };
                    let seed = self.scenario.sim.seed;
                    let rng = matches!(loss, Loss::Random { .. })
                        .then(|| Box::new(stream(seed, StreamKind::Fault, id)));
                    self.port_mut(PortId(p)).set_wire_loss(loss, rng);
                }
            }
        }
    }

    /// Take link `link` down (its ports lose what they hold) or bring it up. Every part of a
    /// partitioned run changes the link's state (routing reads it) and flushes both ends
    /// (the frames on a wire that crosses a cut are held by the receiving part); only the
    /// part simulating an end restarts it.
    fn set_link(&mut self, link: u32, up: bool) {
        let ends = [PortId(2 * link), PortId(2 * link + 1)];
        if !up {
            for p in ends {
                let ctx = &mut self.ctx;
                match self.port_loc.get(p) {
                    (NodeRef::Switch(s), l) => self.switches[s as usize].flush_port(l, ctx),
                    (NodeRef::Host(h), _) => self.nics[h as usize].flush_port(ctx),
                }
            }
        }
        for p in ends {
            self.port_mut(p).set_wire_up(up);
        }
        if up {
            for p in ends {
                if let Some(part) = &self.part {
                    if !part.has_port(&self.port_loc, p) {
                        continue;
                    }
                }
                let ctx = &mut self.ctx;
                match self.port_loc.get(p) {
                    (NodeRef::Switch(s), l) => self.switches[s as usize].try_send(l, ctx),
                    (NodeRef::Host(h), _) => self.nics[h as usize].try_send(ctx),
                }
            }
        }
    }

    /// Port `p`, mutably (for fault injection).
    pub(super) fn port_mut(&mut self, p: PortId) -> &mut crate::fabric::port::Port {
        match self.port_loc.get(p) {
            (NodeRef::Switch(s), l) => &mut self.switches[s as usize].ports[l as usize],
            (NodeRef::Host(h), _) => &mut self.nics[h as usize].port,
        }
    }

    /// Recompute shortest paths over the links that are up (routing reconvergence).
    pub(crate) fn reroute(&mut self) {
        let nh = self.nics.len() as u32;
        let node = |n: NodeRef| match n {
            NodeRef::Host(h) => GraphNode(h),
            NodeRef::Switch(s) => GraphNode(nh + s),
        };
        let loc = &self.port_loc;
        let host_switch: Vec<Option<u32>> = self
            .nics
            .iter()
            .map(|n| match loc.get(n.port.id.peer()).0 {
                NodeRef::Switch(s) if n.port.wire.up => Some(s),
                _ => None,
            })
            .collect();
        let switch_peers: Vec<Vec<Option<GraphNode>>> = self
            .switches
            .iter()
            .map(|sw| {
                sw.ports
                    .iter()
                    .map(|p| p.wire.up.then(|| node(loc.get(p.id.peer()).0)))
                    .collect()
            })
            .collect();
        let by_node = super::build::ns3_order(&self.scenario);
        self.ctx.routes = RoutingTable::build(&host_switch, &switch_peers, by_node);
    }
}
