//! Congestion control in the world: the reaction point's timers, the notification point's
//! CNPs, and the INT records HPCC's packets carry.

use super::Sim;
use crate::engine::Event;
use crate::nic::cc::{IntHop, IntRecord, MAX_INT_HOPS};
use crate::units::{Rate, Time};

impl Sim {
    /// Make sure the flow's congestion-control timer is scheduled for when the algorithm
    /// wants it (one pending event per QP; stale ones are ignored when they fire).
    #[inline]
    pub(crate) fn arm_cc_timer(&mut self, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        if let Some(t) = fl.sq.cc.next_timer() {
            let t = t.max(now);
            if t < fl.cc_timer_at || fl.cc_timer_at < now {
                fl.cc_timer_at = t;
                self.q.schedule(t, Event::CcTimer(f));
            }
        }
    }

    pub(crate) fn on_cc_timer(&mut self, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        if fl.cc_timer_at != now {
            return;
        }
        fl.cc_timer_at = Time::NEVER;
        fl.sq.cc.on_timer(now);
        let port = self.hosts[fl.src as usize].port;
        self.arm_cc_timer(f);
        self.try_send(port);
    }

    /// A CNP arrived for flow `f`.
    pub(crate) fn requester_cnp(&mut self, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        fl.c.cnp_rx += 1;
        fl.sq.cc.on_cnp(now);
        self.arm_cc_timer(f);
    }

    /// Notification point: a CE-marked data packet of flow `f` reached its receiver `h`.
    /// At most one CNP per QP per `min_time_between_cnps` window: the windows follow one
    /// another without drift while marks keep coming, so a continuously marked QP gets exactly
    /// one CNP per interval (20,000/s at 50 us); after a quiet spell a new window opens at
    /// the next mark.
    pub(crate) fn np_congestion(&mut self, h: u32, f: u32) {
        let now = self.now();
        let fl = &mut self.flows[f as usize];
        if now < fl.cnp_window_end {
            return;
        }
        let next = fl.cnp_window_end + fl.cnp_gap;
        fl.cnp_window_end = if now < next { next } else { now + fl.cnp_gap };
        let (dscp, tc) = (fl.cnp_dscp, fl.cnp_tc);
        self.totals.cnp_tx += 1;
        self.send_control(
            h,
            f,
            crate::packet::PacketKind::Cnp,
            0,
            crate::packet::CNP_WIRE,
            dscp,
            tc,
            0,
            0,
        );
    }

    /// A fresh INT record; returns its handle.
    pub(crate) fn int_alloc(&mut self) -> u32 {
        if let Some(h) = self.int_free.pop() {
            self.ints[h as usize] = IntRecord::default();
            h
        } else {
            self.ints.push(IntRecord::default());
            (self.ints.len() - 1) as u32
        }
    }

    /// Release an INT record.
    #[inline]
    pub(crate) fn int_free(&mut self, h: u32) {
        self.int_free.push(h);
    }

    /// Stamp hop number `hop` (the packet's INT hop count before this hop) on INT record `h`.
    /// Only writes the record, so a record not in cache does not stall the switch.
    #[inline]
    pub(crate) fn int_stamp(&mut self, h: u32, hop: u8, qlen: u64, tx_bytes: u64, rate: Rate) {
        let now = self.now();
        let r = &mut self.ints[h as usize];
        if (hop as usize) < MAX_INT_HOPS {
            r.hops[hop as usize] = IntHop {
                qlen,
                tx_bytes,
                ts: now,
                rate,
            };
            r.nhop = hop + 1;
        }
    }
}
