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
        let sw = &mut self.switches[s as usize];
        let hops = self.routes.next_hops(s, pkt.dst);
        if hops.is_empty() {
            self.totals.drops_fault += 1;
            self.drop_packet(pkt_id);
            return;
        }
        let out_local = hops[if hops.len() == 1 {
            0
        } else {
            ecmp_pick(pkt.hash, sw.salt, hops.len())
        }];
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
        match sw
            .mmu
            .admit(in_local, tc, out_local as usize, q, size, lossless)
        {
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

    /// Pick the next packet of switch `s`'s port `p` and release its buffer.
    pub(crate) fn switch_dequeue(&mut self, s: u32, p: u32) -> Option<QEntry> {
        let port = &mut self.ports[p as usize];
        let eligible = port.eligible();
        if eligible == 0 {
            return None;
        }
        let queues = &port.queues;
        let q = port.sched.pick(eligible, |q| {
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
            let sent: u64 = self.tx[p as usize * 8..p as usize * 8 + 8]
                .iter()
                .map(|c| c.bytes)
                .sum();
            let h = self.arena.get(e.pkt).aux;
            let rate = self.ports[p as usize].rate;
            self.int_stamp(h, depth, sent + e.wire() as u64, rate);
        }
        Some(e)
    }
}
