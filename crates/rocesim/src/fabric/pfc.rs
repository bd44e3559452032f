//! PFC (IEEE 802.1Qbb), both sides of a pause, for switch and NIC ports alike.
//!
//! Sending side: when an ingress priority group crosses XOFF its owner calls
//! [`Port::send_xoff`]; the port queues a pause frame ahead of any data and re-sends it at
//! half its duration ([`refresh_interval`]) while the PG stays above XON; below XON
//! [`Port::send_xon`] sends quanta 0. The frame reaches the peer one serialization plus one
//! propagation delay later and takes effect after the peer's 802.3 Annex 31B response time.
//!
//! Receiving side: a pause frame carries quanta per priority; one quantum is 512 bit times at
//! the link rate. While a priority is paused the port may finish the frame on the wire but
//! starts no new frame of that priority ([`EgressPause`]). Quanta 0 resumes at once. Later
//! frames replace the timer.

use super::link::Loss;
use super::port::Port;
use crate::engine::{Ctx, Event, Remote};
use crate::ids::Priority;
use crate::monitor::PfcDir;
use crate::packet::PFC_WIRE;
use crate::units::{Rate, Time};

/// Pause state of the 8 priorities of one egress port.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct EgressPause {
    /// Bitmask of paused priorities (first: it is what the transmit path reads).
    pub mask: u8,
    /// When each priority's pause runs out.
    pub until: [Time; 8],
    /// When each priority's current pause began (valid while paused).
    pub since: [Time; 8],
}

impl Default for EgressPause {
    fn default() -> Self {
        EgressPause {
            until: [Time::ZERO; 8],
            since: [Time::ZERO; 8],
            mask: 0,
        }
    }
}

/// Outcome of applying a pause frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseChange {
    /// The priority was not paused and now is; a timer must be set for `until`.
    Paused,
    /// The pause was extended or shortened; a timer must be set for `until`.
    Refreshed,
    /// The priority resumed after being paused for this long.
    Resumed(Time),
    /// Nothing changed (a resume for a priority that was not paused).
    None,
}

impl EgressPause {
    /// Is `prio` paused?
    #[inline]
    pub fn is_paused(&self, prio: u8) -> bool {
        self.mask & (1 << prio) != 0
    }
    /// Apply a pause frame for `prio` with `quanta` at `now` on a link of `rate`.
    pub fn apply(&mut self, prio: u8, quanta: u16, now: Time, rate: Rate) -> PauseChange {
        let p = prio as usize;
        if quanta == 0 {
            return self.resume(prio, now);
        }
        self.until[p] = now + super::params::quanta_time(quanta as u64, rate);
        if self.is_paused(prio) {
            PauseChange::Refreshed
        } else {
            self.mask |= 1 << prio;
            self.since[p] = now;
            PauseChange::Paused
        }
    }
    /// A pause timer fired: resume if it really ran out (a refresh may have extended it).
    pub fn expire(&mut self, prio: u8, now: Time) -> PauseChange {
        if self.is_paused(prio) && self.until[prio as usize] <= now {
            self.resume(prio, now)
        } else {
            PauseChange::None
        }
    }
    fn resume(&mut self, prio: u8, now: Time) -> PauseChange {
        if !self.is_paused(prio) {
            return PauseChange::None;
        }
        self.mask &= !(1 << prio);
        self.until[prio as usize] = now;
        PauseChange::Resumed(now - self.since[prio as usize])
    }
}

/// Ingress-side XOFF state of one priority group: whether we hold the peer paused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XoffState {
    /// Bitmask of priorities for which XOFF was sent and XON not yet.
    pub mask: u8,
}

impl XoffState {
    /// Is XOFF held for `prio`?
    #[inline]
    pub fn held(&self, prio: Priority) -> bool {
        self.mask & prio.bit() != 0
    }
    /// Mark XOFF sent.
    #[inline]
    pub fn set(&mut self, prio: Priority) {
        self.mask |= prio.bit();
    }
    /// Mark XON sent.
    #[inline]
    pub fn clear(&mut self, prio: Priority) {
        self.mask &= !prio.bit();
    }
}

/// How long before a pause expires the holder re-sends it: half the pause time, so one lost
/// or late refresh never lets the peer resume early.
pub fn refresh_interval(quanta: u16, rate: Rate) -> Time {
    let t = super::params::quanta_time(quanta as u64, rate);
    Time((t.0 / 2).max(1))
}

impl Port {
    /// This port's ingress priority `prio` crossed XOFF: pause the peer (`quanta`) and keep
    /// it paused with refreshes.
    pub fn send_xoff(&mut self, xoff: &mut XoffState, prio: Priority, quanta: u16, ctx: &mut Ctx) {
        xoff.set(prio);
        let t = ctx.now + refresh_interval(quanta, self.rate);
        self.refresh_at[prio.idx()] = t;
        ctx.schedule(
            t,
            Event::PfcRefresh {
                port: self.id.0,
                prio: prio.0,
            },
        );
        self.queue_pfc(prio, quanta, ctx);
    }

