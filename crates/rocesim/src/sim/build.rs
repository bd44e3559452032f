//! Building the world from a checked [`Scenario`]: a port at each end of every link, the
//! switches (MMU with its headroom, ECN marker, watchdog), the NICs, routing tables, the flow
//! start order, and the first events.

use super::chains::Chains;
use super::traffic::{FlowStarts, StreamCursor};
use super::Sim;
use crate::config::scenario::RouteAheadMode;
use crate::config::Scenario;
use crate::engine::rng::{salt, stream, StreamKind};
use crate::engine::{Ctx, Event, EventQueue, PacketArena};
use crate::fabric::dscp::DscpNibbles;
use crate::fabric::ecn::EcnMarker;
use crate::fabric::forwarding::ForwardingFaults;
use crate::fabric::headroom::{auto_headroom, resolve, response_delay};
use crate::fabric::int::IntPool;
use crate::fabric::isolation::Isolation;
use crate::fabric::mmu::Mmu;
use crate::fabric::params::{EcmpHash, QueueSched, SwitchParams};
use crate::fabric::port::Port;
use crate::fabric::route_ahead::RouteAhead;
use crate::fabric::routing::{GraphNode, RoutingTable};
use crate::fabric::switch::Switch;
use crate::fabric::watchdog::PfcWatchdog;
use crate::fabric::xoff_table::XoffTable;
use crate::ids::Priority;
use crate::ids::{PerPrio, PortId, QueueId};
use crate::monitor::deadlock::Detector;
use crate::monitor::sampler::Sampler;
use crate::monitor::Monitor;
use crate::nic::conn::ConnTable;
use crate::nic::device::Nic;
use crate::nic::memory::NicMemory;
use crate::nic::rx_pipeline::RxPipeline;
use crate::nic::selective::Selective;
use crate::nic::watchdog::StormGuard;
use crate::packet::{DATA_OVERHEAD, RETH};
use crate::topology::{port_loc, NodeRef, PortLocs};
use crate::units::Time;

/// A scenario that passed the config checks but cannot be built (e.g. headroom does not fit
/// in a switch's buffer). Each message names the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub struct BuildError(pub Vec<String>);

/// The owner of every port, checking that each host has one port and that the network fits
/// [`PortLocs`] (errors go to `errors`).
fn port_owners(scenario: &Scenario, plan: &PortPlan, errors: &mut Vec<String>) -> Option<PortLocs> {
    for (h, hp) in plan.host_ports.iter().enumerate() {
        if hp.len() != 1 {
            errors.push(format!(
                "topology: host `{}` has {} links; a host has exactly one NIC port",
                scenario.topology.hosts[h].name,
                hp.len()
            ));
        }
    }
    let port_loc = PortLocs::new(plan.ports.iter().map(|p| (p.node, p.local)));
    if port_loc.is_none() {
        errors.push(too_large(scenario, plan));
    }
    port_loc
}

/// Why a network does not fit [`PortLocs`]: the first switch with too many ports, or the
/// node counts.
fn too_large(scenario: &Scenario, plan: &PortPlan) -> String {
    let topo = &scenario.topology;
    let big =
        (plan.switch_ports.iter().enumerate()).find(|(_, p)| p.len() > port_loc::MAX_SWITCH_PORTS);
    match big {
        Some((s, p)) => format!(
            "topology: switch `{}` has {} ports; a switch may have at most {}",
            topo.switches[s].name,
            p.len(),
            port_loc::MAX_SWITCH_PORTS
        ),
        None => format!(
            "topology: {} switches and {} hosts; at most {} switches and {} hosts are supported",
            topo.switches.len(),
            topo.hosts.len(),
            port_loc::MAX_SWITCHES,
            port_loc::MAX_HOSTS
        ),
    }
}

/// Every port of the network by id, and each node's port ids in local order.
struct PortPlan {
    ports: Vec<Port>,
    host_ports: Vec<Vec<u32>>,
    switch_ports: Vec<Vec<u32>>,
}

impl Sim {
    /// Build the world for `scenario` (part 0 of it, when `sim.threads` splits it).
    pub fn new(scenario: Scenario) -> Result<Sim, BuildError> {
        Self::build(scenario, 0)
    }

