//! Building the world from a checked [`Scenario`]: ports and channels for every link, an MMU
//! per switch with its headroom, routing tables, NICs and flows, and the first events.

use super::{FlowState, Sim, SwitchState, Totals};
use crate::config::Scenario;
use crate::engine::rng::{salt, stream, StreamKind};
use crate::engine::{Event, EventQueue, PacketArena};
use crate::fabric::headroom::{auto_headroom, resolve, response_delay};
use crate::fabric::link::Channel;
use crate::fabric::mmu::Mmu;
use crate::fabric::params::QueueSched;
use crate::fabric::port::Port;
use crate::fabric::routing::{flow_hash, GraphNode, RoutingTable};
use crate::monitor::{FlowCounters, PortPrioCounters};
use crate::nic::cc::{none::NoCc, CcContext, CcState};
use crate::nic::host::Host;
use crate::nic::qp::{RecvQp, SendQp};
use crate::nic::rx_pipeline::RxPipeline;
use crate::packet::{DATA_OVERHEAD, RETH, ROCEV2_UDP_PORT};
use crate::topology::NodeRef;
use crate::units::Time;

/// A scenario that passed the config checks but cannot be built (e.g. headroom does not fit
/// in a switch's buffer). Each message names the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub struct BuildError(pub Vec<String>);

