//! A frame that leaves a switch as it arrives. At moderate load most frames find their
//! egress port idle with empty queues: the scheduler would pick them at once, and their
//! admission to the buffer would be undone by their release in the same instant. When
//! nothing observes them in the queue (no ECN marking, no congestion isolation) and the
//! admission would neither take headroom, nor drop, nor cross XOFF (`Mmu::pass`), the frame
//! goes straight to the wire: the same decision as the full path (`Switch::enqueue`,
//! `Switch::depart`) without the two accounting updates that cancel out.

use super::isolation::Placement;
use super::switch::Switch;
use crate::engine::{handle, Ctx};
use crate::ids::{Priority, QueueId};

impl Switch {
    /// Does a packet of `size` bytes from (`inl`, `pg`) to (`outl`, `q`) leave at once
    /// without a trace in the buffer? Its egress port would send it now (idle, queues empty,
    /// not paused), nothing observes it in the queue (no ECN marking, no congestion
    /// isolation; an INT record is stamped as at any departure), its PG does not hold XOFF
    /// (its release would look for XON), and [`Mmu::pass`] finds its admission and release a
    /// no-op. The path of most frames at moderate load; anything else takes the queue.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn passes<const PLAIN: bool>(
        &mut self,
        inl: usize,
        pg: Priority,
        outl: usize,
        q: QueueId,
        size: u64,
        lossless: bool,
        ctx: &Ctx,
    ) -> bool {
        let port = handle::at(&self.ports, outl);
        !self.isolating::<PLAIN>()
            && port.would_send_at_once(q, ctx)
            && self.marker.marks(port.ecn_queues, q).is_none()
            && !(lossless && ctx.xoff.get(self.id, inl).mask & self.pg_prios[pg.idx()] != 0)
            && self.mmu.pass(inl, pg, outl, q, size, lossless)
    }

    /// Packet `pkt_id` (`wire` bytes on the wire, with an INT record if `int`), placed by
    /// `place`, leaves on local port `outl` as it arrives ([`Switch::passes`]): admitted and
    /// gone at once, the buffer as it was. `next` is its egress port at the next switch.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn send_at_once(
        &mut self,
        pkt_id: u32,
        place: Placement,
        outl: usize,
        wire: u32,
        int: bool,
        next: u16,
        ctx: &mut Ctx,
    ) {
        ctx.packets.get_mut(pkt_id).tc = place.wire.0;
        let prio = if self.pg_identity {
            place.pg
        } else {
            place.wire
        };
        if int {
            self.stamp_int(pkt_id, wire, outl, place.queue, ctx);
        }
        handle::at_mut(&mut self.ports, outl).start_tx_ahead(pkt_id, wire, prio, false, next, ctx);
    }
}
