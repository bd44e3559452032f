//! Turning the world's counters into [`RunResults`]: names resolved, received counters
//! derived from what peers sent, in-flight bytes counted, records of the monitors.

use super::Sim;
use crate::engine::FlowWindow;
use crate::ids::{FlowId, PortId, Priority, QueueId};
use crate::monitor::congestion::CongestionRecord;
use crate::monitor::failures::{
    DeadlockMember, DeadlockRecord, NicStormStats, WatchdogEvent, WatchdogQueueStats,
};
use crate::monitor::pingmesh::{self, PingRecord};
use crate::monitor::{
    flow_table::{HELD_ROWS, STORED_CHUNK_ROWS},
    CounterSample, FlowRecord, FlowResult, FlowTable, PauseInterval, PfcRecord, PortQueueRow,
    PortRow, QueueSample, RateSample, RunResults, ThroughputSample,
};
use crate::nic::recovery_stats::RecoveryCounters;
use crate::packet::PacketKind;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;
use std::borrow::Cow;

impl Sim {
    /// Everything the run measured. `wall_s` is the wall-clock time the caller measured.
    pub fn results(&self, wall_s: f64) -> RunResults {
        let now = self.now();
        let sc = &self.scenario;
        let t = &self.ctx.monitor.totals;
        let (watchdog, watchdog_queues, nic_storms) = self.watchdog_records();
        RunResults {
            scenario: sc.name.clone(),
            seed: sc.sim.seed,
            sim_time_ns: now.ns(),
            warmup_ns: sc.sim.warmup.min(now).ns(),
            wall_s,
            events: self.events,
            packet_hops: t.packet_hops,
            peak_memory_kb: peak_memory_kb(),
            incomplete: self.interrupted,
            stopped_by: None,
            flows: self.flow_table(now),
            tcp: self.tcp_results(now),
            ports: self.port_rows(now),
            port_queues: self.port_queue_rows(),
            pause_intervals: self.pause_intervals(now),
            pfc_log: self.pfc_records(),
            pfc_log_truncated: t.pfc_log_truncated,
            throughput: self.merge_throughput(self.throughput_samples()),
            queues: self.queue_samples(),
            rates: self.merge_rates(self.rate_samples()),
            counters: self.counter_samples(),
            congestion: self.congestion_records(now),
            watchdog,
            watchdog_queues,
            nic_storms,
            nics: self.nic_rows(now),
            pingmesh: self.ping_records(now),
            deadlocks: self.deadlock_records(),
            drops_lossless: t.drops_lossless,
            drops_lossy: t.drops_lossy,
            drops_ttl: t.drops_ttl,
            drops_fault: t.drops_fault,
            ecn_marked: t.ecn_marked,
            cnp_tx: t.cnp_tx,
            warnings: self.warnings(),
            recovery: self.recovery_in_use().then(|| {
                let mut t = RecoveryCounters::default();
                self.nics.iter().for_each(|n| t.add(&n.recovery));
                t
            }),
            recovery_by_host: if self.recovery_in_use() {
                self.nics.iter().map(|n| n.recovery).collect()
            } else {
                Vec::new()
            },
            isolation: self.isolation_results(),
        }
    }

    /// The flow rows: held in memory for a run of up to [`HELD_ROWS`] flows, stored out of
    /// memory as they are made for a longer one. QP groups merge listed flows' rows, so they
    /// are held.
    fn flow_table(&self, now: Time) -> FlowTable {
        let rows = self.flow_rows(now);
        if self.groups.is_some() {
            return FlowTable::held(self.merge_flow_rows(rows.collect(), now));
        }
        let is_row = |spec: &FlowSpec| !matches!(spec.kind, FlowKind::Probe(_));
        let count = self.scenario.each_flow().filter(|s| is_row(s)).count();
        FlowTable::collect_rows(rows, count, HELD_ROWS, STORED_CHUNK_ROWS)
    }

