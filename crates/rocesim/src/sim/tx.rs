//! A port puts frames on the wire: PFC frames first, then what its scheduler picks; the frame
//! occupies the port for its serialization time and reaches the peer one propagation delay
//! after its last bit left.

use super::Sim;
use crate::engine::Event;
use crate::fabric::link::Loss;
use crate::packet::PacketKind;
use crate::topology::NodeRef;
use rand::RngExt;

impl Sim {
    /// Start the next frame on port `p` if it is free; if it is busy, make sure it is woken
    /// when it frees up.
    pub(crate) fn try_send(&mut self, p: u32) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        if port.busy_until > now {
            self.wake_when_free(p);
            return;
        }
        if port.pfc_pending != 0 {
            self.send_pfc_frame(p);
            return;
        }
        let next = match port.node {
            NodeRef::Switch(s) => self.switch_dequeue(s, p),
            NodeRef::Host(h) => self.host_dequeue(h, p),
        };
        if let Some(e) = next {
            self.start_tx(p, e.pkt, e.wire(), e.tc);
        }
    }

    /// Serialize packet `pkt_id` (`wire` bytes, priority `tc`) on port `p` now.
    fn start_tx(&mut self, p: u32, pkt_id: u32, wire: u32, tc: u8) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        let ser = port.tx_time(wire as u64);
        port.busy_until = now + ser;
        let arrive = port.busy_until + port.delay;
        let more = port.nonempty != 0 || port.pfc_pending != 0;
        let is_host = matches!(port.node, NodeRef::Host(_));
        let ti = self.tx_index(p as usize, tc as usize);
        let c = &mut self.tx[ti];
        c.packets += 1;
        c.bytes += wire as u64;
        self.tx_port_bytes[p as usize] += wire as u64;
        let ch = &mut self.chans[p as usize];
        let rng = &mut self.loss_rng;
        let arena = &self.arena;
        let lost = !ch.up
            || ch.loss != Loss::None
                && arena.get(pkt_id).kind == PacketKind::Data
                && ch.drops_next(|| rng.random::<f64>());
        if lost {
            let l = &mut self.lost[p as usize][tc as usize];
            l.0 += 1;
            l.1 += wire as u64;
            self.totals.drops_fault += 1;
            self.drop_packet(pkt_id);
        } else if ch.push(arrive, pkt_id) {
            self.q.schedule(arrive, Event::LinkArrive(p));
        }
        let host_more = is_host && {
            let NodeRef::Host(h) = self.ports[p as usize].node else {
                unreachable!()
            };
            !self.hosts[h as usize].active.is_empty()
        };
        if more || host_more {
            self.wake_when_free(p);
        }
    }

    /// Make sure one TxDone is pending for port `p`. A TxDone already pending (even one due now,
    /// before the port's current frame began) re-checks when it fires, so there is never more
    /// than one per port.
    #[inline]
    pub(crate) fn wake_when_free(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        if !port.txdone_pending {
            port.txdone_pending = true;
            let t = port.busy_until;
            self.q.schedule(t, Event::TxDone(p));
        }
    }

    pub(crate) fn on_tx_done(&mut self, p: u32) {
        self.ports[p as usize].txdone_pending = false;
        self.try_send(p);
    }

    /// The head frame of the channel leaving port `p` reaches the peer port.
    pub(crate) fn on_link_arrive(&mut self, p: u32) {
        let ch = &mut self.chans[p as usize];
        // A stale event (the wire was flushed when its link went down) finds another head.
        if ch.head_time() != Some(self.q.now()) {
            return;
        }
        let Some((_, pkt)) = ch.pop() else { return };
        if let Some(&(t, next)) = ch.in_flight.front() {
            self.arena.prefetch(next);
            self.q.schedule(t, Event::LinkArrive(p));
        }
        self.totals.packet_hops += 1;
        let peer = self.ports[p as usize].peer;
        match self.ports[peer as usize].node {
            NodeRef::Switch(s) => self.switch_receive(s, peer, pkt),
            NodeRef::Host(h) => self.host_receive(h, pkt),
        }
    }

    /// Account a dropped packet to its flow and release it.
    pub(crate) fn drop_packet(&mut self, pkt_id: u32) {
        let pkt = *self.arena.get(pkt_id);
        if pkt.kind == PacketKind::Data {
            self.flows[pkt.flow as usize].c.dropped += pkt.payload as u64;
        }
        if pkt.flags & (crate::packet::flags::INT | crate::packet::flags::INT_ECHO) != 0 {
            self.int_free(pkt.aux);
        }
        self.arena.free(pkt_id);
    }
}
