//! The switch MMU: one shared buffer, accounted per ingress (port, priority group) and per
//! egress (port, queue).
//!
//! Lossless PGs use their reserved bytes first, then the shared pool up to the XOFF threshold
//! (dynamic: α × free shared buffer, α = 2^dynamic_th; static: a byte count), then their
//! headroom, which absorbs what is in flight after XOFF. A lossless packet that finds the
//! headroom full is a *lossless drop*: the signal of a misconfiguration. Lossy queues are
//! tail-dropped above their egress limit. This follows the Broadcom/SONiC ingress-PG model and
//! the HPCC ns-3 reference MMU (BENCHMARKS.md).

use super::params::{BufferMode, SwitchParams};
use crate::ids::{Priority, QueueId};

/// Result of MMU admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Accepted into reserved or shared space.
    Shared,
    /// Accepted into the PG's headroom (the PG is past XOFF).
    Headroom,
    /// Dropped: lossless, headroom exhausted.
    DropLossless,
    /// Dropped: lossy queue over its limit.
    DropLossy,
}

/// Occupancy of one ingress priority group (kept together: one cache line per access).
#[derive(Clone, Copy, Debug, Default)]
struct PgAcct {
    bytes: u64,
    hdrm: u64,
}

/// Occupancy of one egress queue and its peak.
#[derive(Clone, Copy, Debug, Default)]
struct QueueAcct {
    bytes: u64,
    max: u64,
}

/// Shared-buffer accounting of one switch. `repr(C)`: what lossless admission and every
/// release read comes first, in [`Mmu::HOT_BYTES`] bytes (one cache line inside a switch):
/// the accounting arrays are boxed slices (16 bytes each, they never grow) and the port
/// count is a `u32`, so that the pool and its sizes fit beside them.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Mmu {
    // The hot line: the accounting arrays, the pool in use and its size.
    pg: Box<[PgAcct]>,
    q: Box<[QueueAcct]>,
    /// Number of ports.
    ports: u32,
    mode: BufferMode,
    lossless_th: i8,
    lossy_th: i8,
    /// Lossless PGs (bitmask): the PGs that reserve `reserved_lossless`.
    lossless_pgs: u8,
    /// Bytes of the shared pool in use.
    pub shared_used: u64,
    /// Reserved bytes of each lossless PG (`lossless.reserved`; lossy PGs reserve none here).
    reserved_lossless: u64,
    /// Bytes of the shared pool (buffer minus all reserved space and headroom).
    pub shared_pool: u64,
    // Second line: headroom, lossy and static thresholds, XON.
    /// Headroom bytes in use, all PGs.
    pub hdrm_used: u64,
    /// Headroom of each lossless PG, per local port.
    pub headroom: Box<[u64]>,
    lossy_reserved: u64,
    lossy_limit: u64,
    xoff: u64,
    xon: u64,
    xon_offset: u64,
}

fn scale(free: u64, th: i8) -> u64 {
    if th >= 0 {
        free.saturating_mul(1u64 << th.min(32))
    } else {
        free >> (-(th as i32)).min(63)
    }
}

impl Mmu {
    /// An empty MMU for a switch with `headroom[p]` bytes of headroom per lossless PG on port p.
    /// Errors when reserved space and headroom do not fit in the buffer.
    pub fn new(p: &SwitchParams, headroom: Vec<u64>) -> Result<Mmu, String> {
        let ports = headroom.len();
        let lossless_mask = p.lossless_pgs();
        let lossless_pgs = lossless_mask.count_ones() as u64;
        let lossy_pgs = 8 - lossless_pgs;
        // Saturating: absurd sizes must end in the error below, not an overflow.
        let set_aside: u64 = headroom
            .iter()
            .map(|h| lossless_pgs.saturating_mul(h.saturating_add(p.lossless.reserved.0)))
            .fold(0u64, u64::saturating_add)
            .saturating_add((ports as u64 * lossy_pgs).saturating_mul(p.lossy.reserved.0));
        let buffer = p.buffer_size.0;
        if set_aside >= buffer {
            return Err(format!(
                "reserved space and headroom ({set_aside} B over {ports} ports) do not fit in the {buffer} B buffer"
            ));
        }
        Ok(Mmu {
            mode: p.buffer_mode,
            lossless_th: p.lossless.dynamic_th,
            lossy_th: p.lossy.dynamic_th,
            xoff: p.lossless.xoff.0,
            xon: p.lossless.xon.0,
            xon_offset: p.lossless.xon_offset.0,
            lossy_limit: p.lossy.limit.0,
            lossy_reserved: p.lossy.reserved.0,
            reserved_lossless: p.lossless.reserved.0,
            lossless_pgs: lossless_mask,
            shared_pool: buffer - set_aside,
            headroom: headroom.into_boxed_slice(),
            pg: vec![PgAcct::default(); ports * 8].into_boxed_slice(),
            q: vec![QueueAcct::default(); ports * 8].into_boxed_slice(),
            shared_used: 0,
            hdrm_used: 0,
            ports: ports as u32,
        })
    }

