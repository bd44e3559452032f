//! The Ready sets of a NIC's QP scheduler, one per priority, as one interleaved bitset with a
//! circular find-next.

/// Priorities (802.1p), one set each.
const PRIOS: usize = 8;

/// Eight sets of small integers (QP activation ranks), one per priority, in one flat bitset
/// that grows on demand. Interleaved: bit `r % 64` of word `(r / 64) * 8 + p` says rank `r`
/// is in set `p`. The first 64 ranks of every priority then share one cache line, so a NIC
/// with fewer QPs than that reads one line of its sets whatever priorities it serves (eight
/// separate sets put each one's words in a line of its own, beside a header of its own).
/// The sets keep no counts: [`super::ready::ReadyList`] counts what it needs.
#[derive(Clone, Debug, Default)]
pub struct RankSets {
    words: Vec<u64>,
}

/// The index of the word holding rank `r` of set `p`.
#[inline(always)]
fn word(p: usize, r: u32) -> usize {
    (r >> 6) as usize * PRIOS + p
}

impl RankSets {
    /// Is `r` in set `p`?
    #[inline]
    pub fn contains(&self, p: usize, r: u32) -> bool {
        self.words
            .get(word(p, r))
            .is_some_and(|w| w & (1 << (r & 63)) != 0)
    }
    /// Add `r` to set `p`; returns whether it was absent.
    #[inline]
    pub fn insert(&mut self, p: usize, r: u32) -> bool {
        let i = word(p, r);
        if i >= self.words.len() {
            self.grow(i);
        }
        let bit = 1u64 << (r & 63);
        let w = &mut self.words[i];
        let absent = *w & bit == 0;
        *w |= bit;
        absent
    }
    /// Room for word `i` (whole groups of eight words, one per set).
    #[cold]
    fn grow(&mut self, i: usize) {
        self.words.resize((i / PRIOS + 1) * PRIOS, 0);
    }
    /// Remove `r` from set `p`; returns whether it was present.
    #[inline]
    pub fn remove(&mut self, p: usize, r: u32) -> bool {
        let Some(w) = self.words.get_mut(word(p, r)) else {
            return false;
        };
        let bit = 1u64 << (r & 63);
        let present = *w & bit != 0;
        *w &= !bit;
        present
    }
    /// The smallest member of set `p` that is `>= from`, if any.
    #[inline]
    pub fn next_from(&self, p: usize, from: u32) -> Option<u32> {
        let mut i = word(p, from);
        let first = self.words.get(i)? & (u64::MAX << (from & 63));
        if first != 0 {
            return Some((((i / PRIOS) as u32) << 6) | first.trailing_zeros());
        }
        i += PRIOS;
        while let Some(&w) = self.words.get(i) {
            if w != 0 {
                return Some((((i / PRIOS) as u32) << 6) | w.trailing_zeros());
            }
            i += PRIOS;
        }
        None
    }
    /// Empty every set, keeping the storage.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::RankSets;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn next_from_finds_the_first_member_at_or_after() {
        let mut s = RankSets::default();
        for r in [3, 64, 200] {
            assert!(s.insert(2, r));
        }
        assert!(!s.insert(2, 64));
        assert_eq!(s.next_from(2, 0), Some(3));
        assert_eq!(s.next_from(2, 3), Some(3));
        assert_eq!(s.next_from(2, 4), Some(64));
        assert_eq!(s.next_from(2, 65), Some(200));
        assert_eq!(s.next_from(2, 201), None);
        assert_eq!(s.next_from(2, 10_000), None);
        assert!(s.remove(2, 64) && !s.remove(2, 64));
        assert_eq!(s.next_from(2, 4), Some(200));
        assert!(s.contains(2, 3) && !s.contains(2, 64));
        // The other sets share the words and hold nothing.
        for p in (0..8).filter(|&p| p != 2) {
            assert_eq!(s.next_from(p, 0), None, "set {p}");
            assert!(!s.contains(p, 3) && !s.remove(p, 200));
        }
    }

    proptest! {
        /// Any sequence of inserts and removes over the eight sets leaves each as a
        /// `BTreeSet` of its own would: the same answers to insert, remove, contains and
        /// next_from, so the interleaving never lets one set see another's members.
        #[test]
        fn eight_sets_behave_as_eight_btreesets(
            ops in proptest::collection::vec((any::<bool>(), 0usize..8, 0u32..300), 0..300),
            probes in proptest::collection::vec(0u32..320, 1..8),
        ) {
            let mut s = RankSets::default();
            let mut m: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); 8];
            for (add, p, r) in ops {
                if add {
                    prop_assert_eq!(s.insert(p, r), m[p].insert(r));
                } else {
                    prop_assert_eq!(s.remove(p, r), m[p].remove(&r));
                }
            }
            for (p, set) in m.iter().enumerate() {
                for &from in &probes {
                    prop_assert_eq!(s.next_from(p, from), set.range(from..).next().copied());
                    prop_assert_eq!(s.contains(p, from), set.contains(&from));
                }
            }
            s.clear();
            prop_assert!((0..8).all(|p| s.next_from(p, 0).is_none()));
        }
    }
}