    /// This port's ingress priority `prio` fell below XON: resume the peer.
    pub fn send_xon(&mut self, xoff: &mut XoffState, prio: Priority, ctx: &mut Ctx) {
        xoff.clear(prio);
        self.refresh_at[prio.idx()] = Time::NEVER;
        self.queue_pfc(prio, 0, ctx);
    }

    /// Is the refresh of the XOFF held for `prio` due now (not stale, still held)?
    pub fn refresh_due(&self, xoff: &XoffState, prio: Priority, now: Time) -> bool {
        self.refresh_at[prio.idx()] == now && xoff.held(prio)
    }

    fn queue_pfc(&mut self, prio: Priority, quanta: u16, ctx: &mut Ctx) {
        self.pfc_pending |= prio.bit();
        self.pfc_quanta[prio.idx()] = quanta;
        if self.busy_until > ctx.now {
            self.wake_when_free(ctx);
        } else {
            self.send_pfc_frame(ctx);
        }
    }

    /// Put the lowest pending PFC frame on the wire, ahead of any data.
    pub fn send_pfc_frame(&mut self, ctx: &mut Ctx) {
        let prio = Priority(self.pfc_pending.trailing_zeros() as u8);
        self.pfc_pending &= !prio.bit();
        let quanta = self.pfc_quanta[prio.idx()];
        self.busy_until = ctx.now + self.tx_time(PFC_WIRE as u64);
        let at = self.busy_until + self.delay + self.peer_response;
        let lost = self.wire.loss != Loss::None && self.wire.drops_next(false);
        if lost {
            ctx.monitor.totals.drops_fault += 1;
        } else if self.wire.up {
            let port = self.id.peer().0;
            let prio = prio.0;
            let ev = Event::PauseArrive { port, prio, quanta };
            match self.wire.cut {
                true => ctx.outbox.push(Remote {
                    at,
                    ev,
                    frame: None,
                }),
                false => ctx.schedule(at, ev),
            }
        }
        if quanta > 0 {
            ctx.monitor.port_prio[self.id.idx()][prio].pause_tx += 1;
        }
        ctx.monitor
            .log_pfc(ctx.now, self.id, prio, PfcDir::Tx, quanta);
        self.wake_when_free(ctx);
    }

    /// A pause frame for `prio` takes effect on this (egress) port. Returns true when a
    /// priority resumed (the owner should try to send).
    pub fn on_pause_frame(&mut self, prio: Priority, quanta: u16, ctx: &mut Ctx) -> bool {
        ctx.monitor
            .log_pfc(ctx.now, self.id, prio, PfcDir::Rx, quanta);
        let change = self.pause.apply(prio.0, quanta, ctx.now, self.rate);
        self.refresh_paused();
        let until = self.pause.until[prio.idx()];
        self.pause_changed(prio, change, until, ctx)
    }

    /// The pause timer of `prio` may have run out. Returns true when the priority resumed.
    pub fn on_pause_expire(&mut self, prio: Priority, ctx: &mut Ctx) -> bool {
        let change = self.pause.expire(prio.0, ctx.now);
        self.refresh_paused();
        self.pause_changed(prio, change, ctx.now, ctx)
    }

    fn pause_changed(
        &mut self,
        prio: Priority,
        change: PauseChange,
        until: Time,
        ctx: &mut Ctx,
    ) -> bool {
        match change {
            PauseChange::Paused | PauseChange::Refreshed => {
                if change == PauseChange::Paused {
                    ctx.monitor.paused_count += 1;
                }
                let (port, prio) = (self.id.0, prio.0);
                ctx.schedule(until, Event::PauseExpire { port, prio });
                false
            }
            PauseChange::Resumed(d) => {
                let m = &mut ctx.monitor;
                m.paused_count -= 1;
                m.port_prio[self.id.idx()][prio].paused_ps += d.ps();
                m.pause_intervals.push((self.id, prio, ctx.now - d, d));
                true
            }
            PauseChange::None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::params::quanta_time;

    #[test]
    fn max_pause_durations_match_802_1qbb() {
        // 65535 quanta × 512 bit times = 33,553,920 bits: 838.848 us at 40G, 335.5392 us at 100G.
        assert_eq!(quanta_time(65535, Rate::gbps(40)), Time(838_848_000));
        assert_eq!(quanta_time(65535, Rate::gbps(100)), Time(335_539_200));
        assert_eq!(quanta_time(1, Rate::gbps(400)), Time(1_280));
    }

    #[test]
    fn pause_refresh_and_resume() {
        let mut e = EgressPause::default();
        let r = Rate::gbps(100);
        assert_eq!(e.apply(3, 100, Time(0), r), PauseChange::Paused);
        assert!(e.is_paused(3) && !e.is_paused(0));
        assert_eq!(e.apply(3, 100, Time(100_000), r), PauseChange::Refreshed);
        // The first timer (at 512 ns) is stale after the refresh.
        assert_eq!(e.expire(3, Time(512_000)), PauseChange::None);
        assert_eq!(
            e.expire(3, Time(612_000)),
            PauseChange::Resumed(Time(612_000))
        );
        assert_eq!(e.apply(3, 0, Time(700_000), r), PauseChange::None);
    }
}
