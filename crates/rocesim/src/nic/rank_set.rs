//! A set of small integers (QP activation ranks) as a flat bitset, with a circular
//! find-next: the ready set of one priority in the NIC's QP scheduler.

/// A bitset over ranks `0..capacity`, growing on demand.
#[derive(Clone, Debug, Default)]
pub struct RankSet {
    words: Vec<u64>,
    count: u32,
}

impl RankSet {
    /// Members.
    #[inline]
    pub fn len(&self) -> u32 {
        self.count
    }
    /// No member.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Is `r` a member?
    #[inline]
    pub fn contains(&self, r: u32) -> bool {
        self.words
            .get((r >> 6) as usize)
            .is_some_and(|w| w & (1 << (r & 63)) != 0)
    }
    /// Add `r`; returns whether it was absent.
    #[inline]
    pub fn insert(&mut self, r: u32) -> bool {
        let i = (r >> 6) as usize;
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        let bit = 1u64 << (r & 63);
        let absent = self.words[i] & bit == 0;
        self.words[i] |= bit;
        self.count += absent as u32;
        absent
    }
    /// Remove `r`; returns whether it was present.
    #[inline]
    pub fn remove(&mut self, r: u32) -> bool {
        let Some(w) = self.words.get_mut((r >> 6) as usize) else {
            return false;
        };
        let bit = 1u64 << (r & 63);
        let present = *w & bit != 0;
        *w &= !bit;
        self.count -= present as u32;
        present
    }
    /// The smallest member `>= from`, if any.
    #[inline]
    pub fn next_from(&self, from: u32) -> Option<u32> {
        let mut i = (from >> 6) as usize;
        let first = self.words.get(i)? & (u64::MAX << (from & 63));
        if first != 0 {
            return Some(((i as u32) << 6) | first.trailing_zeros());
        }
        i += 1;
        while let Some(&w) = self.words.get(i) {
            if w != 0 {
                return Some(((i as u32) << 6) | w.trailing_zeros());
            }
            i += 1;
        }
        None
    }
    /// Empty the set, keeping its storage.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::RankSet;

    #[test]
    fn next_from_finds_the_first_member_at_or_after() {
        let mut s = RankSet::default();
        for r in [3, 64, 200] {
            assert!(s.insert(r));
        }
        assert!(!s.insert(64));
        assert_eq!(s.len(), 3);
        assert_eq!(s.next_from(0), Some(3));
        assert_eq!(s.next_from(3), Some(3));
        assert_eq!(s.next_from(4), Some(64));
        assert_eq!(s.next_from(65), Some(200));
        assert_eq!(s.next_from(201), None);
        assert_eq!(s.next_from(10_000), None);
        assert!(s.remove(64) && !s.remove(64));
        assert_eq!(s.next_from(4), Some(200));
        assert!(s.contains(3) && !s.contains(64));
    }
}
