//! Egress scheduling: strict priority first (higher queue index wins), then deficit weighted
//! round robin (Shreedhar & Varghese 1995) among the rest. Only queues that are non-empty and
//! not paused by PFC are eligible.

use super::params::QueueSched;

/// Bytes of DWRR credit per unit of weight per round.
pub const DWRR_QUANTUM: i64 = 1024;

/// Scheduler state of one egress port.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Scheduler {
    next: u8,
    weight: [u32; 8],
    deficit: [i64; 8],
}

impl Scheduler {
    /// DWRR state for the given per-queue disciplines (strict queues get no weight).
    pub fn new(kinds: &[QueueSched; 8]) -> Self {
        let mut weight = [0u32; 8];
        for (q, k) in kinds.iter().enumerate() {
            if let QueueSched::Dwrr(w) = *k {
                weight[q] = w.max(1);
            }
        }
        Scheduler {
            weight,
            deficit: [0; 8],
            next: 0,
        }
    }

    /// Bitmask of the strict-priority queues among `kinds` (kept on the port, in its first
    /// cache line).
    pub fn strict_mask(kinds: &[QueueSched; 8]) -> u8 {
        kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| matches!(k, QueueSched::Strict))
            .fold(0, |m, (q, _)| m | 1 << q)
    }

    /// Pick the queue to serve next. `eligible` is a bitmask of non-empty, unpaused queues,
    /// `strict` the strict-priority queues (`strict_mask`); `head(q)` is the size of queue q's
    /// head packet in bytes.
    #[inline]
    pub fn pick(&mut self, strict: u8, eligible: u8, head: impl Fn(u8) -> u32) -> Option<u8> {
        if eligible == 0 {
            return None;
        }
        let s = eligible & strict;
        if s != 0 {
            return Some(7 - s.leading_zeros() as u8);
        }
        let d = eligible & !strict;
        if d.count_ones() == 1 {
            return Some(d.trailing_zeros() as u8);
        }
        // At most ceil(max frame / quantum) rounds over 8 queues.
        for _ in 0..8 * 16 {
            let q = self.next;
            if d & (1 << q) != 0 {
                let need = head(q) as i64;
                if self.deficit[q as usize] >= need {
                    self.deficit[q as usize] -= need;
                    return Some(q);
                }
                self.deficit[q as usize] += self.weight[q as usize] as i64 * DWRR_QUANTUM;
            } else {
                self.deficit[q as usize] = 0;
            }
            self.next = (q + 1) % 8;
        }
        Some(d.trailing_zeros() as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_beats_dwrr_and_higher_strict_wins() {
        let mut k = [QueueSched::Dwrr(1); 8];
        k[6] = QueueSched::Strict;
        k[7] = QueueSched::Strict;
        let mut s = Scheduler::new(&k);
        let strict = Scheduler::strict_mask(&k);
        assert_eq!(s.pick(strict, 0b1100_1001, |_| 1000), Some(7));
        assert_eq!(s.pick(strict, 0b0100_1001, |_| 1000), Some(6));
        assert_eq!(s.pick(strict, 0, |_| 1000), None);
    }

    #[test]
    fn dwrr_shares_bytes_by_weight() {
        let mut k = [QueueSched::Dwrr(1); 8];
        k[0] = QueueSched::Dwrr(3);
        k[3] = QueueSched::Dwrr(1);
        let mut s = Scheduler::new(&k);
        let strict = Scheduler::strict_mask(&k);
        let mut served = [0u64; 8];
        for _ in 0..40_000 {
            let q = s.pick(strict, 0b0000_1001, |_| 1000).unwrap();
            served[q as usize] += 1000;
        }
        let ratio = served[0] as f64 / served[3] as f64;
        assert!((ratio - 3.0).abs() < 0.01, "ratio {ratio}");
    }
}
