//! A fixed-capacity least-recently-used cache of 64-bit keys, as a NIC keeps QP contexts,
//! WQEs and memory-translation entries in on-chip SRAM (Guo et al. 2016 §4.4; Wang et al.
//! 2023, SRNIC): a hit is served on chip, a miss fetches the entry from host memory over PCIe
//! and evicts the least recently used one.
//!
//! The entries live in flat vectors linked into a recency list by index; an open-addressed
//! index with linear probing (sized at build time to at least twice the capacity, deleted
//! keys removed by backward shift) finds a key. A lookup is O(1) and never allocates.

/// No entry (end of the recency list, an empty index slot).
const NIL: u32 = u32::MAX;

/// The largest capacity a cache may have, in entries.
pub const MAX_ENTRIES: u64 = 1 << 24;

/// One LRU cache of `capacity` entries, with its hit and miss counters.
#[derive(Clone, Debug)]
pub struct LruCache {
    /// Key of each entry in use.
    keys: Vec<u64>,
    /// Recency list: the entry used just before (toward the head, most recent).
    prev: Vec<u32>,
    /// Recency list: the entry used just after (toward the tail, least recent).
    next: Vec<u32>,
    /// Most recently used entry.
    head: u32,
    /// Least recently used entry (the next victim).
    tail: u32,
    /// Entries in use.
    len: u32,
    /// Open-addressed index: entry of each slot, `NIL` when empty.
    index: Vec<u32>,
    /// Slots − 1 (the slot count is a power of two).
    mask: usize,
    /// Shift that maps a 64-bit hash to a slot.
    shift: u32,
    /// Lookups that found their key.
    pub hits: u64,
    /// Lookups that did not (each fetched the entry and evicted the LRU one when full).
    pub misses: u64,
}

impl LruCache {
    /// An empty cache of `capacity` entries (1 to [`MAX_ENTRIES`]).
    pub fn new(capacity: u32) -> Self {
        assert!(capacity > 0 && u64::from(capacity) <= MAX_ENTRIES);
        let slots = (2 * capacity as usize).next_power_of_two().max(2);
        LruCache {
            keys: vec![0; capacity as usize],
            prev: vec![NIL; capacity as usize],
            next: vec![NIL; capacity as usize],
            head: NIL,
            tail: NIL,
            len: 0,
            index: vec![NIL; slots],
            mask: slots - 1,
            shift: 64 - slots.trailing_zeros(),
            hits: 0,
            misses: 0,
        }
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> u32 {
        self.keys.len() as u32
    }

    /// Use `key`: `true` on a hit (it becomes the most recent); on a miss it is brought in,
    /// evicting the least recently used entry when the cache is full.
    #[inline]
    pub fn access(&mut self, key: u64) -> bool {
        if let Some(e) = self.find(key) {
            self.hits += 1;
            if e != self.head {
                self.unlink(e);
                self.push_front(e);
            }
            return true;
        }
        self.misses += 1;
        let e = if (self.len as usize) < self.keys.len() {
            self.len += 1;
            self.len - 1
        } else {
            let victim = self.tail;
            self.unlink(victim);
            self.remove_key(self.keys[victim as usize]);
            victim
        };
        self.keys[e as usize] = key;
        self.insert_key(key, e);
        self.push_front(e);
        false
    }

    #[inline]
    fn slot_of(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn find(&self, key: u64) -> Option<u32> {
        let mut s = self.slot_of(key);
        loop {
            let e = self.index[s];
            if e == NIL {
                return None;
            }
            if self.keys[e as usize] == key {
                return Some(e);
            }
            s = (s + 1) & self.mask;
        }
    }

    fn insert_key(&mut self, key: u64, e: u32) {
        let mut s = self.slot_of(key);
        while self.index[s] != NIL {
            s = (s + 1) & self.mask;
        }
        self.index[s] = e;
    }

    /// Remove `key` from the index, shifting later entries of its probe run back.
    fn remove_key(&mut self, key: u64) {
        let mut hole = self.slot_of(key);
        while self.keys[self.index[hole] as usize] != key {
            hole = (hole + 1) & self.mask;
        }
        self.index[hole] = NIL;
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let e = self.index[j];
            if e == NIL {
                return;
            }
            let home = self.slot_of(self.keys[e as usize]);
            // The entry at j may move to the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.index[hole] = e;
                self.index[j] = NIL;
                hole = j;
            }
        }
    }

    #[inline]
    fn unlink(&mut self, e: u32) {
        let (p, n) = (self.prev[e as usize], self.next[e as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    #[inline]
    fn push_front(&mut self, e: u32) {
        self.prev[e as usize] = NIL;
        self.next[e as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = e;
        }
        self.head = e;
        if self.tail == NIL {
            self.tail = e;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LruCache;
    use std::collections::VecDeque;

    /// The textbook LRU: a list, most recent at the front.
    fn reference(cap: usize, keys: &[u64]) -> Vec<bool> {
        let mut l: VecDeque<u64> = VecDeque::new();
        keys.iter()
            .map(|&k| {
                let hit = if let Some(i) = l.iter().position(|&x| x == k) {
                    l.remove(i);
                    true
                } else {
                    if l.len() == cap {
                        l.pop_back();
                    }
                    false
                };
                l.push_front(k);
                hit
            })
            .collect()
    }

    #[test]
    fn cyclic_access_within_capacity_hits_after_the_first_round() {
        let mut c = LruCache::new(4);
        for round in 0..3 {
            for k in 0..4u64 {
                assert_eq!(c.access(k * 4096), round > 0);
            }
        }
        assert_eq!((c.hits, c.misses), (8, 4));
    }

    #[test]
    fn cyclic_access_one_above_capacity_always_misses() {
        // LRU evicts exactly the key needed next: 5 keys round robin in 4 entries.
        let mut c = LruCache::new(4);
        for _ in 0..10 {
            for k in 0..5u64 {
                assert!(!c.access(k));
            }
        }
        assert_eq!(c.hits, 0);
    }

    #[test]
    fn matches_the_textbook_lru_on_a_random_sequence() {
        let mut x = 12345u64;
        let keys: Vec<u64> = (0..20_000)
            .map(|_| {
                x = crate::engine::rng::splitmix64(x);
                x % 97
            })
            .collect();
        for cap in [1usize, 2, 7, 32, 64, 96, 200] {
            let mut c = LruCache::new(cap as u32);
            let got: Vec<bool> = keys.iter().map(|&k| c.access(k)).collect();
            assert_eq!(got, reference(cap, &keys), "capacity {cap}");
        }
    }
}
