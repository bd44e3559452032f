//! Sorting a wheel slot of up to 32 entries with a sorting network on vectors (Batcher's
//! bitonic sort, 1968, in the form whose merges start with a "flip" and so need no
//! descending runs).
//!
//! Each entry becomes one 16-bit lane: its time below the slot in the high bits, its index
//! in the slot in the low bits, so that lanes are distinct and order by time. Eight lanes
//! make a 128-bit vector; a compare-exchange of two vectors is one `min` and one `max`, and
//! of lanes within a vector a shuffle, the two, and a blend. The network's steps depend on
//! the slot's length only, never on its entries, so there is no branch on the data, and its
//! depth (six steps for 8 lanes, ten for 16, fifteen for 32) is short. The selection sort
//! this replaces found the least lane again at every step and so waited on a chain of a dozen
//! dependent vector operations for each distinct time (docs/performance.md, "A sorting
//! network for the wheel's slots").
//!
//! Entries due at the same picosecond come out in index order; each sorted lane's time
//! compared with the one before's, on the vectors, finds them, and only those runs are put in
//! the order of their keys ([`Slotted::before`]).

use std::mem::MaybeUninit;

use super::wheel_slot::Slotted;
use crate::engine::event::tie_mask;

/// Longest slot sorted by the network: four vectors of 8 lanes.
pub(super) const NETWORK_MAX: usize = 32;
/// The lanes beyond a slot's entries (the network sorts whole vectors): none sorts before
/// it, and it equals an entry's only in a slot that fills every lane, where there is none.
const PAD: i16 = i16::MAX;
/// The top bit of a lane, flipped so that signed vector comparisons order lanes as unsigned.
const BIAS: u16 = 0x8000;

/// 32 lanes, aligned for vector loads.
#[repr(C, align(16))]
struct Lanes([i16; NETWORK_MAX]);

/// The longest slot the network sorts in a wheel whose entries' times below the slot take
/// `time_bits` bits: each lane keeps the bits left for the entry's index.
#[inline(always)]
pub(super) fn network_max(time_bits: u32) -> usize {
    NETWORK_MAX.min(1 << 16u32.saturating_sub(time_bits))
}

/// Sort slot `v` (2 to [`network_max`] entries, starting at `base` ps; the entries' times
/// below the slot take `time_bits` bits) by (time, key).
#[inline]
pub(super) fn network_sort(v: &mut [Slotted], base: u64, time_bits: u32) {
    let n = v.len();
    debug_assert!((2..=network_max(time_bits)).contains(&n));
    let idx_bits = 16 - time_bits;
    let mut lanes = Lanes([PAD; NETWORK_MAX]);
    for (k, (l, s)) in lanes.0.iter_mut().zip(v.iter()).enumerate() {
        *l = (((s.lo << idx_bits) as u16 | k as u16) ^ BIAS) as i16;
    }
    // Bit k: entry k (in sorted order) is due at the same picosecond as entry k - 1.
    let entries = ((1u64 << n) - 1) as u32 & !1;
    let ties = entries
        & if n <= 16 {
            sort_lanes::<2>(&mut lanes, idx_bits)
        } else {
            sort_lanes::<4>(&mut lanes, idx_bits)
        };
    let idx_mask = (1u16 << idx_bits) - 1;
    let mut out = [MaybeUninit::<Slotted>::uninit(); NETWORK_MAX];
    for (o, &l) in out.iter_mut().zip(&lanes.0[..n]) {
        o.write(v[usize::from(l as u16 & idx_mask)]);
    }
    if ties != 0 {
        order_ties(&mut out[..n], ties, base);
    }
    for (s, o) in v.iter_mut().zip(&out) {
        // SAFETY: `out[..n]` was written above (`v` has `n` entries).
        *s = unsafe { o.assume_init() };
    }
}

/// Put each run of entries of `out` (sorted by time, in a slot starting at `base` ps) due at
/// one picosecond in the order of their keys: bit k of `ties` says entry k is due with entry
/// k - 1. Out of line: it runs only where a slot holds a tie.
#[inline(never)]
fn order_ties(out: &mut [MaybeUninit<Slotted>], mut ties: u32, base: u64) {
    // SAFETY (every `assume_init` below): the caller wrote all of `out`.
    while ties != 0 {
        let first = ties.trailing_zeros() as usize - 1;
        let run = (ties >> (first + 1)).trailing_ones() as usize + 1;
        ties &= !((((1u64 << run) - 1) << first) as u32);
        let run = &mut out[first..first + run];
        let mask = tie_mask(base | u64::from(unsafe { run[0].assume_init() }.lo));
        // Insertion by key, each computed once (a run is usually two entries); `keys[..i]`
        // are written when entry i is placed.
        let mut keys = [MaybeUninit::<u64>::uninit(); NETWORK_MAX];
        for i in 0..run.len() {
            let s = run[i];
            let key = unsafe { s.assume_init() }.event.key() ^ mask;
            let mut j = i;
            while j > 0 && key < unsafe { keys[j - 1].assume_init() } {
                run[j] = run[j - 1];
                keys[j] = keys[j - 1];
                j -= 1;
            }
            run[j] = s;
            keys[j].write(key);
        }
    }
}

