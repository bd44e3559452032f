//! DCQCN's α on a fixed timer, as the HPCC paper's ns-3 simulator models it (its
//! `ALPHA_RESUME_INTERVAL`, and NVIDIA's `dce_tcp_rtt`): the α timer starts at a QP's first
//! CNP and expires every period; at each expiry α ← (1 − g)·α + g if a CNP arrived since the
//! previous expiry, else α ← (1 − g)·α. A rate cut does not touch α.
//!
//! The expiries are applied lazily, in closed form, when α is next read or a CNP arrives:
//! the first pending expiry takes the CNP flag, the other n − 1 are pure decays
//! α·(1 − g)^(n − 1). This is exact and keeps a 1 us period from putting a per-QP event in
//! the queue every microsecond. An expiry at the same instant as a CNP is applied first (the
//! CNP counts for the next interval).

use crate::units::Time;

/// Which α rule a DCQCN reaction point uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaUpdate {
    /// The DCQCN paper's rule as rocesim models it by default: α ← (1 − g)·α + g at each rate
    /// cut, which happens when the CNP arrives (at most one per `rate_reduce_monitor_period`),
    /// and α ← (1 − g)·α after each `dce_tcp_rtt` without a CNP.
    PerCnp,
    /// ns-3's rule (HPCC simulator, `rdma-hw.cc` Mellanox model): α is updated only at the
    /// expiries of the α timer (`dce_tcp_rtt`, ns-3's `ALPHA_RESUME_INTERVAL`), by whether a
    /// CNP came in that interval; the cut is deferred to the rate-decrease timer
    /// (`rate_reduce_monitor_period`, ns-3's `RATE_DECREASE_INTERVAL`), which cuts once per
    /// interval in which a CNP arrived.
    Timer,
}

/// α under [`AlphaUpdate::Timer`]: its value as of the last applied expiry, the time of that
/// expiry (the grid origin) and whether a CNP arrived since.
#[derive(Clone, Debug)]
pub struct AlphaTimer {
    period: Time,
    g: f64,
    alpha: f64,
    at: Time,
    cnp: bool,
}

impl AlphaTimer {
    /// The timer started by a QP's first CNP at `now`: α = `initial`, and that CNP does not
    /// count for the first interval (ns-3's `cnp_received_mlx` sets α = 1 and clears its
    /// "CNP arrived" flag on a QP's first CNP), so the first expiry is a pure decay.
    pub fn start(period: Time, g: f64, initial: f64, now: Time) -> Self {
        AlphaTimer {
            period,
            g,
            alpha: initial,
            at: now,
            cnp: false,
        }
    }

    /// Apply the expiries due by `now` (an expiry at `now` included).
    fn advance(&mut self, now: Time) {
        let k = self.period.ps();
        if k == 0 || now < self.at {
            return;
        }
        let n = (now - self.at).ps() / k;
        if n == 0 {
            return;
        }
        let g = self.g;
        self.alpha = (1.0 - g) * self.alpha + if self.cnp { g } else { 0.0 };
        let rest = (n - 1).min(i32::MAX as u64) as i32;
        self.alpha *= (1.0 - g).powi(rest);
        self.cnp = false;
        self.at += Time::from_ps(n * k);
    }

    /// A CNP arrived at `now`: it counts for the interval that ends at the next expiry.
    pub fn on_cnp(&mut self, now: Time) {
        self.advance(now);
        self.cnp = true;
    }

    /// α at `now`, the expiries due by then applied.
    pub fn value(&mut self, now: Time) -> f64 {
        self.advance(now);
        self.alpha
    }

    /// α at `now` without changing the state.
    pub fn peek(&self, now: Time) -> f64 {
        self.clone().value(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 1.0 / 256.0;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn first_cnp_does_not_count_for_the_first_interval() {
        let mut a = AlphaTimer::start(us(1), G, 0.5, us(0));
        assert_eq!(a.value(us(1) - Time::from_ps(1)), 0.5, "no expiry yet");
        // First expiry without the CNP flag: 0.5·(1 − g) = 0.498046875.
        assert!((a.value(us(1)) - 0.498_046_875).abs() < 1e-15);
        // Two more expiries without a CNP: × (255/256)².
        let want = 0.498_046_875 * (255.0f64 / 256.0).powi(2);
        assert!((a.value(us(3)) - want).abs() < 1e-15);
        // A second CNP counts for the interval it falls in: + g at the 4 us expiry.
        a.on_cnp(Time::from_ns(3_500));
        let want4 = (1.0 - G) * want + G;
        assert!((a.value(us(4)) - want4).abs() < 1e-15);
    }

    #[test]
    fn n_ticks_without_cnps_decay_by_one_minus_g_to_the_n() {
        let a = AlphaTimer::start(us(1), G, 1.0, us(0));
        for n in 1..50u64 {
            let want = (1.0 - G).powi(n as i32);
            assert!((a.peek(us(n)) - want).abs() < 1e-12, "n = {n}");
        }
        // Lazily applied in one go gives the same as tick by tick.
        let mut b = AlphaTimer::start(us(1), G, 1.0, us(0));
        assert!((b.value(us(50)) - (1.0 - G).powi(50)).abs() < 1e-12);
    }

    #[test]
    fn a_cnp_in_an_interval_adds_g_at_its_expiry_once() {
        let mut a = AlphaTimer::start(us(1), G, 1.0, us(0));
        a.value(us(10)); // ten pure decays: α = (1 − g)^10
        let a10 = (1.0 - G).powi(10);
        // Three CNPs inside (10, 11) us: one + g at 11 us.
        for ns in [10_100, 10_500, 10_900] {
            a.on_cnp(Time::from_ns(ns));
        }
        assert!(
            (a.peek(Time::from_ns(10_999)) - a10).abs() < 1e-15,
            "not before the expiry"
        );
        let a11 = (1.0 - G) * a10 + G;
        assert!((a.value(us(11)) - a11).abs() < 1e-15);
        // Next interval has no CNP: pure decay.
        assert!((a.value(us(12)) - (1.0 - G) * a11).abs() < 1e-15);
    }

    #[test]
    fn a_cnp_at_an_expiry_counts_for_the_next_interval() {
        let mut a = AlphaTimer::start(us(1), G, 1.0, us(0));
        a.value(us(5));
        let a5 = (1.0 - G).powi(5);
        a.on_cnp(us(6)); // the 6 us expiry is applied first (no CNP): a5·(1 − g)
        let a6 = a5 * (1.0 - G);
        assert!((a.value(us(6)) - a6).abs() < 1e-15);
        assert!((a.value(us(7)) - ((1.0 - G) * a6 + G)).abs() < 1e-15);
    }
}
