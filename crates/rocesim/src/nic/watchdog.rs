//! The NIC's PFC storm guard (mlx5 `pfc_prevention_tout`; Guo et al. 2016 §4.3): when the
//! receive pipeline has been stalled for the timeout while the NIC is sending pauses, the
//! NIC stops generating pauses for good (`tx_pause_storm_error_events`). Its RX buffer then
//! overflows and drops, and the fabric behind it recovers.

use super::device::Nic;
use crate::engine::{Ctx, Event};
use crate::ids::Priority;
use crate::units::Time;

/// The storm guard's setting and mlx5 counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct StormGuard {
    /// `pfc_prevention_tout`; `None` disables the guard.
    pub timeout: Option<Time>,
    /// `tx_pause_storm_warning_events`.
    pub warnings: u64,
    /// `tx_pause_storm_error_events`.
    pub errors: u64,
}

impl Nic {
    /// A fault stalls (`stalled`) or restarts the receive pipeline.
    pub fn set_rx_stall(&mut self, stalled: bool, ctx: &mut Ctx) {
        self.rx.stalled = stalled;
        if stalled {
            self.rx.stalled_since = ctx.now;
            if let Some(tout) = self.storm.timeout {
                ctx.schedule(ctx.now + tout, Event::NicWatchdog(self.id));
            }
        } else {
            self.rx_start(ctx);
        }
    }

    /// The NIC sent a pause for `prio`: while the pipeline is stalled a storm begins.
    pub(crate) fn storm_pause_sent(&mut self, prio: Priority, ctx: &mut Ctx) {
        let g = &mut self.storm;
        if self.rx.stalled && g.warnings == g.errors {
            g.warnings += 1;
            ctx.monitor
                .log_watchdog(ctx.now, self.port.id, prio, "pause_storm_warning", "none");
        }
    }

    /// The guard's timer: stop pausing if the pipeline is still stalled and pauses are held.
    pub fn on_storm_check(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let Some(tout) = self.storm.timeout else {
            return;
        };
        let rx = &mut self.rx;
        if !rx.stalled || rx.pause_disabled || now < rx.stalled_since + tout {
            return;
        }
        let held = self.xoff.mask;
        if held == 0 {
            return;
        }
        rx.pause_disabled = true;
        self.storm.errors += 1;
        for prio in Priority::in_mask(held) {
            ctx.monitor
                .log_watchdog(now, self.port.id, prio, "pause_storm_error", "stop_pausing");
            self.port.send_xon(&mut self.xoff, prio, ctx);
        }
    }
}