/// Sort the first `8 * V` lanes (`V` = 2 or 4) with the network; returns the sorted lanes
/// whose time (the bits above the low `idx_bits`) is the one before's (a bit for each; bit 0
/// means nothing).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sort_lanes<const V: usize>(lanes: &mut Lanes, idx_bits: u32) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi16, _mm_cvtsi32_si128, _mm_load_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_packs_epi16, _mm_slli_si128, _mm_srl_epi16, _mm_srli_si128,
        _mm_store_si128,
    };
    debug_assert!(V == 2 || V == 4);
    // SAFETY: SSE2 is part of x86_64; `Lanes` is 64 bytes aligned to 16, and `8 * V` lanes
    // are at most its 32.
    unsafe {
        let p = lanes.0.as_mut_ptr().cast::<__m128i>();
        let mut x: [__m128i; V] = std::array::from_fn(|i| _mm_load_si128(p.add(i)));
        if V == 2 {
            (x[0], x[1]) = net::sort16(x[0], x[1]);
        } else {
            let (a, b) = net::sort16(x[0], x[1]);
            let (c, d) = net::sort16(x[2], x[3]);
            // Flip: lane i against lane 31 - i. The upper half comes out reversed, still a
            // bitonic sequence, which the half-cleaners sort as well.
            let (rc, rd) = (net::rev8(c), net::rev8(d));
            let (a, c) = net::cx(a, rd);
            let (b, d) = net::cx(b, rc);
            (x[0], x[1]) = net::clean16(a, b);
            (x[2], x[3]) = net::clean16(c, d);
        }
        for (i, v) in x.iter().enumerate() {
            _mm_store_si128(p.add(i), *v);
        }
        // Each lane's time against the lane before's: the times shifted one lane up, the
        // last lane of the vector before carried in.
        let count = _mm_cvtsi32_si128(idx_bits as i32);
        let t: [__m128i; V] = std::array::from_fn(|i| _mm_srl_epi16(x[i], count));
        let eq: [__m128i; V] = std::array::from_fn(|i| {
            let up = _mm_slli_si128::<2>(t[i]);
            let before = if i == 0 {
                up
            } else {
                _mm_or_si128(up, _mm_srli_si128::<14>(t[i - 1]))
            };
            _mm_cmpeq_epi16(t[i], before)
        });
        let mut ties = 0;
        for (i, pair) in eq.chunks_exact(2).enumerate() {
            ties |= (_mm_movemask_epi8(_mm_packs_epi16(pair[0], pair[1])) as u32) << (16 * i);
        }
        ties
    }
}

