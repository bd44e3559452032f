//! TIMELY: RTT-gradient rate control (Mittal et al., SIGCOMM 2015, Algorithm 1).
//!
//! On each rate update with an RTT sample `rtt` (ACKs without one are ignored):
//!
//! ```text
//! new_rtt_diff = rtt − prev_rtt
//! rtt_diff     = (1 − α) · rtt_diff + α · new_rtt_diff
//! gradient     = rtt_diff / min_rtt
//! if rtt < T_low:        rate += δ
//! elif rtt > T_high:     rate ·= 1 − β · (1 − T_high / rtt)
//! elif gradient ≤ 0:     rate += N · δ      (N = hai_factor from the hai_after-th consecutive
//!                                            gradient ≤ 0 update on, else 1: HAI)
//! else:                  rate ·= 1 − β · gradient      (factor floored at 0)
//! rate clamped to [min_rate, line rate]
//! ```
//!
//! **When updates happen.** The paper runs Algorithm 1 once per *completion event*, a 16–64 KB
//! segment, because per-packet RTTs are too noisy (§4). With one ACK per 1 KB packet the
//! closest equivalent, and what the HPCC authors' ns-3 simulator does
//! (`RdmaHw::UpdateRateTimely`), is one update per RTT: on the ACK of the first packet sent
//! after the previous update (`ack_psn ≥ snd_nxt` recorded then); `prev_rtt` is the RTT of the
//! previous update. That is the default ([`TimelyUpdate::PerRtt`]); [`TimelyUpdate::PerAck`]
//! runs Algorithm 1 on every RTT sample. The first sample only records `prev_rtt`.
//!
//! HAI counting follows the paper's wording ("gradient negative for five completions"):
//! updates taking the `gradient ≤ 0` branch count up, updates that cut the rate reset the
//! count, and `rtt < T_low` updates leave it alone. (The ns-3 reference instead counts every
//! increase and switches to HAI on the sixth.)

use super::{AckInfo, CcContext, CongestionControl};
use crate::units::{Rate, Time};

/// How often TIMELY runs its rate update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelyUpdate {
    /// Once per RTT (the HPCC authors' ns-3 simulator; the default).
    PerRtt,
    /// On every ACK that carries an RTT sample.
    PerAck,
}

/// Parameters of TIMELY (`[nic.timely]`). Defaults are the paper's (Table/§5: α = 0.875,
/// β = 0.8, δ = 10 Mb/s, T_low = 50 µs, T_high = 500 µs, HAI after 5 with N = 5), which the
/// HPCC ns-3 simulator also uses for α, β, T_low and T_high.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyParams {
    /// EWMA weight α of the newest RTT difference (dimensionless, (0, 1]; paper 0.875).
    pub alpha: f64,
    /// Multiplicative-decrease factor β (dimensionless, (0, 1]; paper 0.8).
    pub beta: f64,
    /// Additive-increase step δ (paper 10 Mb/s).
    pub delta: Rate,
    /// Below this RTT the rate always increases by δ (paper 50 µs).
    pub t_low: Time,
    /// Above this RTT the rate is cut by `β · (1 − T_high/rtt)` (paper 500 µs).
    pub t_high: Time,
    /// The RTT the gradient is normalised by; `None` = the QP's base RTT
    /// ([`CcContext::base_rtt`]). The HPCC paper's runs use 20 µs.
    pub min_rtt: Option<Time>,
    /// Lowest rate (default 10 Mb/s).
    pub min_rate: Rate,
    /// Consecutive `gradient ≤ 0` updates that switch on hyperactive increase (paper 5).
    pub hai_after: u32,
    /// The HAI multiplier `N` of δ (paper 5).
    pub hai_factor: u32,
    /// When the update runs.
    pub update: TimelyUpdate,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            alpha: 0.875,
            beta: 0.8,
            delta: Rate::mbps(10),
            t_low: Time::from_us(50),
            t_high: Time::from_us(500),
            min_rtt: None,
            min_rate: Rate::mbps(10),
            hai_after: 5,
            hai_factor: 5,
            update: TimelyUpdate::PerRtt,
        }
    }
}

/// Per-QP TIMELY state.
#[derive(Clone, Debug)]
pub struct Timely {
    alpha: f64,
    beta: f64,
    delta: f64,
    t_low: u64,
    t_high: u64,
    min_rtt: f64,
    min_rate: f64,
    max_rate: f64,
    hai_after: u32,
    hai_factor: u32,
    update: TimelyUpdate,
    /// Current rate, bit/s.
    rate: f64,
    /// EWMA of RTT differences, ps.
    rtt_diff: f64,
    /// RTT of the previous update, ps (`None` before the first sample).
    prev_rtt: Option<u64>,
    /// Consecutive `gradient ≤ 0` updates.
    neg_count: u32,
    /// Per-RTT mode: the PSN whose acknowledgement allows the next update.
    next_update_psn: u32,
    out: Rate,
}

