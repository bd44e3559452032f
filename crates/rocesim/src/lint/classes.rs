//! Traffic classes: DSCP → TC → queue must agree on every hop (the NICs at both ends and every
//! switch), a queue must not mix lossless and lossy classes, CNPs need a queue of their own
//! that is served first or lossless, and RoCE must not share a queue with TCP.

use super::{nic_class, nic_name, port_label, switch_name, Findings, Traffic};
use crate::config::Scenario;
use crate::fabric::params::{QueueSched, SwitchParams};
use crate::nic::params::CcKind;

const SW_CLASS: &str =
    "switch.dscp_to_tc / switch.pfc_enable (DSCP_TO_TC_MAP, PORT_QOS_MAP.pfc_enable)";
const NIC_CLASS: &str = "nic.dscp_to_tc / nic.pfc_enable";

/// The TC a switch gives `dscp`, whether it is lossless, and its egress queue.
fn sw_class(p: &SwitchParams, dscp: u8) -> (u8, bool, u8) {
    let tc = p.dscp_to_tc[dscp as usize & 63];
    (
        tc,
        p.pfc_enable & (1 << tc) != 0,
        p.tc_to_queue[tc as usize & 7],
    )
}

fn lossless_word(l: bool) -> &'static str {
    if l {
        "lossless"
    } else {
        "lossy"
    }
}

/// The receiving NIC classifies each flow's DSCP as its sender does.
fn nics_agree(sc: &Scenario, t: &Traffic, out: &mut Findings) {
    let d = t.dscp;
    let (tc_n, ll_n) = nic_class(&sc.nics[t.src as usize], d);
    let sender = &sc.topology.hosts[t.src as usize].name;
    let (tc_r, ll_r) = nic_class(&sc.nics[t.dst as usize], d);
    if ll_r != ll_n || (ll_n && tc_r != tc_n) {
        out.add(
            "classes",
            nic_name(sc, t.dst as usize),
            NIC_CLASS,
            format!(
                "receives DSCP {d} as {} TC {tc_r}, but `{sender}` sends it as {} TC {tc_n}",
                lossless_word(ll_r),
                lossless_word(ll_n)
            ),
            format!("give DSCP {d} the same TC and PFC setting on both NICs"),
        );
    }
}

/// Every switch classifies DSCP `d` as the NICs do (TC `tc_n`, lossless `ll_n`). What a switch
/// does with a DSCP does not depend on who sends it, so this runs once per (DSCP, NIC class),
/// not once per (sender, receiver): a thousand hosts talking to each other are a million
/// sender-receiver pairs.
fn switches_agree(sc: &Scenario, d: u8, (tc_n, ll_n): (u8, bool), out: &mut Findings) {
    for (s, p) in sc.switches.iter().enumerate() {
        // Every ingress port's own map (one, the switch's, unless ports differ).
        let bad: Vec<(usize, u8, bool)> = (0..p.port_dscp_to_tc.len().max(1))
            .map(|port| {
                let tc = p.dscp_to_tc_of(port)[d as usize & 63];
                (port, tc, p.pfc_enable & (1 << tc) != 0)
            })
            .filter(|&(_, tc_s, ll_s)| ll_s != ll_n || (ll_n && tc_s != tc_n))
            .collect();
        let Some(&(_, tc_s, ll_s)) = bad.first() else {
            continue;
        };
        let at = if p.port_dscp_to_tc.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = bad.iter().map(|b| port_label(sc, s, b.0)).collect();
            format!(" on {}", names.join(", "))
        };
        let msg = format!(
            "maps DSCP {d}{at} to {} TC {tc_s}, but the NICs send it as {} TC {tc_n}",
            lossless_word(ll_s),
            lossless_word(ll_n)
        );
        let fix = if ll_n {
            format!("map DSCP {d} to TC {tc_n} and list TC {tc_n} in pfc_enable")
        } else {
            format!("map DSCP {d} to a lossy TC, or enable PFC for TC {tc_n} on the NIC")
        };
        out.add("classes", switch_name(sc, s), SW_CLASS, msg, fix);
    }
}

