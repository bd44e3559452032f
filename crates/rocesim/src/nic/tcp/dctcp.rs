//! DCTCP's window (RFC 8257 §3.3–3.4): the sender estimates the fraction α of its data the
//! switches CE-marked, once per window of data (α ← (1 − g)·α + g·F), and on an ECN echo cuts
//! its window to cwnd·(1 − α/2), at most once per window (the RFC 3168 CWR episode). Window
//! growth and loss recovery are NewReno's.

/// Per-connection DCTCP state (counts in segments).
#[derive(Clone, Debug)]
pub struct Dctcp {
    /// EWMA gain g.
    g: f64,
    /// The estimate α of the marked fraction (starts at 1, as in Linux).
    alpha: f64,
    /// The observation window ends when the cumulative ACK passes this segment.
    window_end: u32,
    /// Segments acknowledged in the window, and those whose ACK echoed CE.
    acked: u64,
    marked: u64,
    /// In a CWR episode until the cumulative ACK passes this segment.
    cwr_end: Option<u32>,
}

impl Dctcp {
    /// A new connection's state with gain `g`.
    pub fn new(g: f64) -> Self {
        Dctcp {
            g,
            alpha: 1.0,
            window_end: 0,
            acked: 0,
            marked: 0,
            cwr_end: None,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// An ACK for everything below `ackno` newly acknowledging `acked` segments, echoing CE
    /// or not, with `snd_nxt` the next new segment. Returns the factor to cut the window by,
    /// when it must be cut.
    pub fn on_ack(&mut self, ackno: u32, acked: u32, ece: bool, snd_nxt: u32) -> Option<f64> {
        self.acked += acked as u64;
        if ece {
            self.marked += acked as u64;
        }
        if ackno > self.window_end {
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = snd_nxt;
        }
        if self.cwr_end.is_some_and(|e| ackno > e) {
            self.cwr_end = None;
        }
        if ece && self.cwr_end.is_none() {
            self.cwr_end = Some(snd_nxt);
            return Some(1.0 - self.alpha / 2.0);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Dctcp;

    #[test]
    fn alpha_converges_to_the_marked_fraction_and_cuts_once_per_window() {
        let mut d = Dctcp::new(1.0 / 16.0);
        // Windows of 10 segments, half of them marked: α → 0.5.
        let mut ackno = 0;
        let mut cuts = 0;
        for _w in 0..200 {
            let end = ackno + 10;
            for i in 0..10 {
                ackno += 1;
                if d.on_ack(ackno, 1, i % 2 == 0, end + 10).is_some() {
                    cuts += 1;
                }
            }
        }
        assert!((d.alpha() - 0.5).abs() < 0.01, "{}", d.alpha());
        // One cut per CWR episode, which lasts until the ACK passes snd_nxt at the cut
        // (here two windows ahead): about one cut per two windows.
        assert!((90..=110).contains(&cuts), "{cuts}");
        // α after n windows of F = 0 from 1: (15/16)^n.
        let mut d = Dctcp::new(1.0 / 16.0);
        for w in 1..=5u32 {
            d.on_ack(w * 10, 10, false, w * 10);
        }
        assert!((d.alpha() - (15.0f64 / 16.0).powi(5)).abs() < 1e-12);
    }
}
