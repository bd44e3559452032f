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
use crate::engine::handle;
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
/// count is a `u32`, so that the pool and its sizes fit beside them. Aligned to a cache line,
/// so that the hot part is one line wherever the struct sits.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
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

    /// Does a lossless PG's packet fit the shared buffer, the PG then holding `non_hdrm`
    /// bytes outside headroom, its shared part growing by `growth` to `after`? Within its
    /// reserve always; beyond it, if the pool has room and the PG stays within the dynamic
    /// threshold (α × free) or the static XOFF size.
    #[inline(always)]
    fn fits_shared(&self, non_hdrm: u64, growth: u64, after: u64) -> bool {
        growth == 0
            || growth <= self.free()
                && match self.mode {
                    BufferMode::Dynamic => after <= self.lossless_threshold(),
                    BufferMode::Static => non_hdrm <= self.xoff,
                }
    }

    /// Most bytes a lossy egress queue may hold now: its reserve plus α × free shared
    /// buffer (dynamic), or the static limit.
    #[inline(always)]
    fn lossy_queue_limit(&self) -> u64 {
        match self.mode {
            BufferMode::Dynamic => self.lossy_reserved + scale(self.free(), self.lossy_th),
            BufferMode::Static => self.lossy_limit,
        }
    }

    /// Admit a packet of `size` buffer bytes arriving on (`in_port`, `pg`) for (`out_port`, `q`);
    /// also says whether the PG is then over XOFF ([`Mmu::over_xoff`], from the accounting
    /// just updated instead of read again; false when the packet is dropped).
    #[inline(always)]
    pub(crate) fn admit(
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
        let PgAcct { bytes, hdrm } = *handle::at(&self.pg, i);
        let non_hdrm = bytes - hdrm;
        // The PG's shared part before and after: what it holds beyond its reserve.
        let (before, after) = (
            non_hdrm.saturating_sub(r),
            (non_hdrm + size).saturating_sub(r),
        );
        let growth = after - before;
        let verdict = if lossless {
            if self.fits_shared(non_hdrm + size, growth, after) {
                Admit::Shared
            } else if hdrm + size <= self.headroom[in_port] {
                Admit::Headroom
            } else {
                return (Admit::DropLossless, false);
            }
        } else {
            let qb = self.q[self.q_index(out_port, q)].bytes + size;
            if growth > self.free() || qb > self.lossy_queue_limit() {
                return (Admit::DropLossy, false);
            }
            Admit::Shared
        };
        let a = handle::at_mut(&mut self.pg, i);
        a.bytes += size;
        if verdict == Admit::Headroom {
            a.hdrm += size;
            self.hdrm_used += size;
        } else {
            self.shared_used += growth;
        }
        let PgAcct { bytes, hdrm } = *a;
        let qi = self.q_index(out_port, q);
        let qa = handle::at_mut(&mut self.q, qi);
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
    pub(crate) fn pass(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
        lossless: bool,
    ) -> bool {
        let PgAcct { bytes, hdrm } = *handle::at(&self.pg, self.pg_index(in_port, pg));
        if hdrm != 0 {
            return false;
        }
        let r = self.reserved_of(pg);
        let after = (bytes + size).saturating_sub(r);
        let growth = after - bytes.saturating_sub(r);
        let qi = self.q_index(out_port, q);
        let queued = handle::at(&self.q, qi).bytes + size;
        let passes = if lossless {
            // Fits, and then not over XOFF as `over_xoff_at` would judge it (with the
            // packet admitted: `growth` fits in the free pool).
            self.fits_shared(bytes + size, growth, after)
                && !match self.mode {
                    BufferMode::Dynamic => {
                        after > 0 && after >= scale(self.free() - growth, self.lossless_th)
                    }
                    BufferMode::Static => bytes + size >= self.xoff,
                }
        } else {
            growth <= self.free() && queued <= self.lossy_queue_limit()
        };
        if passes {
            let qa = handle::at_mut(&mut self.q, qi);
            qa.max = qa.max.max(queued);
        }
        passes
    }

    /// Release a packet that left its egress queue. Headroom is released first.
    #[inline(always)]
    pub(crate) fn release(
        &mut self,
        in_port: usize,
        pg: Priority,
        out_port: usize,
        q: QueueId,
        size: u64,
    ) {
        let i = self.pg_index(in_port, pg);
        let r = self.reserved_of(pg);
        let a = handle::at_mut(&mut self.pg, i);
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
        handle::at_mut(&mut self.q, qi).bytes -= size;
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
#[path = "mmu_tests.rs"]
mod tests;
