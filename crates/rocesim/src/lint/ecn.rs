//! ECN: a congestion control that reacts to ECN needs switches that mark its queue, and on a
//! lossless queue marking must reach its maximum before PFC fires (DCQCN's premise: ECN
//! slows senders down so that pauses stay rare; Zhu et al. 2015 §4).

use super::{switch_name, Findings, Traffic};
use crate::config::Scenario;
use crate::fabric::headroom::{resolve, response_delay, HeadroomBudget};
use crate::fabric::mmu::Mmu;
use crate::fabric::params::{BufferMode, SwitchParams};
use crate::nic::params::CcKind;
use crate::topology::NodeRef;

/// Per switch, each port's headroom as the simulator sizes it.
fn headrooms(sc: &Scenario, frame: u32) -> Vec<Vec<u64>> {
    let mut h = vec![Vec::new(); sc.switches.len()];
    for l in &sc.topology.links {
        for (me, peer) in [(l.a, l.b), (l.b, l.a)] {
            let NodeRef::Switch(s) = me else { continue };
            let p = &sc.switches[s as usize];
            let configured = match peer {
                NodeRef::Host(x) => sc.nics[x as usize].pfc_response,
                NodeRef::Switch(o) => sc.switches[o as usize].pfc_response,
            };
            let resp = response_delay(configured, l.rate);
            let cable = p.cable_of(h[s as usize].len());
            let need = HeadroomBudget::new(l.rate, l.delay, cable, frame, resp).xoff();
            h[s as usize].push(resolve(p.lossless.headroom, need));
        }
    }
    h
}

/// Bytes a lossless PG holds when it pauses with the shared buffer empty: the static XOFF, or
/// reserved + α × the whole shared pool.
fn xoff_point(p: &SwitchParams, headroom: Vec<u64>) -> Option<u64> {
    let l = &p.lossless;
    match p.buffer_mode {
        BufferMode::Static => Some(l.xoff.0),
        BufferMode::Dynamic => {
            let pool = Mmu::new(p, headroom).ok()?.shared_pool;
            let th = l.dynamic_th;
            let a = if th >= 0 {
                pool.saturating_mul(1 << th)
            } else {
                pool >> -th
            };
            Some(l.reserved.0 + a)
        }
    }
}

/// Kmax of every marking lossless queue is at least one frame below its PG's XOFF point.
fn marks_before_pause(sc: &Scenario, out: &mut Findings) {
    let frame = (sc.nics.iter())
        .map(|n| n.frame_overhead.data(n.mtu, true))
        .max()
        .unwrap_or(0);
    for (s, (p, h)) in sc.switches.iter().zip(headrooms(sc, frame)).enumerate() {
        let Some(e) = p.ecn else { continue };
        let Some(x) = xoff_point(p, h) else { continue };
        for tc in (0..8).filter(|t| p.pfc_enable & (1 << t) != 0) {
            let q = p.tc_to_queue[tc] & 7;
            if e.queues & (1 << q) == 0 || e.kmax.0 + frame as u64 <= x {
                continue;
            }
            out.add(
                "ecn",
                switch_name(sc, s),
                "switch.ecn.kmax (WRED_PROFILE.green_max_threshold)",
                format!(
                    "queue {q} (lossless TC {tc}) reaches Kmax {} B only after its PG pauses at {x} B (less one {frame} B frame): PFC fires before ECN has slowed the senders",
                    e.kmax.0
                ),
                format!("lower kmax to at most {} B, or raise the XOFF point (dynamic_th, xoff)", x.saturating_sub(frame as u64)),
            );
        }
    }
}

/// Senders whose congestion control needs ECN find their queue marked at every switch.
fn cc_has_marks(sc: &Scenario, traffic: &[Traffic], out: &mut Findings) {
    for t in traffic.iter().filter(|t| !t.tcp) {
        let cc = sc.nics[t.src as usize].cc;
        let name = match cc {
            CcKind::Dcqcn => "DCQCN",
            CcKind::Dctcp => "DCTCP",
            CcKind::Rcm => "RCM",
            _ => continue,
        };
        for (s, p) in sc.switches.iter().enumerate() {
            let tc = p.dscp_to_tc[t.dscp as usize & 63] as usize & 7;
            let q = p.tc_to_queue[tc] & 7;
            let marks = |q: u8| p.ecn.is_some_and(|e| e.queues & (1 << q) != 0);
            if let Some(c) = p
                .isolation
                .and_then(|i| i.cfq[tc])
                .filter(|c| !marks(c.queue))
            {
                // 802.1Qcz is meant to work with end-to-end ECN control: an isolated flow
                // must still be marked where it waits (Congdon et al. 2017).
                out.add(
                    "cc",
                    switch_name(sc, s),
                    "switch.ecn.queues (WRED_PROFILE, QUEUE.wred_profile)",
                    format!("{name} senders (DSCP {}) rely on ECN, but class {tc}'s congested-flow queue {} does not mark here: isolated flows never slow down and their CFQ fills until PFC stops it", t.dscp, c.queue),
                    format!("add queue {} to switch.ecn.queues", c.queue),
                );
            }
            if marks(q) {
                continue;
            }
            out.add(
                "cc",
                switch_name(sc, s),
                "switch.ecn (WRED_PROFILE, QUEUE.wred_profile)",
                format!("{name} senders (DSCP {}) rely on ECN, but queue {q} does not mark here: they never slow down for congestion at this switch", t.dscp),
                format!("add a [switch.ecn] table marking queue {q} (queues = [{q}])"),
            );
        }
    }
}

/// Run the ECN rules.
pub(super) fn check(sc: &Scenario, traffic: &[Traffic], out: &mut Findings) {
    marks_before_pause(sc, out);
    cc_has_marks(sc, traffic, out);
}