    /// Build the world for `scenario`; with `sim.threads` > 1, as part `part` of it
    /// (`sim/threads.rs`).
    #[allow(clippy::too_many_lines)] // one literal naming every part of the world
    pub(super) fn build(mut scenario: Scenario, part: u16) -> Result<Sim, BuildError> {
        if scenario.flows.iter().any(|f| f.mem().qps > 1) {
            scenario.list_streams();
        }
        let groups = super::qp_groups::expand(&mut scenario.flows);
        let mut errors = Vec::new();
        let plan = plan_ports(&scenario);
        let port_loc = port_owners(&scenario, &plan, &mut errors);
        let mmus = build_mmus(&scenario, &plan, &mut errors);
        if !errors.is_empty() {
            return Err(BuildError(errors));
        }
        let routes = initial_routes(&scenario, &plan);
        let ahead = route_ahead(&scenario, &plan);
        let events = event_queue(&scenario, &plan);
        let nports = plan.ports.len();
        let mut slots: Vec<Option<Port>> = plan.ports.into_iter().map(Some).collect();
        let mut take = |ids: &[u32]| -> Vec<Port> {
            ids.iter()
                .map(|&i| slots[i as usize].take().expect("one owner"))
                .collect()
        };
        let switches = (plan.switch_ports.iter().zip(mmus))
            .enumerate()
            .map(|(s, (ids, mmu))| build_switch(&scenario, s, take(ids), mmu))
            .collect();
        let nics = plan
            .host_ports
            .iter()
            .enumerate()
            .map(|(h, ids)| build_nic(&scenario, h, take(ids).remove(0)))
            .collect();
        let congestion = scenario.switches.iter().any(|s| s.ecn.is_some());
        // Flows are held from their start (`Monitor::admit`), so the per-flow tables begin empty.
        let nflows = 0;
        let out = &scenario.output;
        let mut sim = Sim {
            ctx: Ctx {
                now: Time::ZERO,
                events,
                packets: PacketArena::with_flows(nflows),
                ints: IntPool::default(),
                monitor: Monitor::new(nports, nflows, congestion, out.max_pfc_log),
                routes,
                ahead,
                conns: ConnTable::new(nflows),
                xoff: XoffTable::new(plan.switch_ports.iter().map(Vec::len)),
                outbox: Vec::new(),
            },
            switches,
            nics,
            port_loc: port_loc.unwrap_or_default(),
            starts: flow_starts(&scenario),
            retiring: Default::default(),
            spill: Default::default(),
            sampler: Sampler::new(out.throughput_interval, out.queue_sample_interval),
            detector: Detector::new(scenario.sim.deadlock_detection, nports),
            events: 0,
            end: scenario.sim.duration,
            interrupted: false,
            warmup_done: false,
            stop_requested: false,
            check_in: 1,
            wires_tracked: false,
            sampled: false,
            groups,
            part: None,
            merged: None,
            thread_stats: None,
            global_events: 0,
            scenario,
        };
        sim.sampler.counters = crate::monitor::counter_sampler::CounterSampler::new(
            sim.scenario.output.counters_interval,
        );
        if sim.scenario.faults.iter().any(|f| f.kind.downs_a_link()) {
            sim.track_wires();
        }
        if sim.scenario.sim.threads > 1 {
            sim.become_part(part)?;
        }
        sim.schedule_initial();
        Ok(sim)
    }

    /// Keep every wire's frames in its FIFO too, so that a link taken down by a fault can
    /// drop the frames it carries at that moment (see `fabric::link`).
    pub(super) fn track_wires(&mut self) {
        self.wires_tracked = true;
        let switch_ports = self.switches.iter_mut().flat_map(|s| s.ports.iter_mut());
        for port in switch_ports.chain(self.nics.iter_mut().map(|n| &mut n.port)) {
            port.track_wire();
        }
    }

    /// The first events: watchdog polls, deadlock checks, flow starts, samples, faults.
    fn schedule_initial(&mut self) {
        for (s, p) in self.scenario.switches.iter().enumerate() {
            let mine = self
                .part
                .as_ref()
                .is_none_or(|part| part.has_switch(s as u32));
            if let (Some(w), true) = (p.pfc_watchdog, mine) {
                self.ctx
                    .events
                    .schedule(w.poll_interval, Event::WatchdogPoll(s as u32));
            }
        }
        // A partitioned run checks for deadlocks between windows (`sim/threads.rs`).
        if self.detector.interval > Time::ZERO && self.part.is_none() {
            self.ctx
                .events
                .schedule(self.detector.interval, Event::DeadlockCheck);
        }
        if let Some((t, _)) = self.starts.next_start(&self.scenario.flows) {
            self.ctx.events.schedule(t, Event::FlowStart);
        }
        let first = self.sampler.first();
        if first != Time::NEVER {
            self.ctx.events.schedule(first, Event::Sample);
        }
        for (i, f) in self.scenario.faults.iter().enumerate() {
            let index = i as u32;
            self.ctx
                .events
                .schedule(f.at, Event::Fault { index, start: true });
            if let Some(u) = f.until {
                self.ctx.events.schedule(
                    u,
                    Event::Fault {
                        index,
                        start: false,
                    },
                );
            }
        }
    }
}

