//! Turning the world's counters into [`RunResults`].

use super::Sim;
use crate::monitor::congestion::CongestionRecord;
use crate::monitor::{
    FlowResult, PfcRecord, PortRow, QueueSample, RateSample, RunResults, ThroughputSample,
};
use crate::packet::{data_wire, PacketKind, ACK_WIRE};
use crate::topology::NodeRef;
use crate::units::{Rate, Time};

impl Sim {
    pub(crate) fn node_name(&self, n: NodeRef) -> &str {
        let t = &self.scenario.topology;
        match n {
            NodeRef::Host(h) => &t.hosts[h as usize].name,
            NodeRef::Switch(s) => &t.switches[s as usize].name,
        }
    }

    /// The hops (rate, delay) of the first shortest path from host `src` to host `dst`.
    pub(crate) fn path(&self, src: u32, dst: u32) -> Vec<(Rate, Time)> {
        let mut hops = Vec::new();
        let mut p = self.hosts[src as usize].port;
        for _ in 0..64 {
            let port = &self.ports[p as usize];
            hops.push((port.rate, port.delay));
            match self.ports[port.peer as usize].node {
                NodeRef::Host(_) => return hops,
                NodeRef::Switch(s) => {
                    let nh = self.routes.next_hops(s, dst);
                    let Some(&l) = nh.first() else { return hops };
                    p = self.switches[s as usize].ports[l as usize];
                }
            }
        }
        hops
    }

    /// Ideal FCT of a `size`-byte message from `src` to `dst` alone in the network: the first
    /// frame is stored and forwarded at every hop, the rest stream at the bottleneck rate, and
    /// the last ACK returns over the same hops.
    pub(crate) fn ideal_fct(&self, src: u32, dst: u32, size: u64) -> Time {
        let mtu = self.scenario.nics[src as usize].mtu as u64;
        let path = self.path(src, dst);
        let npkts = size.div_ceil(mtu).max(1);
        let first = data_wire(size.min(mtu) as u32, true) as u64;
        let total: u64 = (0..npkts)
            .map(|i| data_wire((size - i * mtu).min(mtu) as u32, i == 0) as u64)
            .sum();
        let bottleneck = path.iter().map(|h| h.0).min().unwrap_or(Rate::gbps(100));
        let mut t = bottleneck.tx_time(total - first);
        for &(r, d) in &path {
            t += r.tx_time(first) + r.tx_time(ACK_WIRE as u64) + d + d;
        }
        t
    }

    /// Payload bytes of each flow's data packets still inside the network.
    fn inflight_by_flow(&self) -> Vec<u64> {
        let mut v = vec![0u64; self.flows.len()];
        let mut count = |id: u32| {
            let p = self.arena.get(id);
            if p.kind == PacketKind::Data {
                v[p.flow as usize] += p.payload as u64;
            }
        };
        for port in &self.ports {
            for q in &port.queues {
                q.iter().for_each(|e| count(e.pkt));
            }
        }
        for ch in &self.chans {
            ch.in_flight.iter().for_each(|&(_, id)| count(id));
        }
        for h in &self.hosts {
            h.rx.queue.iter().for_each(|&(id, _)| count(id));
        }
        v
    }

    /// Frames and wire bytes each (port, priority) received: what the peer sent on the channel
    /// toward it, less what that channel lost or still carries.
    fn received(&self) -> Vec<(u64, u64)> {
        let mut rx = vec![(0u64, 0u64); self.ports.len() * 8];
        for (p, port) in self.ports.iter().enumerate() {
            let ch = &self.chans[p];
            let peer = port.peer as usize;
            for prio in 0..8 {
                let c = &self.tx[self.tx_index(p, prio)];
                let (lp, lb) = self.lost[p][prio];
                rx[peer * 8 + prio] = (c.packets - lp, c.bytes - lb);
            }
            for &(_, id) in &ch.in_flight {
                let pkt = self.arena.get(id);
                let r = &mut rx[peer * 8 + pkt.tc as usize];
                r.0 -= 1;
                r.1 -= pkt.wire as u64;
            }
        }
        rx
    }

