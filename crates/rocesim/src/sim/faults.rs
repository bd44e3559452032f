//! Fault injection: start and clear the scenario's faults.

use super::Sim;
use crate::fabric::link::Loss;
use crate::faults::FaultKind;

impl Sim {
    pub(crate) fn on_fault(&mut self, index: u32, start: bool) {
        let now = self.now();
        let kind = self.scenario.faults[index as usize].kind.clone();
        match kind {
            FaultKind::NicRxStall { host } => {
                let rx = &mut self.hosts[host as usize].rx;
                rx.stalled = start;
                if start {
                    rx.stalled_since = now;
                    self.nic_stall_started(host);
                } else {
                    self.rx_start(host);
                }
            }
            FaultKind::LinkDown { link } | FaultKind::LinkUp { link } => {
                let up = matches!(kind, FaultKind::LinkUp { .. }) == start;
                for c in [2 * link, 2 * link + 1] {
                    self.chans[c as usize].up = up;
                }
                if up {
                    for p in [2 * link, 2 * link + 1] {
                        self.try_send(p);
                    }
                }
            }
            FaultKind::RouteOverride { switch, dst, link } => {
                let ports = &self.ports;
                let sw = &mut self.switches[switch as usize];
                sw.route_overrides.retain(|&(d, _)| d != dst);
                if start {
                    if let Some(port) = sw
                        .ports
                        .iter()
                        .position(|&g| ports[g as usize].link == link)
                    {
                        sw.route_overrides.push((dst, port as u16));
                    }
                }
                sw.fwd_fault = !sw.route_overrides.is_empty() || !sw.aged.is_empty();
            }
            FaultKind::MacAgeOut { switch, host } => {
                let sw = &mut self.switches[switch as usize];
                sw.aged.retain(|&h| h != host);
                if start {
                    sw.aged.push(host);
                }
                sw.fwd_fault = !sw.route_overrides.is_empty() || !sw.aged.is_empty();
            }
            FaultKind::Loss {
                link,
                from_a,
                every,
                probability,
            } => {
                let loss = match (start, every, probability) {
                    (false, _, _) => Loss::None,
                    (true, Some(n), _) => Loss::Every { n, seen: 0 },
                    (true, None, Some(p)) => Loss::Random(p),
                    (true, None, None) => Loss::None,
                };
                let chans: &[u32] = match from_a {
                    Some(true) => &[2 * link],
                    Some(false) => &[2 * link + 1],
                    None => &[2 * link, 2 * link + 1],
                };
                for &c in chans {
                    self.chans[c as usize].loss = loss;
                }
            }
        }
    }
}
