//! Sorting a short wheel slot by repeated selection, with vectors: each entry's time below
//! the slot sits in a 16-bit lane, and each step takes the entries whose lane holds the least
//! time (those due at one picosecond, in the order of their keys) and retires their lanes.
//! A step is a handful of vector instructions and no branch on the data, except where two
//! entries are due at the same picosecond. The insertion sort it replaces for short slots
//! branched on every comparison, and at S1 the entries of a slot arrive in random order: the
//! sort's mispredictions cost more than its instructions (docs/performance.md, "Slots
//! sorted by selection").

use std::mem::MaybeUninit;

use super::tie_mask;
use super::wheel_slot::Slotted;

/// Longest slot sorted by selection: 16 lanes, two 128-bit vectors.
pub(super) const SELECT_MAX: usize = 16;
/// The lane of no entry, or of one already taken: after every time below a slot (at most 12
/// bits), and an `or` with it retires any lane.
const EMPTY: i16 = i16::MAX;

// A time below the slot fits a lane's positive range, and stays below `EMPTY`.
const _: () = assert!(
    super::MAX_SLOT_SHIFT < 15,
    "slot times must fit a 16-bit lane"
);

/// 16 lanes, aligned for two vector loads.
#[repr(C, align(16))]
struct Lanes([i16; SELECT_MAX]);

/// Sort slot `v` (at most [`SELECT_MAX`] entries, starting at `base` ps) by (time, key).
#[inline]
pub(super) fn select_sort(v: &mut [Slotted], base: u64) {
    let n = v.len();
    debug_assert!(n <= SELECT_MAX);
    let mut lanes = Lanes([EMPTY; SELECT_MAX]);
    for (l, s) in lanes.0.iter_mut().zip(v.iter()) {
        *l = s.lo as i16;
    }
    let mut out = [MaybeUninit::<Slotted>::uninit(); SELECT_MAX];
    let mut k = 0;
    let mut least = Least::new(&lanes);
    while k < n {
        let at = least.next();
        if at & (at - 1) == 0 {
            out[k].write(v[at.trailing_zeros() as usize]);
            k += 1;
        } else {
            k = write_ties(v, at, base, &mut out, k);
        }
    }
    for (s, o) in v.iter_mut().zip(&out) {
        // SAFETY: each step wrote as many entries as lanes it retired, and the `n` lanes of
        // entries are retired before the loop ends (the others hold `EMPTY`, which no entry's
        // time reaches): `out[..n]` is written.
        *s = unsafe { o.assume_init() };
    }
}

/// Of the entries of slot `v` (starting at `base` ps) named by the bits of `at`, all due at
/// the same picosecond, write them into `out` from `k` on in the order of their keys (as
/// [`Slotted::before`] orders them, each key computed once); returns the next free place.
#[inline(never)]
fn write_ties(
    v: &[Slotted],
    mut at: u32,
    base: u64,
    out: &mut [MaybeUninit<Slotted>; SELECT_MAX],
    k: usize,
) -> usize {
    let mask = tie_mask(base | u64::from(v[at.trailing_zeros() as usize].lo));
    let mut keys = [0u64; SELECT_MAX];
    let mut end = k;
    while at != 0 {
        let s = v[at.trailing_zeros() as usize];
        at &= at - 1;
        let key = s.event.key() ^ mask;
        // Insert among those written so far (usually one).
        let mut j = end;
        while j > k && key < keys[j - 1] {
            out[j] = out[j - 1];
            keys[j] = keys[j - 1];
            j -= 1;
        }
        out[j].write(s);
        keys[j] = key;
        end += 1;
    }
    end
}

/// The lanes of a slot being sorted, held in two vectors, from which [`Least::next`] takes
/// the least.
#[cfg(target_arch = "x86_64")]
struct Least {
    a: std::arch::x86_64::__m128i,
    b: std::arch::x86_64::__m128i,
}

