//! The per-flow rows of the results: every flow in id order (released ones read back from
//! the spill, held ones from the monitor, streamed ones not yet started from their spec), its
//! goodput over the statistics window and over the time it was active, its FCT against the
//! ideal one, and its payload still inside the network; TCP flows' loss recovery beside them.

use super::Sim;
use crate::engine::FlowWindow;
use crate::ids::FlowId;
use crate::monitor::flow_table::{HELD_ROWS, STORED_CHUNK_ROWS};
use crate::monitor::{FlowRecord, FlowResult, FlowTable};
use crate::packet::PacketKind;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;
use std::borrow::Cow;

impl Sim {
    /// The flow rows: held in memory for a run of up to [`HELD_ROWS`] flows, stored out of
    /// memory as they are made for a longer one. QP groups merge listed flows' rows, so they
    /// are held.
    pub(super) fn flow_table(&self, now: Time) -> FlowTable {
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
    pub(super) fn tcp_results(&self, now: Time) -> Vec<crate::monitor::results::TcpFlowResult> {
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
    pub(super) fn inflight_by_flow(&self) -> FlowWindow<u64> {
        if let Some(m) = &self.merged {
            return m.inflight.clone();
        }
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
                q.iter().for_each(|e| count(e.pkt()));
            }
        }
        self.frames_on_wires().iter().for_each(|&(_, id)| count(id));
        for (_, port) in ports.iter() {
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
}

/// `bytes` of payload over `t`, in Gb/s (0 over an empty interval).
fn gbps(bytes: u64, t: Time) -> f64 {
    if t.ps() > 0 {
        bytes as f64 * 8.0 / t.secs_f64() * 1e-9
    } else {
        0.0
    }
}
