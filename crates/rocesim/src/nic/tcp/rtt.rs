//! The retransmission timer's estimator (RFC 6298): smoothed RTT and its variation from
//! samples, RTO = max(`rto_min`, SRTT + 4·RTTVAR), doubled on every expiry (rule 5.5) and
//! recomputed from the estimate when new data is acknowledged.

use crate::units::Time;

/// Upper bound of the RTO (RFC 6298 rule 2.5 allows ≥ 60 s; Linux uses 120 s).
pub const RTO_MAX: Time = Time::from_ms(120_000);

/// RFC 6298 state of one connection (times in picoseconds).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    rto_min: Time,
    backoff: u32,
}

impl RttEstimator {
    /// The state after a first sample `first` (the SYN exchange's, i.e. the path's base
    /// RTT): SRTT = R, RTTVAR = R/2 (rule 2.2).
    pub fn new(first: Time, rto_min: Time) -> Self {
        RttEstimator {
            srtt: first.ps() as f64,
            rttvar: first.ps() as f64 / 2.0,
            rto_min,
            backoff: 0,
        }
    }

    /// A new sample R' (rule 2.3: β = 1/4, α = 1/8).
    pub fn sample(&mut self, r: Time) {
        let r = r.ps() as f64;
        self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
        self.srtt = 0.875 * self.srtt + 0.125 * r;
    }

    /// New data was acknowledged: the backoff ends (the RTO is recomputed from the estimate).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The timer expired: back off (rule 5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// The timer has expired since new data was last acknowledged.
    pub fn backing_off(&self) -> bool {
        self.backoff > 0
    }

    /// Smoothed RTT.
    pub fn srtt(&self) -> Time {
        Time::from_ps(self.srtt as u64)
    }

    /// The current retransmission timeout.
    pub fn rto(&self) -> Time {
        let base = Time::from_ps((self.srtt + 4.0 * self.rttvar) as u64).max(self.rto_min);
        let backed = base.ps().saturating_mul(1u64 << self.backoff);
        Time::from_ps(backed).min(RTO_MAX.max(base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc6298() {
        // First sample 100 us: SRTT 100, RTTVAR 50 → 300 us, floored at rto_min.
        let mut e = RttEstimator::new(Time::from_us(100), Time::from_us(1));
        assert_eq!(e.rto(), Time::from_us(300));
        // Sample 200 us: RTTVAR = 0.75·50 + 0.25·100 = 62.5; SRTT = 87.5 + 25 = 112.5.
        e.sample(Time::from_us(200));
        assert_eq!(e.rto(), Time::from_ns(112_500 + 250_000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), Time::from_ns(4 * 362_500));
        e.reset_backoff();
        let floored = RttEstimator::new(Time::from_us(10), Time::from_ms(200));
        assert_eq!(floored.rto(), Time::from_ms(200));
    }
}
