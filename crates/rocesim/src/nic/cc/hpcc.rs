//! HPCC: High Precision Congestion Control (Li et al., SIGCOMM 2019, Algorithm 1), as the
//! authors' ns-3 simulator (alibaba-edu/High-Precision-Congestion-Control, `RdmaHw::UpdateRateHp`,
//! single-rate mode) implements it.
//!
//! Every data packet collects INT ([`IntRecord`]) from each egress port it crosses; the ACK
//! echoes it. Per ACK, for each hop `j` (compared with the previous ACK's record of that hop):
//!
//! ```text
//! txRate_j = (tx_bytes_j − prev tx_bytes_j) · 8 / (ts_j − prev ts_j)        [bit/s]
//! u_j      = min(qlen_j, prev qlen_j) · 8 / (B_j · T) + txRate_j / B_j     [B_j in bit/s]
//! U        = max_j u_j                      (τ = ts − prev ts of that hop, capped at T)
//! Ū        = (1 − τ/T) · Ū + (τ/T) · U                                (EWMA, Ū starts at 1)
//! ```
//!
//! and the window (payload bytes) is
//!
//! ```text
//! if Ū ≥ η or incStage ≥ maxStage:  W = W_c / (Ū/η) + W_AI      (multiplicative, incStage → 0)
//! else:                             W = W_c + W_AI               (additive,      incStage + 1)
//! ```
//!
//! `W` applies on every ACK ("fast reaction"), but the reference window `W_c` and `incStage`
//! are committed only once per RTT: when the ACK covers the first packet sent after the
//! previous commit (`ack_psn ≥ lastUpdateSeq`, then `lastUpdateSeq = snd_nxt`). `W` is clamped
//! to `[min_rate · T, line_rate · T]`, i.e. the reference's rate clamp `[MinRate, line rate]`:
//! the window never exceeds the initial BDP window. The QP paces at `W · 8 / T`.
//!
//! Details kept from the reference: the first ACK only stores its INT and opens the first
//! RTT; a hop whose `u` is not above the running maximum does not set `τ` (so an all-idle
//! record, `U = 0`, leaves `Ū` unchanged); the per-hop state is the last record seen, fast
//! reaction or not. Departures, all documented in `docs/cc-hpcc-timely-dctcp.md`: a hop whose
//! timestamp did not advance is skipped (the reference divides by zero); a record whose hop
//! count changed only replaces the stored one; `window()` never reports less than one MTU so
//! the QP can always send (its pacing rate still follows `W`).

use super::{AckInfo, CcContext, CongestionControl, IntRecord};
use crate::units::{Rate, Time};

/// Parameters of HPCC (`[nic.hpcc]`). Defaults follow `shared/BENCHMARKS.md` (η = 0.95,
/// maxStage = 5, additive increase 50 Mb/s) and the reference simulator (MinRate 100 Mb/s,
/// per-ACK fast reaction).
#[derive(Clone, Debug, PartialEq)]
pub struct HpccParams {
    /// Target utilisation η (paper: 0.95; the reference's `U_TARGET`). Dimensionless, (0, 1].
    pub eta: f64,
    /// Additive-increase stages before a multiplicative increase (paper §3.3: maxStage = 5;
    /// the reference's `MI_THRESH`, 0 in the paper's runs). 0 = always the multiplicative rule.
    pub max_stage: u32,
    /// Additive increase, as a rate: `W_AI = w_ai · T` bytes (default 50 Mb/s, i.e. 78 B at
    /// T = 12.48 µs). The reference's `m_rai`.
    pub w_ai: Rate,
    /// The control period `T` (the base RTT the window is sized by); `None` = the QP's own base
    /// RTT ([`CcContext::base_rtt`]). BENCHMARKS uses the longest path's, 12.48 µs.
    pub t: Option<Time>,
    /// Lowest pacing rate; the window floor is `min_rate · T` (reference `MinRate`, 100 Mb/s).
    pub min_rate: Rate,
    /// React on every ACK (`W` from the uncommitted `W_c`) as well as once per RTT (reference
    /// `FAST_REACT`, on in the paper). `false` = only the once-per-RTT update.
    pub fast_react: bool,
    /// Bytes the INT header adds to every data packet on the wire (the HPCC ns-3 code adds a
    /// fixed 42-byte header; 0 = the telemetry costs no wire bytes).
    pub int_header: u32,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            w_ai: Rate::mbps(50),
            t: None,
            min_rate: Rate::mbps(100),
            fast_react: true,
            int_header: 0,
        }
    }
}