/// A port at each end of every link (ports `2l` and `2l + 1` of link `l`).
fn plan_ports(sc: &Scenario) -> PortPlan {
    let topo = &sc.topology;
    let mut host_ports: Vec<Vec<u32>> = vec![Vec::new(); topo.hosts.len()];
    let mut switch_ports: Vec<Vec<u32>> = vec![Vec::new(); topo.switches.len()];
    let mut ports = Vec::with_capacity(topo.links.len() * 2);
    let all_strict = [QueueSched::Strict; 8];
    for (i, l) in topo.links.iter().enumerate() {
        for (me, id) in [(l.a, 2 * i), (l.b, 2 * i + 1)] {
            let list = match me {
                NodeRef::Host(h) => &mut host_ports[h as usize],
                NodeRef::Switch(s) => &mut switch_ports[s as usize],
            };
            let local = list.len() as u16;
            list.push(id as u32);
            let (sched, configured) = match me {
                NodeRef::Switch(s) => {
                    let p = &sc.switches[s as usize];
                    (p.scheduler_of(local as usize), p.pfc_response)
                }
                NodeRef::Host(h) => (&all_strict, sc.nics[h as usize].pfc_response),
            };
            let pid = PortId(id as u32);
            let mut port = Port::new(me, local, pid, i as u32, l.rate, l.delay, sched);
            port.pfc_response = response_delay(configured, l.rate);
            if let NodeRef::Switch(s) = me {
                let sw = &sc.switches[s as usize];
                port.queue_of_prio = sw.tc_to_queue.map(QueueId);
                port.refresh_paused();
                port.ecn_queues = sw.ecn_queues_of(local as usize);
            }
            ports.push(port);
        }
    }
    for i in 0..ports.len() {
        let peer = &ports[i ^ 1];
        let (response, faces_host) = (peer.pfc_response, matches!(peer.node, NodeRef::Host(_)));
        ports[i].peer_response = response;
        ports[i].faces_host = faces_host;
    }
    PortPlan {
        ports,
        host_ports,
        switch_ports,
    }
}

/// Wire bytes of the largest data frame any NIC sends.
fn max_frame(sc: &Scenario) -> u32 {
    (sc.nics.iter())
        .map(|n| n.frame_overhead.data(n.mtu, true))
        .max()
        .unwrap_or(DATA_OVERHEAD + 1024 + RETH)
}

/// How far ahead of its cause an event of the packet path can be due: a link's propagation
/// plus a largest frame's serialization on it (a frame's arrival), or a switch's forwarding
/// latency; the event queue's wheel covers this much.
fn wheel_horizon(sc: &Scenario, plan: &PortPlan) -> Time {
    let frame = u64::from(max_frame(sc));
    let arrival = (plan.ports.iter()).map(|p| p.delay + p.tx_time(frame));
    let forward = sc.switches.iter().map(|s| s.latency);
    arrival.chain(forward).max().unwrap_or(Time::ZERO)
}

/// Each switch's MMU, its headroom per port from the port's speed and cable (or as given).
fn build_mmus(sc: &Scenario, plan: &PortPlan, errors: &mut Vec<String>) -> Vec<Mmu> {
    let max_frame = max_frame(sc);
    let mut mmus = Vec::with_capacity(plan.switch_ports.len());
    for (s, sp) in plan.switch_ports.iter().enumerate() {
        let p = &sc.switches[s];
        let name = &sc.topology.switches[s].name;
        let headroom: Vec<u64> = sp
            .iter()
            .enumerate()
            .map(|(local, &g)| {
                let port = &plan.ports[g as usize];
                let auto = auto_headroom(
                    port.rate,
                    port.delay,
                    p.cable_of(local),
                    max_frame,
                    port.peer_response,
                );
                resolve(p.lossless.headroom, auto)
            })
            .collect();
        let min_frame = headroom.iter().copied().min().unwrap_or(u64::MAX);
        if p.pfc_enable != 0 && min_frame < (max_frame - 20) as u64 {
            errors.push(format!(
                "switch.lossless.headroom: switch `{name}` has {min_frame} B of headroom, less than one {} B frame",
                max_frame - 20
            ));
        }
        match Mmu::new(p, headroom) {
            Ok(m) => mmus.push(m),
            Err(e) => errors.push(format!("switch.buffer_size: switch `{name}`: {e}")),
        }
    }
    mmus
}