    /// Every flow's row, in id order, made one at a time.
    fn flow_rows(&self, now: Time) -> impl Iterator<Item = FlowResult> + '_ {
        let sc = &self.scenario;
        let warm = sc.sim.warmup.min(now);
        let window = now.saturating_sub(warm);
        let inflight = self.inflight_by_flow();
        let names = self.host_names();
        let host = move |h: u32| names[h as usize].clone();
        let is_row = |spec: &FlowSpec| !matches!(spec.kind, FlowKind::Probe(_));
        (self.every_flow())
            .filter(move |(_, spec, _)| is_row(spec))
            .map(move |(i, spec, (rec, before_window))| {
                let size = spec.size.map(|s| s.max(1)).filter(|&s| s != u64::MAX);
                let end = rec.done_at();
                let fct = end.map(|e| e.saturating_sub(rec.start));
                let ideal = size.map(|s| self.ideal_fct(spec.src, spec.dst, s));
                let slowdown = match (fct, ideal) {
                    (Some(a), Some(b)) if b.ps() > 0 => Some(a.ps() as f64 / b.ps() as f64),
                    _ => None,
                };
                let c = &rec.c;
                let win_bytes = c.delivered.saturating_sub(before_window);
                let goodput = gbps(win_bytes, window);
                let from = rec.start.max(warm);
                let to = end.map_or(now, |e| e.min(now));
                let goodput_active = gbps(win_bytes, to.saturating_sub(from));
                FlowResult {
                    flow_id: i,
                    name: spec.name().map_or_else(|| i.to_string(), str::to_string),
                    src: host(spec.src),
                    dst: host(spec.dst),
                    size_bytes: size,
                    start_ns: rec.start.ns(),
                    end_ns: end.map(|e| e.ns()),
                    acked_ns: end.map(|e| e.ns()),
                    delivered_ns: (rec.delivered_at != Time::NEVER).then(|| rec.delivered_at.ns()),
                    fct_ns: fct.map(|t| t.ns()),
                    ideal_fct_ns: ideal.map(|t| t.ns()),
                    slowdown,
                    bytes_delivered: c.delivered,
                    goodput_gbps: goodput,
                    goodput_active_gbps: goodput_active,
                    retx_packets: c.retx_packets as u64,
                    cnp_rx: c.cnp_rx as u64,
                    ecn_marked: c.ecn_marked as u64,
                    tx_bytes: c.tx_bytes,
                    discarded_bytes: c.discarded,
                    dropped_bytes: c.dropped,
                    inflight_bytes: inflight.get(i).copied().unwrap_or(0),
                }
            })
    }

    /// Every host's name, shared by the rows that name it.
    pub(super) fn host_names(&self) -> Vec<std::sync::Arc<str>> {
        (self.scenario.topology.hosts.iter())
            .map(|h| std::sync::Arc::from(h.name.as_str()))
            .collect()
    }

    /// Loss-recovery counters of the TCP flows.
    fn tcp_results(&self, now: Time) -> Vec<crate::monitor::results::TcpFlowResult> {
        let warm = self.scenario.sim.warmup.min(now);
        let window = now.saturating_sub(warm);
        (self.every_flow())
            .filter_map(|(i, spec, (rec, before_window))| {
                let crate::traffic::FlowKind::Tcp(cc) = spec.kind else {
                    return None;
                };
                let c = &rec.c;
                let win = c.delivered.saturating_sub(before_window);
                Some(crate::monitor::results::TcpFlowResult {
                    flow_id: i,
                    name: spec.name().map_or_else(|| i.to_string(), str::to_string),
                    cc: cc.name().to_string(),
                    goodput_gbps: gbps(win, window),
                    retx_packets: c.retx_packets as u64,
                    fast_retransmits: c.fast_retransmits as u64,
                    timeouts: c.timeouts as u64,
                })
            })
            .collect()
    }

    /// Every flow in id order: its id, its spec, its record and the payload it had
    /// delivered when the statistics window opened. Released flows come from the spill, held
    /// ones from the monitor; a streamed flow not yet started reads as its spec's start.
    pub(super) fn every_flow(
        &self,
    ) -> impl Iterator<Item = (u32, Cow<'_, FlowSpec>, (FlowRecord, u64))> {
        let m = &self.ctx.monitor;
        debug_assert_eq!(
            self.spill.count(),
            m.flows.base(),
            "spilled up to the held ones"
        );
        let spilled = self.spill.records().map(|s| (s.rec, s.before_window));
        let held = (m.flows.iter()).map(|(f, r)| (*r, m.delivered_before_window(f)));
        let conns = &self.ctx.conns;
        let started = move |f: u32| conns.get(FlowId(f)).src != u32::MAX;
        let recs = spilled.chain(held).map(Some).chain(std::iter::repeat(None));
        (self.scenario.each_flow().zip(recs).zip(0..)).map(move |((spec, r), i)| {
            let unstarted = || {
                let rec = FlowRecord {
                    start: spec.start,
                    ..FlowRecord::default()
                };
                (rec, 0)
            };
            let r = match r {
                Some(r) if r.0.start != Time::NEVER || started(i) => r,
                _ => unstarted(),
            };
            (i, spec, r)
        })
    }

    /// Payload bytes of each held flow's data packets still inside the network.
    fn inflight_by_flow(&self) -> FlowWindow<u64> {
        let flows = &self.ctx.monitor.flows;
        let mut v = FlowWindow::default();
        v.release_below(flows.base());
        v.extend_to(flows.end(), 0);
        let mut count = |id: u32| {
            let p = self.ctx.packets.get(id);
            if p.kind == PacketKind::Data {
                if let Some(b) = v.get_mut(p.flow) {
                    *b += p.payload as u64;
                }
            }
        };
        let ports = self.ports();
        for (_, port) in ports.iter() {
            for q in &port.queues {
                q.iter().for_each(|e| count(e.pkt));
            }
        }
        for (_, port) in ports.iter() {
            port.wire.in_flight.iter().for_each(|&(_, id)| count(id));
            port.pipeline
                .in_flight
                .iter()
                .for_each(|&(_, id)| count(id));
        }
        for n in &self.nics {
            n.rx.queue.iter().for_each(|&(id, _)| count(id));
            n.rx.placing.iter().for_each(|&(_, id)| count(id));
        }
        v
    }

    /// Frames and wire bytes each (port, priority) received: what the peer sent on the wire
    /// toward it, less what that wire lost or still carries.
    fn received(&self) -> Vec<(u64, u64)> {
        let m = &self.ctx.monitor;
        let mut rx = vec![(0u64, 0u64); m.nports() * 8];
        for (p, port) in self.ports().iter() {
            let peer = p.peer().idx();
            for prio in Priority::all() {
                let c = m.tx_of(p, prio);
                let (lp, lb) = m.lost[p.idx()][prio];
                rx[peer * 8 + prio.idx()] = (c.packets - lp, c.bytes - lb);
            }
            for &(_, id) in &port.wire.in_flight {
                let pkt = self.ctx.packets.get(id);
                let r = &mut rx[peer * 8 + pkt.tc as usize];
                r.0 -= 1;
                r.1 -= pkt.wire as u64;
            }
        }
        rx
    }

    fn port_rows(&self, now: Time) -> Vec<PortRow> {
        let rx = self.received();
        let mut rows = Vec::new();
        for (p, _) in self.ports().iter() {
            for prio in Priority::all() {
                if let Some(row) = self.port_row(p, prio, rx[p.idx() * 8 + prio.idx()], now) {
                    rows.push(row);
                }
            }
        }
        rows
    }

    /// The row of (port, priority), or `None` when nothing happened there.
    fn port_row(&self, p: PortId, prio: Priority, rx: (u64, u64), now: Time) -> Option<PortRow> {
        let m = &self.ctx.monitor;
        let port = self.ports().port(p);
        let c = &m.port_prio[p.idx()][prio];
        let tx = m.tx_of(p, prio);
        let mut paused = c.paused_ps;
        if port.pause.is_paused(prio.0) {
            paused += now.saturating_sub(port.pause.since[prio.idx()]).ps();
        }
        if *c == Default::default() && paused == 0 && rx.0 == 0 && tx.packets == 0 {
            return None;
        }
        let ti = m.tx_index(p, prio);
        Some(PortRow {
            node: self.node_name(port.node).to_string(),
            port: port.local as u32,
            peer: self.node_name(self.port_owner(p.peer()).0).to_string(),
            prio: prio.0,
            // Line rate, for links.csv (utilisation).
            rate_bps: port.rate.bps(),
            tx_bytes_window: tx.bytes - m.tx_at_warmup.get(ti).copied().unwrap_or(0),
            tx_packets: tx.packets,
            tx_bytes: tx.bytes,
            rx_packets: rx.0,
            rx_bytes: rx.1,
            drops: c.drops,
            pause_tx: c.pause_tx,
            pause_rx: c.pause_rx,
            paused_ns: paused / 1000,
        })
    }

    /// One row per switch (port, queue) that held or marked a packet.
    fn port_queue_rows(&self) -> Vec<PortQueueRow> {
        let mut rows = Vec::new();
        for sw in &self.switches {
            for port in &sw.ports {
                for q in QueueId::all() {
                    let marked = self.ctx.monitor.port_queue[port.id.idx()][q].ecn_marked;
                    let peak = sw.mmu.queue_max(port.local as usize, q);
                    if marked == 0 && peak == 0 {
                        continue;
                    }
                    rows.push(PortQueueRow {
                        node: self.node_name(port.node).to_string(),
                        port: port.local as u32,
                        peer: self.port_name(port.id.peer()).0,
                        queue: q.0,
                        ecn_marked: marked,
                        max_queue_bytes: peak,
                    });
                }
            }
        }
        rows
    }

    /// Node name and local index of port `p`.
    pub(super) fn port_name(&self, p: PortId) -> (String, u32) {
        let (node, local) = self.port_owner(p);
        (self.node_name(node).to_string(), local as u32)
    }

    /// Ended pauses, then the pauses still on at `now`, in port and priority order.
    fn pause_intervals(&self, now: Time) -> Vec<PauseInterval> {
        let row = |p: PortId, prio: Priority, start: Time, d: Time| {
            let (node, port) = self.port_name(p);
            let (start_ns, duration_ns) = (start.ns(), d.ns());
            let prio = prio.0;
            PauseInterval {
                node,
                port,
                prio,
                start_ns,
                duration_ns,
            }
        };
        let mut rows: Vec<PauseInterval> = (self.ctx.monitor.pause_intervals.iter())
            .map(|&(p, prio, start, d)| row(p, prio, start, d))
            .collect();
        for (p, port) in self.ports().iter() {
            for prio in Priority::in_mask(port.pause.mask) {
                let since = port.pause.since[prio.idx()];
                rows.push(row(p, prio, since, now.saturating_sub(since)));
            }
        }
        rows
    }

    fn pfc_records(&self) -> Vec<PfcRecord> {
        (self.ctx.monitor.pfc_log.iter())
            .map(|e| {
                let (node, port) = self.port_name(e.port);
                PfcRecord {
                    time_ns: e.time.ns(),
                    node,
                    port,
                    prio: e.prio.0,
                    direction: e.dir,
                    quanta: e.quanta,
                }
            })
            .collect()
    }

    /// Is flow `f` a Pingmesh probe? (Streamed flows never are.)
    fn is_probe(&self, f: u32) -> bool {
        (self.scenario.flows.get(f as usize)).is_some_and(|s| matches!(s.kind, FlowKind::Probe(_)))
    }

    fn ping_records(&self, now: Time) -> Vec<PingRecord> {
        let sc = &self.scenario;
        let name = |h: u32| sc.topology.hosts[h as usize].name.clone();
        let probes = (self.every_flow()).filter(|(_, s, _)| matches!(s.kind, FlowKind::Probe(_)));
        pingmesh::records(probes.map(|(_, s, (rec, _))| (s, rec)), now, &name)
    }

    /// Throughput samples of the application's flows (probes are left out).
    fn throughput_samples(&self) -> Vec<ThroughputSample> {
        (self.sampler.throughput.iter())
            .filter(|s| !self.is_probe(s.1))
            .map(|&(t, flow_id, gbps)| ThroughputSample {
                time_ns: t.ns(),
                flow_id,
                gbps,
            })
            .collect()
    }

    fn queue_samples(&self) -> Vec<QueueSample> {
        (self.sampler.queues.iter())
            .map(|&(t, p, queue, bytes)| {
                let (node, port) = self.port_name(p);
                QueueSample {
                    time_ns: t.ns(),
                    node,
                    port,
                    queue: queue.0,
                    bytes,
                }
            })
            .collect()
    }

    /// Switch counter samples with names resolved.
    fn counter_samples(&self) -> Vec<CounterSample> {
        (self.sampler.counters.rows.iter())
            .map(|c| {
                let (node, port) = self.port_name(c.port);
                CounterSample {
                    time_ns: c.time.ns(),
                    node,
                    port,
                    peer: self.node_name(self.port_owner(c.port.peer()).0).to_string(),
                    prio: c.prio.0,
                    queue: c.queue.0,
                    pfc_rx_pkts: c.pfc_rx,
                    pfc_tx_pkts: c.pfc_tx,
                    pfc_rx_pause_duration_us: c.paused_ps / 1_000_000,
                    queue_packets: c.packets,
                    queue_bytes: c.bytes,
                    queue_curr_occupancy_bytes: c.queue_bytes,
                    queue_watermark_bytes: c.queue_watermark,
                    pg_curr_occupancy_bytes: c.pg_bytes,
                    pg_xoff_room_curr_occupancy_bytes: c.pg_headroom,
                    pg_dropped_packets: c.pg_dropped,
                }
            })
            .collect()
    }

    /// Congestion-control samples of the application's flows (probes are left out).
    fn rate_samples(&self) -> Vec<RateSample> {
        (self.sampler.rates.iter())
            .filter(|s| !self.is_probe(s.1))
            .map(|&(t, flow_id, g, window_bytes)| RateSample {
                time_ns: t.ns(),
                flow_id,
                rate_gbps: (!g.is_nan()).then_some(g),
                window_bytes,
            })
            .collect()
    }

    /// Every queue that was ever congested, in port order.
    fn congestion_records(&self, now: Time) -> Vec<CongestionRecord> {
        let sc = &self.scenario;
        let names = |mut hosts: Vec<u32>| -> Vec<String> {
            hosts.sort_unstable();
            hosts.dedup();
            (hosts.iter())
                .map(|&x| sc.topology.hosts[x as usize].name.clone())
                .collect()
        };
        let mut out = Vec::new();
        for (i, cp) in self.ctx.monitor.cps.iter().enumerate() {
            let Some(first) = cp.first else { continue };
            let (ps, last) = cp.congested_until(now);
            let p = PortId((i / 8) as u32);
            let (node, port) = self.port_name(p);
            let pairs = &cp.pairs;
            out.push(CongestionRecord {
                node,
                port,
                peer: self.port_name(p.peer()).0,
                queue: (i % 8) as u8,
                first_ns: first.ns(),
                last_ns: last.ns(),
                congested_ns: ps / 1000,
                marked: cp.marked,
                sources: names(pairs.iter().map(|p| p.0).collect()),
                destinations: names(pairs.iter().map(|p| p.1).collect()),
            });
        }
        out
    }

    /// Watchdog results: the action log, the counters of every queue a switch watchdog acted
    /// on, and the NICs' pause-storm counters.
    fn watchdog_records(
        &self,
    ) -> (
        Vec<WatchdogEvent>,
        Vec<WatchdogQueueStats>,
        Vec<NicStormStats>,
    ) {
        let events = (self.ctx.monitor.wd_log.iter())
            .map(|e| {
                let (node, port) = self.port_name(e.port);
                WatchdogEvent {
                    time_ns: e.time.ns(),
                    node,
                    port,
                    prio: e.prio.0,
                    event: e.event.to_string(),
                    action: e.action.to_string(),
                }
            })
            .collect();
        (events, self.watchdog_queue_stats(), self.nic_storm_stats())
    }

    fn watchdog_queue_stats(&self) -> Vec<WatchdogQueueStats> {
        let mut all: Vec<(PortId, Priority, WatchdogQueueStats)> = Vec::new();
        for sw in &self.switches {
            let Some(wd) = &sw.watchdog else { continue };
            for (l, per) in wd.queues.iter().enumerate() {
                let port = &sw.ports[l];
                for prio in Priority::all() {
                    let w = &per[prio];
                    if w.detected == 0 {
                        continue;
                    }
                    all.push((
                        port.id,
                        prio,
                        WatchdogQueueStats {
                            node: self.node_name(port.node).to_string(),
                            port: l as u32,
                            queue: prio.0,
                            storm_detected: w.detected,
                            storm_restored: w.restored,
                            tx_dropped_packets: w.tx_dropped,
                            rx_dropped_packets: w.rx_dropped,
                        },
                    ));
                }
            }
        }
        all.sort_by_key(|(p, prio, _)| (*p, *prio));
        all.into_iter().map(|(_, _, s)| s).collect()
    }

    fn nic_storm_stats(&self) -> Vec<NicStormStats> {
        (self.nics.iter())
            .filter(|n| n.storm.warnings + n.storm.errors > 0)
            .map(|n| NicStormStats {
                node: self.scenario.topology.hosts[n.id as usize].name.clone(),
                tx_pause_storm_warning_events: n.storm.warnings,
                tx_pause_storm_error_events: n.storm.errors,
            })
            .collect()
    }

    /// The deadlocks found, named.
    fn deadlock_records(&self) -> Vec<DeadlockRecord> {
        (self.detector.found.iter())
            .map(|d| DeadlockRecord {
                formed_ns: d.formed.ns(),
                detected_ns: d.detected.ns(),
                members: (d.members.iter())
                    .map(|&n| {
                        let p = PortId(n / 8);
                        let (node, port) = self.port_name(p);
                        DeadlockMember {
                            node,
                            port,
                            peer: self.port_name(p.peer()).0,
                            prio: (n % 8) as u8,
                        }
                    })
                    .collect(),
                flows: d.flows.clone(),
            })
            .collect()
    }
}

/// `bytes` of payload over `t`, in Gb/s (0 over an empty interval).
fn gbps(bytes: u64, t: Time) -> f64 {
    if t.ps() > 0 {
        bytes as f64 * 8.0 / t.secs_f64() * 1e-9
    } else {
        0.0
    }
}

/// Peak resident set size of this process in KiB, from `/proc/self/status` (`VmHWM`), or 0.
fn peak_memory_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
