//! Turning the world's counters into [`RunResults`]: names resolved, received counters
//! derived from what peers sent, records of the monitors (the per-flow rows are in
//! `flow_rows.rs`).

use super::Sim;
use crate::engine::Event;
use crate::ids::{PortId, Priority, QueueId};
use crate::monitor::congestion::CongestionRecord;
use crate::monitor::failures::{
    DeadlockMember, DeadlockRecord, NicStormStats, WatchdogEvent, WatchdogQueueStats,
};
use crate::monitor::pingmesh::{self, PingRecord};
use crate::monitor::{
    CounterSample, PauseInterval, PfcRecord, PortQueueRow, PortRow, QueueSample, RateSample,
    RunResults, ThroughputSample,
};
use crate::nic::recovery_stats::RecoveryCounters;
use crate::traffic::FlowKind;
use crate::units::Time;

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
            threads: self.thread_stats.as_deref().cloned(),
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

    /// Frames and wire bytes each (port, priority) received: what the peer sent on the wire
    /// toward it, less what that wire lost or still carries.
    fn received(&self) -> Vec<(u64, u64)> {
        let m = &self.ctx.monitor;
        let mut rx = vec![(0u64, 0u64); m.nports() * 8];
        for (p, _) in self.ports().iter() {
            let peer = p.peer().idx();
            for prio in Priority::all() {
                let c = m.tx_of(p, prio);
                let (lp, lb) = m.lost[p.idx()][prio];
                rx[peer * 8 + prio.idx()] = (c.packets - lp, c.bytes - lb);
            }
        }
        for (p, pkt) in self.wire_frames() {
            let r = &mut rx[p.peer().idx() * 8 + pkt.tc as usize];
            r.0 -= 1;
            r.1 -= pkt.wire as u64;
        }
        rx
    }

    /// The frames on the wires now (copies), with the port that sent each; in a merged
    /// partitioned run, those the parts held.
    pub(crate) fn wire_frames(&self) -> Vec<(PortId, crate::packet::Packet)> {
        if let Some(m) = &self.merged {
            return m.on_wires.clone();
        }
        let frames = self.frames_on_wires().into_iter();
        frames
            .map(|(p, id)| (p, *self.ctx.packets.get(id)))
            .collect()
    }

    /// The frames on the wires now, with the port that sent each: their pending arrivals, or
    /// the wires' FIFOs when those are kept (`fabric::link`; a flushed frame's arrival is
    /// still pending, but the frame is gone).
    pub(crate) fn frames_on_wires(&self) -> Vec<(PortId, u32)> {
        if self.wires_tracked {
            let mut v = Vec::new();
            for (p, port) in self.ports().iter() {
                v.extend(port.wire.in_flight.iter().map(|&(_, id)| (p, id)));
            }
            return v;
        }
        (self.ctx.events.pending())
            .filter_map(|(_, e)| match e {
                Event::LinkArrive { port, pkt, .. } => Some((PortId(port), pkt)),
                _ => None,
            })
            .collect()
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
