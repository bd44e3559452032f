//! A switch's part in PFC (IEEE 802.1Qbb), as the MMU's accounting drives it
//! (`fabric/switch.rs`): an ingress priority group crossing XOFF pauses its priorities on the
//! upstream link, one falling below XON resumes them, a held XOFF is refreshed before the
//! peer's pause timer runs out, and pause frames received on an egress port stop and restart
//! its queues. The frames themselves and the per-port pause state are `fabric/pfc.rs`'s.

use super::Switch;
use crate::engine::{handle, Ctx};
use crate::ids::Priority;

impl Switch {
    /// Ingress PG `pg` of local port `inl` crossed XOFF: pause every PFC-enabled priority
    /// mapped to it that is not paused yet (one frame each, lowest priority first).
    pub(super) fn pause_pg(&mut self, inl: usize, pg: Priority, ctx: &mut Ctx) {
        let mut xoff = ctx.xoff.get(self.id, inl);
        let mut m = self.pg_prios[pg.idx()] & !xoff.mask;
        while m != 0 {
            let prio = Priority(m.trailing_zeros() as u8);
            m &= m - 1;
            let quanta = self.pfc_quanta;
            handle::at_mut(&mut self.ports, inl).send_xoff(&mut xoff, prio, quanta, ctx);
        }
        *ctx.xoff.get_mut(self.id, inl) = xoff;
    }

    /// Resume the priorities of PG `pg` on local port `inl` if the PG fell below XON.
    #[inline]
    pub(super) fn resume_pg(&mut self, inl: usize, pg: Priority, ctx: &mut Ctx) {
        if !self.mmu.under_xon(inl, pg) {
            return;
        }
        let mut xoff = ctx.xoff.get(self.id, inl);
        let mut m = self.pg_prios[pg.idx()] & xoff.mask;
        while m != 0 {
            let prio = Priority(m.trailing_zeros() as u8);
            m &= m - 1;
            handle::at_mut(&mut self.ports, inl).send_xon(&mut xoff, prio, ctx);
        }
        *ctx.xoff.get_mut(self.id, inl) = xoff;
    }

    /// A pause frame takes effect on egress port `l`.
    pub fn on_pause_arrive(&mut self, l: u16, prio: Priority, quanta: u16, ctx: &mut Ctx) {
        let port = &mut self.ports[l as usize];
        if quanta > 0 {
            ctx.monitor.port_prio[port.id.idx()][prio].pause_rx += 1;
            if let Some(wd) = &mut self.watchdog {
                wd.queues[l as usize][prio].last_pause = ctx.now;
            }
        }
        if port.on_pause_frame(prio, quanta, ctx) {
            self.try_send(l, ctx);
        }
    }

    /// The pause timer of egress port `l`'s priority `prio` may have run out.
    pub fn on_pause_expire(&mut self, l: u16, prio: Priority, ctx: &mut Ctx) {
        if self.ports[l as usize].on_pause_expire(prio, ctx) {
            self.try_send(l, ctx);
        }
    }

    /// Re-send a held XOFF before the peer's timer runs out, or send XON if the PG drained
    /// without a departure noticing it (the dynamic threshold grew).
    pub fn on_pfc_refresh(&mut self, l: u16, prio: Priority, ctx: &mut Ctx) {
        let l = l as usize;
        let mut xoff = ctx.xoff.get(self.id, l);
        if !self.ports[l].refresh_due(&xoff, prio, ctx.now) {
            return;
        }
        if self.mmu.under_xon(l, self.tc_to_pg[prio.idx()]) {
            self.ports[l].send_xon(&mut xoff, prio, ctx);
        } else {
            let quanta = self.pfc_quanta;
            self.ports[l].send_xoff(&mut xoff, prio, quanta, ctx);
        }
        *ctx.xoff.get_mut(self.id, l) = xoff;
    }
}
