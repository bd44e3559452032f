//! The wheel's occupancy bitmap (`engine/queue.rs`): one bit per slot, set while the slot
//! holds entries, and a summary word with one bit per non-empty word of the bitmap, so that
//! the next non-empty slot is found without a scan. Beside the rings the wheel is sparse (on
//! S1-none one slot in eight holds an event), and a scan word by word cost about 30
//! instructions a hop over a whole run (docs/performance.md, "Rings for the common delays").

/// One bit per wheel slot (a power of two of them, at least 64), and the summary.
#[derive(Debug)]
pub(super) struct SlotBitmap {
    bits: Box<[u64]>,
    /// One bit per word of `bits`: non-zero (kept where `bits` has at most 64 words, 4,096
    /// slots; a larger wheel scans `bits`).
    summary: u64,
}

impl SlotBitmap {
    /// All `n` slots empty.
    pub(super) fn new(n: usize) -> Self {
        SlotBitmap {
            bits: vec![0; n / 64].into_boxed_slice(),
            summary: 0,
        }
    }
    /// The word of slot `i` (below the number of slots: the queue masks it).
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        debug_assert!(i / 64 < self.bits.len());
        // SAFETY: as in `word_mut`.
        unsafe { *self.bits.get_unchecked(i / 64) }
    }
    /// [`SlotBitmap::word`], to write.
    #[inline(always)]
    fn word_mut(&mut self, i: usize) -> &mut u64 {
        debug_assert!(i / 64 < self.bits.len());
        // SAFETY: `i < slots` and `bits.len() == slots / 64`, so `i / 64 < bits.len()`.
        unsafe { self.bits.get_unchecked_mut(i / 64) }
    }
    /// Mark slot `i` non-empty.
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize) {
        *self.word_mut(i) |= 1 << (i % 64);
        self.summary |= 1u64 << (i / 64 % 64);
    }
    /// Mark slot `i` empty.
    #[inline(always)]
    pub(super) fn clear(&mut self, i: usize) {
        let w = self.word_mut(i);
        *w &= !(1 << (i % 64));
        if *w == 0 {
            self.summary &= !(1u64 << (i / 64 % 64));
        }
    }
    /// Is slot `i` non-empty?
    #[inline(always)]
    pub(super) fn is_set(&self, i: usize) -> bool {
        self.word(i) & 1 << (i % 64) != 0
    }
    /// The first non-empty slot at or after `start`, in wheel order (wrapping round to the
    /// slots before `start`).
    pub(super) fn first_from(&self, start: usize) -> Option<usize> {
        let words = self.bits.len();
        if words > 64 {
            return self.first_from_but(start, usize::MAX);
        }
        let sw = start / 64;
        let found = |w: usize, b: u64| Some(w * 64 + b.trailing_zeros() as usize);
        let b = self.bits[sw] & (!0u64 << (start % 64));
        if b != 0 {
            return found(sw, b);
        }
        // The words after `sw`, in wheel order: bit j of `after` is word sw + 1 + j.
        let after = if words == 64 {
            self.summary.rotate_right(sw as u32 + 1)
        } else {
            // The words repeated above themselves, so that the shift wraps (2 * words <= 64).
            let twice = self.summary | self.summary << words;
            twice >> (sw + 1) & ((1u64 << words) - 1)
        };
        if after == 0 {
            return None;
        }
        let w = (sw + 1 + after.trailing_zeros() as usize) & (words - 1);
        // Back at `sw`: only its slots before `start` are left.
        let b = if w == sw {
            self.bits[sw] & ((1u64 << (start % 64)) - 1)
        } else {
            self.bits[w]
        };
        if b == 0 {
            return None;
        }
        found(w, b)
    }
    /// [`SlotBitmap::first_from`] by a scan of the words, slot `skip` taken as empty.
    pub(super) fn first_from_but(&self, start: usize, skip: usize) -> Option<usize> {
        let words = self.bits.len();
        for k in 0..words + 1 {
            // A power of two: the mask takes the place of a division.
            let w = (start / 64 + k) & (words - 1);
            let mut bits = self.bits[w];
            if w == skip / 64 {
                bits &= !(1 << (skip % 64));
            }
            if k == 0 {
                bits &= !0u64 << (start % 64);
            } else if k == words {
                bits &= (1u64 << (start % 64)).wrapping_sub(1);
            }
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }
}
