//! A switch: ingress (TTL, route, classify, MMU admission, XOFF) and egress (schedule,
//! release, XON).

use super::Sim;
use crate::fabric::mmu::Admit;
use crate::fabric::port::QEntry;
use crate::fabric::routing::ecmp_pick;

impl Sim {
    /// A frame arrived at switch `s` on global port `in_port`.
    pub(crate) fn switch_receive(&mut self, s: u32, in_port: u32, pkt_id: u32) {
        let pkt = self.arena.get_mut(pkt_id);
        if pkt.ttl <= 1 {
            self.totals.drops_ttl += 1;
            self.drop_packet(pkt_id);
            return;
        }
        pkt.ttl -= 1;
        let dst = pkt.dst;
        let hash = pkt.hash;
        let sw = &self.switches[s as usize];
        let out_local = if sw.fwd_fault {
            match self.forwarding_fault(s, in_port, pkt_id, dst) {
                Some(p) => p,
                None => return,
            }
        } else {
            let hops = self.routes.next_hops(s, dst);
            if hops.is_empty() {
                self.totals.drops_fault += 1;
                self.drop_packet(pkt_id);
                return;
            }
            hops[if hops.len() == 1 {
                0
            } else {
                ecmp_pick(hash, sw.salt, hops.len())
            }]
        };
        self.enqueue_at(s, in_port, pkt_id, out_local, false);
    }

    /// Admit packet `pkt_id` (arrived on `in_port`) to egress port `out_local` of switch `s`;
    /// a `replica` (a flooded copy beyond the first) is never dropped at admission.
    fn enqueue_at(&mut self, s: u32, in_port: u32, pkt_id: u32, out_local: u16, replica: bool) {
        let pkt = self.arena.get_mut(pkt_id);
        let sw = &mut self.switches[s as usize];
        let out = sw.ports[out_local as usize];
        let tc = sw.dscp_to_tc[(pkt.dscp & 63) as usize];
        let q = sw.tc_to_queue[tc as usize];
        let lossless = sw.pfc_enable & (1 << tc) != 0;
        let in_local = self.ports[in_port as usize].local as usize;
        let size = pkt.buf_bytes();
        if lossless && self.ports[out as usize].wd_drop & (1 << q) != 0 {
            // The PFC watchdog discards lossless packets for a stormed queue.
            let i = out as usize * 8 + tc as usize;
            self.wd[i].rx_dropped += 1;
            self.totals.drops_fault += 1;
            self.drop_packet(pkt_id);
            return;
        }
        let verdict = if replica {
            sw.mmu
                .admit_replica(in_local, tc, out_local as usize, q, size, lossless);
            Admit::Shared
        } else {
            sw.mmu
                .admit(in_local, tc, out_local as usize, q, size, lossless)
        };
        match verdict {
            Admit::DropLossless | Admit::DropLossy => {
                if lossless {
                    self.totals.drops_lossless += 1;
                } else {
                    self.totals.drops_lossy += 1;
                }
                self.counters[in_port as usize * 8 + tc as usize].drops += 1;
                self.drop_packet(pkt_id);
                return;
            }
            Admit::Shared | Admit::Headroom => {}
        }
        pkt.tc = tc;
        let entry = QEntry {
            pkt: pkt_id,
            in_port,
            in_local: in_local as u16,
            bytes: size as u16,
            tc,
            lossless,
            int: pkt.flags & crate::packet::flags::INT != 0,
            replica,
        };
        let over =
            lossless && !self.xoff[in_port as usize].held(tc) && sw.mmu.over_xoff(in_local, tc);
        let quanta = sw.pfc_quanta;
        if over {
            self.send_xoff(in_port, tc, quanta);
        }
        self.ports[out as usize].enqueue(q, entry);
        if let Some(e) = self.marks(s, q) {
            let depth = self.switches[s as usize]
                .mmu
                .queue_bytes(out_local as usize, q);
            self.ecn_on_enqueue(s, out, q, &e, pkt_id, size, depth);
        }
        self.try_send(out);
    }

    /// Forwarding with faults: a static route wins; an aged MAC floods (or drops lossless
    /// packets with `drop_lossless_on_incomplete_arp`). Returns the port to use, or `None` when
    /// the packet was consumed here.
    fn forwarding_fault(&mut self, s: u32, in_port: u32, pkt_id: u32, dst: u32) -> Option<u16> {
        let sw = &self.switches[s as usize];
        if let Some(&(_, p)) = sw.route_overrides.iter().find(|&&(d, _)| d == dst) {
            return Some(p);
        }
        if !sw.aged.contains(&dst) {
            let hops = self.routes.next_hops(s, dst);
            let hash = self.arena.get(pkt_id).hash;
            return match hops.len() {
                0 => {
                    self.totals.drops_fault += 1;
                    self.drop_packet(pkt_id);
                    None
                }
                1 => Some(hops[0]),
                n => Some(hops[ecmp_pick(hash, sw.salt, n)]),
            };
        }
        let tc = sw.dscp_to_tc[(self.arena.get(pkt_id).dscp & 63) as usize];
        let lossless = sw.pfc_enable & (1 << tc) != 0;
        if lossless && sw.drop_on_incomplete_arp {
            self.totals.drops_fault += 1;
            self.drop_packet(pkt_id);
            return None;
        }
        // Flood a copy out of every port but the one it came in on.
        let in_local = self.ports[in_port as usize].local;
        let n = sw.ports.len() as u16;
        let mut original = *self.arena.get(pkt_id);
        self.drop_packet(pkt_id);
        // Copies carry no INT record (it was released with the original).
        original.flags &= !(crate::packet::flags::INT | crate::packet::flags::INT_ECHO);
        let mut first = true;
        for p in 0..n {
            if p != in_local {
                let copy = self.arena.alloc(original);
                self.enqueue_at(s, in_port, copy, p, !first);
                first = false;
            }
        }
        None
    }

    /// Pick the next packet of switch `s`'s port `p` and release its buffer.
    pub(crate) fn switch_dequeue(&mut self, s: u32, p: u32) -> Option<QEntry> {
        let port = &mut self.ports[p as usize];
        let eligible = port.eligible();
        if eligible == 0 {
            return None;
        }
        let queues = &port.queues;
        let q = port.sched.pick(port.strict, eligible, |q| {
            queues[q as usize].front().map_or(0, |e| e.wire())
        })?;
        let e = port.dequeue(q)?;
        let out_local = port.local as usize;
        let mmu = &mut self.switches[s as usize].mmu;
        mmu.release(e.in_local as usize, e.tc, out_local, q, e.bytes as u64);
        if e.lossless
            && self.xoff[e.in_port as usize].held(e.tc)
            && mmu.under_xon(e.in_local as usize, e.tc)
        {
            self.send_xon(e.in_port, e.tc);
        }
        if let Some(ecn) = self.marks(s, q) {
            let depth = self.switches[s as usize].mmu.queue_bytes(out_local, q);
            self.ecn_on_dequeue(s, p, q, &ecn, &e, depth);
        }
        if e.int {
            let depth = self.switches[s as usize].mmu.queue_bytes(out_local, q);
            let sent = self.tx_port_bytes[p as usize];
            let pkt = self.arena.get_mut(e.pkt);
            let (h, hop) = (pkt.aux, pkt.int_hops);
            pkt.int_hops = pkt.int_hops.saturating_add(1);
            let rate = self.ports[p as usize].rate;
            self.int_stamp(h, hop, depth, sent + e.wire() as u64, rate);
        }
        Some(e)
    }
}
