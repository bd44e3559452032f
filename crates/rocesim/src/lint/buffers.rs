//! Lossless buffers: PFC must be enabled for the same classes at both ends of every link, and
//! every lossless port needs at least the headroom of its delay budget
//! ([`HeadroomBudget`]: speed, cable, MTU, peer response).

use super::{nic_name, port_label, switch_name, Findings};
use crate::config::Scenario;
use crate::fabric::headroom::{resolve, response_delay, HeadroomBudget};
use crate::topology::NodeRef;

/// `{3, 4}` for a PFC bitmask.
fn tcs(mask: u8) -> String {
    let v: Vec<String> = (0..8)
        .filter(|t| mask & (1 << t) != 0)
        .map(|t| t.to_string())
        .collect();
    format!("{{{}}}", v.join(", "))
}

/// (name, pfc_enable, key) of one end of a link.
fn end(sc: &Scenario, n: NodeRef) -> (String, u8, &'static str) {
    match n {
        NodeRef::Host(h) => (
            nic_name(sc, h as usize),
            sc.nics[h as usize].pfc_enable,
            "nic.pfc_enable",
        ),
        // The 802.1Qcz isolation priority is the switches' own: NICs never send in it.
        NodeRef::Switch(s) => (
            switch_name(sc, s as usize),
            sc.switches[s as usize].pfc_enable & !isolation_bit(sc, s as usize),
            "switch.pfc_enable (PORT_QOS_MAP.pfc_enable)",
        ),
    }
}

/// The bits of switch `s`'s congestion-isolation (CFQ) priorities, if it isolates.
fn isolation_bit(sc: &Scenario, s: usize) -> u8 {
    let cfqs = sc.switches[s].isolation.map(|i| i.cfq).unwrap_or_default();
    cfqs.iter()
        .flatten()
        .fold(0, |m, c| m | 1 << (c.priority & 7))
}

/// Both ends of every link pause the same classes.
fn pfc_both_ends(sc: &Scenario, out: &mut Findings) {
    let mut port_no = vec![0usize; sc.switches.len()];
    for l in &sc.topology.links {
        let (a, b) = (end(sc, l.a), end(sc, l.b));
        let mut label = [String::new(), String::new()];
        for (i, n) in [l.a, l.b].into_iter().enumerate() {
            if let NodeRef::Switch(s) = n {
                let s = s as usize;
                label[i] = format!(" on {}", port_label(sc, s, port_no[s]));
                port_no[s] += 1;
            }
        }
        if a.1 == b.1 {
            continue;
        }
        // Report at the switch end (the one a config_db configures), or at `a`.
        let (me, peer, at) = if matches!(l.a, NodeRef::Host(_)) {
            (b, a, &label[1])
        } else {
            (a, b, &label[0])
        };
        let only = me.1 ^ peer.1;
        out.add(
            "pfc",
            me.0.clone(),
            me.2,
            format!(
                "PFC is enabled for TCs {} here{at} but {} at its peer {}: TCs {} are lossless at one end only (no pause honoured, or none sent)",
                tcs(me.1),
                tcs(peer.1),
                peer.0,
                tcs(only)
            ),
            format!("enable PFC for the same TCs at both ends ({} has {})", peer.2, tcs(peer.1)),
        );
    }
}

/// The largest data frame any NIC sends, bytes on the wire.
fn max_frame(sc: &Scenario) -> u32 {
    (sc.nics.iter())
        .map(|n| n.frame_overhead.data(n.mtu, true))
        .max()
        .unwrap_or(0)
}

/// Every lossless switch port has at least the headroom of its delay budget.
fn headroom_covers_budget(sc: &Scenario, out: &mut Findings) {
    let frame = max_frame(sc);
    let mut port_no = vec![0usize; sc.switches.len()];
    // (worst shortfall port, its headroom, its budget, ports short) per switch.
    let mut short: Vec<Option<(usize, u64, u64, usize)>> = vec![None; sc.switches.len()];
    for l in &sc.topology.links {
        for (me, peer) in [(l.a, l.b), (l.b, l.a)] {
            let NodeRef::Switch(s) = me else { continue };
            let s = s as usize;
            let port = port_no[s];
            port_no[s] += 1;
            let p = &sc.switches[s];
            if p.pfc_enable == 0 {
                continue;
            }
            let configured = match peer {
                NodeRef::Host(h) => sc.nics[h as usize].pfc_response,
                NodeRef::Switch(o) => sc.switches[o as usize].pfc_response,
            };
            let resp = response_delay(configured, l.rate);
            let cable = p.cable_of(port);
            let need = HeadroomBudget::new(l.rate, l.delay, cable, frame, resp).xoff();
            let have = resolve(p.lossless.headroom, need);
            if have < need {
                let e = short[s].get_or_insert((port, have, need, 0));
                if need - have > e.2 - e.1 {
                    *e = (port, have, need, e.3);
                }
                e.3 += 1;
            }
        }
    }
    for (s, e) in short.iter().enumerate() {
        let Some((port, have, need, n)) = *e else {
            continue;
        };
        let port = port_label(sc, s, port);
        out.add(
            "headroom",
            switch_name(sc, s),
            "switch.lossless.headroom (BUFFER_PROFILE.xoff)",
            format!("{n} lossless port(s) have less headroom than their delay budget, worst port {port}: {have} B < {need} B (speed, cable, MTU, peer response): lossless drops are possible"),
            format!("set headroom = \"auto\" or at least {need} B (see `rocesim headroom`)"),
        );
    }
}

/// Run the buffer rules.
pub(super) fn check(sc: &Scenario, out: &mut Findings) {
    pfc_both_ends(sc, out);
    headroom_covers_budget(sc, out);
}
