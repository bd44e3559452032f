//! CUBIC's window (RFC 9438): after a congestion event the window follows
//! W_cubic(t) = C·(t − K)³ + W_max, with K = ∛((W_max − cwnd_epoch)/C), concave up to the
//! window of the last loss and convex beyond it; a Reno-friendly estimate W_est keeps it at
//! least as fast as Reno at short RTTs (§4.3). C = 0.4, β = 0.7; fast convergence (§4.7).

use crate::units::Time;

/// CUBIC's C (segments / s³).
pub const C: f64 = 0.4;
/// CUBIC's multiplicative decrease factor β_cubic.
pub const BETA: f64 = 0.7;

/// Per-connection CUBIC state (windows in segments).
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// Window just before the last reduction (after fast convergence).
    w_max: f64,
    /// The W_max of the previous congestion event (fast convergence).
    w_last_max: f64,
    /// Start of the current congestion-avoidance epoch (`None`: starts at the next ACK).
    epoch: Option<Time>,
    /// K of the current epoch, seconds.
    k: f64,
    /// The Reno-friendly estimate W_est.
    w_est: f64,
}

impl Cubic {
    /// W_cubic(t) of the current epoch, `t` seconds after its start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// K of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// A congestion event at window `cwnd`: returns the new ssthresh (cwnd·β, at least 2)
    /// and ends the epoch.
    pub fn on_loss(&mut self, cwnd: f64) -> f64 {
        self.w_max = if cwnd < self.w_last_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.w_last_max = self.w_max;
        self.epoch = None;
        (cwnd * BETA).max(2.0)
    }

    /// Congestion avoidance: `acked` segments newly acknowledged at `now` with window `cwnd`
    /// and smoothed RTT `srtt` → the new window.
    pub fn grow(&mut self, cwnd: f64, acked: u32, now: Time, srtt: Time) -> f64 {
        let start = *self.epoch.get_or_insert_with(|| {
            self.w_est = cwnd;
            if cwnd < self.w_max {
                self.k = ((self.w_max - cwnd) / C).cbrt();
            } else {
                self.k = 0.0;
                self.w_max = cwnd;
            }
            now
        });
        let t = now.saturating_sub(start).secs_f64();
        let acked = acked as f64;
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - BETA) / (1.0 + BETA)
        };
        self.w_est += alpha * acked / cwnd;
        let w_t = self.w_cubic(t);
        if w_t < self.w_est {
            return self.w_est.max(cwnd);
        }
        let target = self.w_cubic(t + srtt.secs_f64()).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd * acked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An idle path with a 100 ms RTT after a loss at 1000 segments: every RTT the sender
    /// gets one ACK per segment of its window; the window follows W(t) = C(t−K)³ + W_max.
    #[test]
    fn window_follows_the_cubic_function_after_a_loss() {
        let mut c = Cubic::default();
        let ssthresh = c.on_loss(1000.0);
        assert_eq!(ssthresh, 700.0);
        // K = ∛(1000 · 0.3 / 0.4) = ∛750 = 9.0856 s.
        let k = 750f64.cbrt();
        let rtt = Time::from_ms(100);
        let mut cwnd = ssthresh;
        let mut now = Time::from_ms(1000);
        let t0 = now;
        let w = |t: f64| C * (t - k).powi(3) + 1000.0;
        let mut checked = 0;
        for round in 0..150u32 {
            let t = (now - t0).secs_f64();
            if [0, 30, 60, 91, 120, 149].contains(&round) {
                // The window at the start of a round is W(t) within a segment or two plus
                // one RTT of lead (it aims at W(t + RTT)).
                let (lo, hi) = (w(t) - 2.0, w(t + 0.1) + 2.0);
                assert!(
                    cwnd >= lo && cwnd <= hi,
                    "t={t:.2}s cwnd={cwnd:.1} W={:.1}",
                    w(t)
                );
                checked += 1;
            }
            let n = cwnd as u32;
            let step = Time::from_ps(rtt.ps() / n as u64);
            for _ in 0..n {
                cwnd = c.grow(cwnd, 1, now, rtt);
                now += step;
            }
            now = t0 + Time::from_ps(rtt.ps() * (round as u64 + 1));
        }
        assert_eq!(checked, 6);
        assert!((c.k() - k).abs() < 1e-9);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::default();
        c.on_loss(100.0);
        c.on_loss(80.0);
        assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }
}