    /// Bytes of the hot part of the struct (the fields before `hdrm_used`).
    pub const HOT_BYTES: usize = std::mem::offset_of!(Mmu, hdrm_used);

    #[inline]
    fn reserved_of(&self, pg: Priority) -> u64 {
        // A PG is below 8 (an index beyond would fail at the accounting vectors anyway).
        if self.lossless_pgs & pg.bit() != 0 {
            self.reserved_lossless
        } else {
            0
        }
    }

    /// Free bytes of the shared pool.
    #[inline]
    pub fn free(&self) -> u64 {
        self.shared_pool - self.shared_used
    }

    /// The dynamic XOFF threshold of lossless PGs now: α × free shared buffer.
    #[inline]
    pub fn lossless_threshold(&self) -> u64 {
        scale(self.free(), self.lossless_th)
    }

    #[inline]
    fn shared_part(&self, pg: Priority, non_hdrm: u64) -> u64 {
        non_hdrm.saturating_sub(self.reserved_of(pg))
    }

    /// Bytes an ingress PG holds (reserved + shared + headroom).
    pub fn pg_bytes(&self, port: usize, pg: Priority) -> u64 {
        self.pg[self.pg_index(port, pg)].bytes
    }
    /// Headroom bytes an ingress PG holds.
    pub fn pg_headroom(&self, port: usize, pg: Priority) -> u64 {
        self.pg[self.pg_index(port, pg)].hdrm
    }
    /// Bytes queued at an egress queue.
    #[inline]
    pub fn queue_bytes(&self, port: usize, q: QueueId) -> u64 {
        self.q[self.q_index(port, q)].bytes
    }
    /// Peak bytes ever queued at an egress queue.
    pub fn queue_max(&self, port: usize, q: QueueId) -> u64 {
        self.q[self.q_index(port, q)].max
    }

    /// Index of (port, PG) in the PG accounting: priority-major, so that the one or two
    /// lossless priorities of all ports of a switch share a few cache lines.
    #[inline]
    fn pg_index(&self, port: usize, pg: Priority) -> usize {
        pg.idx() * self.ports as usize + port
    }

    /// Index of (port, queue) in the queue accounting, priority-major like `pg_index`.
    #[inline]
    fn q_index(&self, port: usize, q: QueueId) -> usize {
        q.idx() * self.ports as usize + port
    }

