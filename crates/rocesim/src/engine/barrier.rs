//! The barrier the parts of a run split across threads (`sim.threads`) meet at after each
//! lookahead window. A window is often a microsecond of simulated time and a few hundred
//! events, so the barrier must cost far less than that: waiting spins first (a part that
//! arrives last usually arrives within microseconds), then yields the core, so that a run
//! with more threads than cores still progresses. `std::sync::Barrier` sleeps on a
//! condition variable at once, which cost about 20 µs a window on this kind of machine.
//!
//! A part that panics would leave the others waiting for it forever, so each part holds a
//! [`PoisonOnPanic`] guard: its unwinding poisons the barrier, and every wait on a poisoned
//! barrier panics in turn, so all threads end and the run fails instead of hanging.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Spins this many times before yielding the core while waiting.
const SPINS: u32 = 20_000;

/// A reusable barrier for `n` threads: every [`SpinBarrier::wait`] returns once all `n`
/// have called it. Whatever a thread wrote before waiting is visible to the others after.
#[derive(Debug)]
pub struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// A thread that waits here panicked: no wait can complete.
    poisoned: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `n` threads (at least 1).
    pub fn new(n: usize) -> Self {
        SpinBarrier {
            n: n.max(1),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Mark the barrier as failed: every thread waiting at it, or arriving later, panics.
    pub fn poison(&self) {
        self.poisoned.store(true, Ordering::Release);
    }

    /// Wait until all `n` threads have arrived.
    ///
    /// # Panics
    /// When the barrier is poisoned (another thread panicked), rather than wait forever.
    pub fn wait(&self) {
        self.check();
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
                self.check();
                std::thread::yield_now();
            }
        }
    }

    /// Panic if the barrier is poisoned.
    fn check(&self) {
        assert!(
            !self.poisoned.load(Ordering::Acquire),
            "another part of this split run (sim.threads) failed"
        );
    }
}

/// Held by each thread that waits at a [`SpinBarrier`]: dropped while its thread unwinds
/// from a panic, it poisons the barrier, so the other threads stop waiting and fail too.
#[derive(Debug)]
pub struct PoisonOnPanic<'a>(pub &'a SpinBarrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poison();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{PoisonOnPanic, SpinBarrier};
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

    #[test]
    fn a_panicking_thread_ends_the_others_waits() {
        // Thread 0 panics before its second wait; threads 1 and 2 wait there. Without the
        // poison they would wait forever; with it, every thread ends, in a panic.
        let b = SpinBarrier::new(3);
        let ended = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let b = &b;
                    s.spawn(move || {
                        let _guard = PoisonOnPanic(b);
                        b.wait();
                        assert!(i != 0, "part 0 fails");
                        b.wait();
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().is_err())
                .collect::<Vec<_>>()
        });
        assert_eq!(ended, vec![true, true, true]);
        // A thread arriving later fails at once.
        assert!(std::panic::catch_unwind(|| b.wait()).is_err());
    }
}
