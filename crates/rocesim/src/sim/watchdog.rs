//! The watchdogs that contain PFC storms (Guo et al. 2016 §4.3, §6.2).
//!
//! NIC: when the receive pipeline has been stalled for `pfc_prevention_tout` (mlx5; default
//! 100 ms) while the NIC is sending pauses, it stops generating pauses for good
//! (`tx_pause_storm_error_events`). Its RX buffer then overflows and drops, and the fabric
//! behind it recovers.
//!
//! Switch (SONiC `PFC_WD`): every `poll_interval` each lossless egress queue is checked; one
//! that has been paused, non-empty and not transmitting for `detection_time` is *stormed*.
//! Action `drop` discards its queued and arriving lossless packets and ignores pauses;
//! `forward` ignores pauses; `alert` only records. A stormed queue is restored once no pause
//! frame has arrived for `restoration_time`. With `action = "drop"` and
//! `restoration_time = "200ms"` on server-facing ports this is Guo et al.'s ToR watchdog.

use super::Sim;
use crate::engine::Event;
use crate::fabric::params::WatchdogAction;
use crate::monitor::failures::{NicStormStats, WatchdogEvent, WatchdogQueueStats};
use crate::topology::NodeRef;
use crate::units::Time;

/// Watchdog state of one (port, priority).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WdQueue {
    /// Since when the queue has been seen paused, non-empty and idle (`NEVER`: it is not).
    pub candidate_since: Time,
    /// The queue is stormed.
    pub stormed: bool,
    /// Frames transmitted at the previous poll.
    pub tx_seen: u64,
    /// When the last pause frame (quanta > 0) arrived.
    pub last_pause: Time,
    /// SONiC counters: detected, restored, queued packets dropped, arriving packets dropped.
    pub detected: u64,
    pub restored: u64,
    pub tx_dropped: u64,
    pub rx_dropped: u64,
}

impl Default for WdQueue {
    fn default() -> Self {
        WdQueue {
            candidate_since: Time::NEVER,
            stormed: false,
            tx_seen: 0,
            last_pause: Time::ZERO,
            detected: 0,
            restored: 0,
            tx_dropped: 0,
            rx_dropped: 0,
        }
    }
}

impl Sim {
    /// Host `h`'s RX pipeline stalled at `now`: arm its NIC watchdog.
    pub(crate) fn nic_stall_started(&mut self, h: u32) {
        if let Some(tout) = self.scenario.nics[h as usize].pfc_prevention_tout {
            let t = self.now() + tout;
            self.q.schedule(t, Event::NicWatchdog(h));
        }
    }

    /// The NIC sent a pause while its pipeline is stalled (a storm begins).
    pub(crate) fn nic_storm_pause(&mut self, h: u32, prio: u8) {
        let rx = &self.hosts[h as usize].rx;
        if rx.stalled && self.nic_storm[h as usize].0 == self.nic_storm[h as usize].1 {
            self.nic_storm[h as usize].0 += 1;
            let port = self.hosts[h as usize].port;
            self.wd_log
                .push((self.now(), port, prio, "pause_storm_warning", "none"));
        }
    }

    pub(crate) fn on_nic_watchdog(&mut self, h: u32) {
        let now = self.now();
        let Some(tout) = self.scenario.nics[h as usize].pfc_prevention_tout else {
            return;
        };
        let host = &mut self.hosts[h as usize];
        if !host.rx.stalled || host.rx.pause_disabled || now < host.rx.stalled_since + tout {
            return;
        }
        let port = host.port;
        let held = self.xoff[port as usize].mask;
        if held == 0 {
            return;
        }
        host.rx.pause_disabled = true;
        self.nic_storm[h as usize].1 += 1;
        let mut m = held;
        while m != 0 {
            let prio = m.trailing_zeros() as u8;
            m &= m - 1;
            self.wd_log
                .push((now, port, prio, "pause_storm_error", "stop_pausing"));
            self.send_xon(port, prio);
        }
    }

    /// A pause frame with quanta > 0 arrived on `port` for `prio`.
    #[inline]
    pub(crate) fn wd_pause_seen(&mut self, port: u32, prio: u8) {
        if !self.wd.is_empty() {
            self.wd[port as usize * 8 + prio as usize].last_pause = self.now();
        }
    }

    pub(crate) fn on_watchdog_poll(&mut self, s: u32) {
        let now = self.now();
        let Some(p) = self.scenario.switches[s as usize].pfc_watchdog else {
            return;
        };
        let sw_ports = self.switches[s as usize].ports.clone();
        let lossless = self.switches[s as usize].pfc_enable;
        for port in sw_ports {
            let peer = self.ports[port as usize].peer;
            let faces_server = matches!(self.ports[peer as usize].node, NodeRef::Host(_));
            if p.server_facing_only && !faces_server {
                continue;
            }
            let mut prios = lossless;
            while prios != 0 {
                let prio = prios.trailing_zeros() as u8;
                prios &= prios - 1;
                self.wd_check(s, port, prio, &p, now);
            }
        }
        self.q
            .schedule(now + p.poll_interval, Event::WatchdogPoll(s));
    }

