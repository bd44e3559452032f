//! NewReno's window (RFC 5681 §3.1): in congestion avoidance the window grows by one segment
//! per window of acknowledged data, and a loss halves the data in flight.

/// NewReno has no state of its own beyond the window and threshold the sender keeps.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

impl NewReno {
    /// Congestion avoidance: `acked` segments newly acknowledged with window `cwnd`
    /// (segments) → the new window (cwnd += SMSS·SMSS/cwnd per ACK, counted per segment).
    #[inline]
    pub fn grow(cwnd: f64, acked: u32) -> f64 {
        cwnd + acked as f64 / cwnd
    }

    /// Slow-start threshold after a loss with `flight` segments outstanding (equation 4:
    /// max(FlightSize / 2, 2·SMSS)).
    #[inline]
    pub fn ssthresh(flight: u32) -> f64 {
        (flight as f64 / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::NewReno;

    #[test]
    fn one_segment_per_window_and_half_on_loss() {
        // 10 ACKs of one segment each at cwnd 10 add about one segment.
        let mut w = 10.0;
        for _ in 0..10 {
            w = NewReno::grow(w, 1);
        }
        assert!((w - 11.0).abs() < 0.05, "{w}");
        assert_eq!(NewReno::ssthresh(40), 20.0);
        assert_eq!(NewReno::ssthresh(3), 2.0);
    }
}