impl Sim {
    /// Build the world for `scenario`.
    pub fn new(scenario: Scenario) -> Result<Sim, BuildError> {
        let topo = &scenario.topology;
        let mut errors = Vec::new();
        let nh = topo.hosts.len();
        let ns = topo.switches.len();
        let mut host_ports: Vec<Vec<u32>> = vec![Vec::new(); nh];
        let mut switch_ports: Vec<Vec<u32>> = vec![Vec::new(); ns];
        let mut ports = Vec::with_capacity(topo.links.len() * 2);
        let all_strict = [QueueSched::Strict; 8];
        let sched_of = |n: NodeRef| match n {
            NodeRef::Switch(s) => &scenario.switches[s as usize].scheduler,
            NodeRef::Host(_) => &all_strict,
        };
        for (i, l) in topo.links.iter().enumerate() {
            for (me, other, id) in [(l.a, l.b, 2 * i), (l.b, l.a, 2 * i + 1)] {
                let _ = other;
                let list = match me {
                    NodeRef::Host(h) => &mut host_ports[h as usize],
                    NodeRef::Switch(s) => &mut switch_ports[s as usize],
                };
                let local = list.len() as u16;
                list.push(id as u32);
                let peer = (id ^ 1) as u32;
                let mut port = Port::new(me, local, peer, i as u32, l.rate, l.delay, sched_of(me));
                let configured = match me {
                    NodeRef::Switch(s) => scenario.switches[s as usize].pfc_response,
                    NodeRef::Host(h) => scenario.nics[h as usize].pfc_response,
                };
                port.pfc_response = response_delay(configured, l.rate);
                if let NodeRef::Switch(s) = me {
                    let p = &scenario.switches[s as usize];
                    for prio in 0..8 {
                        port.queue_of_prio[prio] = p.tc_to_queue[prio];
                    }
                }
                ports.push(port);
            }
        }
        for (h, hp) in host_ports.iter().enumerate() {
            if hp.len() != 1 {
                errors.push(format!(
                    "topology: host `{}` has {} links; a host has exactly one NIC port",
                    topo.hosts[h].name,
                    hp.len()
                ));
            }
        }
        let max_frame =
            scenario.nics.iter().map(|n| n.mtu).max().unwrap_or(1024) + DATA_OVERHEAD + RETH;
        let mut switches = Vec::with_capacity(ns);
        for (s, sp) in switch_ports.iter().enumerate() {
            let p = &scenario.switches[s];
            let headroom: Vec<u64> = sp
                .iter()
                .map(|&g| {
                    let port = &ports[g as usize];
                    let peer = &ports[port.peer as usize];
                    let auto = auto_headroom(
                        port.rate,
                        port.delay,
                        p.cable_length_m,
                        max_frame,
                        peer.pfc_response,
                    );
                    resolve(p.lossless.headroom, auto)
                })
                .collect();
            let min_frame = headroom.iter().copied().min().unwrap_or(u64::MAX);
            if p.pfc_enable != 0 && min_frame < (max_frame - 20) as u64 {
                errors.push(format!(
                    "switch.lossless.headroom: switch `{}` has {} B of headroom, less than one {} B frame",
                    topo.switches[s].name,
                    min_frame,
                    max_frame - 20
                ));
            }
            let mmu = match Mmu::new(p, headroom) {
                Ok(m) => m,
                Err(e) => {
                    errors.push(format!(
                        "switch.buffer_size: switch `{}`: {e}",
                        topo.switches[s].name
                    ));
                    continue;
                }
            };
            switches.push(SwitchState {
                ports: sp.clone(),
                mmu,
                salt: salt(scenario.sim.seed, StreamKind::Switch, s as u64) as u32,
                dscp_to_tc: p.dscp_to_tc,
                tc_to_queue: p.tc_to_queue,
                pfc_enable: p.pfc_enable,
                pfc_quanta: p.pfc_quanta,
                ecn: p.ecn,
                ecn_queues: p.ecn.map_or(0, |e| e.queues),
                detection: p.detection,
                rng: stream(scenario.sim.seed, StreamKind::Switch, s as u64),
                fwd_fault: false,
                route_overrides: Vec::new(),
                aged: Vec::new(),
                drop_on_incomplete_arp: p.drop_lossless_on_incomplete_arp,
            });
        }
        if !errors.is_empty() {
            return Err(BuildError(errors));
        }
        let node_of = |n: NodeRef| match n {
            NodeRef::Host(h) => GraphNode(h),
            NodeRef::Switch(s) => GraphNode(nh as u32 + s),
        };
        let host_switch: Vec<Option<u32>> = host_ports
            .iter()
            .map(|hp| match ports[ports[hp[0] as usize].peer as usize].node {
                NodeRef::Switch(s) => Some(s),
                NodeRef::Host(_) => None,
            })
            .collect();
        let switch_peers: Vec<Vec<Option<GraphNode>>> = switch_ports
            .iter()
            .map(|sp| {
                sp.iter()
                    .map(|&g| Some(node_of(ports[ports[g as usize].peer as usize].node)))
                    .collect()
            })
            .collect();
        let routes = RoutingTable::build(&host_switch, &switch_peers);
        let hosts: Vec<Host> = host_ports
            .iter()
            .enumerate()
            .map(|(h, hp)| {
                let n = &scenario.nics[h];
                Host {
                    port: hp[0],
                    active: Vec::new(),
                    rr: 0,
                    wake_at: Time::NEVER,
                    rx: RxPipeline::new(n.rx),
                    pfc_enable: n.pfc_enable,
                    pfc_quanta: n.pfc_quanta,
                }
            })
            .collect();
        let flows: Vec<FlowState> = scenario
            .flows
            .iter()
            .map(|f| flow_state(&scenario, f))
            .collect();
        let mut dependents: Vec<Vec<u32>> = vec![Vec::new(); flows.len()];
        for (i, f) in scenario.flows.iter().enumerate() {
            if let Some(a) = f.after {
                if (a as usize) < flows.len() && a as usize != i {
                    dependents[a as usize].push(i as u32);
                }
            }
        }
        let mut start_order: Vec<u32> = (0..flows.len() as u32)
            .filter(|&i| scenario.flows[i as usize].after.is_none())
            .collect();
        start_order.sort_by_key(|&i| (flows[i as usize].start, i));
        let finite_left = flows.iter().filter(|f| f.sq.size != u64::MAX).count();
        let has_infinite = flows.iter().any(|f| f.sq.size == u64::MAX);
        let nports = ports.len();
        let mut sim = Sim {
            q: EventQueue::new(),
            arena: PacketArena::new(),
            chans: (0..nports).map(|_| Channel::default()).collect(),
            xoff: vec![Default::default(); nports],
            ports,
            switches,
            hosts,
            flows,
            start_order,
            dependents,
            next_start: 0,
            routes,
            counters: vec![PortPrioCounters::default(); nports * 8],
            tx: vec![Default::default(); nports * 8],
            tx_port_bytes: vec![0; nports],
            tx_at_warmup: Vec::new(),
            lost: vec![[(0, 0); 8]; nports],
            pfc_log: Vec::new(),
            totals: Totals::default(),
            throughput: Vec::new(),
            queue_samples: Vec::new(),
            last_sample: Time::ZERO,
            next_tput_sample: Time::NEVER,
            next_queue_sample: Time::NEVER,
            events: 0,
            end: scenario.sim.duration,
            finite_left,
            has_infinite,
            interrupted: false,
            warmup_done: false,
            loss_rng: stream(scenario.sim.seed, StreamKind::Fault, 0),
            ints: Vec::new(),
            int_free: Vec::new(),
            cps: if scenario.switches.iter().any(|s| s.ecn.is_some()) {
                vec![Default::default(); nports * 8]
            } else {
                Vec::new()
            },
            cp_state: vec![false; nports * 8],
            paused_count: 0,
            wd: Vec::new(),
            wd_log: Vec::new(),
            nic_storm: Vec::new(),
            dl: Default::default(),
            stop_requested: false,
            rate_samples: Vec::new(),
            scenario,
        };
        sim.init_congestion_control();
        sim.nic_storm = vec![(0, 0); sim.hosts.len()];
        if sim
            .scenario
            .switches
            .iter()
            .any(|s| s.pfc_watchdog.is_some())
        {
            sim.wd = vec![Default::default(); nports * 8];
        }
        sim.schedule_watchdogs();
        sim.schedule_deadlock_detector();
        sim.schedule_initial();
        Ok(sim)
    }

