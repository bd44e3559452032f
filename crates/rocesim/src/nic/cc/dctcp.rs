//! DCTCP adapted to a paced rate, as in the HPCC authors' ns-3 simulator's DCTCP mode
//! (`RdmaHw::HandleAckDctcp`), after Alizadeh et al., SIGCOMM 2010.
//!
//! Switches CE-mark data packets above a queue threshold; the receiver echoes the mark in the
//! ACK ([`AckInfo::ecn_echo`]). The sender:
//!
//! - **estimates α per observation window** of about one RTT. A window starts with the
//!   `snd_nxt` of the ACK that opened it and ends on the first ACK with `ack_psn ≥` that PSN.
//!   At its end, with `F` the fraction of the window's ACKs that echoed CE (the ending ACK
//!   counts in the window it ends), `α ← (1 − g)·α + g·F`; α starts at `alpha_init` (1, as in
//!   Linux and the reference).
//! - **cuts at most once per window**: on a CE echo while not in CWR,
//!   `rate ← max(min_rate, rate · (1 − α/2))` and CWR lasts until the ACK of the PSN that was
//!   `snd_nxt` at the cut (the reaction does not wait for the window's end, as in TCP).
//! - **increases additively**: at each window end outside CWR, `rate ← min(line, rate + R_AI)`.

use super::{AckInfo, CcContext, CongestionControl};
use crate::units::Rate;

/// Parameters of rate-based DCTCP (`[nic.dctcp]`).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpParams {
    /// EWMA gain g of the marked fraction (dimensionless, (0, 1]; paper 1/16).
    pub g: f64,
    /// Additive increase per window without marks (default 50 Mb/s; the HPCC paper's ns-3 runs
    /// use 615 Mb/s at 100 G, i.e. one MTU per 13 µs).
    pub rate_ai: Rate,
    /// Lowest rate (default 100 Mb/s, the reference's MinRate).
    pub min_rate: Rate,
    /// Initial α (dimensionless, [0, 1]; 1 as in Linux DCTCP and the reference).
    pub alpha_init: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            rate_ai: Rate::mbps(50),
            min_rate: Rate::mbps(100),
            alpha_init: 1.0,
        }
    }
}

/// Per-QP DCTCP state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    rate_ai: f64,
    min_rate: f64,
    max_rate: f64,
    /// Current rate, bit/s.
    rate: f64,
    /// The DCTCP estimate α of the marked fraction.
    alpha: f64,
    /// `None` before the first ACK; then the PSN whose acknowledgement ends the window.
    window_end: Option<u32>,
    /// ACKs in the current window, and those that echoed CE.
    acks: u32,
    marked: u32,
    /// In CWR until `ack_psn ≥ cwr_end`.
    cwr_end: Option<u32>,
    out: Rate,
}

impl Dctcp {
    /// A new QP's state: line rate, α = `alpha_init`.
    pub fn new(p: &DctcpParams, ctx: &CcContext) -> Self {
        let max_rate = ctx.line_rate.bps() as f64;
        let mut d = Dctcp {
            g: p.g,
            rate_ai: p.rate_ai.bps() as f64,
            min_rate: (p.min_rate.bps() as f64).min(max_rate),
            max_rate,
            rate: max_rate,
            alpha: p.alpha_init,
            window_end: None,
            acks: 0,
            marked: 0,
            cwr_end: None,
            out: ctx.line_rate,
        };
        d.set_rate(max_rate);
        d
    }

    fn set_rate(&mut self, r: f64) {
        self.rate = r.clamp(self.min_rate, self.max_rate);
        self.out = Rate((self.rate.round() as u64).max(1));
    }

