//! A host NIC: starting flows, choosing the next data packet (round robin over QPs, subject
//! to pause, pacing and window), receiving through the RX pipeline, and the transport's
//! ACK/NAK exchange.

use super::Sim;
use crate::engine::Event;
use crate::fabric::port::QEntry;
use crate::nic::cc::AckInfo;
use crate::nic::transport::{self, Reply};
use crate::packet::{data_wire, ecn, flags, Packet, PacketKind, ACK_WIRE};
use crate::units::Time;

impl Sim {
    /// Start every flow whose start time has come.
    pub(crate) fn on_flow_start(&mut self) {
        let now = self.now();
        while let Some(&f) = self.start_order.get(self.next_start) {
            if self.flows[f as usize].start > now {
                self.q
                    .schedule(self.flows[f as usize].start, Event::FlowStart);
                return;
            }
            self.next_start += 1;
            self.activate_flow(f);
        }
    }

    /// Flow `f` starts now: its sender's NIC begins serving its QP.
    pub(crate) fn activate_flow(&mut self, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        fl.start = now;
        fl.sq.last_progress = now;
        let src = fl.src as usize;
        self.hosts[src].active.push(f);
        let port = self.hosts[src].port;
        self.try_send(port);
    }

    /// The host port is free: a control packet if one waits, else the next data packet.
    pub(crate) fn host_dequeue(&mut self, h: u32, p: u32) -> Option<QEntry> {
        let port = &mut self.ports[p as usize];
        let eligible = port.eligible();
        if eligible != 0 {
            let q = 7 - eligible.leading_zeros() as u8;
            return port.dequeue(q);
        }
        self.nic_next_data(h, p)
    }

    /// Round robin over the host's active QPs for one that may send now.
    fn nic_next_data(&mut self, h: u32, p: u32) -> Option<QEntry> {
        let now = self.now();
        let host = &mut self.hosts[h as usize];
        let n = host.active.len();
        let paused = self.ports[p as usize].pause.mask;
        let mut earliest = Time::NEVER;
        for i in 0..n {
            let idx = (host.rr + i) % n;
            let f = host.active[idx];
            let fl = &mut self.flows[f as usize];
            let sq = &mut fl.sq;
            if !sq.has_data() || paused & (1 << sq.tc) != 0 {
                continue;
            }
            if sq.next_send > now {
                earliest = earliest.min(sq.next_send);
                continue;
            }
            if let Some(w) = sq.cc.window() {
                if sq.outstanding() as u64 * sq.mtu as u64 >= w {
                    continue;
                }
            }
            host.rr = idx + 1;
            let psn = sq.next_psn;
            sq.next_psn += 1;
            let payload = sq.payload_of(psn);
            let wire = data_wire(payload, psn == 0);
            if psn < sq.max_sent {
                fl.c.retx_packets += 1;
            } else {
                sq.max_sent = psn + 1;
            }
            fl.c.tx_bytes += payload as u64;
            sq.cc.on_send(now, wire);
            let rate = match (sq.cc.rate(), sq.rate_limit) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if let Some(r) = rate {
                sq.next_send = now + r.tx_time(wire as u64);
            }
            let arm = !sq.timer_pending;
            sq.timer_pending = true;
            let wants_int = fl.wants_int;
            let has_cc = fl.has_cc;
            let mut pkt = Packet {
                kind: PacketKind::Data,
                dscp: fl.dscp,
                ecn: ecn::ECT0,
                ttl: fl.ttl,
                dst: fl.dst,
                flow: f,
                psn,
                payload: payload as u16,
                wire: wire as u16,
                hash: fl.hash,
                tc: sq.tc,
                flags: 0,
                int_hops: 0,
                aux: crate::packet::stamp(now),
            };
            let tc = sq.tc;
            if arm {
                let t = now + fl.rto;
                self.q.schedule(t, Event::QpTimer(f));
            }
            if wants_int {
                pkt.flags = flags::INT;
                pkt.aux = self.int_alloc();
            }
            if has_cc {
                self.arm_cc_timer(f);
            }
            return Some(QEntry::local(self.arena.alloc(pkt), wire, tc));
        }
        if earliest != Time::NEVER && earliest < host.wake_at {
            host.wake_at = earliest;
            self.q.schedule(earliest, Event::NicWake(h));
        }
        None
    }

    pub(crate) fn on_nic_wake(&mut self, h: u32) {
        let host = &mut self.hosts[h as usize];
        if host.wake_at == self.q.now() {
            host.wake_at = Time::NEVER;
        }
        let p = host.port;
        self.try_send(p);
    }

