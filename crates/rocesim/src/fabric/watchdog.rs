//! The switch PFC watchdog (SONiC `PFC_WD`; Guo et al. 2016 §4.3, §6.2).
//!
//! Every `poll_interval` each lossless egress queue is checked; one that has been paused,
//! non-empty and not transmitting for `detection_time` is *stormed*. Action `drop` discards
//! its queued and arriving lossless packets and ignores pauses; `forward` ignores pauses;
//! `alert` only records. A stormed queue is restored once no pause frame has arrived for
//! `restoration_time`. With `action = "drop"` and `restoration_time = "200ms"` on
//! server-facing ports this is Guo et al.'s ToR watchdog.

use super::params::{WatchdogAction, WatchdogParams};
use super::port::Port;
use super::switch::Switch;
use crate::engine::{Ctx, Event};
use crate::ids::{PerPrio, Priority, QueueId};
use crate::units::Time;

/// Watchdog state of one (port, priority).
#[derive(Clone, Copy, Debug)]
pub struct WdQueue {
    /// Since when the queue has been seen paused, non-empty and idle (`NEVER`: it is not).
    pub candidate_since: Time,
    /// The queue is stormed.
    pub stormed: bool,
    /// Frames transmitted at the previous poll.
    pub tx_seen: u64,
    /// When the last pause frame (quanta > 0) arrived.
    pub last_pause: Time,
    /// SONiC `PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED`.
    pub detected: u64,
    /// SONiC `PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED`.
    pub restored: u64,
    /// Queued packets dropped by the `drop` action.
    pub tx_dropped: u64,
    /// Arriving packets dropped by the `drop` action.
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

/// A switch's PFC watchdog: its parameters and the state of every (port, priority).
#[derive(Clone, Debug)]
pub struct PfcWatchdog {
    /// SONiC `PFC_WD` parameters.
    pub params: WatchdogParams,
    /// State per local port and priority.
    pub queues: Vec<PerPrio<WdQueue>>,
}

/// SONiC's name of an action.
pub fn action_name(a: WatchdogAction) -> &'static str {
    match a {
        WatchdogAction::Drop => "drop",
        WatchdogAction::Forward => "forward",
        WatchdogAction::Alert => "alert",
    }
}

impl Switch {
    /// The watchdog polls every lossless queue of the ports it watches.
    pub fn on_watchdog_poll(&mut self, ctx: &mut Ctx) {
        let Some(p) = self.watchdog.as_ref().map(|w| w.params) else {
            return;
        };
        for l in 0..self.ports.len() {
            if p.server_facing_only && !self.ports[l].faces_host {
                continue;
            }
            for prio in Priority::in_mask(self.pfc_enable) {
                self.wd_check(l, prio, &p, ctx);
            }
        }
        ctx.schedule(ctx.now + p.poll_interval, Event::WatchdogPoll(self.id));
    }

    fn wd_check(&mut self, l: usize, prio: Priority, p: &WatchdogParams, ctx: &mut Ctx) {
        let now = ctx.now;
        let port = &mut self.ports[l];
        let q = port.queue_of(prio);
        let tx = port.tx_counters(prio, &ctx.monitor).packets;
        let wd = self.watchdog.as_mut().expect("polled");
        let w = &mut wd.queues[l][prio];
        if w.stormed {
            w.tx_seen = tx;
            if now.saturating_sub(w.last_pause) >= p.restoration_time {
                w.stormed = false;
                w.restored += 1;
                w.candidate_since = Time::NEVER;
                port.set_pause_ignored(prio, false);
                port.wd_drop &= !q.bit();
                let action = action_name(p.action);
                ctx.monitor
                    .log_watchdog(now, port.id, prio, "storm_restored", action);
                self.try_send(l as u16, ctx);
            }
            return;
        }
        let stuck = port.pause.is_paused(prio.0) && port.nonempty & q.bit() != 0 && tx == w.tx_seen;
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
        ctx.monitor
            .log_watchdog(now, port.id, prio, "storm_detected", action_name(p.action));
        act(port, prio, q, p.action);
        if p.action == WatchdogAction::Drop {
            self.wd_flush(l, q, prio, ctx);
        }
        self.try_send(l as u16, ctx);
    }

    /// Discard every packet queued at (port `l`, queue `q`).
    fn wd_flush(&mut self, l: usize, q: QueueId, prio: Priority, ctx: &mut Ctx) {
        while let Some(e) = self.ports[l].dequeue(q) {
            self.release(&e, l, q, ctx);
            if let Some(wd) = &mut self.watchdog {
                wd.queues[l][prio].tx_dropped += 1;
            }
            ctx.monitor.totals.drops_fault += 1;
            ctx.drop_packet(e.pkt());
        }
    }
}

/// Apply a storm action to the port: ignore pauses (`forward`, `drop`) and discard lossless
/// packets (`drop`).
fn act(port: &mut Port, prio: Priority, q: QueueId, action: WatchdogAction) {
    match action {
        WatchdogAction::Alert => {}
        WatchdogAction::Forward => port.set_pause_ignored(prio, true),
        WatchdogAction::Drop => {
            port.set_pause_ignored(prio, true);
            port.wd_drop |= q.bit();
        }
    }
}