impl Timely {
    /// A new QP's state: line rate, no RTT history.
    pub fn new(p: &TimelyParams, ctx: &CcContext) -> Self {
        let max_rate = ctx.line_rate.bps() as f64;
        let mut t = Timely {
            alpha: p.alpha,
            beta: p.beta,
            delta: p.delta.bps() as f64,
            t_low: p.t_low.ps(),
            t_high: p.t_high.ps(),
            min_rtt: p.min_rtt.unwrap_or(ctx.base_rtt).ps().max(1) as f64,
            min_rate: (p.min_rate.bps() as f64).min(max_rate),
            max_rate,
            hai_after: p.hai_after,
            hai_factor: p.hai_factor,
            update: p.update,
            rate: max_rate,
            rtt_diff: 0.0,
            prev_rtt: None,
            neg_count: 0,
            next_update_psn: 0,
            out: ctx.line_rate,
        };
        t.set_rate(max_rate);
        t
    }

    fn set_rate(&mut self, r: f64) {
        self.rate = r.clamp(self.min_rate, self.max_rate);
        self.out = Rate((self.rate.round() as u64).max(1));
    }

    /// The smoothed RTT difference in picoseconds (for tests and traces).
    pub fn rtt_diff_ps(&self) -> f64 {
        self.rtt_diff
    }

    /// Algorithm 1 for one RTT sample of `rtt` picoseconds.
    fn update_rate(&mut self, rtt: u64) {
        let Some(prev) = self.prev_rtt else {
            self.prev_rtt = Some(rtt);
            return;
        };
        let new_rtt_diff = rtt as f64 - prev as f64;
        self.prev_rtt = Some(rtt);
        self.rtt_diff = (1.0 - self.alpha) * self.rtt_diff + self.alpha * new_rtt_diff;
        let gradient = self.rtt_diff / self.min_rtt;
        let r = self.rate;
        let new = if rtt < self.t_low {
            r + self.delta
        } else if rtt > self.t_high {
            self.neg_count = 0;
            r * (1.0 - self.beta * (1.0 - self.t_high as f64 / rtt as f64))
        } else if gradient <= 0.0 {
            self.neg_count = self.neg_count.saturating_add(1);
            let n = if self.neg_count >= self.hai_after {
                self.hai_factor
            } else {
                1
            };
            r + n as f64 * self.delta
        } else {
            self.neg_count = 0;
            r * (1.0 - self.beta * gradient).max(0.0)
        };
        self.set_rate(new);
    }
}