    /// A frame arrived at host `h`'s NIC.
    pub(crate) fn host_receive(&mut self, h: u32, pkt_id: u32) {
        if self.arena.get(pkt_id).dst != h {
            // A flooded copy: the NIC discards frames not addressed to it.
            self.totals.drops_fault += 1;
            self.drop_packet(pkt_id);
            return;
        }
        let host = &mut self.hosts[h as usize];
        if host.rx.bypass() {
            self.nic_process(h, pkt_id);
            return;
        }
        let pkt = self.arena.get(pkt_id);
        let size = pkt.buf_bytes() as u32;
        let tc = pkt.tc;
        if !host.rx.has_room(size as u64) {
            if host.pfc_enable & (1 << tc) != 0 {
                self.totals.drops_lossless += 1;
            } else {
                self.totals.drops_lossy += 1;
            }
            let port = host.port;
            self.counters[port as usize * 8 + tc as usize].drops += 1;
            self.drop_packet(pkt_id);
            return;
        }
        host.rx.push(pkt_id, size);
        self.rx_check_xoff(h);
        self.rx_start(h);
    }

    fn rx_check_xoff(&mut self, h: u32) {
        let host = &self.hosts[h as usize];
        if !host.rx.over_xoff() {
            return;
        }
        let (port, quanta, mut prios) = (host.port, host.pfc_quanta, host.pfc_enable);
        while prios != 0 {
            let prio = prios.trailing_zeros() as u8;
            prios &= prios - 1;
            if !self.xoff[port as usize].held(prio) {
                self.send_xoff(port, prio, quanta);
                self.nic_storm_pause(h, prio);
            }
        }
    }

    fn rx_check_xon(&mut self, h: u32) {
        let host = &self.hosts[h as usize];
        if !host.rx.under_xon() {
            return;
        }
        let port = host.port;
        let mut held = self.xoff[port as usize].mask;
        while held != 0 {
            let prio = held.trailing_zeros() as u8;
            held &= held - 1;
            self.send_xon(port, prio);
        }
    }

    /// Begin processing the RX buffer's head if the pipeline is idle and running.
    pub(crate) fn rx_start(&mut self, h: u32) {
        let now = self.q.now();
        let host = &mut self.hosts[h as usize];
        if host.rx.busy || host.rx.stalled {
            return;
        }
        let Some(&(_, size)) = host.rx.queue.front() else {
            return;
        };
        host.rx.busy = true;
        let t = now + host.rx.service_time(size);
        self.q.schedule(t, Event::RxDone(h));
    }

    pub(crate) fn on_rx_done(&mut self, h: u32) {
        let host = &mut self.hosts[h as usize];
        host.rx.busy = false;
        if let Some(pkt) = host.rx.pop() {
            self.nic_process(h, pkt);
        }
        self.rx_check_xon(h);
        self.rx_start(h);
    }

    /// The NIC consumes a packet: transport at the responder or requester.
    fn nic_process(&mut self, h: u32, pkt_id: u32) {
        let pkt = *self.arena.get(pkt_id);
        self.arena.free(pkt_id);
        match pkt.kind {
            PacketKind::Data => self.responder_data(h, &pkt),
            PacketKind::Ack => self.requester_ack(&pkt),
            PacketKind::Nak => self.requester_nak(pkt.flow, pkt.psn),
            PacketKind::Cnp => self.requester_cnp(pkt.flow),
        }
    }

    fn responder_data(&mut self, h: u32, pkt: &Packet) {
        let fl = &mut self.flows[pkt.flow as usize];
        let ce = pkt.ecn == ecn::CE;
        if ce {
            fl.c.ecn_marked += 1;
        }
        let v = transport::on_data(
            &mut fl.rq,
            fl.sq.transport,
            pkt.psn,
            fl.sq.npkts,
            fl.ack_every,
        );
        if v.restart_discards {
            fl.c.discarded += fl.c.delivered;
            fl.c.delivered = 0;
        }
        if v.accepted {
            fl.c.delivered += pkt.payload as u64;
        } else {
            fl.c.discarded += pkt.payload as u64;
        }
        let (dscp, tc) = (fl.dscp, fl.sq.tc);
        if ce {
            self.np_congestion(h, pkt.flow);
        }
        let has_int = pkt.flags & flags::INT != 0;
        let (kind, psn) = match v.reply {
            Reply::Ack(p) => (PacketKind::Ack, p),
            Reply::Nak(p) => (PacketKind::Nak, p),
            Reply::None => {
                if has_int {
                    self.int_free(pkt.aux);
                }
                return;
            }
        };
        // The ACK echoes the CE mark and carries the data packet's INT record or send time.
        let mut fl_bits = if ce { flags::ECN_ECHO } else { 0 };
        let mut aux = pkt.aux;
        if has_int {
            if kind == PacketKind::Ack {
                fl_bits |= flags::INT_ECHO;
            } else {
                self.int_free(pkt.aux);
                aux = 0;
            }
        }
        self.send_control(h, pkt.flow, kind, psn, ACK_WIRE, dscp, tc, fl_bits, aux);
    }