    /// Every queue that was ever congested, in port order.
    fn congestion_records(&self, now: Time) -> Vec<CongestionRecord> {
        let mut out = Vec::new();
        for (i, cp) in self.cps.iter().enumerate() {
            let Some(first) = cp.first else { continue };
            let (ps, last) = cp.congested_until(now);
            let port = &self.ports[i / 8];
            let mut flows = cp.flows.clone();
            flows.sort_unstable();
            flows.dedup();
            let names = |hosts: Vec<u32>| -> Vec<String> {
                let mut h = hosts;
                h.sort_unstable();
                h.dedup();
                h.iter()
                    .map(|&x| self.scenario.topology.hosts[x as usize].name.clone())
                    .collect()
            };
            out.push(CongestionRecord {
                node: self.node_name(port.node).to_string(),
                port: port.local as u32,
                peer: self
                    .node_name(self.ports[port.peer as usize].node)
                    .to_string(),
                queue: (i % 8) as u8,
                first_ns: first.ns(),
                last_ns: last.ns(),
                congested_ns: ps / 1000,
                marked: cp.marked,
                sources: names(flows.iter().map(|&f| self.flows[f as usize].src).collect()),
                destinations: names(flows.iter().map(|&f| self.flows[f as usize].dst).collect()),
            });
        }
        out
    }