/// Per-QP HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    fast_react: bool,
    line_rate: Rate,
    mtu: u64,
    /// `T` in picoseconds (≥ 1).
    t_ps: u64,
    /// `T` in seconds.
    t_s: f64,
    /// `W_AI`, bytes.
    w_ai: f64,
    /// Window floor and ceiling, bytes.
    w_min: f64,
    w_max: f64,
    /// Current window `W` and reference window `W_c`, bytes.
    w: f64,
    w_c: f64,
    inc_stage: u32,
    /// EWMA of the bottleneck utilisation `Ū`.
    u: f64,
    /// `None` before the first INT-carrying ACK; then the PSN whose acknowledgement ends the
    /// current RTT.
    last_update_seq: Option<u32>,
    /// The last INT record seen.
    prev: IntRecord,
    /// Cached outputs of `w`.
    win: u64,
    rate: Rate,
}

impl Hpcc {
    /// A new QP's state: `W = W_c = line_rate · T` (the BDP), `Ū = 1`, stage 0.
    pub fn new(p: &HpccParams, ctx: &CcContext) -> Self {
        let t = p.t.unwrap_or(ctx.base_rtt);
        let t_ps = t.ps().max(1);
        let t_s = t_ps as f64 * 1e-12;
        let bdp = |r: Rate| r.bps() as f64 * t_s / 8.0;
        let w_max = ctx.line_rate.bytes_in(Time(t_ps)) as f64;
        let mut h = Hpcc {
            eta: p.eta,
            max_stage: p.max_stage,
            fast_react: p.fast_react,
            line_rate: ctx.line_rate,
            mtu: ctx.mtu as u64,
            t_ps,
            t_s,
            w_ai: bdp(p.w_ai),
            w_min: bdp(p.min_rate).min(w_max),
            w_max,
            w: w_max,
            w_c: w_max,
            inc_stage: 0,
            u: 1.0,
            last_update_seq: None,
            prev: IntRecord::default(),
            win: 0,
            rate: ctx.line_rate,
        };
        h.set_window(w_max);
        h
    }

    fn set_window(&mut self, w: f64) {
        self.w = w.clamp(self.w_min, self.w_max);
        self.win = (self.w.round() as u64).max(self.mtu).max(1);
        // At the ceiling pace at exactly line rate (the BDP in whole bytes may round down).
        let bps = if self.w >= self.w_max {
            self.line_rate.bps()
        } else {
            (self.w * 8.0 / self.t_s).round() as u64
        };
        self.rate = Rate(bps.clamp(1, self.line_rate.bps().max(1)));
    }

    /// The smoothed bottleneck utilisation `Ū` (dimensionless), for tests and traces.
    pub fn utilisation(&self) -> f64 {
        self.u
    }

    /// The reference window `W_c` in bytes.
    pub fn reference_window(&self) -> f64 {
        self.w_c
    }

    /// Consecutive additive-increase stages committed so far.
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// The new utilisation sample `U = max_j u_j` and its `τ` (ps), against the stored record;
    /// `None` if no hop could be measured.
    fn sample(&self, int: &IntRecord) -> Option<(f64, u64)> {
        let n = int.nhop as usize;
        if n == 0 || n != self.prev.nhop as usize {
            return None;
        }
        let (mut big_u, mut tau, mut any) = (0.0f64, 0u64, false);
        for (h, p) in int.hops[..n].iter().zip(&self.prev.hops[..n]) {
            let dt = h.ts.saturating_sub(p.ts).ps();
            let b = h.rate.bps() as f64;
            if dt == 0 || b <= 0.0 {
                continue;
            }
            any = true;
            let tx_rate = h.tx_bytes.saturating_sub(p.tx_bytes) as f64 * 8.0 / (dt as f64 * 1e-12);
            let qlen = h.qlen.min(p.qlen) as f64;
            let u = tx_rate / b + qlen * 8.0 / (b * self.t_s);
            if u > big_u {
                big_u = u;
                tau = dt;
            }
        }
        any.then_some((big_u, tau))
    }
}