    /// Queue a control packet from host `h` (the flow's receiver) to flow `f`'s sender.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_control(
        &mut self,
        h: u32,
        f: u32,
        kind: PacketKind,
        psn: u32,
        wire: u32,
        dscp: u8,
        tc: u8,
        flag_bits: u8,
        aux: u32,
    ) {
        let fl = &self.flows[f as usize];
        let reply = Packet {
            kind,
            dscp,
            ecn: ecn::NOT_ECT,
            ttl: fl.ttl,
            dst: fl.src,
            flow: f,
            psn,
            payload: 0,
            wire: wire as u16,
            hash: fl.hash.rotate_left(16),
            tc,
            flags: flag_bits,
            int_hops: 0,
            aux,
        };
        let id = self.arena.alloc(reply);
        let port = self.hosts[h as usize].port;
        self.ports[port as usize].enqueue(tc, QEntry::local(id, wire, tc));
        self.try_send(port);
    }

    fn requester_ack(&mut self, ack: &Packet) {
        let now = self.now();
        let f = ack.flow;
        let has_int = ack.flags & flags::INT_ECHO != 0;
        if has_int {
            // Released now; the record stays readable until the next allocation.
            self.int_free(ack.aux);
        }
        let int = has_int.then(|| &self.ints[ack.aux as usize]);
        let fl = &mut self.flows[f as usize];
        let before = fl.sq.snd_una;
        let done = transport::on_ack(&mut fl.sq, ack.psn, now);
        if !fl.has_cc {
            if done {
                self.finish_flow(f);
            }
            return;
        }
        let acked = (fl.sq.snd_una.saturating_sub(before)) as u64 * fl.sq.mtu as u64;
        let rtt = (!has_int).then(|| crate::packet::since_stamp(now, ack.aux));
        let info = AckInfo {
            now,
            acked_bytes: acked,
            ack_psn: ack.psn,
            snd_nxt: fl.sq.next_psn,
            ecn_echo: ack.flags & flags::ECN_ECHO != 0,
            rtt,
            int,
        };
        fl.sq.cc.on_ack(&info);
        let windowed = fl.sq.cc.window().is_some();
        let port = self.hosts[fl.src as usize].port;
        self.arm_cc_timer(f);
        if done {
            self.finish_flow(f);
        } else if windowed {
            self.try_send(port);
        }
    }

    fn requester_nak(&mut self, f: u32, psn: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        if fl.sq.done {
            return;
        }
        transport::on_nak(&mut fl.sq, psn, now);
        let port = self.hosts[fl.src as usize].port;
        self.try_send(port);
    }

    fn finish_flow(&mut self, f: u32) {
        let src = self.flows[f as usize].src as usize;
        let host = &mut self.hosts[src];
        if let Some(i) = host.active.iter().position(|&x| x == f) {
            host.active.remove(i);
            if host.rr > i {
                host.rr -= 1;
            }
        }
        self.finite_left = self.finite_left.saturating_sub(1);
        let now = self.now();
        for i in 0..self.dependents[f as usize].len() {
            let d = self.dependents[f as usize][i];
            let gap = self.scenario.flows[d as usize].start;
            self.q.schedule(now + gap, Event::StartChained(d));
        }
    }

    /// The retransmission timer of flow `f`.
    pub(crate) fn on_qp_timer(&mut self, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        fl.sq.timer_pending = false;
        if fl.sq.done || fl.sq.outstanding() == 0 && !fl.sq.has_data() {
            return;
        }
        if fl.sq.outstanding() == 0 {
            // Nothing in flight (paused or paced): the timer re-arms on the next send.
            return;
        }
        let deadline = fl.sq.last_progress + fl.rto;
        if now >= deadline {
            transport::on_timeout(&mut fl.sq, now);
            let port = self.hosts[fl.src as usize].port;
            self.try_send(port);
        } else {
            fl.sq.timer_pending = true;
            self.q.schedule(deadline, Event::QpTimer(f));
        }
    }
}
