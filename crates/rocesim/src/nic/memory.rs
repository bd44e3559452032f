//! The NIC's on-chip memory as a bottleneck: its QPC, WQE and MTT caches (`cache.rs`) and
//! what their misses cost. A miss fetches the entry from host memory over PCIe
//! (`miss_latency`) and stalls the pipeline that needed it: the sender's transmit pipeline
//! for the QP context and WQE of the QP it serves, the receive pipeline for the responder
//! QP's context and the memory translation of an incoming payload (Guo et al. 2016 §4.4:
//! the slow-receiver symptom; Wang et al. 2023: QP scalability, which a receiver many QPs
//! converge on shows from its receive side). One QPC cache holds the contexts of every QP
//! of the NIC, requester and responder alike.

use rand::RngExt;

use super::cache::LruCache;
use super::params::CacheParams;
use crate::engine::rng::{stream, SimRng, StreamKind};
use crate::units::Time;

/// The registered memory a responder's payload goes to: its region (shared by the QPs of one
/// flow) and how packets address it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemRef {
    /// Which region (the scenario flow's index): MTT keys of different regions differ.
    pub region_id: u32,
    /// Region size, bytes (at least one packet's payload).
    pub region: u64,
    /// Packets land at uniformly random MTU-aligned offsets (else one after another).
    pub random: bool,
    /// Offset of this QP's first packet in the region (QPs of a flow start spread over it).
    pub base: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
}

/// One NIC's caches, its random stream for random access, and what misses cost it.
#[derive(Clone, Debug)]
pub struct NicMemory {
    /// QP-context cache (requester QPs on transmit, responder QPs on receive), if modelled.
    pub qpc: Option<LruCache>,
    /// WQE cache (sender side), if modelled.
    pub wqe: Option<LruCache>,
    /// Memory-translation cache (receiver side), if modelled.
    pub mtt: Option<LruCache>,
    /// log2 of the page size.
    page_shift: u32,
    /// Cost of one miss.
    miss: Time,
    /// Draws random offsets (a per-NIC stream of the master seed).
    rng: SimRng,
    /// Time the transmit pipeline spent stalled on misses.
    pub tx_stall: Time,
    /// Time the receive pipeline spent stalled on misses.
    pub rx_stall: Time,
    /// A QP picked to send whose entries are being fetched: its requester slot, its flow
    /// and when the fetch completes.
    pub tx_hold: Option<(u32, u32, Time)>,
}

impl NicMemory {
    /// The caches of `p` for NIC `nic`, with its random stream from `seed`.
    pub fn new(p: &CacheParams, seed: u64, nic: u32) -> Self {
        NicMemory {
            qpc: p.qpc_entries.map(LruCache::new),
            wqe: p.wqe_entries.map(LruCache::new),
            mtt: p.mtt_entries.map(LruCache::new),
            page_shift: p.page_size.trailing_zeros(),
            miss: p.miss_latency,
            rng: stream(seed, StreamKind::Nic, u64::from(nic)),
            tx_stall: Time::ZERO,
            rx_stall: Time::ZERO,
            tx_hold: None,
        }
    }

    /// The sender is about to transmit a packet of QP `qp`: look up its context and its
    /// current WQE (fetched one after the other: the WQE's address is in the context).
    /// Returns the stall.
    #[inline]
    pub fn on_transmit(&mut self, qp: u32) -> Time {
        let mut misses = 0;
        for c in [&mut self.qpc, &mut self.wqe].into_iter().flatten() {
            misses += u64::from(!c.access(u64::from(qp)));
        }
        let stall = Time::from_ps(self.miss.ps() * misses);
        self.tx_stall += stall;
        stall
    }

    /// The receive pipeline takes a data packet of responder QP `qp` writing to `m` (packet
    /// `psn`, `payload` bytes): look up the QP's context, then translate every page the
    /// payload touches. Returns the stall (`miss_latency` per miss).
    #[inline]
    pub fn on_receive(&mut self, qp: u32, m: &MemRef, psn: u32, payload: u32) -> Time {
        let context = self
            .qpc
            .as_mut()
            .map_or(0, |c| u64::from(!c.access(u64::from(qp))));
        let misses = context + self.translate(m, psn, payload);
        let stall = Time::from_ps(self.miss.ps() * misses);
        self.rx_stall += stall;
        stall
    }

