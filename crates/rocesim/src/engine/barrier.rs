//! The barrier the parts of a run split across threads (`sim.threads`) meet at after each
//! lookahead window. A window is often a microsecond of simulated time and a few hundred
//! events, so the barrier must cost far less than that: waiting spins first (a part that
//! arrives last usually arrives within microseconds), then yields the core, so that a run
//! with more threads than cores still progresses. `std::sync::Barrier` sleeps on a
//! condition variable at once, which cost about 20 µs a window on this kind of machine.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Spins this many times before yielding the core while waiting.
const SPINS: u32 = 20_000;

/// A reusable barrier for `n` threads: every [`SpinBarrier::wait`] returns once all `n`
/// have called it. Whatever a thread wrote before waiting is visible to the others after.
#[derive(Debug)]
pub struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    /// A barrier for `n` threads (at least 1).
    pub fn new(n: usize) -> Self {
        SpinBarrier {
            n: n.max(1),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Wait until all `n` threads have arrived.
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SpinBarrier;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn no_thread_passes_before_all_arrive() {
        // Three threads, 1,000 rounds: in each round every thread adds 1 before the
        // barrier, and after it must see all three additions of that round.
        let b = SpinBarrier::new(3);
        let count = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for round in 1..=1000 {
                        count.fetch_add(1, Ordering::Relaxed);
                        b.wait();
                        assert!(count.load(Ordering::Relaxed) >= 3 * round);
                        b.wait();
                    }
                });
            }
        });
        assert_eq!(count.load(Ordering::Relaxed), 3000);
    }
}