#[cfg(target_arch = "x86_64")]
impl Least {
    /// The lanes `l`.
    #[inline(always)]
    fn new(l: &Lanes) -> Self {
        use std::arch::x86_64::{__m128i, _mm_load_si128};
        // SAFETY: SSE2 is part of x86_64; `Lanes` is 32 bytes aligned to 16.
        unsafe {
            let p = l.0.as_ptr().cast::<__m128i>();
            Least {
                a: _mm_load_si128(p),
                b: _mm_load_si128(p.add(1)),
            }
        }
    }

    /// The lanes holding the least time (a bit for each), which are then retired.
    #[inline(always)]
    fn next(&mut self) -> u32 {
        use std::arch::x86_64::{
            _mm_and_si128, _mm_cmpeq_epi16, _mm_min_epi16, _mm_movemask_epi8, _mm_or_si128,
            _mm_packs_epi16, _mm_set1_epi16, _mm_shuffle_epi32, _mm_shufflehi_epi16,
            _mm_shufflelo_epi16,
        };
        // SAFETY: SSE2 is part of x86_64; register operations only.
        unsafe {
            // The least of each lane pair, then of halves, quarters and eighths: every lane
            // ends up holding the least.
            let m = _mm_min_epi16(self.a, self.b);
            let m = _mm_min_epi16(m, _mm_shuffle_epi32::<0b01_00_11_10>(m));
            let m = _mm_min_epi16(m, _mm_shuffle_epi32::<0b10_11_00_01>(m));
            let pairs =
                _mm_shufflehi_epi16::<0b10_11_00_01>(_mm_shufflelo_epi16::<0b10_11_00_01>(m));
            let m = _mm_min_epi16(m, pairs);
            let (eq_a, eq_b) = (_mm_cmpeq_epi16(self.a, m), _mm_cmpeq_epi16(self.b, m));
            let empty = _mm_set1_epi16(EMPTY);
            self.a = _mm_or_si128(self.a, _mm_and_si128(eq_a, empty));
            self.b = _mm_or_si128(self.b, _mm_and_si128(eq_b, empty));
            _mm_movemask_epi8(_mm_packs_epi16(eq_a, eq_b)) as u32
        }
    }
}

/// [`Least`] without vectors (also built for the tests, which hold the two to each other).
#[cfg(any(test, not(target_arch = "x86_64")))]
struct Scalar([i16; SELECT_MAX]);

#[cfg(not(target_arch = "x86_64"))]
use Scalar as Least;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Scalar {
    /// The lanes `l`.
    #[inline(always)]
    fn new(l: &Lanes) -> Self {
        Scalar(l.0)
    }

    /// The lanes holding the least time (a bit for each), which are then retired.
    #[inline(always)]
    fn next(&mut self) -> u32 {
        let least = self.0.iter().copied().min().unwrap_or(EMPTY);
        let mut at = 0;
        for (k, l) in self.0.iter_mut().enumerate() {
            if *l == least {
                at |= 1 << k;
                *l = EMPTY;
            }
        }
        at
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The vector selection and the scalar one take the same lanes at every step, ties
        /// (a few distinct times) included, until every entry's lane is retired.
        #[test]
        fn vectors_select_as_the_scalar_code_does(
            times in proptest::collection::vec(0i16..4096, 1..=SELECT_MAX),
            few in any::<bool>(),
        ) {
            let mut lanes = Lanes([EMPTY; SELECT_MAX]);
            for (l, &t) in lanes.0.iter_mut().zip(&times) {
                *l = if few { t % 3 } else { t };
            }
            let (mut v, mut s) = (Least::new(&lanes), Scalar::new(&lanes));
            let mut taken = 0;
            while taken < times.len() {
                let at = v.next();
                prop_assert_eq!(at, s.next());
                prop_assert!(at != 0);
                taken += at.count_ones() as usize;
            }
            prop_assert_eq!(taken, times.len());
        }
    }
}