    /// Everything the run measured. `wall_s` is the wall-clock time the caller measured.
    pub fn results(&self, wall_s: f64) -> RunResults {
        let now = self.now();
        let sc = &self.scenario;
        let warm = sc.sim.warmup.min(now);
        let window = now.saturating_sub(warm);
        let inflight = self.inflight_by_flow();
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let spec = &sc.flows[i];
                let size = (f.sq.size != u64::MAX).then_some(f.sq.size);
                let end = f.sq.done_at;
                let fct = end.map(|e| e.saturating_sub(f.start));
                let ideal = size.map(|s| self.ideal_fct(f.src, f.dst, s));
                let slowdown = match (fct, ideal) {
                    (Some(a), Some(b)) if b.ps() > 0 => Some(a.ps() as f64 / b.ps() as f64),
                    _ => None,
                };
                let win_bytes = f.c.delivered.saturating_sub(f.c.delivered_at_warmup);
                let goodput = if window.ps() > 0 {
                    win_bytes as f64 * 8.0 / window.secs_f64() * 1e-9
                } else {
                    0.0
                };
                FlowResult {
                    flow_id: i as u32,
                    name: spec.name.clone().unwrap_or_else(|| i.to_string()),
                    src: sc.topology.hosts[f.src as usize].name.clone(),
                    dst: sc.topology.hosts[f.dst as usize].name.clone(),
                    size_bytes: size,
                    start_ns: f.start.ns(),
                    end_ns: end.map(|e| e.ns()),
                    fct_ns: fct.map(|t| t.ns()),
                    ideal_fct_ns: ideal.map(|t| t.ns()),
                    slowdown,
                    bytes_delivered: f.c.delivered,
                    goodput_gbps: goodput,
                    retx_packets: f.c.retx_packets,
                    cnp_rx: f.c.cnp_rx,
                    ecn_marked: f.c.ecn_marked,
                    tx_bytes: f.c.tx_bytes,
                    discarded_bytes: f.c.discarded,
                    dropped_bytes: f.c.dropped,
                    inflight_bytes: inflight[i],
                }
            })
            .collect();
        let rx = self.received();
        let mut ports = Vec::new();
        for (pi, port) in self.ports.iter().enumerate() {
            for prio in 0..8u8 {
                let c = &self.counters[pi * 8 + prio as usize];
                let ti = self.tx_index(pi, prio as usize);
                let tx = &self.tx[ti];
                let (rx_packets, rx_bytes) = rx[pi * 8 + prio as usize];
                let mut paused = c.paused_ps;
                if port.pause.is_paused(prio) {
                    paused += now.saturating_sub(port.pause.since[prio as usize]).ps();
                }
                if *c == Default::default() && paused == 0 && rx_packets == 0 && tx.packets == 0 {
                    continue;
                }
                ports.push(PortRow {
                    node: self.node_name(port.node).to_string(),
                    port: port.local as u32,
                    peer: self
                        .node_name(self.ports[port.peer as usize].node)
                        .to_string(),
                    prio,
                    // Line rate, for links.csv (utilisation).
                    rate_bps: port.rate.bps(),
                    tx_bytes_window: tx.bytes - self.tx_at_warmup.get(ti).copied().unwrap_or(0),
                    tx_packets: tx.packets,
                    tx_bytes: tx.bytes,
                    rx_packets,
                    rx_bytes,
                    drops: c.drops,
                    pause_tx: c.pause_tx,
                    pause_rx: c.pause_rx,
                    paused_ns: paused / 1000,
                    ecn_marked: c.ecn_marked,
                    max_queue_bytes: match port.node {
                        NodeRef::Switch(s) => self.switches[s as usize]
                            .mmu
                            .queue_max(port.local as usize, prio),
                        NodeRef::Host(_) => 0,
                    },
                });
            }
        }
        let pfc_log = self
            .pfc_log
            .iter()
            .map(|e| {
                let port = &self.ports[e.port as usize];
                PfcRecord {
                    time_ns: e.time.ns(),
                    node: self.node_name(port.node).to_string(),
                    port: port.local as u32,
                    prio: e.prio,
                    direction: e.dir,
                    quanta: e.quanta,
                }
            })
            .collect();
        let throughput = self
            .throughput
            .iter()
            .map(|&(t, flow_id, gbps)| ThroughputSample {
                time_ns: t.ns(),
                flow_id,
                gbps,
            })
            .collect();
        let queues = self
            .queue_samples
            .iter()
            .map(|&(t, p, queue, bytes)| {
                let port = &self.ports[p as usize];
                QueueSample {
                    time_ns: t.ns(),
                    node: self.node_name(port.node).to_string(),
                    port: port.local as u32,
                    queue,
                    bytes,
                }
            })
            .collect();
        let rates = self
            .rate_samples
            .iter()
            .map(|&(t, flow_id, g, window_bytes)| RateSample {
                time_ns: t.ns(),
                flow_id,
                rate_gbps: (!g.is_nan()).then_some(g),
                window_bytes,
            })
            .collect();
        let congestion = self.congestion_records(now);
        let (watchdog, watchdog_queues, nic_storms) = self.watchdog_records();
        let deadlocks = self.deadlock_records();
        let mut warnings = Vec::new();
        if self.totals.drops_lossless > 0 {
            warnings.push(format!(
                "{} lossless drops: headroom or a NIC RX buffer was exhausted (check switch.lossless.headroom)",
                self.totals.drops_lossless
            ));
        }
        if self.totals.pfc_log_truncated > 0 {
            warnings.push(format!(
                "pause log truncated: {} frames not kept (raise output.max_pfc_log)",
                self.totals.pfc_log_truncated
            ));
        }
        RunResults {
            scenario: sc.name.clone(),
            seed: sc.sim.seed,
            sim_time_ns: now.ns(),
            warmup_ns: warm.ns(),
            wall_s,
            events: self.events,
            packet_hops: self.totals.packet_hops,
            peak_memory_kb: peak_memory_kb(),
            incomplete: self.interrupted,
            flows,
            ports,
            pfc_log,
            pfc_log_truncated: self.totals.pfc_log_truncated,
            throughput,
            queues,
            rates,
            congestion,
            watchdog,
            watchdog_queues,
            nic_storms,
            deadlocks,
            drops_lossless: self.totals.drops_lossless,
            drops_lossy: self.totals.drops_lossy,
            drops_ttl: self.totals.drops_ttl,
            drops_fault: self.totals.drops_fault,
            ecn_marked: self.totals.ecn_marked,
            cnp_tx: self.totals.cnp_tx,
            warnings,
        }
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
