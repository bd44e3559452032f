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
            FaultKind::LinkDown { link, reconverge } | FaultKind::LinkUp { link, reconverge } => {
                let up = matches!(kind, FaultKind::LinkUp { .. }) == start;
                self.q
                    .schedule(now + reconverge, crate::engine::Event::Reroute);
                if !up {
                    // A port whose link goes down loses what it had queued and on the wire.
                    for p in [2 * link, 2 * link + 1] {
                        self.flush_port(p);
                    }
                }
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

    /// Drop everything port `p` holds: its queues and the frames on its outgoing wire.
    fn flush_port(&mut self, p: u32) {
        let node = self.ports[p as usize].node;
        let out_local = self.ports[p as usize].local as usize;
        for q in 0..8u8 {
            while let Some(e) = self.ports[p as usize].dequeue(q) {
                if let crate::topology::NodeRef::Switch(s) = node {
                    let mmu = &mut self.switches[s as usize].mmu;
                    mmu.release(e.in_local as usize, e.tc, out_local, q, e.bytes as u64);
                    if e.lossless
                        && self.xoff[e.in_port as usize].held(e.tc)
                        && mmu.under_xon(e.in_local as usize, e.tc)
                    {
                        self.send_xon(e.in_port, e.tc);
                    }
                }
                self.totals.drops_fault += 1;
                self.drop_packet(e.pkt);
            }
        }
        while let Some((_, pkt)) = self.chans[p as usize].pop() {
            // Sent but never received: count it lost so the derived rx counters stay exact.
            let (tc, wire) = (self.arena.get(pkt).tc, self.arena.get(pkt).wire);
            let l = &mut self.lost[p as usize][tc as usize];
            l.0 += 1;
            l.1 += wire as u64;
            self.totals.drops_fault += 1;
            self.drop_packet(pkt);
        }
    }
}
