//! In-band network telemetry (HPCC, Li et al. SIGCOMM 2019 §3.2): the record a data packet
//! collects at every egress port it leaves, echoed back to the sender in its ACK.
//!
//! Records live in one pool shared by every switch and NIC; a packet carries its record's
//! handle (and its hop count), so the per-hop stamp writes only its hop's slot, without
//! reading the record; the receiver copies the hop count into the record once
//! ([`IntPool::seal`]) before echoing it.

use crate::nic::cc::{IntHop, IntRecord, MAX_INT_HOPS};
use crate::units::{Rate, Time};

/// The pool of INT records of packets in flight, by handle, with a free list.
#[derive(Debug, Default)]
pub struct IntPool {
    records: Vec<IntRecord>,
    free: Vec<u32>,
}

impl IntPool {
    /// A fresh, empty record; returns its handle.
    pub fn alloc(&mut self) -> u32 {
        if let Some(h) = self.free.pop() {
            self.records[h as usize] = IntRecord::default();
            h
        } else {
            self.records.push(IntRecord::default());
            (self.records.len() - 1) as u32
        }
    }

    /// Store a copy of record `r` (one that crossed to this thread); returns its handle.
    pub fn insert(&mut self, r: IntRecord) -> u32 {
        let h = self.alloc();
        self.records[h as usize] = r;
        h
    }

    /// Release a record. It stays readable until the next [`IntPool::alloc`].
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.free.push(h);
    }

    /// The record behind handle `h`.
    #[inline]
    pub fn get(&self, h: u32) -> &IntRecord {
        &self.records[h as usize]
    }

    /// Stamp hop number `hop` (the packet's hop count before this hop) of record `h`: the
    /// egress queue depth `qlen` (bytes), the port's cumulative transmitted wire bytes, the
    /// time and the line rate. Hops beyond [`MAX_INT_HOPS`] are not recorded. The record's
    /// hop count is set once at the receiver ([`IntPool::seal`]), not per hop, so that a
    /// stamp touches only its hop's slot.
    #[inline]
    pub fn stamp(&mut self, h: u32, hop: u8, now: Time, qlen: u64, tx_bytes: u64, rate: Rate) {
        let r = &mut self.records[h as usize];
        if (hop as usize) < MAX_INT_HOPS {
            r.hops[hop as usize] = IntHop {
                qlen,
                tx_bytes,
                ts: now,
                rate,
            };
        }
    }

    /// The packet of record `h` reached its receiver after `hops` stamped hops (its
    /// [`crate::packet::Packet::int_hops`]): set the record's hop count, at most
    /// [`MAX_INT_HOPS`] (the hops beyond were not recorded).
    #[inline]
    pub fn seal(&mut self, h: u32, hops: u8) {
        self.records[h as usize].nhop = hops.min(MAX_INT_HOPS as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_reused_and_stamped_in_path_order() {
        let mut pool = IntPool::default();
        let a = pool.alloc();
        pool.stamp(a, 0, Time(5), 100, 1000, Rate::gbps(100));
        pool.stamp(a, 1, Time(9), 200, 2000, Rate::gbps(40));
        assert_eq!(pool.get(a).nhop, 0, "the hop count is set by the receiver");
        pool.seal(a, 2);
        assert_eq!(pool.get(a).nhop, 2);
        assert_eq!(pool.get(a).hops[1].qlen, 200);
        pool.free(a);
        let b = pool.alloc();
        assert_eq!(a, b);
        assert_eq!(pool.get(b).nhop, 0, "a reused record starts empty");
        for hop in 0..8 {
            pool.stamp(b, hop, Time(1), 1, 1, Rate::gbps(1));
        }
        pool.seal(b, 8);
        assert_eq!(pool.get(b).nhop as usize, MAX_INT_HOPS);
    }

    #[test]
    fn no_hop_slot_straddles_two_cache_lines() {
        use crate::nic::cc::IntHop;
        assert_eq!(std::mem::size_of::<IntHop>(), 32);
        assert_eq!(std::mem::align_of::<IntRecord>(), 32);
        assert_eq!(std::mem::offset_of!(IntRecord, hops), 0);
    }
}
