//! PFC watchdogs (SONiC `PFC_WD`, mlx5 `pfc_prevention_tout`): restoration ≥ detection ≥ poll
//! interval, and a host's NIC storm guard acts before its switch's watchdog (Guo et al. 2016
//! §4.3: the NIC stops its own storm; the switch is the backstop).

use super::{hosts_by_switch, switch_name, Findings};
use crate::config::Scenario;

/// Run the watchdog rules.
pub(super) fn check(sc: &Scenario, out: &mut Findings) {
    let hosts = hosts_by_switch(sc);
    for (s, p) in sc.switches.iter().enumerate() {
        let Some(w) = p.pfc_watchdog else { continue };
        let key = "switch.pfc_watchdog (PFC_WD)";
        if w.detection_time < w.poll_interval {
            out.add(
                "watchdog",
                switch_name(sc, s),
                key,
                format!("detection_time {} is shorter than poll_interval {}: storms are detected only at the next poll", w.detection_time, w.poll_interval),
                "make detection_time at least poll_interval".into(),
            );
        }
        if w.restoration_time < w.detection_time {
            out.add(
                "watchdog",
                switch_name(sc, s),
                key,
                format!("restoration_time {} is shorter than detection_time {}: a queue is restored before a storm could be detected again, so it flaps", w.restoration_time, w.detection_time),
                "make restoration_time at least detection_time".into(),
            );
        }
        let late: Vec<String> = (hosts[s].iter().copied())
            .filter(|&h| {
                let guard = sc.nics[h].pfc_prevention_tout;
                guard.is_none_or(|g| g >= w.detection_time)
            })
            .map(|h| format!("`{}`", sc.topology.hosts[h].name))
            .collect();
        if !late.is_empty() {
            out.add(
                "watchdog",
                format!("NIC {}", late.join(", ")),
                "nic.pfc_prevention_tout",
                format!("the PFC storm guard is off or not shorter than the detection_time {} of switch `{}`'s watchdog: the switch drops lossless traffic before the NIC stops its own storm", w.detection_time, sc.topology.switches[s].name),
                format!("set pfc_prevention_tout below {}", w.detection_time),
            );
        }
    }
}