fn build_switch(sc: &Scenario, s: usize, ports: Vec<Port>, mmu: Mmu) -> Switch {
    let p = &sc.switches[s];
    let n = ports.len();
    Switch {
        id: s as u32,
        salt: ecmp_salt(sc, s),
        ns3_hash: p.ecmp_hash == EcmpHash::Ns3,
        pfc_quanta: p.pfc_quanta,
        pfc_enable: p.pfc_enable,
        tc_to_queue: p.tc_to_queue.map(QueueId),
        dscp_to_tc: DscpNibbles::new(&p.dscp_to_tc),
        port_dscp_to_tc: port_dscp_maps(p, n).into_boxed_slice(),
        tc_to_pg: p.tc_to_pg.map(Priority),
        pg_prios: p.pg_priorities(),
        pg_identity: p.tc_to_pg == [0, 1, 2, 3, 4, 5, 6, 7],
        faults_active: false,
        mmu,
        marker: EcnMarker {
            detection: p.detection,
            params: p.ecn,
            rng: stream(sc.sim.seed, StreamKind::Switch, s as u64),
        },
        forwarding: ForwardingFaults {
            drop_on_incomplete_arp: p.drop_lossless_on_incomplete_arp,
            ..Default::default()
        },
        latency: p.latency,
        watchdog: p.pfc_watchdog.map(|params| PfcWatchdog {
            params,
            queues: vec![PerPrio::default(); n],
        }),
        isolation: p.isolation.map(|iso| {
            let peers = ports.iter().map(|port| !port.faces_host).collect();
            Box::new(Isolation::new(iso, p.tc_to_queue, peers))
        }),
        ports: ports.into_boxed_slice(),
    }
}

/// The per-port DSCP → TC maps of a switch with `n` ports: empty when every port uses the
/// switch's default map (the common case, classified from one table), else one per port.
fn port_dscp_maps(p: &SwitchParams, n: usize) -> Vec<[u8; 64]> {
    if (0..n).all(|port| *p.dscp_to_tc_of(port) == p.dscp_to_tc) {
        return Vec::new();
    }
    (0..n).map(|port| *p.dscp_to_tc_of(port)).collect()
}

/// Switch `s`'s ECMP salt: its own, or one shared by every switch when hashing is polarized;
/// with ns-3's hash its seed, the switch's ns-3 node id (hosts are numbered first).
fn ecmp_salt(sc: &Scenario, s: usize) -> u32 {
    let id = match sc.switches[s].ecmp_hash {
        EcmpHash::Salted => s as u64,
        EcmpHash::Polarized => 0,
        EcmpHash::Ns3 => return (sc.topology.hosts.len() + s) as u32,
    };
    salt(sc.sim.seed, StreamKind::Switch, id) as u32
}

fn build_nic(sc: &Scenario, h: usize, port: Port) -> Nic {
    let n = &sc.nics[h];
    Nic {
        id: h as u32,
        port,
        xoff: Default::default(),
        pfc_enable: n.pfc_enable,
        pfc_quanta: n.pfc_quanta,
        rx: RxPipeline::new(
            n.rx,
            (n.cache).is_some_and(|c| c.mtt_entries.is_some() || c.qpc_entries.is_some()),
        ),
        senders: Default::default(),
        responders: Default::default(),
        sched: Default::default(),
        wake_at: Time::NEVER,
        storm: StormGuard {
            timeout: n.pfc_prevention_tout,
            ..Default::default()
        },
        mem: n
            .cache
            .map(|c| Box::new(NicMemory::new(&c, sc.sim.seed, h as u32))),
        irn: Selective::new(n.irn),
        recovery: Default::default(),
    }
}

/// The event queue, its wheel sized for the fabric: its horizon ([`wheel_horizon`]) and its
/// slots' width ([`slot_shift`]); its ring events hinted a slot at a time where the fabric
/// outgrows the cache (as `RouteAhead::worth_it` decides; `EventQueue::with_batched_hints`).
fn event_queue(sc: &Scenario, plan: &PortPlan) -> EventQueue {
    let switch_ports = plan.switch_ports.iter().map(Vec::len).sum();
    EventQueue::with_horizon_and_width(wheel_horizon(sc, plan), slot_shift(plan))
        .with_batched_hints(RouteAhead::worth_it(switch_ports))
}