    /// Admit a packet of `size` buffer bytes arriving on (`in_port`, `pg`) for (`out_port`, `q`);
    /// also says whether the PG is then over XOFF ([`Mmu::over_xoff`], from the accounting
    /// just updated instead of read again; false when the packet is dropped).
    #[inline(always)]
    pub fn admit(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
        lossless: bool,
    ) -> (Admit, bool) {
        let i = self.pg_index(in_port, pg);
        let r = self.reserved_of(pg);
        let PgAcct { bytes, hdrm } = self.pg[i];
        let non_hdrm = bytes - hdrm;
        // The PG's shared part before and after: what it holds beyond its reserve.
        let (before, after) = (
            non_hdrm.saturating_sub(r),
            (non_hdrm + size).saturating_sub(r),
        );
        let growth = after - before;
        let verdict = if lossless {
            let fits = growth == 0
                || growth <= self.free()
                    && match self.mode {
                        BufferMode::Dynamic => after <= self.lossless_threshold(),
                        BufferMode::Static => non_hdrm + size <= self.xoff,
                    };
            if fits {
                Admit::Shared
            } else if hdrm + size <= self.headroom[in_port] {
                Admit::Headroom
            } else {
                return (Admit::DropLossless, false);
            }
        } else {
            let qb = self.q[self.q_index(out_port, q)].bytes + size;
            let limit = match self.mode {
                BufferMode::Dynamic => self.lossy_reserved + scale(self.free(), self.lossy_th),
                BufferMode::Static => self.lossy_limit,
            };
            if growth > self.free() || qb > limit {
                return (Admit::DropLossy, false);
            }
            Admit::Shared
        };
        let a = &mut self.pg[i];
        a.bytes += size;
        if verdict == Admit::Headroom {
            a.hdrm += size;
            self.hdrm_used += size;
        } else {
            self.shared_used += growth;
        }
        let PgAcct { bytes, hdrm } = *a;
        let qi = self.q_index(out_port, q);
        let qa = &mut self.q[qi];
        qa.bytes += size;
        qa.max = qa.max.max(qa.bytes);
        (verdict, self.over_xoff_at(pg, bytes, hdrm))
    }

    /// A packet of `size` buffer bytes arriving on (`in_port`, `pg`) for (`out_port`, `q`)
    /// that leaves at once (its egress port is idle and its queues empty): true when
    /// [`Mmu::admit`] then [`Mmu::release`] would leave the accounting as it was (the PG
    /// holds no headroom, the packet fits the shared buffer, and a lossless PG stays below
    /// XOFF with it), and then only the queue's peak is updated. False, and nothing changes,
    /// when admission would do more: take headroom, drop the packet, cross XOFF.
    #[inline(always)]
    pub fn pass(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
        lossless: bool,
    ) -> bool {
        let PgAcct { bytes, hdrm } = self.pg[self.pg_index(in_port, pg)];
        if hdrm != 0 {
            return false;
        }
        let r = self.reserved_of(pg);
        let after = (bytes + size).saturating_sub(r);
        let growth = after - bytes.saturating_sub(r);
        let qi = self.q_index(out_port, q);
        let queued = self.q[qi].bytes + size;
        let passes = if lossless {
            let fits = growth == 0
                || growth <= self.free()
                    && match self.mode {
                        BufferMode::Dynamic => after <= self.lossless_threshold(),
                        BufferMode::Static => bytes + size <= self.xoff,
                    };
            // Over XOFF with the packet admitted, as `over_xoff_at` would judge it.
            let over = match self.mode {
                BufferMode::Dynamic => {
                    after > 0 && after >= scale(self.free() - growth, self.lossless_th)
                }
                BufferMode::Static => bytes + size >= self.xoff,
            };
            fits && !over
        } else {
            let limit = match self.mode {
                BufferMode::Dynamic => self.lossy_reserved + scale(self.free(), self.lossy_th),
                BufferMode::Static => self.lossy_limit,
            };
            growth <= self.free() && queued <= limit
        };
        if passes {
            let qa = &mut self.q[qi];
            qa.max = qa.max.max(queued);
        }
        passes
    }

    /// Release a packet that left its egress queue. Headroom is released first.
    #[inline(always)]
    pub fn release(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
    ) {
        let i = self.pg_index(in_port, pg);
        let r = self.reserved_of(pg);
        let a = &mut self.pg[i];
        let h = a.hdrm.min(size);
        if h > 0 {
            // Only then: `hdrm_used` lies outside the hot line.
            a.hdrm -= h;
            self.hdrm_used -= h;
        }
        // The non-headroom bytes before the rest leaves, and after.
        let non_hdrm = a.bytes - a.hdrm - h;
        let rest = size - h;
        let shrink = non_hdrm.saturating_sub(r) - (non_hdrm - rest).saturating_sub(r);
        self.shared_used -= shrink;
        a.bytes -= size;
        let qi = self.q_index(out_port, q);
        self.q[qi].bytes -= size;
    }