/// The steps of the network on vectors of 8 signed 16-bit lanes (SSE2).
#[cfg(target_arch = "x86_64")]
mod net {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_max_epi16, _mm_min_epi16, _mm_or_si128,
        _mm_set_epi16, _mm_shuffle_epi32, _mm_shufflehi_epi16, _mm_shufflelo_epi16,
        _mm_unpacklo_epi64,
    };

    // SAFETY (every function here): SSE2 is part of x86_64; register operations only.

    /// Lane by lane, the lesser and the greater of `a` and `b`.
    #[inline(always)]
    pub(super) fn cx(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        unsafe { (_mm_min_epi16(a, b), _mm_max_epi16(a, b)) }
    }

    /// `lo` where `keep` has its lanes set, `hi` elsewhere.
    #[inline(always)]
    fn blend(keep: __m128i, lo: __m128i, hi: __m128i) -> __m128i {
        unsafe { _mm_or_si128(_mm_and_si128(keep, lo), _mm_andnot_si128(keep, hi)) }
    }

    /// Lanes 0, 2, 4, 6 set.
    #[inline(always)]
    fn even() -> __m128i {
        unsafe { _mm_set_epi16(0, -1, 0, -1, 0, -1, 0, -1) }
    }

    /// Lanes 0, 1, 4, 5 set.
    #[inline(always)]
    fn low_pairs() -> __m128i {
        unsafe { _mm_set_epi16(0, 0, -1, -1, 0, 0, -1, -1) }
    }

    /// Each group of 4 lanes shuffled by `IMM` (as `pshuflw` and `pshufhw` read it).
    #[inline(always)]
    fn in_quads<const IMM: i32>(x: __m128i) -> __m128i {
        unsafe { _mm_shufflehi_epi16::<IMM>(_mm_shufflelo_epi16::<IMM>(x)) }
    }

    /// The 8 lanes in reverse order.
    #[inline(always)]
    pub(super) fn rev8(x: __m128i) -> __m128i {
        in_quads::<0b00_01_10_11>(unsafe { _mm_shuffle_epi32::<0b01_00_11_10>(x) })
    }

    /// Compare-exchange each lane with the same lane of `partner` (`x` with its lanes
    /// moved): the lesser where `keep` has its lanes set, the greater elsewhere.
    #[inline(always)]
    fn exchange(x: __m128i, partner: __m128i, keep: __m128i) -> __m128i {
        let (lo, hi) = cx(x, partner);
        blend(keep, lo, hi)
    }

    /// Compare-exchange lanes i and i ^ 1.
    #[inline(always)]
    fn step1(x: __m128i) -> __m128i {
        exchange(x, in_quads::<0b10_11_00_01>(x), even())
    }

    /// Compare-exchange lanes i and i ^ 2.
    #[inline(always)]
    fn step2(x: __m128i) -> __m128i {
        exchange(
            x,
            unsafe { _mm_shuffle_epi32::<0b10_11_00_01>(x) },
            low_pairs(),
        )
    }

    /// Compare-exchange lanes i and i ^ 4.
    #[inline(always)]
    fn step4(x: __m128i) -> __m128i {
        let (lo, hi) = cx(x, unsafe { _mm_shuffle_epi32::<0b01_00_11_10>(x) });
        unsafe { _mm_unpacklo_epi64(lo, hi) }
    }

    /// Flip within each group of 4: lane i against lane 3 - i.
    #[inline(always)]
    fn flip4(x: __m128i) -> __m128i {
        exchange(x, in_quads::<0b00_01_10_11>(x), low_pairs())
    }

    /// Flip the 8 lanes: lane i against lane 7 - i (the upper half comes out reversed).
    #[inline(always)]
    fn flip8(x: __m128i) -> __m128i {
        let (lo, hi) = cx(x, rev8(x));
        unsafe { _mm_unpacklo_epi64(lo, hi) }
    }

    /// Sort 8 lanes.
    #[inline(always)]
    fn sort8(x: __m128i) -> __m128i {
        let x = step1(x);
        let x = step1(flip4(x));
        step1(step2(flip8(x)))
    }

    /// Sort 8 lanes that form a bitonic sequence.
    #[inline(always)]
    fn clean8(x: __m128i) -> __m128i {
        step1(step2(step4(x)))
    }

    /// Sort 16 lanes that form a bitonic sequence.
    #[inline(always)]
    pub(super) fn clean16(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let (a, b) = cx(a, b);
        (clean8(a), clean8(b))
    }

    /// Sort 16 lanes.
    #[inline(always)]
    pub(super) fn sort16(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
        let (a, b) = (sort8(a), sort8(b));
        let (a, b) = cx(a, rev8(b));
        (clean8(a), clean8(b))
    }
}

/// [`sort_lanes`] without vectors: the standard library's sort (also the tests' reference).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn sort_lanes_scalar<const V: usize>(lanes: &mut Lanes, idx_bits: u32) -> u32 {
    let l = &mut lanes.0[..8 * V];
    l.sort_unstable();
    let time = |x: i16| x as u16 >> idx_bits;
    (1..l.len())
        .filter(|&k| time(l[k]) == time(l[k - 1]))
        .fold(0, |ties, k| ties | 1 << k)
}

#[cfg(not(target_arch = "x86_64"))]
use sort_lanes_scalar as sort_lanes;

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The network and the standard sort order the lanes alike, and find the same lanes due
    /// with the one before.
    fn sorts_as_the_scalar_code<const V: usize>(l: &[i16]) -> Result<(), TestCaseError> {
        let mut lanes = Lanes([PAD; NETWORK_MAX]);
        lanes.0[..l.len()].copy_from_slice(l);
        let mut reference = Lanes(lanes.0);
        for idx_bits in [4, 5, 6] {
            let ties = sort_lanes::<V>(&mut lanes, idx_bits);
            let expect = sort_lanes_scalar::<V>(&mut reference, idx_bits);
            prop_assert_eq!(lanes.0, reference.0);
            prop_assert_eq!(ties & !1, expect, "ties, {} index bits", idx_bits);
        }
        Ok(())
    }

    proptest! {
        /// The network sorts any 16 and any 32 lanes (repeated values and the extremes
        /// included) as the standard sort does.
        #[test]
        fn network_sorts_as_the_standard_sort(
            l in proptest::collection::vec(
                prop_oneof![any::<i16>(), Just(i16::MIN), Just(i16::MAX), -3i16..3],
                1..=NETWORK_MAX,
            ),
        ) {
            if l.len() <= 16 {
                sorts_as_the_scalar_code::<2>(&l)?;
            }
            sorts_as_the_scalar_code::<4>(&l)?;
        }
    }

    /// A sorting network sorts every input if it sorts every sequence of 0s and 1s (Knuth,
    /// TAOCP 5.3.4): all 2^16 of them for 16 lanes.
    #[test]
    fn network_sorts_every_sequence_of_0s_and_1s() {
        for bits in 0u32..1 << 16 {
            let l: Vec<i16> = (0..16).map(|i| (bits >> i & 1) as i16).collect();
            sorts_as_the_scalar_code::<2>(&l).unwrap();
        }
    }
}
