//! Congestion Isolation Packets (IEEE 802.1Qcz; Congdon et al. 2017): the CIP frame, its
//! queue ahead of data on each port, and its reliability (`cip_reliability`): repeated CIPs,
//! CIP acknowledgements, and the retry timer that re-sends CIPs not yet confirmed. The flow
//! table and the placement of packets are in the parent module.

use super::{Isolation, CIP, CIP_ACK, NO_PORT};
use crate::engine::{Ctx, Event};
use crate::fabric::isolation_params::{CipReliability, CIP_RETRY};
use crate::fabric::switch::Switch;
use crate::ids::Priority;
use crate::monitor::IsoEvent;
use crate::packet::{ecn, Packet, PacketKind, PFC_WIRE};

/// A CIP frame for `flow` of class `class` (`kind`: [`CIP`], [`CIP_ACK`] or
/// [`CIP_RELEASE`]); `aux` carries the class's CFQ priority, which a CI-aware end station
/// moves the flow to (802.1Qcz end stations learn it with the CI configuration).
pub(super) fn cip_frame(flow: u32, hash: u32, class: u8, kind: u32, cfq_prio: u8) -> Packet {
    Packet {
        kind: PacketKind::Cip,
        dscp: 0,
        ecn: ecn::NOT_ECT,
        ttl: 1,
        dst: u32::MAX,
        flow,
        psn: kind,
        payload: 0,
        wire: PFC_WIRE as u16,
        gap: crate::packet::WIRE_GAP as u8,
        hash,
        tc: class,
        flags: 0,
        int_hops: 0,
        aux: cfq_prio as u32,
    }
}

impl Isolation {
    /// A CIP frame of `kind` for `flow` of class `class`.
    pub(super) fn frame(&self, flow: u32, hash: u32, class: u8, kind: u32) -> Packet {
        let prio = self.params.cfq[class as usize & 7].map_or(0, |c| c.priority);
        cip_frame(flow, hash, class, kind, prio)
    }

    /// Local port `l` leads to a peer that takes CIPs: a switch, or a host when
    /// `end_station` is on.
    #[inline]
    pub(super) fn takes_cips(&self, l: u16) -> bool {
        l != NO_PORT && (self.peer_switch[l as usize] || self.params.end_station)
    }

    /// Local port `l` leads to a CI-aware end station.
    #[inline]
    pub(super) fn to_end_station(&self, l: u16) -> bool {
        l != NO_PORT && self.params.end_station && !self.peer_switch[l as usize]
    }
}

impl Switch {
    pub(super) fn arm_cip_timer(&mut self, l: u16, ctx: &mut Ctx) {
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        if !iso.timer[l as usize] {
            iso.timer[l as usize] = true;
            let port = self.ports[l as usize].id.0;
            ctx.schedule(ctx.now + CIP_RETRY, Event::CipRetry(port));
        }
    }

    /// Queue a CIP frame on local port `l`, ahead of data.
    pub(super) fn send_cip(&mut self, l: u16, frame: Packet, ctx: &mut Ctx) {
        let id = ctx.packets.alloc(frame);
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        iso.cips[l as usize].push_back(id);
        self.try_send(l, ctx);
    }

    /// If port `l` (free) has a CIP waiting, put it on the wire; true when it did.
    #[inline]
    pub(crate) fn iso_send_pending(&mut self, l: u16, ctx: &mut Ctx) -> bool {
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        let Some(id) = iso.cips[l as usize].pop_front() else {
            return false;
        };
        let more = !iso.cips[l as usize].is_empty();
        let p = ctx.packets.get(id);
        let (flow, class, kind) = (p.flow, p.tc, p.psn);
        if kind == CIP {
            ctx.monitor.iso.cip_tx += 1;
            self.iso_log(l, flow, IsoEvent::CipSent, ctx);
        }
        self.ports[l as usize].start_tx(id, PFC_WIRE, Priority(class), more, ctx);
        true
    }

    /// The CIP retry timer of port `l`: re-send the CIPs still unconfirmed.
    pub fn on_cip_retry(&mut self, l: u16, ctx: &mut Ctx) {
        let iso = self.isolation.as_deref_mut().expect("isolation on");
        iso.timer[l as usize] = false;
        let mut list = std::mem::take(&mut iso.waiting[l as usize]);
        list.retain(|&i| {
            let e = &iso.table[i as usize];
            e.awaiting && e.isolated && e.inp == l
        });
        let frames: Vec<Packet> = list
            .iter()
            .map(|&i| {
                let e = &iso.table[i as usize];
                iso.frame(e.flow, e.hash, e.class, CIP)
            })
            .collect();
        let again = !list.is_empty();
        iso.waiting[l as usize] = list;
        for f in frames {
            self.send_cip(l, f, ctx);
        }
        if again {
            self.arm_cip_timer(l, ctx);
        }
    }

    /// A CIP frame arrived on local port `l`: isolate its flow on `l` (toward the switch that
    /// sent it) and acknowledge it in `ack` mode; or it is an acknowledgement.
    pub(crate) fn on_cip(&mut self, l: u16, pkt_id: u32, ctx: &mut Ctx) {
        let p = *ctx.packets.get(pkt_id);
        ctx.drop_packet(pkt_id);
        let Some(iso) = self.isolation.as_deref_mut() else {
            return;
        };
        if p.psn == CIP_ACK {
            if let Some(i) = iso.find(p.flow, p.hash) {
                iso.table[i].awaiting = false;
            }
            return;
        }
        ctx.monitor.iso.cip_rx += 1;
        let ack = iso.params.cip == CipReliability::Ack;
        self.iso_log(l, p.flow, IsoEvent::CipReceived, ctx);
        if self
            .isolation
            .as_deref()
            .is_some_and(|s| s.params.cfq[p.tc as usize & 7].is_some())
        {
            self.isolate(p.flow, p.hash, p.tc, l, NO_PORT, ctx);
        }
        if ack {
            let f = cip_frame(p.flow, p.hash, p.tc, CIP_ACK, p.aux as u8);
            self.send_cip(l, f, ctx);
        }
    }
}