    /// Admit a replica of a packet already admitted (a flooded copy). It is charged like any
    /// packet (so its ingress PG pauses as copies pile up) but never dropped here: a copy that
    /// does not fit stays in the PG's headroom, which may then exceed its nominal size. (A real
    /// switch stores the frame once and frees it after the last copy; this approximation is
    /// conservative: it pauses earlier.)
    pub fn admit_replica(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
        lossless: bool,
    ) {
        match self.admit(in_port, pg, out_port, q, size, lossless).0 {
            Admit::Shared | Admit::Headroom => {}
            Admit::DropLossless | Admit::DropLossy => {
                let i = self.pg_index(in_port, pg);
                self.pg[i].hdrm += size;
                self.hdrm_used += size;
                self.pg[i].bytes += size;
                let qi = self.q_index(out_port, q);
                let qa = &mut self.q[qi];
                qa.bytes += size;
                qa.max = qa.max.max(qa.bytes);
            }
        }
    }

    /// Should this lossless PG be in XOFF (pause its upstream)?
    #[inline(always)]
    pub fn over_xoff(&self, port: usize, pg: Priority) -> bool {
        let PgAcct { bytes, hdrm } = self.pg[self.pg_index(port, pg)];
        self.over_xoff_at(pg, bytes, hdrm)
    }

    /// [`Mmu::over_xoff`] of a PG of priority `pg` holding `bytes`, `hdrm` of them headroom.
    #[inline(always)]
    fn over_xoff_at(&self, pg: Priority, bytes: u64, hdrm: u64) -> bool {
        hdrm > 0
            || match self.mode {
                BufferMode::Dynamic => {
                    let s = (bytes - hdrm).saturating_sub(self.reserved_of(pg));
                    s > 0 && s >= self.lossless_threshold()
                }
                BufferMode::Static => bytes - hdrm >= self.xoff,
            }
    }

    /// May this PG, now in XOFF, send XON (resume its upstream)?
    pub fn under_xon(&self, port: usize, pg: Priority) -> bool {
        let i = self.pg_index(port, pg);
        if self.pg[i].hdrm > 0 {
            return false;
        }
        let non_hdrm = self.pg[i].bytes;
        match self.mode {
            BufferMode::Dynamic => {
                self.shared_part(pg, non_hdrm)
                    <= self.lossless_threshold().saturating_sub(self.xon_offset)
            }
            BufferMode::Static => non_hdrm <= self.xon,
        }
    }

    /// Sum of shared parts over all PGs (for invariant checks).
    pub fn recount_shared(&self) -> u64 {
        (0..self.pg.len())
            .map(|i| {
                let pg = Priority((i / self.ports as usize) as u8);
                self.shared_part(pg, self.pg[i].bytes - self.pg[i].hdrm)
            })
            .sum()
    }
}

#[cfg(test)]
#[allow(clippy::field_reassign_with_default)]
mod tests {
    use super::*;

    const P3: Priority = Priority(3);
    const Q3: QueueId = QueueId(3);
    use crate::fabric::params::{BufferMode, SwitchParams};
    use crate::units::Bytes;
    use proptest::prelude::*;

    fn static_params() -> SwitchParams {
        let mut p = SwitchParams::default();
        p.buffer_mode = BufferMode::Static;
        p.buffer_size = Bytes(1_000_000);
        p.lossless.xoff = Bytes(10_000);
        p.lossless.xon = Bytes(5_000);
        p.lossless.reserved = Bytes(0);
        p
    }

