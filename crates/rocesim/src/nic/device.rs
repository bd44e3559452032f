//! The RDMA NIC as a component: its port, its QPs (requester and responder sides), its
//! receive pipeline and its pause-storm guard, and the events addressed to them.
//!
//! A packet's life at a NIC: the QP scheduler (`sender.rs`) builds the next data packet when
//! the port frees up; the wire takes it; at the far NIC the RX pipeline (`rx_pipeline.rs`)
//! hands it to the responder (`responder.rs`), which acknowledges it and, when it arrived
//! CE-marked, sends a CNP; back at the sender the requester (`requester.rs`) advances the PSN
//! window and feeds congestion control (`cc/`).

use super::memory::NicMemory;
use super::qp::{Requester, Responder, Slots};
use super::ready::ReadyList;
use super::recovery_stats::RecoveryCounters;
use super::rx_pipeline::RxPipeline;
use super::selective::Selective;
use super::watchdog::StormGuard;
use crate::engine::Ctx;
use crate::fabric::pfc::XoffState;
use crate::fabric::port::{Port, QEntry};
use crate::ids::{Priority, QueueId};
use crate::units::Time;

/// One host's NIC. The layout is fixed (`repr(C)`, cache-line aligned) so that what every
/// packet it sends or receives reads sits in a few whole lines: the port's first line, then
/// one line with its id, pause state and requester table header, one with the responder
/// table header, the QP scheduler's first line and the receive pipeline's (see the layout
/// test at the end of this file). Left to the compiler, those fields were spread over five
/// lines, a table header across two.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Nic {
    /// Its one port.
    pub port: Port,
    // The line after the port's.
    /// Its host's index.
    pub id: u32,
    /// The priorities for which it holds its switch paused (RX buffer over XOFF).
    pub xoff: XoffState,
    /// Lossless priorities (bitmask).
    pub pfc_enable: u8,
    /// Quanta of its pause frames.
    pub pfc_quanta: u16,
    /// When a pending NicWake fires (`NEVER` = none pending).
    pub wake_at: Time,
    /// Requester QPs of the flows it sends.
    pub senders: Slots<Requester>,
    // The next line.
    /// Responder QPs of the flows it receives.
    pub responders: Slots<Responder>,
    /// Its on-chip caches; `None` = an ideal NIC (`nic.cache = "off"`).
    pub mem: Option<Box<NicMemory>>,
    /// Requester QPs started and not fully acknowledged, in round-robin order, with the
    /// ones that may send now (starts a line of its own).
    pub sched: ReadyList,
    /// The receive pipeline (starts a line of its own).
    pub rx: RxPipeline,
    /// Selective-repeat state of its IRN and SRNIC QPs.
    pub irn: Selective,
    /// Its loss-recovery counters.
    pub recovery: RecoveryCounters,
    /// The NIC's PFC storm guard (mlx5 `pfc_prevention_tout`).
    pub storm: StormGuard,
}

impl Nic {
    /// The port is free: send a control packet if one waits, else the next data packet. A
    /// port still serializing only makes sure it is woken when it frees up (inline).
    #[inline(always)]
    pub fn try_send(&mut self, ctx: &mut Ctx) {
        if self.port.busy(ctx) {
            self.port.wake_when_free(ctx);
        } else {
            self.try_send_now(ctx);
        }
    }

    /// The transmit attempt of [`Nic::try_send`].
    #[inline(never)]
    fn try_send_now(&mut self, ctx: &mut Ctx) {
        if !self.port.ready_for_data(ctx) {
            return;
        }
        if let Some(e) = self.dequeue(ctx) {
            let more = !self.sched.is_empty();
            self.port.start_tx(e.pkt(), e.wire(), e.tc(), more, ctx);
        }
    }

    fn dequeue(&mut self, ctx: &mut Ctx) -> Option<QEntry> {
        let eligible = self.port.eligible();
        if eligible != 0 {
            let q = QueueId(7 - eligible.leading_zeros() as u8);
            return self.port.dequeue(q);
        }
        self.next_data(ctx)
    }

    /// The port finished serializing its frame. Inlined into the run loop, as the switch's
    /// (`Switch::on_tx_done`).
    #[inline(always)]
    pub fn on_tx_done(&mut self, ctx: &mut Ctx) {
        self.port.txdone_pending = false;
        self.try_send(ctx);
    }