    /// MTT misses of packet `psn` (`payload` bytes) written to `m`: every page it touches.
    #[inline]
    fn translate(&mut self, m: &MemRef, psn: u32, payload: u32) -> u64 {
        let Some(mtt) = &mut self.mtt else {
            return 0;
        };
        let mtu = u64::from(m.mtu.max(1));
        let off = if m.random {
            let slots = (m.region / mtu).max(1);
            self.rng.random_range(0..slots) * mtu
        } else {
            (m.base + u64::from(psn) * mtu) % m.region
        };
        let last = (off + u64::from(payload.max(1)) - 1) % m.region;
        let key = |a: u64| (u64::from(m.region_id) << 32) | (a >> self.page_shift);
        let (first, last) = (key(off), key(last));
        let mut misses = u64::from(!mtt.access(first));
        if last != first {
            misses += u64::from(!mtt.access(last));
        }
        misses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(mtt: u32, page: u64) -> CacheParams {
        CacheParams {
            mtt_entries: Some(mtt),
            page_size: page,
            ..CacheParams::NONE
        }
    }

    #[test]
    fn sequential_writes_miss_once_per_page_until_the_region_fits() {
        // 1 KiB packets, 4 KiB pages: 4 packets a page. A 64 KiB region is 16 pages.
        let m = MemRef {
            region_id: 0,
            region: 64 << 10,
            random: false,
            base: 0,
            mtu: 1024,
        };
        let mut fits = NicMemory::new(&params(16, 4096), 1, 0);
        let mut small = NicMemory::new(&params(15, 4096), 1, 0);
        for psn in 0..640 {
            fits.on_receive(0, &m, psn, 1024);
            small.on_receive(0, &m, psn, 1024);
        }
        let (f, s) = (fits.mtt.unwrap(), small.mtt.unwrap());
        assert_eq!(f.misses, 16, "one cold miss per page, then hits");
        assert_eq!(s.misses, 640 / 4, "one page short: LRU misses every page");
        assert_eq!(small.rx_stall, Time::from_us(160));
    }

    #[test]
    fn random_writes_hit_with_the_cached_share_of_the_region() {
        // 2048 entries over a 16 MiB region of 4 KiB pages (4096 pages): after warm-up a
        // uniformly random page is cached with probability 2048/4096.
        let m = MemRef {
            region_id: 3,
            region: 16 << 20,
            random: true,
            base: 0,
            mtu: 1024,
        };
        let mut mem = NicMemory::new(&params(2048, 4096), 7, 0);
        for psn in 0..50_000 {
            mem.on_receive(0, &m, psn, 1024);
        }
        let c = mem.mtt.as_mut().unwrap();
        let (h0, m0) = (c.hits, c.misses);
        for psn in 0..100_000 {
            mem.on_receive(0, &m, psn, 1024);
        }
        let c = mem.mtt.unwrap();
        let rate = (c.hits - h0) as f64 / ((c.hits - h0) + (c.misses - m0)) as f64;
        assert!((rate - 0.5).abs() < 0.02, "hit rate {rate}");
    }

    #[test]
    fn transmit_stalls_one_latency_per_missing_cache() {
        let p = CacheParams {
            qpc_entries: Some(2),
            wqe_entries: Some(2),
            ..CacheParams::NONE
        };
        let mut mem = NicMemory::new(&p, 1, 0);
        assert_eq!(
            mem.on_transmit(5),
            Time::from_us(2),
            "QPC and WQE both cold"
        );
        assert_eq!(mem.on_transmit(5), Time::ZERO);
    }

    #[test]
    fn receive_looks_up_the_responder_context_once_per_packet() {
        // A QPC of 4 entries (no MTT). Data packets of QPs 0..Q in round robin: with Q = 4
        // (≤ the entries) only the 4 cold misses, then hits; with Q = 8 (twice the entries)
        // LRU has always evicted the QP that comes next, so every packet misses and stalls
        // the receive pipeline 1 us.
        let p = CacheParams {
            qpc_entries: Some(4),
            miss_latency: Time::from_us(1),
            ..CacheParams::NONE
        };
        let m = MemRef {
            region: 1 << 20,
            mtu: 1024,
            ..MemRef::default()
        };
        for (q, misses) in [(4u32, 4u64), (8, 800)] {
            let mut mem = NicMemory::new(&p, 1, 0);
            for i in 0..800u32 {
                mem.on_receive(i % q, &m, i / q, 1024);
            }
            let c = mem.qpc.as_ref().unwrap();
            assert_eq!((c.misses, c.hits), (misses, 800 - misses), "{q} QPs");
            assert_eq!(mem.rx_stall, Time::from_us(misses));
            assert_eq!(mem.tx_stall, Time::ZERO);
        }
    }
}