    /// The current α (dimensionless).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        self.acks += 1;
        self.marked += ack.ecn_echo as u32;
        let mut window_ended = false;
        match self.window_end {
            None => self.window_end = Some(ack.snd_nxt),
            Some(end) if ack.ack_psn >= end => {
                let f = self.marked as f64 / self.acks as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
                self.acks = 0;
                self.marked = 0;
                self.window_end = Some(ack.snd_nxt);
                window_ended = true;
            }
            Some(_) => {}
        }
        if let Some(end) = self.cwr_end {
            if ack.ack_psn >= end {
                self.cwr_end = None;
            }
        }
        if ack.ecn_echo && self.cwr_end.is_none() {
            self.set_rate(self.rate * (1.0 - self.alpha / 2.0));
            self.cwr_end = Some(ack.snd_nxt);
        } else if window_ended && self.cwr_end.is_none() {
            self.set_rate(self.rate + self.rate_ai);
        }
    }

    fn rate(&self) -> Option<Rate> {
        Some(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    fn ctx() -> CcContext {
        CcContext {
            line_rate: Rate::gbps(100),
            mtu: 1000,
            base_rtt: Time::from_us(10),
            start: Time::ZERO,
            frame_overhead: 82,
        }
    }

    fn ack(psn: u32, snd_nxt: u32, ce: bool) -> AckInfo<'static> {
        AckInfo {
            now: Time::from_us(psn as u64),
            acked_bytes: 1000,
            ack_psn: psn,
            snd_nxt,
            ecn_echo: ce,
            rtt: None,
            int: None,
        }
    }

    fn bps(d: &Dctcp) -> u64 {
        d.rate().unwrap().bps()
    }

    #[test]
    fn the_window_ending_ack_counts_in_its_window() {
        let mut d = Dctcp::new(&DctcpParams::default(), &ctx());
        assert_eq!(d.rate(), Some(Rate::gbps(100)));
        d.on_ack(&ack(0, 4, false)); // opens a window ending at PSN 4 (snd_nxt then)
        d.on_ack(&ack(1, 5, true)); // cut with α = 1: rate halves, CWR until PSN 5
        d.on_ack(&ack(2, 6, false));
        d.on_ack(&ack(3, 7, true)); // in CWR: no second cut
        assert_eq!(bps(&d), 50_000_000_000);
        d.on_ack(&ack(4, 8, false)); // ends the window: 2 marked of 5 ACKs
        let want = (1.0 - 1.0 / 16.0) * 1.0 + (1.0 / 16.0) * 0.4;
        assert!((d.alpha() - want).abs() < 1e-12, "{}", d.alpha());
        assert_eq!(bps(&d), 50_000_000_000, "still in CWR: no increase");
    }

    #[test]
    fn alpha_update_for_f_one_half() {
        let mut d = Dctcp::new(&DctcpParams::default(), &ctx());
        d.on_ack(&ack(0, 1, false)); // opens the window ending at PSN 1
        d.on_ack(&ack(1, 5, false)); // ends it (F = 0), opens one ending at PSN 5
        let a0 = 15.0 / 16.0;
        assert!((d.alpha() - a0).abs() < 1e-12);
        for (psn, ce) in [(2, true), (3, false), (4, true), (5, false)] {
            d.on_ack(&ack(psn, 9, ce));
        }
        // Window of PSNs 2..=5: F = 2/4, α = 15/16 · 15/16 + 1/16 · 1/2.
        let want = (1.0 - 1.0 / 16.0) * a0 + (1.0 / 16.0) * 0.5;
        assert!((d.alpha() - want).abs() < 1e-12, "{}", d.alpha());
        assert!((d.alpha() - 0.91015625).abs() < 1e-12);
    }

    #[test]
    fn one_cut_per_window() {
        let mut d = Dctcp::new(&DctcpParams::default(), &ctx());
        d.alpha = 0.5;
        d.on_ack(&ack(0, 10, true)); // cut by α/2 = 0.25, CWR until PSN 10
        assert_eq!(bps(&d), 75_000_000_000);
        for psn in 1..10 {
            d.on_ack(&ack(psn, 10 + psn, true));
        }
        assert_eq!(
            bps(&d),
            75_000_000_000,
            "marks in the same window do not cut again"
        );
        // The ACK of PSN 10 leaves CWR; its mark cuts again, with the updated α.
        d.on_ack(&ack(10, 20, true));
        let alpha = 15.0 / 16.0 * 0.5 + 1.0 / 16.0 * 1.0;
        assert!((d.alpha() - alpha).abs() < 1e-12);
        let want = 75e9 * (1.0 - alpha / 2.0);
        assert_eq!(bps(&d), want.round() as u64);
    }

    #[test]
    fn additive_increase_without_marks_once_per_window() {
        let mut d = Dctcp::new(&DctcpParams::default(), &ctx());
        d.set_rate(40e9);
        d.on_ack(&ack(0, 3, false));
        assert_eq!(bps(&d), 40_000_000_000, "the first ACK only opens a window");
        d.on_ack(&ack(1, 4, false));
        d.on_ack(&ack(2, 5, false));
        assert_eq!(bps(&d), 40_000_000_000);
        d.on_ack(&ack(3, 6, false)); // window end: + 50 Mb/s
        assert_eq!(bps(&d), 40_050_000_000);
        d.on_ack(&ack(6, 9, false)); // next window end
        assert_eq!(bps(&d), 40_100_000_000);
        // Capped at line rate; floored at min rate.
        d.set_rate(100e9 - 1e6);
        d.on_ack(&ack(9, 12, false));
        assert_eq!(bps(&d), 100_000_000_000);
        d.set_rate(150e6);
        d.on_ack(&ack(12, 15, true));
        assert_eq!(d.rate(), Some(Rate::mbps(100)));
        // α decays with unmarked windows.
        assert!(d.alpha() < 1.0);
    }
}
