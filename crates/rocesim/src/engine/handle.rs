//! Indexing a table by a handle the model made itself: a port, switch or host id from the
//! topology, a packet handle from the arena, a routing group from the table built with it, a
//! (port, priority) counter of a fixed-size block.
//!
//! Such an index is in range by construction: the tables are sized when the fabric is built
//! and never shrink, and the handles are only ever made from them. A bounds check on each is a
//! compare, a branch and often a reload of the table's length, and the hop path makes about
//! seventeen of them; they also keep values out of registers in the inlined run loop. Without
//! them S1-none ran 5.4 % fewer instructions a hop (docs/performance.md, "Handles indexed
//! without bounds checks").
//!
//! Debug builds (every test) still check each index and panic with the table's length, so a
//! handle out of range is caught where it is used; release builds trust it. Anything read
//! from a scenario file is checked once, when the configuration is validated, before it can
//! become a handle. This module, and every method that indexes through it (the arena's
//! `get`, a port's owner, `next_hops`, the MMU's admission and release, the transmit
//! counters, the switch's event handlers), is crate-internal: a caller outside the crate
//! cannot hand them an index the model did not make.

use std::ops::Range;

/// `v[i]`, for an index `i` that is a handle into `v` (see the module doc). Checked in debug
/// builds.
#[inline(always)]
pub(crate) fn at<T>(v: &[T], i: usize) -> &T {
    debug_assert!(i < v.len(), "handle {i} beyond a table of {}", v.len());
    // SAFETY: a handle is below its table's length by construction (module doc); debug
    // builds check it.
    unsafe { v.get_unchecked(i) }
}

/// `&mut v[i]`, for a handle `i` into `v`. Checked in debug builds.
#[inline(always)]
pub(crate) fn at_mut<T>(v: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < v.len(), "handle {i} beyond a table of {}", v.len());
    // SAFETY: as in `at`.
    unsafe { v.get_unchecked_mut(i) }
}

/// `&v[r]`, for a range `r` of `v` the model built with it (a routing group's next hops).
/// Checked in debug builds.
#[inline(always)]
pub(crate) fn span<T>(v: &[T], r: Range<usize>) -> &[T] {
    debug_assert!(
        r.start <= r.end && r.end <= v.len(),
        "span {r:?} beyond a table of {}",
        v.len()
    );
    // SAFETY: as in `at`, for both ends of the range.
    unsafe { v.get_unchecked(r) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_index_as_the_checked_forms_do() {
        let mut v = vec![10, 20, 30];
        assert_eq!(*at(&v, 2), 30);
        *at_mut(&mut v, 0) += 1;
        assert_eq!(v[0], 11);
        assert_eq!(span(&v, 1..3), &[20, 30]);
        assert_eq!(span(&v, 3..3), &[] as &[i32]);
    }

    /// Debug builds (the tests) catch a handle out of range where it is used.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "handle 3 beyond a table of 3")]
    fn a_handle_out_of_range_panics_in_debug_builds() {
        let v = vec![1, 2, 3];
        let _ = at(&v, 3);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "beyond a table of 3")]
    fn a_span_out_of_range_panics_in_debug_builds() {
        let v = vec![1, 2, 3];
        let _ = span(&v, 2..4);
    }
}
