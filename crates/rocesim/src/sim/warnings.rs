//! What a user should not miss after a run, one line each: lossless drops, drops for other
//! causes, deadlocks, watchdog actions, flows that never start, settings that defeat a
//! mechanism (summary.json `warnings`, printed by the CLI).

use super::Sim;
use crate::config::scenario::RouteAheadMode;
use crate::units::Time;

impl Sim {
    /// Go-back-N (or go-back-0) flows whose class has no PFC while a loss fault drops packets:
    /// every loss rewinds the QP, and a lost retransmission waits the whole `nic.rto`.
    fn lossy_go_back_warning(&self, w: &mut Vec<String>) {
        let sc = &self.scenario;
        let lossy =
            (sc.faults.iter()).any(|f| matches!(f.kind, crate::faults::FaultKind::Loss { .. }));
        if !lossy {
            return;
        }
        let unprotected = (sc.each_flow())
            .filter(|f| {
                let nic = &sc.nics[f.src as usize];
                let tc = nic.dscp_to_tc[(f.dscp & 63) as usize];
                !nic.transport.is_selective() && nic.pfc_enable & (1 << tc) == 0
            })
            .count();
        if unprotected > 0 {
            w.push(format!(
                "{unprotected} go-back-N flow(s) run without PFC over a lossy link: each loss rewinds the QP and a lost retransmission waits nic.rto (consider nic.transport = \"irn\")"
            ));
        }
    }

    /// Are loss-recovery counters worth reporting: a selective-repeat transport, or a loss
    /// fault?
    pub(super) fn recovery_in_use(&self) -> bool {
        let sc = &self.scenario;
        sc.nics.iter().any(|n| n.transport.is_selective())
            || (sc.faults.iter()).any(|f| matches!(f.kind, crate::faults::FaultKind::Loss { .. }))
    }

    /// What a user should not miss, one line each: lossless drops, drops for other causes,
    /// deadlocks, watchdog actions, flows that never start, settings that defeat a mechanism.
    pub(super) fn warnings(&self) -> Vec<String> {
        let t = &self.ctx.monitor.totals;
        let mut w = Vec::new();
        if t.drops_lossless > 0 {
            w.push(format!(
                "{} lossless drops: headroom or a NIC RX buffer was exhausted (check switch.lossless.headroom)",
                t.drops_lossless
            ));
        }
        if t.drops_ttl > 0 {
            w.push(format!(
                "{} packets dropped when their TTL ran out: a routing loop?",
                t.drops_ttl
            ));
        }
        if t.drops_fault > 0 {
            w.push(format!(
                "{} packets dropped by faults (downed links, injected loss, PFC watchdog, no route, flooded copies)",
                t.drops_fault
            ));
        }
        self.failure_warnings(&mut w);
        self.setting_warnings(&mut w);
        self.lossy_go_back_warning(&mut w);
        if t.pfc_log_truncated > 0 {
            w.push(format!(
                "pause log truncated: {} frames not kept (raise output.max_pfc_log)",
                t.pfc_log_truncated
            ));
        }
        w
    }

    /// Deadlocks found and watchdog actions.
    fn failure_warnings(&self, w: &mut Vec<String>) {
        let n = self.detector.found.len();
        if n > 0 {
            let d = &self.detector.found[0];
            w.push(format!(
                "{n} PFC deadlock(s): the first, a cycle of {} paused queues, formed at {} ns (deadlocks.csv)",
                d.members.len(),
                d.formed.ns()
            ));
        }
        let storms: u64 = (self.switches.iter())
            .filter_map(|s| s.watchdog.as_ref())
            .flat_map(|wd| wd.queues.iter().flat_map(|q| q.0.iter()))
            .map(|q| q.detected)
            .sum();
        if storms > 0 {
            w.push(format!(
                "the switch PFC watchdog detected {storms} storm(s) (summary.json watchdog)"
            ));
        }
        let nic_errors: u64 = self.nics.iter().map(|n| n.storm.errors).sum();
        if nic_errors > 0 {
            w.push(format!(
                "{nic_errors} NIC(s) stopped sending pauses (pfc_prevention_tout): a stalled receiver"
            ));
        }
    }

    /// Flows that never start, NIC settings that defeat their mechanism, and a speed setting
    /// the scenario overrides.
    fn setting_warnings(&self, w: &mut Vec<String>) {
        let sc = &self.scenario;
        let late = (sc.each_flow())
            .filter(|f| f.after.is_none() && f.start >= sc.sim.duration)
            .count();
        if late > 0 {
            w.push(format!(
                "{late} flow(s) start at or after sim.duration ({} ns) and never run",
                sc.sim.duration.ns()
            ));
        }
        let zero_rto: Vec<&str> = (sc.nics.iter().zip(&sc.topology.hosts))
            .filter(|(n, _)| n.rto == Time::ZERO)
            .map(|(_, h)| h.name.as_str())
            .collect();
        if let Some(first) = zero_rto.first() {
            w.push(format!(
                "nic.rto is 0 on {} host(s) (first {first}): every packet times out at once",
                zero_rto.len()
            ));
        }
        if sc.sim.route_ahead == RouteAheadMode::On && !sc.faults.is_empty() {
            w.push(
                "sim.route_ahead = \"on\" had no effect: faults can change routes while frames are in flight, so every switch routed frames on arrival (results are the same either way)"
                    .into(),
            );
        }
    }
}