    /// A pause frame from the switch takes effect on the NIC's port.
    pub fn on_pause_arrive(&mut self, prio: Priority, quanta: u16, ctx: &mut Ctx) {
        if quanta > 0 {
            ctx.monitor.port_prio[self.port.id.idx()][prio].pause_rx += 1;
        }
        if self.port.on_pause_frame(prio, quanta, ctx) {
            self.try_send(ctx);
        }
    }

    /// The pause timer of priority `prio` may have run out.
    pub fn on_pause_expire(&mut self, prio: Priority, ctx: &mut Ctx) {
        if self.port.on_pause_expire(prio, ctx) {
            self.try_send(ctx);
        }
    }

    /// Refresh the pause the NIC holds on its switch, or resume it when the RX buffer drained
    /// (or the storm guard disabled pausing).
    pub fn on_pfc_refresh(&mut self, prio: Priority, ctx: &mut Ctx) {
        if !self.port.refresh_due(&self.xoff, prio, ctx.now) {
            return;
        }
        if self.rx.under_xon() || self.rx.pause_disabled {
            self.port.send_xon(&mut self.xoff, prio, ctx);
        } else {
            let quanta = self.pfc_quanta;
            self.port.send_xoff(&mut self.xoff, prio, quanta, ctx);
        }
    }

    /// The rate limiter may let a QP send again.
    pub fn on_wake(&mut self, ctx: &mut Ctx) {
        if self.wake_at == ctx.now {
            self.wake_at = Time::NEVER;
        }
        self.try_send(ctx);
    }

    /// Open the requester side of a flow at `now`; it joins the round robin, last. Returns
    /// its slot.
    pub fn open_requester(&mut self, r: Requester, now: Time) -> u32 {
        let tc = r.sq.tc;
        let slot = self.senders.insert(r);
        if self.sched.needs_compaction() {
            let senders = &mut self.senders;
            self.sched
                .compact(|s, rank| senders.get_mut(s).expect("live QP").rank = rank);
        }
        let rank = self.sched.open(slot, tc);
        self.senders.get_mut(slot).expect("live QP").rank = rank;
        self.settle(slot, now);
        slot
    }

    /// Release the requester side of flow `flow` (complete, and nothing of it can reach
    /// the NIC any more).
    pub fn release_requester(&mut self, slot: u32, flow: u32) {
        if self.senders.get(slot).is_some_and(|r| r.flow == flow) {
            self.senders.remove(slot);
        }
    }

    /// Open the responder side of a flow. Returns its slot.
    pub fn open_responder(&mut self, r: Responder) -> u32 {
        self.responders.insert(r)
    }

    /// Close the responder side of a flow whose requester has completed.
    pub fn close_responder(&mut self, slot: u32, flow: u32) {
        if self.responders.get(slot).is_some_and(|r| r.flow == flow) {
            self.responders.remove(slot);
        }
    }

    /// The link went down: drop what the port holds, queued and on the wire.
    pub fn flush_port(&mut self, ctx: &mut Ctx) {
        for q in QueueId::all() {
            while let Some(e) = self.port.dequeue(q) {
                ctx.monitor.totals.drops_fault += 1;
                ctx.drop_packet(e.pkt());
            }
        }
        self.port.flush_wire(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The line (of an aligned NIC) where a field of `size` bytes at `offset` starts, and
    /// the one where it ends.
    fn lines(offset: usize, size: usize) -> (usize, usize) {
        (offset / 64, (offset + size - 1) / 64)
    }

    #[test]
    fn per_packet_fields_fill_few_cache_lines() {
        assert_eq!(std::mem::align_of::<Nic>(), 64);
        let hot = offset_of!(Nic, id) / 64;
        assert_eq!(offset_of!(Nic, id) % 64, 0, "the hot line follows the port");
        for (name, at, size) in [
            ("xoff", offset_of!(Nic, xoff), size_of::<XoffState>()),
            ("pfc_enable", offset_of!(Nic, pfc_enable), 1),
            ("wake_at", offset_of!(Nic, wake_at), 8),
            (
                "senders",
                offset_of!(Nic, senders),
                size_of::<Slots<Requester>>(),
            ),
        ] {
            assert_eq!(lines(at, size), (hot, hot), "{name}");
        }
        let next = lines(offset_of!(Nic, responders), size_of::<Slots<Responder>>());
        assert_eq!(
            next,
            (hot + 1, hot + 1),
            "responders: one line of their own"
        );
        assert_eq!(
            offset_of!(Nic, sched) % 64,
            0,
            "the scheduler starts a line"
        );
        assert_eq!(
            offset_of!(Nic, rx) % 64,
            0,
            "the receive pipeline starts a line"
        );
    }
}
