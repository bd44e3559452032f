//! The PSN bitmap of a selective-repeat QP (IRN, Mittal et al. 2018 §3.1): one bit per packet
//! of a window of at most [`PsnBitmap::SPAN`] consecutive PSNs, kept as a fixed-size ring
//! (PSN p lives at bit p mod SPAN), so that sliding the window never shifts or allocates.
//! BDP-FC keeps every PSN a QP tracks within SPAN of its cumulative point.

/// Bits of a fixed-size PSN ring: 1024 packets, 128 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PsnBitmap {
    words: [u64; PsnBitmap::WORDS],
}

impl Default for PsnBitmap {
    fn default() -> Self {
        PsnBitmap {
            words: [0; PsnBitmap::WORDS],
        }
    }
}

impl PsnBitmap {
    const WORDS: usize = 16;
    /// PSNs the ring can track at once (the most packets BDP-FC lets a QP have in flight).
    pub const SPAN: u32 = (PsnBitmap::WORDS * 64) as u32;

    #[inline]
    fn at(psn: u32) -> (usize, u64) {
        let b = psn % Self::SPAN;
        ((b / 64) as usize, 1u64 << (b % 64))
    }
    /// Is PSN `psn`'s bit set?
    #[inline]
    pub fn get(&self, psn: u32) -> bool {
        let (w, m) = Self::at(psn);
        self.words[w] & m != 0
    }
    /// Set PSN `psn`'s bit; returns whether it was already set.
    #[inline]
    pub fn set(&mut self, psn: u32) -> bool {
        let (w, m) = Self::at(psn);
        let was = self.words[w] & m != 0;
        self.words[w] |= m;
        was
    }
    /// Clear PSN `psn`'s bit; returns whether it was set.
    #[inline]
    pub fn clear(&mut self, psn: u32) -> bool {
        let (w, m) = Self::at(psn);
        let was = self.words[w] & m != 0;
        self.words[w] &= !m;
        was
    }
    /// Clear every bit.
    pub fn reset(&mut self) {
        self.words = [0; Self::WORDS];
    }
    /// Set bits in the ring.
    pub fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::PsnBitmap;

    #[test]
    fn ring_wraps_by_span_and_counts() {
        let mut b = PsnBitmap::default();
        assert!(!b.set(5));
        assert!(b.set(5), "second set reports the bit");
        assert!(b.get(5 + PsnBitmap::SPAN), "PSNs SPAN apart share a bit");
        assert!(!b.set(1023));
        assert!(!b.set(1024), "1024 wraps to bit 0");
        assert_eq!(b.count(), 3);
        assert!(b.clear(5) && !b.clear(5));
        assert_eq!(b.count(), 2);
        b.reset();
        assert_eq!(b.count(), 0);
        assert_eq!(std::mem::size_of::<PsnBitmap>(), 128);
    }
}
