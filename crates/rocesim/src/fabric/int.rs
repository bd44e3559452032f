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

    /// Has any record been made (a run with HPCC)?
    #[inline]
    pub fn in_use(&self) -> bool {
        !self.records.is_empty()
    }

    /// Start loading the lines of its INT record that packet `p`'s arrival will touch: a
    /// data packet's next hop, which the switch it reaches stamps (at the receiver after
    /// [`MAX_INT_HOPS`] switches, as across a fat-tree's core, the index is past the last
    /// hop, in the line of the hop count it seals; after fewer, a line nobody reads); for an
    /// ACK echoing a record, the whole record, which the sender's HPCC reads. The record was
    /// last written a hop ago, and in a large fabric it has left the cache by then. A hint
    /// only: a packet without a record prefetches nothing, a stale handle a line nobody
    /// reads.
    #[inline(always)]
    pub fn prefetch_for(&self, p: &crate::packet::Packet) {
        use crate::engine::prefetch::prefetch;
        use crate::packet::flags;
        let base = self
            .records
            .as_ptr()
            .wrapping_add(p.aux as usize)
            .cast::<u8>();
        if p.flags & flags::INT != 0 {
            let hop = (p.int_hops as usize).min(MAX_INT_HOPS);
            prefetch(base.wrapping_add(hop * std::mem::size_of::<IntHop>()));
        } else if p.flags & flags::INT_ECHO != 0 {
            // Records are aligned to 32 bytes, not to lines: the last byte's line too.
            let size = std::mem::size_of::<IntRecord>();
            for line in (0..size).step_by(64) {
                prefetch(base.wrapping_add(line));
            }
            prefetch(base.wrapping_add(size - 1));
        }
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
    fn the_hop_count_follows_the_last_hop() {
        // `prefetch_for` loads hop `MAX_INT_HOPS` of a record for a data packet that crossed
        // that many switches: the receiver's seal writes there.
        use crate::nic::cc::IntHop;
        assert_eq!(
            std::mem::offset_of!(IntRecord, nhop),
            MAX_INT_HOPS * std::mem::size_of::<IntHop>()
        );
    }

    #[test]
    fn prefetching_any_handle_is_harmless() {
        use crate::packet::{flags, Packet, PacketKind};
        let mut pool = IntPool::default();
        let h = pool.alloc();
        pool.stamp(h, 0, Time(5), 100, 1000, Rate::gbps(100));
        let before = *pool.get(h);
        for (f, aux, hops) in [
            (flags::INT, h, 0),
            (flags::INT, h, 200),
            (flags::INT_ECHO, h, 0),
            (flags::INT_ECHO, u32::MAX, 0),
            (flags::INT, 1 << 30, 3),
            (0, u32::MAX, 0),
        ] {
            let p = Packet {
                kind: PacketKind::Data,
                dscp: 0,
                ecn: 0,
                ttl: 64,
                dst: 1,
                flow: 0,
                psn: 0,
                payload: 1000,
                wire: 1084,
                gap: 20,
                hash: 7,
                tc: 3,
                flags: f,
                int_hops: hops,
                aux,
            };
            pool.prefetch_for(&p);
        }
        assert_eq!(*pool.get(h), before, "a hint changes nothing");
    }

    #[test]
    fn no_hop_slot_straddles_two_cache_lines() {
        use crate::nic::cc::IntHop;
        assert_eq!(std::mem::size_of::<IntHop>(), 32);
        assert_eq!(std::mem::align_of::<IntRecord>(), 32);
        assert_eq!(std::mem::offset_of!(IntRecord, hops), 0);
    }
}
