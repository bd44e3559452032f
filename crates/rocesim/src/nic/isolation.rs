//! A CI-aware end station (IEEE 802.1Qcz, end-station requirements; Congdon, Yu & Shen,
//! IEEE 802.1 DCB, September 2017): when its switch isolates a flow it sends, the NIC moves
//! the flow's QP to the congested-flow queue's priority, and back when the switch releases it.
//!
//! The QP keeps its DSCP (the switches still classify the flow into its class); only the
//! priority it is sent on changes, so the first switch charges its packets to the CFQ's
//! ingress priority group and pauses the CFQ's priority, which stops the isolated QPs alone
//! (the QP scheduler skips paused priorities per QP). The NIC builds a data packet only when
//! its port starts sending it, so no packet of the QP is queued at the NIC when it moves;
//! the switch places every packet by its own flow table whatever priority it arrives on, so
//! the move cannot reorder the flow.

use super::device::Nic;
use crate::engine::Ctx;
use crate::fabric::isolation::CIP_RELEASE;
use crate::nic::qp_state::QpState;
use crate::packet::Packet;

impl Nic {
    /// A CIP (or a release notice) for one of the flows this NIC sends: `cip.tc` is the
    /// flow's class, `cip.aux` the class's CFQ priority.
    pub(crate) fn on_cip(&mut self, cip: &Packet, ctx: &mut Ctx) {
        let Some(slot) = self.sender_slot(cip.flow, ctx) else {
            return;
        };
        let (class, cfq) = (cip.tc, cip.aux as u8);
        let r = self.senders.get(slot).expect("live QP");
        let (from, to) = if cip.psn == CIP_RELEASE {
            (cfq, class)
        } else {
            (class, cfq)
        };
        if r.sq.tc != from {
            return;
        }
        let c = &mut ctx.monitor.iso;
        if to == cfq {
            c.qp_moved += 1;
        } else {
            c.qp_returned += 1;
        }
        self.move_qp(slot, to, ctx);
    }

    /// QP `slot` now sends on priority `prio`.
    fn move_qp(&mut self, slot: u32, prio: u8, ctx: &mut Ctx) {
        let now = ctx.now;
        let r = self.senders.get_mut(slot).expect("live QP");
        r.sq.tc = prio;
        let (rank, st) = (r.rank, r.sq.state_at(now));
        r.state = st;
        if st != QpState::Done {
            let then_ready = st == QpState::Paced && !r.sq.window_full();
            let next = r.sq.next_send;
            self.sched.set_prio(rank, prio);
            self.sched.update(rank, st, next, then_ready);
        }
        self.try_send(ctx);
    }
}