    /// Recompute shortest paths over the links that are up (routing reconvergence).
    pub(crate) fn reroute(&mut self) {
        let nh = self.hosts.len() as u32;
        let node = |n: NodeRef| match n {
            NodeRef::Host(h) => GraphNode(h),
            NodeRef::Switch(s) => GraphNode(nh + s),
        };
        let host_switch: Vec<Option<u32>> = self
            .hosts
            .iter()
            .map(|h| {
                if !self.chans[h.port as usize].up {
                    return None;
                }
                match self.ports[self.ports[h.port as usize].peer as usize].node {
                    NodeRef::Switch(s) => Some(s),
                    NodeRef::Host(_) => None,
                }
            })
            .collect();
        let switch_peers: Vec<Vec<Option<GraphNode>>> = self
            .switches
            .iter()
            .map(|sw| {
                sw.ports
                    .iter()
                    .map(|&g| {
                        self.chans[g as usize]
                            .up
                            .then(|| node(self.ports[self.ports[g as usize].peer as usize].node))
                    })
                    .collect()
            })
            .collect();
        self.routes = RoutingTable::build(&host_switch, &switch_peers);
    }

    /// Give every QP its congestion-control state, sized by its path's base RTT.
    fn init_congestion_control(&mut self) {
        for f in 0..self.flows.len() {
            let (src, dst, start) = (self.flows[f].src, self.flows[f].dst, self.flows[f].start);
            let nic = &self.scenario.nics[src as usize];
            let line_rate = self.ports[self.hosts[src as usize].port as usize].rate;
            let base_rtt = nic
                .base_rtt
                .unwrap_or_else(|| self.base_rtt(src, dst, nic.mtu));
            let ctx = CcContext {
                line_rate,
                mtu: nic.mtu,
                base_rtt,
                start,
            };
            let cc = CcState::new(nic.cc, &nic.cc_params, &ctx);
            let fl = &mut self.flows[f];
            fl.wants_int = cc.wants_int();
            fl.has_cc = !matches!(cc, CcState::None(_));
            fl.sq.cc = cc;
        }
    }

    /// Base RTT of the path from `src` to `dst`: propagation both ways plus one data frame of
    /// `mtu` payload and one ACK serialized at every hop.
    pub(crate) fn base_rtt(&self, src: u32, dst: u32, mtu: u32) -> Time {
        let frame = (mtu + DATA_OVERHEAD) as u64;
        self.path(src, dst)
            .iter()
            .map(|&(r, d)| d + d + r.tx_time(frame) + r.tx_time(crate::packet::ACK_WIRE as u64))
            .fold(Time::ZERO, |a, b| a + b)
    }

    fn schedule_initial(&mut self) {
        if let Some(&f) = self.start_order.first() {
            let t = self.flows[f as usize].start;
            self.q.schedule(t, Event::FlowStart);
        }
        let out = &self.scenario.output;
        if let Some(i) = out.throughput_interval {
            self.next_tput_sample = i;
        }
        if let Some(i) = out.queue_sample_interval {
            self.next_queue_sample = i;
        }
        let first = self.next_tput_sample.min(self.next_queue_sample);
        if first != Time::NEVER {
            self.q.schedule(first, Event::Sample);
        }
        for (i, f) in self.scenario.faults.iter().enumerate() {
            self.q.schedule(
                f.at,
                Event::Fault {
                    index: i as u32,
                    start: true,
                },
            );
            if let Some(u) = f.until {
                self.q.schedule(
                    u,
                    Event::Fault {
                        index: i as u32,
                        start: false,
                    },
                );
            }
        }
    }
}

fn flow_state(sc: &Scenario, f: &crate::traffic::FlowSpec) -> FlowState {
    let nic = &sc.nics[f.src as usize];
    let size = f.size.unwrap_or(u64::MAX).max(1);
    let mtu = nic.mtu;
    let npkts = if size == u64::MAX {
        u32::MAX
    } else {
        size.div_ceil(mtu as u64).min(u32::MAX as u64 - 1) as u32
    };
    FlowState {
        src: f.src,
        dst: f.dst,
        dscp: f.dscp,
        hash: flow_hash(f.src, f.dst, f.sport, ROCEV2_UDP_PORT),
        start: f.start,
        sq: SendQp {
            npkts,
            size,
            mtu,
            next_psn: 0,
            snd_una: 0,
            max_sent: 0,
            transport: nic.transport,
            tc: nic.dscp_to_tc[(f.dscp & 63) as usize],
            next_send: Time::ZERO,
            rate_limit: f.rate_limit,
            cc: CcState::None(NoCc),
            last_progress: f.start,
            timer_pending: false,
            done: false,
            done_at: None,
        },
        rq: RecvQp::default(),
        c: FlowCounters::default(),
        ack_every: sc.nics[f.dst as usize].ack_every,
        rto: nic.rto,
        ttl: nic.ttl,
        cc_timer_at: Time::NEVER,
        wants_int: false,
        has_cc: false,
        cnp_window_end: Time::ZERO,
        cnp_dscp: sc.nics[f.dst as usize].cnp_dscp,
        cnp_tc: sc.nics[f.dst as usize].dscp_to_tc
            [(sc.nics[f.dst as usize].cnp_dscp & 63) as usize],
        cnp_gap: sc.nics[f.dst as usize].min_time_between_cnps,
        last_cps: [u32::MAX; 4],
    }
}
