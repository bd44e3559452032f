//! The congestion-isolation part of the results: counters, pause frames by queue type, and
//! the event log with names resolved.

use super::Sim;
use crate::ids::Priority;
use crate::monitor::{IsolationRecord, IsolationResults};
use crate::topology::NodeRef;

impl Sim {
    /// What isolation did, when some switch isolates (`None` otherwise).
    pub(super) fn isolation_results(&self) -> Option<IsolationResults> {
        let sc = &self.scenario;
        if sc.switches.iter().all(|p| p.isolation.is_none()) {
            return None;
        }
        let m = &self.ctx.monitor;
        let mut r = IsolationResults {
            counters: m.iso,
            ..Default::default()
        };
        let cfq_mask = |s: u32| {
            sc.switches[s as usize].isolation.map_or(0u8, |iso| {
                iso.cfq.iter().flatten().fold(0, |m, c| m | 1 << c.priority)
            })
        };
        for (s, sw) in sc.topology.switches.iter().enumerate() {
            for prio in Priority::in_mask(cfq_mask(s as u32)) {
                r.cfq_prios.push((sw.name.clone(), prio.0));
            }
        }
        for (p, _) in self.ports().iter() {
            let (node, _) = self.port_owner(p);
            for prio in Priority::all() {
                let c = &m.port_prio[p.idx()][prio];
                match node {
                    NodeRef::Switch(s) if cfq_mask(s) & prio.bit() != 0 => {
                        r.pause_tx_cfq += c.pause_tx
                    }
                    NodeRef::Switch(_) => r.pause_tx_other += c.pause_tx,
                    NodeRef::Host(_) => r.pause_rx_hosts += c.pause_rx,
                }
            }
        }
        r.events = m
            .iso_events
            .iter()
            .map(|e| {
                let (_, port) = self.port_name(e.port);
                let flow = (sc.flows.get(e.flow as usize))
                    .and_then(|s| s.name())
                    .map_or_else(|| e.flow.to_string(), str::to_string);
                IsolationRecord {
                    time_ns: e.time.ns(),
                    switch: sc.topology.switches[e.switch as usize].name.clone(),
                    port,
                    flow,
                    event: e.event.word(),
                }
            })
            .collect();
        Some(r)
    }
}
