//! Per-flow state of the flows a run still holds. A run of millions of short flows one after
//! another (a soak test) must not keep every flow's counters to the end: flows are numbered
//! in the order they are defined, a streamed workload's in start order, so the flows alive at
//! any moment are a window of ids. A [`FlowWindow`] stores ids `base ..` in a vector indexed by
//! `id - base` (one subtraction on the per-packet path); the run releases the ids below a new
//! base once those flows are over and their final values are handed on (`sim/spill.rs`), and
//! the storage is compacted when the released part is at least half of it.

use std::ops::{Index, IndexMut};

/// Values of type `T` for flow ids `base() .. end()`.
#[derive(Clone, Debug, Default)]
pub struct FlowWindow<T> {
    /// Id of `items[0]` (ids from `phys` to `base` are released but not yet compacted away).
    phys: u32,
    /// Lowest id still held.
    base: u32,
    items: Vec<T>,
}

impl<T: Clone> FlowWindow<T> {
    /// Ids `0 .. n`, each holding `fill`.
    pub fn new(n: usize, fill: T) -> Self {
        FlowWindow {
            phys: 0,
            base: 0,
            items: vec![fill; n],
        }
    }

    /// Lowest id held.
    #[inline]
    pub fn base(&self) -> u32 {
        self.base
    }

    /// One past the highest id held.
    #[inline]
    pub fn end(&self) -> u32 {
        self.phys + self.items.len() as u32
    }

    /// The value of flow `f`, if it is held. (A released id may still read its last value
    /// until the storage is compacted: callers release only flows nothing reads any more.)
    #[inline]
    pub fn get(&self, f: u32) -> Option<&T> {
        self.items.get(f.wrapping_sub(self.phys) as usize)
    }

    /// The value of flow `f`, if it is held (see [`FlowWindow::get`]).
    #[inline]
    pub fn get_mut(&mut self, f: u32) -> Option<&mut T> {
        self.items.get_mut(f.wrapping_sub(self.phys) as usize)
    }

    /// Hold ids up to `end` (exclusive), new ones holding `fill`.
    pub fn extend_to(&mut self, end: u32, fill: T) {
        if end > self.end() {
            self.items.resize((end - self.phys) as usize, fill);
        }
    }

    /// Release every id below `base` (no effect if it is not above the current base). A base
    /// at or past the end empties the window, which then holds from `base` on.
    pub fn release_below(&mut self, base: u32) {
        if base >= self.end() {
            self.items.clear();
            (self.phys, self.base) = (base, base);
            return;
        }
        if base <= self.base {
            return;
        }
        self.base = base;
        let dead = (base - self.phys) as usize;
        if dead * 2 >= self.items.len() {
            self.items.drain(..dead);
            self.phys = base;
        }
    }

    /// The held values with their ids, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        let skip = (self.base - self.phys) as usize;
        (self.items[skip..].iter().enumerate()).map(move |(i, v)| (self.base + i as u32, v))
    }

    /// The held values with their ids, in id order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> + '_ {
        let skip = (self.base - self.phys) as usize;
        let base = self.base;
        (self.items[skip..].iter_mut().enumerate()).map(move |(i, v)| (base + i as u32, v))
    }

    /// Number of ids held.
    pub fn len(&self) -> usize {
        (self.end() - self.base) as usize
    }

    /// True when no id is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Index<u32> for FlowWindow<T> {
    type Output = T;

    #[inline]
    fn index(&self, f: u32) -> &T {
        debug_assert!(f >= self.base, "flow {f} was released");
        &self.items[(f - self.phys) as usize]
    }
}

impl<T> IndexMut<u32> for FlowWindow<T> {
    #[inline]
    fn index_mut(&mut self, f: u32) -> &mut T {
        debug_assert!(f >= self.base, "flow {f} was released");
        &mut self.items[(f - self.phys) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::FlowWindow;

    #[test]
    fn ids_survive_release_and_compaction() {
        let mut w = FlowWindow::new(3, 0u64);
        w[2] = 7;
        w.extend_to(10, 1);
        assert_eq!((w.base(), w.end(), w.len()), (0, 10, 10));
        assert_eq!((w[2], w[9]), (7, 1));
        w.release_below(4); // 4 of 10 released: not yet compacted
        assert_eq!((w.base(), w.get(4)), (4, Some(&1)));
        w[5] = 55;
        w.release_below(6); // 6 of 10: compacted
        assert_eq!((w.base(), w.end(), w.len()), (6, 10, 4));
        assert_eq!(w.get(5), None);
        w.extend_to(12, 2);
        w[11] = 11;
        let ids: Vec<(u32, u64)> = w.iter().map(|(i, &v)| (i, v)).collect();
        assert_eq!(ids, vec![(6, 1), (7, 1), (8, 1), (9, 1), (10, 2), (11, 11)]);
        w.release_below(100);
        assert!(w.is_empty());
        assert_eq!((w.base(), w.end()), (100, 100));
        w.extend_to(102, 5);
        assert_eq!((w.get(99), w.get(101)), (None, Some(&5)));
    }
}