/// No egress queue carries both a lossless and a lossy TC in use, nor RoCE and TCP.
fn queues_unmixed(sc: &Scenario, traffic: &[Traffic], out: &mut Findings) {
    for (s, p) in sc.switches.iter().enumerate() {
        // Per queue: TCs lossless / lossy in use, and whether RoCE / TCP data use it.
        let mut ll = [None::<u8>; 8];
        let mut lossy = [None::<u8>; 8];
        let (mut roce, mut tcp) = ([None::<u8>; 8], [None::<u8>; 8]);
        for t in traffic {
            let (tc, l, q) = sw_class(p, t.dscp);
            let q = q as usize & 7;
            if l {
                ll[q] = Some(tc);
            } else {
                lossy[q] = Some(tc);
            }
            if t.tcp {
                tcp[q] = Some(t.dscp);
            } else {
                roce[q] = Some(t.dscp);
            }
        }
        for q in 0..8 {
            if let (Some(a), Some(b)) = (ll[q], lossy[q]) {
                out.add(
                    "classes",
                    switch_name(sc, s),
                    "switch.tc_to_queue (TC_TO_QUEUE_MAP)",
                    format!("queue {q} holds lossless TC {a} and lossy TC {b}: pauses of TC {a} stall it and it drops"),
                    format!("give TC {b} a queue of its own"),
                );
            }
            if let (Some(r), Some(t)) = (roce[q], tcp[q]) {
                out.add(
                    "tcp",
                    switch_name(sc, s),
                    "switch.dscp_to_tc / switch.tc_to_queue (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP)",
                    format!("RoCE (DSCP {r}) and TCP (DSCP {t}) share queue {q}: TCP fills it and RoCE waits or drops behind it"),
                    "map RoCE and TCP DSCPs to different TCs and queues, scheduled by DWRR".into(),
                );
            }
        }
    }
}

/// Does traffic `t` use CNP-driven congestion control (DCQCN, RCM)?
fn cnp_driven(sc: &Scenario, t: &Traffic) -> bool {
    !t.tcp && matches!(sc.nics[t.src as usize].cc, CcKind::Dcqcn | CcKind::Rcm)
}

/// CNPs (of CNP-driven congestion control) travel in their own queue, strict or lossless.
fn cnps_first(sc: &Scenario, t: &Traffic, out: &mut Findings) {
    let cnp = sc.nics[t.dst as usize].cnp_dscp;
    let receiver = &sc.topology.hosts[t.dst as usize].name;
    for (s, p) in sc.switches.iter().enumerate() {
        let (_, _, q_d) = sw_class(p, t.dscp);
        let (tc_c, ll_c, q_c) = sw_class(p, cnp);
        let key =
            "switch.dscp_to_tc / switch.tc_to_queue / switch.scheduler (DSCP_TO_TC_MAP, SCHEDULER)";
        if q_c == q_d {
            out.add(
                "cnp",
                switch_name(sc, s),
                key,
                format!("CNPs of `{receiver}` (DSCP {cnp}) share queue {q_c} with the RoCE data they throttle (DSCP {})", t.dscp),
                format!("map DSCP {cnp} to a TC whose queue is strict priority"),
            );
        } else if let Some(port) = (!ll_c).then(|| dwrr_port(p, q_c)).flatten() {
            let on = if p.port_scheduler.is_empty() {
                String::new()
            } else {
                format!(" on {}", port_label(sc, s, port))
            };
            out.add(
                "cnp",
                switch_name(sc, s),
                key,
                format!("CNPs of `{receiver}` (DSCP {cnp} → TC {tc_c}) go to lossy DWRR queue {q_c}{on}: they wait behind bulk traffic and can be dropped"),
                format!("make queue {q_c} strict priority (SCHEDULER type STRICT)"),
            );
        }
    }
}

/// The first port (local index) whose queue `q` is not strict priority, if any: every port
/// has its own schedulers.
fn dwrr_port(p: &SwitchParams, q: u8) -> Option<usize> {
    (0..p.port_scheduler.len().max(1))
        .find(|&port| p.scheduler_of(port)[q as usize & 7] != QueueSched::Strict)
}

/// Run the class rules.
pub(super) fn check(sc: &Scenario, traffic: &[Traffic], out: &mut Findings) {
    // Findings are a set: a rule that would repeat a finding for another (sender, receiver)
    // is run once per distinct input instead.
    let mut classes = std::collections::BTreeSet::new();
    let mut cnp_paths = std::collections::BTreeSet::new();
    for t in traffic {
        nics_agree(sc, t, out);
        let class = nic_class(&sc.nics[t.src as usize], t.dscp);
        if classes.insert((t.dscp, class)) {
            switches_agree(sc, t.dscp, class, out);
        }
        if cnp_driven(sc, t) && cnp_paths.insert((t.dst, t.dscp)) {
            cnps_first(sc, t, out);
        }
    }
    queues_unmixed(sc, traffic, out);
}