    fn wd_check(
        &mut self,
        s: u32,
        port: u32,
        prio: u8,
        p: &crate::fabric::params::WatchdogParams,
        now: Time,
    ) {
        let i = port as usize * 8 + prio as usize;
        let pt = &self.ports[port as usize];
        let q = pt.queue_of_prio[prio as usize];
        let tx = self.tx[self.tx_index(port as usize, prio as usize)].packets;
        let w = &mut self.wd[i];
        if w.stormed {
            w.tx_seen = tx;
            if now.saturating_sub(w.last_pause) >= p.restoration_time {
                w.stormed = false;
                w.restored += 1;
                w.candidate_since = Time::NEVER;
                let pt = &mut self.ports[port as usize];
                pt.pause_ignore &= !(1 << prio);
                pt.wd_drop &= !(1 << q);
                self.wd_log
                    .push((now, port, prio, "storm_restored", action_name(p.action)));
                self.try_send(port);
            }
            return;
        }
        let stuck = pt.pause.is_paused(prio) && pt.nonempty & (1 << q) != 0 && tx == w.tx_seen;
        w.tx_seen = tx;
        if !stuck {
            w.candidate_since = Time::NEVER;
            return;
        }
        if w.candidate_since == Time::NEVER {
            // It has not transmitted since the previous poll: stuck since then at least.
            w.candidate_since = now.saturating_sub(p.poll_interval);
        }
        if now - w.candidate_since < p.detection_time {
            return;
        }
        w.stormed = true;
        w.detected += 1;
        self.wd_log
            .push((now, port, prio, "storm_detected", action_name(p.action)));
        match p.action {
            WatchdogAction::Alert => {}
            WatchdogAction::Forward => self.ports[port as usize].pause_ignore |= 1 << prio,
            WatchdogAction::Drop => {
                let pt = &mut self.ports[port as usize];
                pt.pause_ignore |= 1 << prio;
                pt.wd_drop |= 1 << q;
                self.wd_flush(s, port, q, i);
            }
        }
        self.try_send(port);
    }

    /// Discard every packet queued at (`port`, `q`) of switch `s`.
    fn wd_flush(&mut self, s: u32, port: u32, q: u8, i: usize) {
        let out_local = self.ports[port as usize].local as usize;
        while let Some(e) = self.ports[port as usize].dequeue(q) {
            let mmu = &mut self.switches[s as usize].mmu;
            mmu.release(e.in_local as usize, e.tc, out_local, q, e.bytes as u64);
            if e.lossless
                && self.xoff[e.in_port as usize].held(e.tc)
                && mmu.under_xon(e.in_local as usize, e.tc)
            {
                self.send_xon(e.in_port, e.tc);
            }
            self.wd[i].tx_dropped += 1;
            self.totals.drops_fault += 1;
            self.drop_packet(e.pkt);
        }
    }

    /// Start the switches' watchdog polls (at build time).
    pub(crate) fn schedule_watchdogs(&mut self) {
        for s in 0..self.switches.len() {
            if let Some(p) = self.scenario.switches[s].pfc_watchdog {
                self.q
                    .schedule(p.poll_interval, Event::WatchdogPoll(s as u32));
            }
        }
    }

    /// Watchdog results: the action log, the counters of every queue a switch watchdog acted
    /// on, and the NICs' pause-storm counters.
    pub(crate) fn watchdog_records(
        &self,
    ) -> (
        Vec<WatchdogEvent>,
        Vec<WatchdogQueueStats>,
        Vec<NicStormStats>,
    ) {
        let name = |port: u32| self.node_name(self.ports[port as usize].node).to_string();
        let events = self
            .wd_log
            .iter()
            .map(|&(t, port, prio, event, action)| WatchdogEvent {
                time_ns: t.ns(),
                node: name(port),
                port: self.ports[port as usize].local as u32,
                prio,
                event: event.to_string(),
                action: action.to_string(),
            })
            .collect();
        let queues = self
            .wd
            .iter()
            .enumerate()
            .filter(|(_, w)| w.detected > 0)
            .map(|(i, w)| WatchdogQueueStats {
                node: name((i / 8) as u32),
                port: self.ports[i / 8].local as u32,
                queue: (i % 8) as u8,
                storm_detected: w.detected,
                storm_restored: w.restored,
                tx_dropped_packets: w.tx_dropped,
                rx_dropped_packets: w.rx_dropped,
            })
            .collect();
        let nics = self
            .nic_storm
            .iter()
            .enumerate()
            .filter(|(_, c)| c.0 + c.1 > 0)
            .map(|(h, c)| NicStormStats {
                node: self.scenario.topology.hosts[h].name.clone(),
                tx_pause_storm_warning_events: c.0,
                tx_pause_storm_error_events: c.1,
            })
            .collect();
        (events, queues, nics)
    }
}

fn action_name(a: WatchdogAction) -> &'static str {
    match a {
        WatchdogAction::Drop => "drop",
        WatchdogAction::Forward => "forward",
        WatchdogAction::Alert => "alert",
    }
}
