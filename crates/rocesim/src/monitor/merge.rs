//! Merging the recorders of a partitioned run's parts (`sim.threads`). Every count is made
//! in exactly one part (the one simulating the component that counts it) and is zero in the
//! others, so counts add up; a flow's completion is seen by its sender's part and its
//! delivery by its receiver's, so the earliest time of each wins. A congestion point's
//! statistics come whole from the part simulating its switch. (Each part keeps its own cache
//! of the congestion points a flow was last marked at, which only saves pushing a flow's
//! host pair to a point's list again; the results read that list as a set.) The logs are
//! concatenated and put in their canonical order by [`Monitor::sort_logs`].

use super::recorder::{Monitor, Totals};
use super::IsoCounters;
use crate::ids::{PortId, Priority, QueueId};

impl Monitor {
    /// Add what `other`, another part of the same run, recorded; `theirs` says which ports
    /// that part simulates (their congestion points are taken whole from it).
    pub fn merge(&mut self, other: &Monitor, theirs: impl Fn(PortId) -> bool) {
        self.assert_settled();
        other.assert_settled();
        for (i, cp) in other.cps.iter().enumerate() {
            if theirs(PortId((i / 8) as u32)) {
                self.cps[i] = cp.clone();
                self.cp_state[i] = other.cp_state[i];
            }
        }
        for (a, b) in self.port_prio.iter_mut().zip(&other.port_prio) {
            for p in Priority::all() {
                let (x, y) = (&mut a[p], &b[p]);
                x.drops += y.drops;
                x.pause_tx += y.pause_tx;
                x.pause_rx += y.pause_rx;
                x.paused_ps += y.paused_ps;
            }
        }
        for (a, b) in self.port_queue.iter_mut().zip(&other.port_queue) {
            for q in QueueId::all() {
                a[q].ecn_marked += b[q].ecn_marked;
            }
        }
        for (a, b) in self.tx.iter_mut().zip(&other.tx) {
            a.packets += b.packets;
            a.bytes += b.bytes;
        }
        for (a, b) in self.tx_at_warmup.iter_mut().zip(&other.tx_at_warmup) {
            *a += b;
        }
        for (a, b) in self.lost.iter_mut().zip(&other.lost) {
            for p in Priority::all() {
                a[p].0 += b[p].0;
                a[p].1 += b[p].1;
            }
        }
        self.merge_flows(other);
        add_totals(&mut self.totals, &other.totals);
        add_iso(&mut self.iso, &other.iso);
        self.paused_count += other.paused_count;
        self.pfc_log.extend_from_slice(&other.pfc_log);
        self.wd_log.extend_from_slice(&other.wd_log);
        self.pause_intervals
            .extend_from_slice(&other.pause_intervals);
        self.iso_events.extend_from_slice(&other.iso_events);
    }

    /// Add the per-flow counts of `other`; keep the earliest completion and delivery.
    fn merge_flows(&mut self, other: &Monitor) {
        for f in self.flows.base()..self.flows.end() {
            let Some(b) = other.flows.get(f) else {
                continue;
            };
            let a = &mut self.flows[f];
            let (x, y) = (&mut a.c, &b.c);
            x.tx_bytes += y.tx_bytes;
            x.retx_packets += y.retx_packets;
            x.delivered += y.delivered;
            x.discarded += y.discarded;
            x.dropped += y.dropped;
            x.cnp_rx += y.cnp_rx;
            x.ecn_marked += y.ecn_marked;
            x.fast_retransmits += y.fast_retransmits;
            x.timeouts += y.timeouts;
            a.done = a.done.min(b.done);
            a.delivered_at = a.delivered_at.min(b.delivered_at);
            let wb = other.delivered_at_warmup.get(f).copied().unwrap_or(0);
            if let Some(w) = self.delivered_at_warmup.get_mut(f) {
                *w += wb;
            }
        }
    }

    /// Put the logs in their canonical order: by time, then port, priority and direction
    /// (isolation events: switch, port and flow; ended pauses: by their end), a stable sort,
    /// so the entries one component made at one time keep the order it made them in; keep
    /// the first `output.max_pfc_log` pause-log rows.
    pub fn sort_logs(&mut self) {
        self.pfc_log
            .sort_by_key(|e| (e.time, e.port.0, e.prio.0, e.dir as u8));
        let max = self.max_pfc_log;
        if self.pfc_log.len() > max {
            self.totals.pfc_log_truncated += (self.pfc_log.len() - max) as u64;
            self.pfc_log.truncate(max);
        }
        self.wd_log.sort_by_key(|e| (e.time, e.port.0, e.prio.0));
        (self.pause_intervals).sort_by_key(|&(p, prio, start, d)| (start + d, p.0, prio.0));
        (self.iso_events).sort_by_key(|e| (e.time, e.switch, e.port.0, e.flow));
        // Each part kept its first `max` isolation events (`Monitor::iso_log`): so does the
        // merged log.
        self.iso_events.truncate(max);
    }
}

fn add_totals(a: &mut Totals, b: &Totals) {
    a.drops_lossless += b.drops_lossless;
    a.drops_lossy += b.drops_lossy;
    a.drops_ttl += b.drops_ttl;
    a.drops_fault += b.drops_fault;
    a.ecn_marked += b.ecn_marked;
    a.cnp_tx += b.cnp_tx;
    a.packet_hops += b.packet_hops;
    a.pfc_log_truncated += b.pfc_log_truncated;
}

fn add_iso(a: &mut IsoCounters, b: &IsoCounters) {
    a.isolated += b.isolated;
    a.released += b.released;
    a.cip_tx += b.cip_tx;
    a.cip_rx += b.cip_rx;
    a.table_full += b.table_full;
    a.out_of_order += b.out_of_order;
    a.qp_moved += b.qp_moved;
    a.qp_returned += b.qp_returned;
}