impl CongestionControl for Hpcc {
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        let Some(int) = ack.int else { return };
        let Some(last) = self.last_update_seq else {
            // First feedback: remember the path's counters, open the first RTT.
            self.prev = *int;
            self.last_update_seq = Some(ack.snd_nxt);
            return;
        };
        let full = ack.ack_psn as u64 + 1 > last as u64;
        if !full && !self.fast_react {
            return;
        }
        let sample = self.sample(int);
        self.prev = *int;
        if let Some((big_u, tau)) = sample {
            let tau = tau.min(self.t_ps) as f64;
            let t = self.t_ps as f64;
            self.u = (self.u * (t - tau) + big_u * tau) / t;
            let c = self.u / self.eta;
            let (w, stage) = if c >= 1.0 || self.inc_stage >= self.max_stage {
                (self.w_c / c + self.w_ai, 0)
            } else {
                (self.w_c + self.w_ai, self.inc_stage + 1)
            };
            self.set_window(w);
            if full {
                self.w_c = self.w;
                self.inc_stage = stage;
            }
        }
        if full && ack.snd_nxt > last {
            self.last_update_seq = Some(ack.snd_nxt);
        }
    }

    fn rate(&self) -> Option<Rate> {
        Some(self.rate)
    }

    fn window(&self) -> Option<u64> {
        Some(self.win)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nic::cc::{IntHop, MAX_INT_HOPS};

    const T: Time = Time(12_480_000); // 12.48 us
    const B: Rate = Rate::gbps(100);
    const BDP: u64 = 156_000; // 100 Gb/s × 12.48 us / 8
    const W_AI: f64 = 78.0; // 50 Mb/s × 12.48 us / 8

    fn ctx() -> CcContext {
        CcContext {
            line_rate: B,
            mtu: 1000,
            base_rtt: T,
            start: Time::ZERO,
            frame_overhead: 82,
        }
    }

    /// A one-hop record: `qlen` bytes queued, `tx` bytes sent so far, stamped at `ts`.
    fn rec(qlen: u64, tx: u64, ts: Time) -> IntRecord {
        let mut hops = [IntHop::default(); MAX_INT_HOPS];
        hops[0] = IntHop {
            qlen,
            tx_bytes: tx,
            ts,
            rate: B,
        };
        IntRecord { nhop: 1, hops }
    }

    fn ack(r: &IntRecord, ack_psn: u32, snd_nxt: u32) -> AckInfo<'_> {
        AckInfo {
            now: r.hops[0].ts,
            acked_bytes: 1000,
            ack_psn,
            snd_nxt,
            ecn_echo: false,
            rtt: None,
            int: Some(r),
        }
    }

    /// Bytes a port at `B` sends in `t` scaled by `frac`.
    fn sent(frac: f64, t: Time) -> u64 {
        (B.bytes_in(t) as f64 * frac).round() as u64
    }

    /// `k` control periods.
    fn tk(k: u64) -> Time {
        Time(T.ps() * k)
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-6, "{a} != {b}");
    }

    #[test]
    fn initial_window_is_the_bdp_exactly() {
        let h = Hpcc::new(&HpccParams::default(), &ctx());
        assert_eq!(h.window(), Some(BDP));
        assert_eq!(h.rate(), Some(B));
        close(h.w_ai, W_AI);
        // An explicit T overrides the base RTT.
        let p = HpccParams {
            t: Some(Time::from_us(10)),
            ..HpccParams::default()
        };
        assert_eq!(Hpcc::new(&p, &ctx()).window(), Some(125_000));
    }

    #[test]
    fn first_ack_only_stores_the_record() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let r = rec(BDP, 0, Time::from_us(1));
        h.on_ack(&ack(&r, 0, 10));
        assert_eq!(h.window(), Some(BDP));
        assert_eq!(h.last_update_seq, Some(10));
        assert_eq!(h.prev, r);
    }

    #[test]
    fn idle_path_adds_w_ai_per_ack_from_the_reference_window() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        h.w_c = 100_000.0;
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(0, 0, t0), 0, 10));
        // Half the line rate over exactly T, no queue: u = 0.5, τ = T so Ū = 0.5 < η.
        let r1 = rec(0, sent(0.5, T), t0 + T);
        h.on_ack(&ack(&r1, 3, 12)); // within the first RTT: fast reaction only
        close(h.utilisation(), 0.5);
        close(h.w, 100_000.0 + W_AI);
        close(h.reference_window(), 100_000.0);
        assert_eq!(h.inc_stage(), 0);
        // Another ACK in the same RTT: again W_c + W_AI, not cumulative.
        let r2 = rec(0, sent(0.5, tk(2)), t0 + tk(2));
        h.on_ack(&ack(&r2, 5, 14));
        close(h.w, 100_000.0 + W_AI);
        assert_eq!(h.window(), Some(100_078));
        // The ACK of PSN 10 (the first packet sent after the last commit) ends the RTT.
        let r3 = rec(0, sent(0.5, tk(3)), t0 + tk(3));
        h.on_ack(&ack(&r3, 10, 20));
        close(h.reference_window(), 100_000.0 + W_AI);
        assert_eq!(h.inc_stage(), 1);
        assert_eq!(h.last_update_seq, Some(20));
        // Pacing follows the window: rate = W · 8 / T.
        let want = (100_078.0 * 8.0 / 12.48e-6f64).round() as u64;
        assert_eq!(h.rate(), Some(Rate(want)));
    }

    #[test]
    fn standing_bdp_queue_at_full_utilisation_halves_the_window() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(BDP, 0, t0), 0, 10));
        // Line rate for T and a standing queue of one BDP: u = 1 + 1 = 2.
        let r = rec(BDP, sent(1.0, T), t0 + T);
        h.on_ack(&ack(&r, 10, 30));
        close(h.utilisation(), 2.0);
        let want = BDP as f64 / (2.0 / 0.95) + W_AI; // 74,100 + 78
        close(h.w, want);
        assert_eq!(h.window(), Some(74_178));
        close(h.reference_window(), want);
        assert_eq!(h.inc_stage(), 0);
    }

    #[test]
    fn the_queue_term_uses_the_smaller_of_two_samples_and_the_bottleneck_hop() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let t0 = Time::from_us(1);
        let mut a = rec(0, 0, t0);
        a.nhop = 2;
        a.hops[1] = IntHop {
            qlen: BDP / 2,
            tx_bytes: 0,
            ts: t0,
            rate: Rate::gbps(400),
        };
        h.on_ack(&ack(&a, 0, 10));
        // Hop 0: idle, full rate → u = 1. Hop 1 (400G): queue min(BDP/2, BDP) → 0.5 · 100/400
        // = 0.125 queue term, plus a quarter of its rate → u = 0.375.
        let mut b = rec(BDP, sent(1.0, T), t0 + T);
        b.nhop = 2;
        b.hops[1] = IntHop {
            qlen: BDP,
            tx_bytes: Rate::gbps(100).bytes_in(T),
            ts: t0 + T,
            rate: Rate::gbps(400),
        };
        h.on_ack(&ack(&b, 10, 20));
        close(h.utilisation(), 1.0);
    }

    #[test]
    fn ewma_weight_is_tau_over_t() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(0, 0, t0), 0, 10));
        // A quarter of T at half rate: Ū = 0.75 · 1 + 0.25 · 0.5.
        let q = Time(T.ps() / 4);
        h.on_ack(&ack(&rec(0, sent(0.5, q), t0 + q), 1, 11));
        close(h.utilisation(), 0.875);
        // A gap longer than T counts as T.
        let mut h2 = Hpcc::new(&HpccParams::default(), &ctx());
        h2.on_ack(&ack(&rec(0, 0, t0), 0, 10));
        let long = tk(3);
        h2.on_ack(&ack(&rec(0, sent(0.5, long), t0 + long), 1, 11));
        close(h2.utilisation(), 0.5);
    }

    #[test]
    fn multiplicative_increase_after_max_stage_commits() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        h.w_c = 50_000.0;
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(0, 0, t0), 0, 1));
        // Five RTTs at u = 0.5: five additive commits.
        for k in 1..=5u32 {
            let t = t0 + tk(k as u64);
            h.on_ack(&ack(&rec(0, sent(0.5, tk(k as u64)), t), k, k + 1));
            assert_eq!(h.inc_stage(), k);
        }
        close(h.reference_window(), 50_000.0 + 5.0 * W_AI);
        // Sixth: incStage = maxStage, so W = W_c / (Ū/η) + W_AI even though Ū < η.
        let wc = h.reference_window();
        h.on_ack(&ack(&rec(0, sent(0.5, tk(6)), t0 + tk(6)), 6, 7));
        close(h.w, wc / (0.5 / 0.95) + W_AI);
        assert_eq!(h.inc_stage(), 0);
        // max_stage = 0 always uses the multiplicative rule.
        let p = HpccParams {
            max_stage: 0,
            ..HpccParams::default()
        };
        let mut h0 = Hpcc::new(&p, &ctx());
        h0.w_c = 50_000.0;
        h0.on_ack(&ack(&rec(0, 0, t0), 0, 1));
        h0.on_ack(&ack(&rec(0, sent(0.5, T), t0 + T), 1, 2));
        close(h0.w, 50_000.0 / (0.5 / 0.95) + W_AI);
    }

    #[test]
    fn window_is_clamped_to_min_rate_and_bdp() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(0, 0, t0), 0, 1));
        // Idle path at W = BDP: the increase is cut at the BDP.
        h.on_ack(&ack(&rec(0, sent(0.5, T), t0 + T), 1, 2));
        assert_eq!(h.window(), Some(BDP));
        assert_eq!(h.rate(), Some(B));
        // A huge queue: the window falls to min_rate · T (156 B), reported as one MTU.
        let big = 1_000 * BDP;
        for k in 2..=4u32 {
            let t = tk(k as u64);
            h.on_ack(&ack(&rec(big, sent(1.0, t), t0 + t), k, k + 1));
        }
        close(h.w, 156.0);
        assert_eq!(h.window(), Some(1000));
        assert_eq!(h.rate(), Some(Rate::mbps(100)));
    }

    #[test]
    fn without_fast_react_only_full_rtts_change_the_window() {
        let p = HpccParams {
            fast_react: false,
            ..HpccParams::default()
        };
        let mut h = Hpcc::new(&p, &ctx());
        let t0 = Time::from_us(1);
        h.on_ack(&ack(&rec(BDP, 0, t0), 0, 10));
        h.on_ack(&ack(&rec(BDP, sent(1.0, T), t0 + T), 5, 12));
        assert_eq!(h.window(), Some(BDP));
        h.on_ack(&ack(&rec(BDP, sent(1.0, tk(2)), t0 + tk(2)), 10, 12));
        assert!(h.window().unwrap() < BDP);
    }

    #[test]
    fn acks_without_int_or_with_stalled_timestamps_change_nothing() {
        let mut h = Hpcc::new(&HpccParams::default(), &ctx());
        let t0 = Time::from_us(1);
        let r = rec(BDP, 0, t0);
        h.on_ack(&ack(&r, 0, 10));
        let mut a = ack(&r, 10, 20);
        a.int = None;
        h.on_ack(&a);
        assert_eq!(h.last_update_seq, Some(10));
        h.on_ack(&ack(&r, 10, 20)); // same timestamp: no sample, but the RTT still ends
        assert_eq!(h.window(), Some(BDP));
        close(h.utilisation(), 1.0);
        assert_eq!(h.last_update_seq, Some(20));
    }
}