    #[test]
    fn static_xoff_then_headroom_then_lossless_drop() {
        let mut m = Mmu::new(&static_params(), vec![3_000, 3_000]).unwrap();
        // 10 packets of 1000 B reach XOFF exactly.
        for _ in 0..10 {
            assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::Shared);
        }
        assert!(m.over_xoff(0, P3));
        for _ in 0..3 {
            assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::Headroom);
        }
        assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::DropLossless);
        // Drain to XON: headroom first, then down to 5000 B.
        for _ in 0..8 {
            assert!(!m.under_xon(0, P3));
            m.release(0, P3, 1, Q3, 1000);
        }
        assert!(m.under_xon(0, P3));
        assert_eq!(m.pg_bytes(0, P3), 5_000);
    }

    #[test]
    fn a_packet_passes_an_empty_pg_but_not_one_at_xoff_or_in_headroom() {
        let mut m = Mmu::new(&static_params(), vec![3_000, 3_000]).unwrap();
        assert!(m.pass(0, P3, 1, Q3, 1000, true));
        assert_eq!((m.pg_bytes(0, P3), m.queue_bytes(1, Q3)), (0, 0));
        assert_eq!(m.queue_max(1, Q3), 1000);
        // 9000 B held: one more packet reaches XOFF (10,000 B), so it does not pass.
        for _ in 0..9 {
            m.admit(0, P3, 1, Q3, 1000, true);
        }
        assert!(!m.pass(0, P3, 1, Q3, 1000, true));
        assert!(m.pass(0, P3, 1, Q3, 999, true));
        // In headroom: a release would free headroom first, so nothing passes.
        m.admit(0, P3, 1, Q3, 1000, true);
        m.admit(0, P3, 1, Q3, 1000, true);
        assert!(m.pg_headroom(0, P3) > 0);
        assert!(!m.pass(0, P3, 1, Q3, 64, true));
        assert_eq!(m.pg_bytes(0, P3), 11_000);
    }

    #[test]
    fn lossless_pgs_follow_tc_to_pg() {
        // TCs 3 and 4 lossless, both in PG 3: one lossless PG, so one headroom and one
        // reserved size per port are set aside (1 MB - 2 × (3000 + 1000)), and PG 4 is lossy.
        let mut p = static_params();
        p.pfc_enable = 0b1_1000;
        p.tc_to_pg = [0, 1, 2, 3, 3, 5, 6, 7];
        p.lossless.reserved = Bytes(1_000);
        let m = Mmu::new(&p, vec![3_000, 3_000]).unwrap();
        assert_eq!(m.shared_pool, 1_000_000 - 2 * 4_000);
        assert_eq!(m.reserved_of(P3), 1_000);
        assert_eq!(m.reserved_of(Priority(4)), 0);
    }

    #[test]
    fn dynamic_threshold_is_alpha_times_free() {
        let mut p = SwitchParams::default();
        p.buffer_size = Bytes(1_000_000);
        p.lossless.reserved = Bytes(0);
        p.lossless.dynamic_th = -3; // α = 1/8
        let m = Mmu::new(&p, vec![0; 4]).unwrap();
        assert_eq!(m.lossless_threshold(), 1_000_000 / 8);
    }

    #[test]
    fn absurd_headroom_is_an_error_not_an_overflow() {
        // u64::MAX per PG over 64 ports would overflow a plain sum.
        let mut p = static_params();
        p.lossy.reserved = Bytes(u64::MAX);
        assert!(Mmu::new(&p, vec![u64::MAX; 64]).is_err());
    }

    #[test]
    fn headroom_that_does_not_fit_is_an_error() {
        let mut p = SwitchParams::default();
        p.buffer_size = Bytes(100_000);
        assert!(Mmu::new(&p, vec![60_000, 60_000]).is_err());
    }

    #[test]
    fn admission_and_release_read_one_cache_line() {
        use std::mem::offset_of;
        // Every field a lossless admission in dynamic mode or a release reads ends within
        // the first 64 bytes (the switch places the MMU at a line boundary).
        let ends = [
            offset_of!(Mmu, pg) + 16,
            offset_of!(Mmu, q) + 16,
            offset_of!(Mmu, ports) + 4,
            offset_of!(Mmu, lossless_pgs) + 1,
            offset_of!(Mmu, shared_used) + 8,
            offset_of!(Mmu, reserved_lossless) + 8,
            offset_of!(Mmu, shared_pool) + 8,
        ];
        assert!(ends.iter().all(|&e| e <= Mmu::HOT_BYTES), "{ends:?}");
        assert_eq!(Mmu::HOT_BYTES, 64);
    }

    proptest! {
        /// Buffer accounting never goes negative, shared_used always equals the sum of the
        /// PGs' shared parts, and releasing everything returns the MMU to empty; the XOFF
        /// verdict that comes with an admission is the one read from the accounting after it.
        #[test]
        fn accounting_is_conserved(ops in proptest::collection::vec((0usize..4, 0u8..8, 0usize..4, 64u64..9000, any::<bool>()), 1..300), fixed in any::<bool>()) {
            let mut p = if fixed { static_params() } else { SwitchParams::default() };
            p.buffer_size = Bytes(400_000);
            p.pfc_enable = 0b0000_1001;
            let mut m = Mmu::new(&p, vec![20_000; 4]).unwrap();
            let mut held = Vec::new();
            for (inp, pg, out, size, release) in ops {
                if release && !held.is_empty() {
                    let (i, g, o, s) = held.remove(size as usize % held.len());
                    m.release(i, Priority(g), o, QueueId(g), s);
                } else {
                    let lossless = p.pfc_enable & (1 << pg) != 0;
                    let (verdict, over) = m.admit(inp, Priority(pg), out, QueueId(pg), size, lossless);
                    if let Admit::Shared | Admit::Headroom = verdict {
                        prop_assert_eq!(over, m.over_xoff(inp, Priority(pg)));
                        held.push((inp, pg, out, size));
                    }
                }
                prop_assert_eq!(m.shared_used, m.recount_shared());
                prop_assert!(m.shared_used <= m.shared_pool);
            }
            for (i, g, o, s) in held.drain(..) {
                m.release(i, Priority(g), o, QueueId(g), s);
            }
            prop_assert_eq!(m.shared_used, 0);
            prop_assert_eq!(m.hdrm_used, 0);
        }

        /// `pass` says yes exactly when admitting the packet and releasing it at once is
        /// a no-op (the PG holds no headroom, the packet is admitted to the shared buffer
        /// and does not take a lossless PG over XOFF), and then leaves the MMU as that
        /// admission and release do; otherwise it changes nothing. Both buffer modes, any
        /// state built by admissions and releases.
        #[test]
        fn pass_is_admit_then_release(ops in proptest::collection::vec((0usize..4, 0u8..8, 0usize..4, 64u64..9000, 0u8..3), 1..300), fixed in any::<bool>()) {
            let mut p = if fixed { static_params() } else { SwitchParams::default() };
            p.buffer_size = Bytes(400_000);
            p.pfc_enable = 0b0000_1001;
            p.lossless.reserved = Bytes(2_000);
            let mut m = Mmu::new(&p, vec![20_000; 4]).unwrap();
            let mut held = Vec::new();
            for (inp, pg, out, size, op) in ops {
                let (g, q) = (Priority(pg), QueueId(pg));
                let lossless = p.pfc_enable & (1 << pg) != 0;
                if op == 0 && !held.is_empty() {
                    let (i, g, o, s) = held.remove(size as usize % held.len());
                    m.release(i, Priority(g), o, QueueId(g), s);
                } else if op == 1 {
                    if let (Admit::Shared | Admit::Headroom, _) = m.admit(inp, g, out, q, size, lossless) {
                        held.push((inp, pg, out, size));
                    }
                } else {
                    let mut through = m.clone();
                    let hdrm = through.pg_headroom(inp, g);
                    let (verdict, over) = through.admit(inp, g, out, q, size, lossless);
                    // XOFF concerns lossless PGs only (a switch pauses for nothing else).
                    let ok = hdrm == 0 && verdict == Admit::Shared && !(lossless && over);
                    if verdict == Admit::Shared || verdict == Admit::Headroom {
                        through.release(inp, g, out, q, size);
                    }
                    let before = format!("{m:?}");
                    prop_assert_eq!(m.pass(inp, g, out, q, size, lossless), ok);
                    if ok {
                        prop_assert_eq!(format!("{m:?}"), format!("{through:?}"));
                    } else {
                        prop_assert_eq!(format!("{m:?}"), before);
                    }
                }
            }
        }
    }
}
