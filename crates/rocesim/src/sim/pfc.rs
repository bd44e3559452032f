//! PFC in the world: holding a peer paused (XOFF, refresh, XON) and honouring pauses.

use super::{PfcLogEntry, Sim};
use crate::engine::Event;
use crate::fabric::pfc::{refresh_interval, PauseChange};
use crate::monitor::PfcDir;
use crate::packet::PFC_WIRE;
use crate::topology::NodeRef;
use crate::units::Time;

impl Sim {
    /// Port `port`'s ingress priority `prio` crossed XOFF: pause the peer and keep it paused.
    pub(crate) fn send_xoff(&mut self, port: u32, prio: u8, quanta: u16) {
        let now = self.now();
        self.xoff[port as usize].set(prio);
        let p = &mut self.ports[port as usize];
        let t = now + refresh_interval(quanta, p.rate);
        p.refresh_at[prio as usize] = t;
        self.q.schedule(t, Event::PfcRefresh { port, prio });
        self.queue_pfc(port, prio, quanta);
    }

    /// Port `port`'s ingress priority `prio` fell below XON: resume the peer.
    pub(crate) fn send_xon(&mut self, port: u32, prio: u8) {
        self.xoff[port as usize].clear(prio);
        let p = &mut self.ports[port as usize];
        p.refresh_at[prio as usize] = Time::NEVER;
        self.queue_pfc(port, prio, 0);
    }

    fn queue_pfc(&mut self, port: u32, prio: u8, quanta: u16) {
        let p = &mut self.ports[port as usize];
        p.pfc_pending |= 1 << prio;
        p.pfc_quanta[prio as usize] = quanta;
        self.try_send(port);
    }

    /// Put the lowest pending PFC frame of port `p` on the wire, ahead of any data.
    pub(crate) fn send_pfc_frame(&mut self, p: u32) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        let prio = port.pfc_pending.trailing_zeros() as u8;
        port.pfc_pending &= !(1 << prio);
        let quanta = port.pfc_quanta[prio as usize];
        let ser = port.tx_time(PFC_WIRE as u64);
        port.busy_until = now + ser;
        let peer = port.peer;
        let at = port.busy_until + port.delay + self.ports[peer as usize].pfc_response;
        if self.chans[p as usize].up {
            self.q.schedule(
                at,
                Event::PauseArrive {
                    port: peer,
                    prio,
                    quanta,
                },
            );
        }
        if quanta > 0 {
            self.counters[p as usize * 8 + prio as usize].pause_tx += 1;
        }
        self.log_pfc(p, prio, PfcDir::Tx, quanta);
        self.wake_when_free(p);
    }

    /// A pause frame takes effect on egress port `port`.
    pub(crate) fn on_pause_arrive(&mut self, port: u32, prio: u8, quanta: u16) {
        let now = self.now();
        if quanta > 0 {
            self.counters[port as usize * 8 + prio as usize].pause_rx += 1;
            self.wd_pause_seen(port, prio);
        }
        self.log_pfc(port, prio, PfcDir::Rx, quanta);
        let p = &mut self.ports[port as usize];
        let change = p.pause.apply(prio, quanta, now, p.rate);
        let until = p.pause.until[prio as usize];
        self.pause_changed(port, prio, change, until);
    }

    pub(crate) fn on_pause_expire(&mut self, port: u32, prio: u8) {
        let now = self.now();
        let change = self.ports[port as usize].pause.expire(prio, now);
        self.pause_changed(port, prio, change, now);
    }

    fn pause_changed(&mut self, port: u32, prio: u8, change: PauseChange, until: Time) {
        match change {
            PauseChange::Paused | PauseChange::Refreshed => {
                if change == PauseChange::Paused {
                    self.paused_count += 1;
                }
                self.q.schedule(until, Event::PauseExpire { port, prio });
            }
            PauseChange::Resumed(d) => {
                self.paused_count -= 1;
                self.counters[port as usize * 8 + prio as usize].paused_ps += d.ps();
                self.try_send(port);
            }
            PauseChange::None => {}
        }
    }

    /// Re-send a held XOFF before the peer's timer runs out, or send XON if the buffer drained
    /// without a departure noticing it (the dynamic threshold grew).
    pub(crate) fn on_pfc_refresh(&mut self, port: u32, prio: u8) {
        let now = self.now();
        let p = &self.ports[port as usize];
        if p.refresh_at[prio as usize] != now || !self.xoff[port as usize].held(prio) {
            return;
        }
        let (under_xon, quanta) = match p.node {
            NodeRef::Switch(s) => {
                let sw = &self.switches[s as usize];
                (sw.mmu.under_xon(p.local as usize, prio), sw.pfc_quanta)
            }
            NodeRef::Host(h) => {
                let host = &self.hosts[h as usize];
                (
                    host.rx.under_xon() || host.rx.pause_disabled,
                    host.pfc_quanta,
                )
            }
        };
        if under_xon {
            self.send_xon(port, prio);
        } else {
            self.send_xoff(port, prio, quanta);
        }
    }

    fn log_pfc(&mut self, port: u32, prio: u8, dir: PfcDir, quanta: u16) {
        if self.pfc_log.len() < self.scenario.output.max_pfc_log {
            self.pfc_log.push(PfcLogEntry {
                time: self.now(),
                port,
                prio,
                dir,
                quanta,
            });
        } else {
            self.totals.pfc_log_truncated += 1;
        }
    }
}
