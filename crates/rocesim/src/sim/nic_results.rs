//! The NIC rows of the results (`nics.csv`): cache hits and misses, pipeline stalls, the
//! pauses each NIC sent its switch, and its loss-recovery counters.

use super::Sim;
use crate::ids::{PortId, Priority};
use crate::monitor::NicRow;
use crate::units::Time;

impl Sim {
    /// The longest time any priority of egress port `p` spent paused (open intervals to
    /// `now`), ps.
    fn longest_paused_ps(&self, p: PortId, now: Time) -> u64 {
        let port = self.ports().port(p);
        let m = &self.ctx.monitor;
        Priority::all()
            .map(|prio| {
                let mut ps = m.port_prio[p.idx()][prio].paused_ps;
                if port.pause.is_paused(prio.0) {
                    ps += now.saturating_sub(port.pause.since[prio.idx()]).ps();
                }
                ps
            })
            .max()
            .unwrap_or(0)
    }

    /// One row per NIC when some NIC models its caches or loss recovery is in use (a
    /// selective-repeat transport or a loss fault); empty otherwise (no `nics.csv`).
    pub(super) fn nic_rows(&self, now: Time) -> Vec<NicRow> {
        if self.nics.iter().all(|n| n.mem.is_none()) && !self.recovery_in_use() {
            return Vec::new();
        }
        let m = &self.ctx.monitor;
        let mut retx = vec![0u64; self.nics.len()];
        for (_, spec, (rec, _)) in self.every_flow() {
            retx[spec.src as usize] += rec.c.retx_packets as u64;
        }
        let counts =
            |c: Option<&crate::nic::cache::LruCache>| c.map_or((0, 0), |c| (c.hits, c.misses));
        self.nics
            .iter()
            .map(|n| {
                let p = n.port.id;
                let pausing = self.longest_paused_ps(p.peer(), now);
                let paused = self.longest_paused_ps(p, now);
                let pause_tx = Priority::all()
                    .map(|x| m.port_prio[p.idx()][x].pause_tx)
                    .sum();
                let mem = n.mem.as_deref();
                let (qh, qm) = counts(mem.and_then(|c| c.qpc.as_ref()));
                let (wh, wm) = counts(mem.and_then(|c| c.wqe.as_ref()));
                let (mh, mm) = counts(mem.and_then(|c| c.mtt.as_ref()));
                NicRow {
                    node: self.scenario.topology.hosts[n.id as usize].name.clone(),
                    qpc_hits: qh,
                    qpc_misses: qm,
                    wqe_hits: wh,
                    wqe_misses: wm,
                    mtt_hits: mh,
                    mtt_misses: mm,
                    tx_stall_ns: mem.map_or(0, |c| c.tx_stall.ps() / 1000),
                    rx_stall_ns: mem.map_or(0, |c| c.rx_stall.ps() / 1000),
                    pause_tx,
                    pausing_ns: pausing / 1000,
                    paused_ns: paused / 1000,
                    retx_packets: retx[n.id as usize],
                    retx_timeout: n.recovery.retx_timeout,
                    retx_nack: n.recovery.retx_nack,
                    retx_selective: n.recovery.retx_selective,
                    ooo_rx: n.recovery.ooo_rx,
                    bitmap_host_accesses: n.recovery.bitmap_host_accesses,
                    caches: mem.is_some(),
                }
            })
            .collect()
    }
}