impl CongestionControl for Timely {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let Some(rtt) = ack.rtt else { return };
        match self.update {
            TimelyUpdate::PerAck => self.update_rate(rtt.ps()),
            TimelyUpdate::PerRtt => {
                if self.prev_rtt.is_none() || ack.ack_psn >= self.next_update_psn {
                    self.update_rate(rtt.ps());
                    self.next_update_psn = self.next_update_psn.max(ack.snd_nxt);
                }
            }
        }
    }

    fn rate(&self) -> Option<Rate> {
        Some(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 100e9;

    fn ctx() -> CcContext {
        CcContext {
            line_rate: Rate::gbps(100),
            mtu: 1000,
            base_rtt: Time::from_us(20),
            start: Time::ZERO,
            frame_overhead: 82,
        }
    }

    /// An ACK that always ends the RTT (ack_psn = the previous snd_nxt).
    fn ack(psn: u32, rtt_us: f64) -> AckInfo<'static> {
        AckInfo {
            now: Time::from_ms(1),
            acked_bytes: 1000,
            ack_psn: psn,
            snd_nxt: psn + 1,
            ecn_echo: false,
            rtt: Some(Time((rtt_us * 1e6).round() as u64)),
            int: None,
        }
    }

    fn at(rate: f64) -> Timely {
        let mut t = Timely::new(&TimelyParams::default(), &ctx());
        t.set_rate(rate);
        t
    }

    fn bps(t: &Timely) -> u64 {
        t.rate().unwrap().bps()
    }

    #[test]
    fn starts_at_line_rate_and_first_sample_only_records() {
        let mut t = Timely::new(&TimelyParams::default(), &ctx());
        assert_eq!(t.rate(), Some(Rate::gbps(100)));
        t.set_rate(50e9);
        t.on_ack(&ack(0, 30.0));
        assert_eq!(bps(&t), 50_000_000_000);
        assert_eq!(t.prev_rtt, Some(30_000_000));
    }

    #[test]
    fn below_t_low_adds_delta() {
        let mut t = at(50e9);
        t.on_ack(&ack(0, 30.0));
        t.on_ack(&ack(1, 40.0)); // rising RTT, but below T_low
        assert_eq!(bps(&t), 50_010_000_000);
        // rtt_diff = 0.875 · 10 us.
        assert!((t.rtt_diff_ps() - 8_750_000.0).abs() < 1e-3);
    }

    #[test]
    fn above_t_high_cuts_by_the_exact_formula() {
        let mut t = Timely::new(&TimelyParams::default(), &ctx());
        t.on_ack(&ack(0, 900.0));
        t.on_ack(&ack(1, 1000.0));
        // 100G · (1 − 0.8 · (1 − 500/1000)) = 60G.
        assert_eq!(bps(&t), 60_000_000_000);
    }

    #[test]
    fn positive_gradient_cuts_by_beta_times_gradient() {
        let mut t = at(50e9);
        t.on_ack(&ack(0, 100.0));
        t.on_ack(&ack(1, 102.0));
        // rtt_diff = 0.875 · 2 us = 1.75 us; gradient = 1.75/20 = 0.0875;
        // rate = 50G · (1 − 0.8 · 0.0875) = 46.5G.
        assert_eq!(bps(&t), 46_500_000_000);
        // The next update keeps a smoothed difference: flat RTT → 0.125 · 1.75 us > 0.
        t.on_ack(&ack(2, 102.0));
        let g = 0.125 * 1.75 / 20.0;
        let want: f64 = 46.5e9 * (1.0 - 0.8 * g);
        assert_eq!(bps(&t), want.round() as u64);
    }

    #[test]
    fn hai_from_the_fifth_consecutive_negative_gradient() {
        let mut t = at(50e9);
        t.on_ack(&ack(0, 200.0));
        let mut want = 50e9;
        for k in 1..=6u32 {
            t.on_ack(&ack(k, 200.0 - k as f64)); // falling RTT in [T_low, T_high]
            want += if k >= 5 { 5.0 * 10e6 } else { 10e6 };
            assert_eq!(bps(&t), want as u64, "update {k}");
        }
        // A cut resets the count.
        t.on_ack(&ack(7, 250.0));
        assert_eq!(t.neg_count, 0);
        let r = t.rate;
        t.on_ack(&ack(8, 200.0));
        assert_eq!(t.rate, r + 10e6);
    }

    #[test]
    fn clamped_to_min_rate_and_line_rate() {
        let mut t = Timely::new(&TimelyParams::default(), &ctx());
        t.on_ack(&ack(0, 10.0));
        t.on_ack(&ack(1, 10.0));
        assert_eq!(bps(&t), LINE as u64);
        t.on_ack(&ack(2, 400.0)); // gradient 0.875·390/20 ≫ 1/β: factor floored at 0
        assert_eq!(t.rate(), Some(Rate::mbps(10)));
    }

    #[test]
    fn per_rtt_mode_waits_for_the_window_and_ignores_acks_without_rtt() {
        let mut t = at(50e9);
        let mut a = ack(0, 100.0);
        a.snd_nxt = 10;
        t.on_ack(&a);
        // PSNs 1..9 were sent before the first update: no update on their ACKs.
        for psn in 1..10 {
            let mut a = ack(psn, 300.0);
            a.snd_nxt = 20;
            t.on_ack(&a);
        }
        assert_eq!(bps(&t), 50_000_000_000);
        let mut none = ack(10, 300.0);
        none.rtt = None;
        t.on_ack(&none);
        assert_eq!(bps(&t), 50_000_000_000);
        t.on_ack(&ack(10, 102.0));
        assert_eq!(bps(&t), 46_500_000_000);
        // Per-ACK mode updates on every sample.
        let p = TimelyParams {
            update: TimelyUpdate::PerAck,
            ..TimelyParams::default()
        };
        let mut t = Timely::new(&p, &ctx());
        t.set_rate(50e9);
        let mut a = ack(0, 100.0);
        a.snd_nxt = 10;
        t.on_ack(&a);
        let mut a = ack(1, 102.0);
        a.snd_nxt = 10;
        t.on_ack(&a);
        assert_eq!(bps(&t), 46_500_000_000);
    }
}
