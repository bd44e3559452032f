//! Loss-recovery counters of one NIC: what it retransmitted and why, what it received out
//! of order, and how often an SRNIC bitmap in host memory was touched. Flat counts, printed
//! per NIC and summed in `summary.json`'s `transport` object.

use super::irn::RetxCause;

/// Loss-recovery counters of one NIC (packets unless named otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecoveryCounters {
    /// Data packets sent again because the retransmission timer expired.
    pub retx_timeout: u64,
    /// Data packets sent again because a NACK named them (go-back-N: every packet a NAK
    /// rewinds over; IRN: the first missing PSN a NACK names).
    pub retx_nack: u64,
    /// Data packets sent again by selective repeat (holes below a selectively acknowledged
    /// PSN, IRN/SRNIC).
    pub retx_selective: u64,
    /// Data packets this NIC received above its QP's cumulative point (held in a bitmap by
    /// IRN/SRNIC; discarded by go-back-N).
    pub ooo_rx: u64,
    /// SRNIC: accesses to receiver bitmaps in host memory (one per out-of-order packet
    /// recorded, one per hole filled that reads the bitmap back).
    pub bitmap_host_accesses: u64,
}

impl RecoveryCounters {
    /// Count one retransmission.
    #[inline]
    pub fn count_retx(&mut self, cause: RetxCause) {
        match cause {
            RetxCause::Timeout => self.retx_timeout += 1,
            RetxCause::Nack => self.retx_nack += 1,
            RetxCause::Selective => self.retx_selective += 1,
        }
    }

    /// Add another NIC's counts.
    pub fn add(&mut self, o: &RecoveryCounters) {
        self.retx_timeout += o.retx_timeout;
        self.retx_nack += o.retx_nack;
        self.retx_selective += o.retx_selective;
        self.ooo_rx += o.ooo_rx;
        self.bitmap_host_accesses += o.bitmap_host_accesses;
    }

    /// Every retransmission.
    pub fn retx_total(&self) -> u64 {
        self.retx_timeout + self.retx_nack + self.retx_selective
    }
}