/// log2 of the event wheel's slot width in ps: 2.048 ns slots (11) where the switches' ports
/// fit in cache, 1.024 ns (10) where they outgrow it (`RouteAhead::worth_it`, whatever
/// `sim.route_ahead` says). A small fabric's 1.024 ns slot holds three or four events, and
/// each slot change costs a sort, the prefetch hints and a bitmap update: S1 runs at 0.98 of
/// the time with slots twice as wide. A large fabric's slot holds dozens, and S4 runs at
/// about 1.07 of the time with wide slots, the sorts growing longer (docs/performance.md,
/// "Slots as wide as the fabric allows"). Results do not depend on it.
fn slot_shift(plan: &PortPlan) -> u32 {
    let switch_ports = plan.switch_ports.iter().map(Vec::len).sum();
    if RouteAhead::worth_it(switch_ports) {
        10
    } else {
        11
    }
}

/// The switch at the far end of every port, for routing one hop ahead; off when a fault may
/// change routes during the run, and when the switches' ports fit in cache anyway
/// (`fabric::route_ahead`).
fn route_ahead(sc: &Scenario, plan: &PortPlan) -> RouteAhead {
    let switch_ports = plan.switch_ports.iter().map(Vec::len).sum();
    let wanted = match sc.sim.route_ahead {
        RouteAheadMode::Auto => RouteAhead::worth_it(switch_ports),
        RouteAheadMode::On => true,
        RouteAheadMode::Off => false,
    };
    if !wanted || !sc.faults.is_empty() {
        return RouteAhead::off();
    }
    let ecmp: Vec<(u32, bool)> = (sc.switches.iter().enumerate())
        .map(|(s, p)| (ecmp_salt(sc, s), p.ecmp_hash == EcmpHash::Ns3))
        .collect();
    let peers: Vec<Vec<Option<u32>>> = (plan.switch_ports.iter())
        .map(|ids| {
            ids.iter()
                .map(|&g| match plan.ports[(g ^ 1) as usize].node {
                    NodeRef::Switch(s) => Some(s),
                    NodeRef::Host(_) => None,
                })
                .collect()
        })
        .collect();
    RouteAhead::new(&ecmp, &peers)
}

/// Shortest-path routes over every link.
fn initial_routes(sc: &Scenario, plan: &PortPlan) -> RoutingTable {
    let nh = sc.topology.hosts.len() as u32;
    let node_of = |n: NodeRef| match n {
        NodeRef::Host(h) => GraphNode(h),
        NodeRef::Switch(s) => GraphNode(nh + s),
    };
    let peer_node = |g: u32| plan.ports[(g ^ 1) as usize].node;
    let host_switch: Vec<Option<u32>> = plan
        .host_ports
        .iter()
        .map(|hp| match peer_node(hp[0]) {
            NodeRef::Switch(s) => Some(s),
            NodeRef::Host(_) => None,
        })
        .collect();
    let switch_peers: Vec<Vec<Option<GraphNode>>> = plan
        .switch_ports
        .iter()
        .map(|sp| sp.iter().map(|&g| Some(node_of(peer_node(g)))).collect())
        .collect();
    RoutingTable::build(&host_switch, &switch_peers, ns3_order(sc))
}

/// Next hops in descending node order, as ns-3 lists them, when switches hash as ns-3 does.
pub(super) fn ns3_order(sc: &Scenario) -> bool {
    (sc.switches.first()).is_some_and(|s| s.ecmp_hash == EcmpHash::Ns3)
}

/// Flows in start order, chains, and what "all done" waits for.
fn flow_starts(sc: &Scenario) -> FlowStarts {
    let n = sc.flows.len();
    let dependents = Chains::new(n, sc.flows.iter().map(|f| f.after));
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&i| sc.flows[i as usize].after.is_none())
        .collect();
    order.sort_by_key(|&i| (sc.flows[i as usize].start, i));
    FlowStarts {
        order,
        next: 0,
        dependents,
        streams: sc.streams.iter().map(StreamCursor::new).collect(),
        finite_left: sc.each_flow().filter(|f| !long_lived(f)).count(),
        has_infinite: sc.each_flow().any(|f| long_lived(&f)),
    }
}

/// A flow without a size (or with the largest one) never completes.
fn long_lived(f: &crate::traffic::FlowSpec) -> bool {
    f.size.unwrap_or(u64::MAX).max(1) == u64::MAX
}
