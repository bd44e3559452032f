//! One egress queue of a port: a FIFO of queue entries in a ring buffer whose length is a
//! power of two.
//!
//! The standard library's `VecDeque` did the same job, but its append was a call that was not
//! inlined (about 29 instructions, 266 K of them in S1-none's first 400 µs) and its pop wrapped
//! the head index with a compare and a conditional move. Here the head and tail count up
//! without wrapping and are masked when used, so an append is a store and an increment, a pop
//! a load and an increment (docs/performance.md, "Handles indexed without bounds checks");
//! an append also starts loading the buffer's next line (`PUSH_AHEAD`).
//! The buffer doubles when full and never shrinks, like a `VecDeque`'s.

use crate::engine::handle;

/// A FIFO of `T` (a queue entry: small and `Copy`), 32 bytes like a `VecDeque` (one that
/// kept its buffer as a `Vec`, 40 bytes, made a port a cache line longer and S4 about a
/// tenth slower; one of 24 bytes, its mask taken from the buffer's length, ran 1 % more
/// instructions).
#[derive(Clone, Debug)]
pub struct Fifo<T: Copy> {
    /// The entries: slot `k & mask` holds the entry counted `k`, for `head <= k < tail`; the
    /// other slots hold entries popped before or copies of the first one pushed. Empty (and
    /// `mask` 0) until the first push.
    buf: Box<[T]>,
    /// The count of the first entry (wrapping).
    head: u32,
    /// The count the next entry gets (wrapping); `tail - head` is the length.
    tail: u32,
    /// The buffer's length minus one.
    mask: u32,
}

impl<T: Copy> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            buf: Box::default(),
            head: 0,
            tail: 0,
            mask: 0,
        }
    }
}

/// Slots of a FIFO's first buffer.
const FIRST_CAPACITY: usize = 8;

/// How far past its new tail an append starts loading the buffer (a prefetch hint): with
/// 16-byte queue entries, four to a cache line, the line after the tail's from the line's
/// second append on. A backlogged queue's buffer is long (S1 without congestion control
/// holds some 200 K entries behind PFC), so the line an append writes was last touched a
/// whole turn of the buffer before and had left the caches; the store waited for it. With
/// the hint the line is on its way while the port's next frames arrive: S1-none ran in 0.98
/// of the time (two rounds of 12 and 16 pairs). The address is the written slot's plus
/// four, unmasked (one instruction; near the buffer's end the hint is lost).
const PUSH_AHEAD: usize = 3;

impl<T: Copy> Fifo<T> {
    /// Entries held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    /// True when it holds nothing.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.tail == self.head
    }

    /// Append `e` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, e: T) {
        if self.len() == self.buf.len() {
            self.grow(e);
        }
        let slot = handle::at_mut(&mut self.buf, (self.tail & self.mask) as usize);
        *slot = e;
        // `PUSH_AHEAD` slots on, unmasked: past the buffer's end near a wrap, where the hint
        // is lost (a prefetch never faults), at one instruction.
        crate::engine::prefetch::prefetch(std::ptr::from_mut(slot).wrapping_add(PUSH_AHEAD + 1));
        self.tail = self.tail.wrapping_add(1);
    }

    /// Take the entry at the front.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let e = *handle::at(&self.buf, (self.head & self.mask) as usize);
        self.head = self.head.wrapping_add(1);
        Some(e)
    }

    /// The entry at the front.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The entry `k` places behind the front.
    #[inline(always)]
    pub fn get(&self, k: usize) -> Option<&T> {
        (k < self.len()).then(|| {
            handle::at(
                &self.buf,
                (self.head.wrapping_add(k as u32) & self.mask) as usize,
            )
        })
    }

    /// The entries, front first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).filter_map(move |k| self.get(k))
    }

    /// Double the buffer (to [`FIRST_CAPACITY`] from none), its entries moved to the start
    /// in order; `e`, the entry about to be pushed, fills the new slots.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, e: T) {
        let n = (self.buf.len() * 2).max(FIRST_CAPACITY);
        assert!(n <= 1 << 31, "an egress queue of {n} entries");
        let mut buf = vec![e; n];
        for (k, slot) in buf.iter_mut().enumerate().take(self.len()) {
            *slot = *self.get(k).expect("within the length");
        }
        self.tail = self.len() as u32;
        self.head = 0;
        self.buf = buf.into_boxed_slice();
        self.mask = n as u32 - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// Any sequence of appends and pops leaves the FIFO as a `VecDeque` would: the same
        /// entries popped, the same length, front, entries by place and in order (growth and
        /// the counters' wrap past `u32::MAX` included).
        #[test]
        fn behaves_as_a_vecdeque(
            start in prop_oneof![Just(0u32), Just(u32::MAX - 20)],
            ops in proptest::collection::vec(prop_oneof![3 => any::<u16>().prop_map(Some), 2 => Just(None)], 0..200),
        ) {
            // Counters that start near the wrap.
            let mut f = Fifo::<u16> { head: start, tail: start, ..Default::default() };
            let mut d = VecDeque::new();
            for op in ops {
                match op {
                    Some(x) => {
                        f.push_back(x);
                        d.push_back(x);
                    }
                    None => prop_assert_eq!(f.pop_front(), d.pop_front()),
                }
                prop_assert_eq!(f.len(), d.len());
                prop_assert_eq!(f.is_empty(), d.is_empty());
                prop_assert_eq!(f.front(), d.front());
                prop_assert_eq!(f.get(3), d.get(3));
                prop_assert_eq!(f.get(d.len()), None);
                prop_assert!(f.iter().eq(d.iter()));
            }
        }
    }
}
