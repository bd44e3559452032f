//! DCQCN reaction point (the sender NIC): Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015, with the knobs of NVIDIA's ConnectX firmware (named as mlx5 names
//! them: `rpg_*`, `dce_tcp_*`, ...).
//!
//! State per QP: current rate R_C, target rate R_T, α, the timer stage T, the byte-counter
//! stage BC, and the bytes sent since the last byte-counter event.
//!
//! - **Rate decrease** (a CNP): at most one reaction per `rate_reduce_monitor_period`, the
//!   other CNPs are counted and ignored. A reaction sets R_T ← R_C (see
//!   [`DcqcnParams::clamp_tgt_rate`]), R_C ← R_C·(1 − α·2^(10−rpg_gd)) (= R_C·(1 − α/2) for the
//!   default `rpg_gd` 11), bounded below by `rpg_min_dec_fac` % of the old R_C and by
//!   `rpg_min_rate`; then α ← (1 − g)α + g, T = BC = 0, the byte counter restarts and so does
//!   the increase timer. The first CNP of a QP starts from α = `initial_alpha_value`.
//! - **α decay**: every `dce_tcp_rtt` without a CNP, α ← (1 − g)α. Any CNP (even one ignored
//!   by the monitor period) restarts that period.
//! - **Rate increase**: the increase timer fires every `rpg_time_reset` (T += 1) and the byte
//!   counter every `rpg_byte_reset` bytes sent (BC += 1). After the count: if
//!   max(T, BC) ≤ F (`rpg_threshold`) fast recovery R_C ← (R_T + R_C)/2; else if
//!   min(T, BC) > F hyper increase R_T += (min(T, BC) − F)·R_HAI; else additive increase
//!   R_T += R_AI; both increases then set R_C ← (R_T + R_C)/2. R_T and R_C never exceed the
//!   line rate. With the byte counter off (`rpg_byte_reset` 0) T alone decides, as in the HPCC
//!   paper's ns-3 model: T ≤ F fast recovery, T = F + 1 additive, then R_T += R_HAI per event.
//! - **`alpha_update`**: the rules above are [`AlphaUpdate::PerCnp`] (the default). Under
//!   [`AlphaUpdate::Timer`] (ns-3's model) α follows [`AlphaTimer`] and a CNP only schedules a
//!   cut at the next `rate_reduce_monitor_period` expiry (timers from the first CNP, which
//!   cuts nothing); the cut uses α as of then and leaves α unchanged.
//!
//! Modelling decisions (documented where they differ from a literal reading of the sources):
//! - The stage comparison uses the counts *including* the event being processed with `≤ F`
//!   for fast recovery, so that a timer-only recovery makes exactly F fast-recovery steps
//!   (VALIDATION.md §3.2: 30, 35, 37.5, 38.75, 39.375 G at 55…275 us, then additive increase
//!   from the 6th event), as QCN's "five cycles of fast recovery" and the HPCC simulator's
//!   Mellanox model (stage < F before incrementing) do.
//! - α decay needs no timer events: with no CNP, α after k whole periods is α·(1 − g)^k, so
//!   the decay is applied in closed form when α is next used (at a CNP). This is exact and
//!   keeps the 1 us NVIDIA α period from putting a per-QP event in the queue every microsecond.
//!   [`CongestionControl::next_timer`] therefore only carries the rate-increase timer.
//! - Once R_C and R_T are both back at the line rate, further increase events cannot change
//!   anything, so the timer stops (and the byte counter idles) until the next CNP. R_C is
//!   snapped to the line rate when it is within 1 b/s of it.
//! - A CNP inside `rate_reduce_monitor_period` is ignored (not deferred to the end of the
//!   period as the firmware description has it): the difference is at most one period's delay
//!   of one cut.

use super::dcqcn_alpha::{AlphaTimer, AlphaUpdate};
use super::{CcContext, CongestionControl};
use crate::units::{Rate, Time};

/// DCQCN reaction-point parameters. Two named profiles: [`DcqcnParams::paper`] (the default) and
/// [`DcqcnParams::nvidia`].
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnParams {
    /// α update period K (mlx5 `dce_tcp_rtt`): α ← (1 − g)α after each K without a CNP.
    /// Paper 55 us; NVIDIA 1 us.
    pub dce_tcp_rtt: Time,
    /// EWMA gain g of α, a fraction in (0, 1] (mlx5 `dce_tcp_g`, which the firmware gives as
    /// a 10-bit fixed-point weight; see `docs/cc-dcqcn-rcm.md` for the mapping the config
    /// reader applies). Paper and NVIDIA profile 1/256.
    pub g: f64,
    /// α used for the first CNP of a QP, a fraction in [0, 1] (mlx5 `initial_alpha_value`,
    /// firmware fixed point n/1024). Paper 1.0; NVIDIA 1023/1024.
    pub initial_alpha_value: f64,
    /// Rate-decrease divisor exponent (mlx5 `rpg_gd`): a cut multiplies R_C by
    /// 1 − α·2^(10 − rpg_gd), i.e. by 1 − α/2 for the default 11 (the paper's rule; the
    /// firmware divides a 10-bit α by 2^rpg_gd).
    pub rpg_gd: u8,
    /// Bound on one cut, percent (mlx5 `rpg_min_dec_fac`): the new R_C is at least this
    /// percentage of the old one. 0 = no bound (paper); NVIDIA 50.
    pub rpg_min_dec_fac: u8,
    /// Lowest current rate (mlx5 `rpg_min_rate`). Paper profile 10 Mb/s (the paper gives no
    /// value); NVIDIA profile 1000 Mb/s (the HPCC simulator's setting; firmware default 1 Mb/s).
    pub rpg_min_rate: Rate,
    /// Rate-increase timer period T (mlx5 `rpg_time_reset`). Paper 55 us; NVIDIA 300 us.
    pub rpg_time_reset: Time,
    /// Byte-counter period B, bytes sent per byte-counter event (mlx5 `rpg_byte_reset`);
    /// 0 = no byte counter. Paper 10 MB (10,000,000 B); NVIDIA 32,767 B.
    pub rpg_byte_reset: u64,
    /// Fast-recovery stage count F (mlx5 `rpg_threshold`). Paper 5; NVIDIA 1.
    pub rpg_threshold: u32,
    /// Additive-increase step R_AI of the target rate (mlx5 `rpg_ai_rate`). Paper 40 Mb/s;
    /// NVIDIA profile 20 Mb/s (HPCC's 100G scaling; firmware default 5 Mb/s).
    pub rpg_ai_rate: Rate,
    /// Hyper-increase step R_HAI (mlx5 `rpg_hai_rate`). Paper profile 400 Mb/s (10 × R_AI; the
    /// paper's value was not recovered); NVIDIA profile 200 Mb/s (firmware default 50 Mb/s).
    pub rpg_hai_rate: Rate,
    /// Set R_T ← R_C on every rate cut (mlx5 `clamp_tgt_rate`). Paper `true`; NVIDIA `false`:
    /// then R_T ← R_C only when an increase event happened since the previous cut (see
    /// [`DcqcnParams::clamp_tgt_rate_after_time_inc`]), so the first CNP and back-to-back cuts
    /// keep the old target.
    pub clamp_tgt_rate: bool,
    /// With `clamp_tgt_rate` off, a timer increase event (not only a byte-counter one) since
    /// the previous cut also makes the next cut set R_T ← R_C (mlx5
    /// `clamp_tgt_rate_after_time_inc`). Both profiles `true` (firmware default).
    pub clamp_tgt_rate_after_time_inc: bool,
    /// The RP reacts to at most one CNP per this period (mlx5 `rate_reduce_monitor_period`);
    /// zero = every CNP reacts. Paper 0 (the NP already paces CNPs); NVIDIA 4 us.
    pub rate_reduce_monitor_period: Time,
    /// Notification point: at most one CNP per QP per this interval (mlx5
    /// `min_time_between_cnps`). Carried here for the NP; the RP does not use it.
    /// Paper 50 us (N); NVIDIA 4 us (the firmware default `MIN_TIME_BETWEEN_CNPS` 4 in the
    /// mlxconfig listings; some newer firmware listings show 2).
    pub min_time_between_cnps: Time,
    /// The α rule: [`AlphaUpdate::PerCnp`] (both profiles; α gains g at each cut, decays per
    /// `dce_tcp_rtt` without a CNP, the cut happens at the CNP) or [`AlphaUpdate::Timer`]
    /// (ns-3's: α updated at each `dce_tcp_rtt` expiry, the cut deferred to the next
    /// `rate_reduce_monitor_period` boundary).
    pub alpha_update: AlphaUpdate,
}

impl DcqcnParams {
    /// The paper's parameters (Zhu et al. 2015 §5, VALIDATION.md §3.1): K = T = 55 us,
    /// B = 10 MB, F = 5, g = 1/256, R_AI = 40 Mb/s, R_HAI = 400 Mb/s, α starts at 1, every CNP
    /// reacts, N = 50 us.
    pub fn paper() -> Self {
        DcqcnParams {
            dce_tcp_rtt: Time::from_us(55),
            g: 1.0 / 256.0,
            initial_alpha_value: 1.0,
            rpg_gd: 11,
            rpg_min_dec_fac: 0,
            rpg_min_rate: Rate::mbps(10),
            rpg_time_reset: Time::from_us(55),
            rpg_byte_reset: 10_000_000,
            rpg_threshold: 5,
            rpg_ai_rate: Rate::mbps(40),
            rpg_hai_rate: Rate::mbps(400),
            clamp_tgt_rate: true,
            clamp_tgt_rate_after_time_inc: true,
            rate_reduce_monitor_period: Time::ZERO,
            min_time_between_cnps: Time::from_us(50),
            alpha_update: AlphaUpdate::PerCnp,
        }
    }

    /// NVIDIA ConnectX firmware timers as the HPCC simulator uses them (VALIDATION.md §3.4,
    /// BENCHMARKS.md): α period 1 us, monitor period 4 us, increase timer 300 us, F = 1,
    /// g = 1/256, R_AI = 20 Mb/s, R_HAI = 200 Mb/s, min rate 1000 Mb/s, α starts at
    /// 1023/1024, B = 32,767 B, cut bounded to 50 %, no target clamp, CNPs 4 us apart.
    pub fn nvidia() -> Self {
        DcqcnParams {
            dce_tcp_rtt: Time::from_us(1),
            g: 1.0 / 256.0,
            initial_alpha_value: 1023.0 / 1024.0,
            rpg_gd: 11,
            rpg_min_dec_fac: 50,
            rpg_min_rate: Rate::mbps(1000),
            rpg_time_reset: Time::from_us(300),
            rpg_byte_reset: 32_767,
            rpg_threshold: 1,
            rpg_ai_rate: Rate::mbps(20),
            rpg_hai_rate: Rate::mbps(200),
            clamp_tgt_rate: false,
            clamp_tgt_rate_after_time_inc: true,
            rate_reduce_monitor_period: Time::from_us(4),
            min_time_between_cnps: Time::from_us(4),
            alpha_update: AlphaUpdate::PerCnp,
        }
    }
}

impl Default for DcqcnParams {
    /// The paper profile.
    fn default() -> Self {
        DcqcnParams::paper()
    }
}

/// What caused the latest rate-increase event since the last cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IncCause {
    Timer,
    Bytes,
}

/// Per-QP DCQCN reaction-point state.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    p: DcqcnParams,
    /// Line rate, b/s.
    line: f64,
    /// `rpg_min_rate`, b/s, at most the line rate.
    min_rate: f64,
    /// Has the QP seen a CNP? Before that it sends at line rate and keeps no timers.
    active: bool,
    /// Current rate R_C, b/s.
    rc: f64,
    /// Target rate R_T, b/s.
    rt: f64,
    /// α as of `alpha_at` (decays in closed form after that).
    alpha: f64,
    /// Start of the current α period: the last CNP or the last applied decay.
    alpha_at: Time,
    /// Timer stage T.
    t_stage: u32,
    /// Byte-counter stage BC.
    bc_stage: u32,
    /// Bytes sent since the last byte-counter event or cut.
    bytes: u64,
    /// The next rate-increase timer event, if recovering.
    inc_next: Option<Time>,
    /// When the last reaction happened (for the monitor period).
    last_cut: Option<Time>,
    /// Cause of the latest increase event since the last cut.
    last_inc: Option<IncCause>,
    /// CNPs received.
    cnps: u64,
    /// CNPs ignored because of the monitor period (or, under [`AlphaUpdate::Timer`], that
    /// came while a cut was already pending).
    cnps_ignored: u64,
    /// α under [`AlphaUpdate::Timer`] (from the first CNP on).
    alpha_timer: Option<AlphaTimer>,
    /// Under [`AlphaUpdate::Timer`]: the pending deferred cut (the next rate-decrease timer
    /// expiry after a CNP).
    cut_due: Option<Time>,
    /// Origin of the rate-decrease timer grid (the first CNP).
    cut_origin: Time,
}

impl Dcqcn {
    /// A new QP's state: line rate, no timers.
    pub fn new(p: &DcqcnParams, ctx: &CcContext) -> Self {
        let line = ctx.line_rate.bps() as f64;
        Dcqcn {
            p: p.clone(),
            line,
            min_rate: (p.rpg_min_rate.bps() as f64).min(line),
            active: false,
            rc: line,
            rt: line,
            alpha: p.initial_alpha_value,
            alpha_at: Time::ZERO,
            t_stage: 0,
            bc_stage: 0,
            bytes: 0,
            inc_next: None,
            last_cut: None,
            last_inc: None,
            cnps: 0,
            cnps_ignored: 0,
            alpha_timer: None,
            cut_due: None,
            cut_origin: Time::ZERO,
        }
    }

    /// α at `now` (the decay periods that ended by `now` applied). Before the first CNP this is
    /// `initial_alpha_value`.
    pub fn alpha_at(&self, now: Time) -> f64 {
        if let Some(a) = &self.alpha_timer {
            return a.peek(now);
        }
        if !self.active {
            return self.alpha;
        }
        self.alpha * (1.0 - self.p.g).powi(self.decay_periods(now) as i32)
    }

    /// Target rate R_T, b/s (line rate before the first CNP).
    pub fn target_rate(&self) -> f64 {
        self.rt
    }

    /// Current rate R_C, b/s (line rate before the first CNP).
    pub fn current_rate(&self) -> f64 {
        self.rc
    }

    /// CNPs received, and how many of them the monitor period ignored.
    pub fn cnp_counts(&self) -> (u64, u64) {
        (self.cnps, self.cnps_ignored)
    }

    /// Whole α periods elapsed since `alpha_at`, capped so `powi` stays in range (α is 0 to
    /// double precision long before the cap).
    fn decay_periods(&self, now: Time) -> u64 {
        let k = self.p.dce_tcp_rtt.ps();
        if k == 0 || now <= self.alpha_at {
            return 0;
        }
        ((now - self.alpha_at).ps() / k).min(i32::MAX as u64)
    }

    /// Apply the decays due by `now` and restart the α period at `now` (a CNP arrived).
    fn alpha_cnp(&mut self, now: Time) {
        self.alpha = self.alpha_at(now);
        self.alpha_at = now;
    }

    /// Is there anything left to recover?
    fn recovering(&self) -> bool {
        self.rc < self.line || self.rt < self.line
    }

    /// The target-rate step of an increase event (the stage counters already advanced):
    /// 0 in fast recovery, R_AI in additive increase, a multiple of R_HAI in hyper increase.
    fn target_step(&self) -> f64 {
        let f = self.p.rpg_threshold;
        let (ai, hai) = (
            self.p.rpg_ai_rate.bps() as f64,
            self.p.rpg_hai_rate.bps() as f64,
        );
        if self.p.rpg_byte_reset == 0 {
            // No byte counter: the timer stage alone, as in ns-3's model (fast recovery for
            // the first F events, one additive step, then hyper increase by R_HAI per event).
            return match self.t_stage {
                t if t <= f => 0.0,
                t if t == f + 1 => ai,
                _ => hai,
            };
        }
        let (hi, lo) = (
            self.t_stage.max(self.bc_stage),
            self.t_stage.min(self.bc_stage),
        );
        if hi <= f {
            0.0
        } else if lo > f {
            (lo - f) as f64 * hai
        } else {
            ai
        }
    }

    /// One rate-increase event (the stage counter was already advanced).
    fn increase(&mut self, cause: IncCause) {
        self.last_inc = Some(cause);
        self.rt += self.target_step();
        self.rt = self.rt.min(self.line);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line);
        if self.line - self.rc < 1.0 && self.rt >= self.line {
            self.rc = self.line;
        }
        if !self.recovering() {
            self.inc_next = None;
        }
    }

    /// A CNP under [`AlphaUpdate::PerCnp`]: cut at once (unless inside the monitor period),
    /// with the decayed α, then α ← (1 − g)·α + g.
    fn cnp_per_cnp(&mut self, now: Time) {
        let first = !self.active;
        if first {
            self.active = true;
            self.alpha = self.p.initial_alpha_value;
            self.alpha_at = now;
        }
        // Any CNP restarts the α period (no decay for a period that saw a CNP).
        self.alpha_cnp(now);
        let period = self.p.rate_reduce_monitor_period;
        if let Some(last) = self.last_cut {
            if period > Time::ZERO && now < last + period {
                self.cnps_ignored += 1;
                return;
            }
        }
        self.last_cut = Some(now);
        let alpha = self.alpha;
        self.cut(now, alpha);
        self.alpha = (1.0 - self.p.g) * alpha + self.p.g;
    }

    /// A CNP under [`AlphaUpdate::Timer`] (ns-3's model): flag it for the α timer and, unless
    /// a cut is already pending, schedule one at the next rate-decrease timer expiry. The
    /// first CNP starts both timers (α = `initial_alpha_value`) and cuts nothing yet.
    fn cnp_timer(&mut self, now: Time) {
        match &mut self.alpha_timer {
            Some(a) => a.on_cnp(now),
            None => {
                self.active = true;
                self.cut_origin = now;
                let p = &self.p;
                let a = AlphaTimer::start(p.dce_tcp_rtt, p.g, p.initial_alpha_value, now);
                self.alpha_timer = Some(a);
            }
        }
        if self.cut_due.is_some() {
            self.cnps_ignored += 1;
            return;
        }
        let period = self.p.rate_reduce_monitor_period.ps();
        if period == 0 {
            self.deferred_cut(now);
            return;
        }
        let k = (now - self.cut_origin).ps() / period + 1;
        self.cut_due = Some(self.cut_origin + Time::from_ps(k * period));
    }

    /// The rate-decrease timer expired at `now` after a CNP: cut with α as of `now`.
    fn deferred_cut(&mut self, now: Time) {
        let alpha = self
            .alpha_timer
            .as_mut()
            .map_or(self.alpha, |a| a.value(now));
        self.last_cut = Some(now);
        self.cut(now, alpha);
    }

    /// One rate cut with `alpha` (DCQCN's R_T ← R_C, R_C ← R_C·(1 − α/2) step): clamp the
    /// target as configured, cut R_C within its bounds, reset the stages and the byte
    /// counter, and restart the increase timer.
    fn cut(&mut self, now: Time, alpha: f64) {
        let clamp = self.p.clamp_tgt_rate
            || match self.last_inc {
                Some(IncCause::Bytes) => true,
                Some(IncCause::Timer) => self.p.clamp_tgt_rate_after_time_inc,
                None => false,
            };
        if clamp {
            self.rt = self.rc;
        }
        let cut = (alpha * 2f64.powi(10 - self.p.rpg_gd as i32)).clamp(0.0, 1.0);
        let floor = self.rc * self.p.rpg_min_dec_fac as f64 / 100.0;
        self.rc = (self.rc * (1.0 - cut)).max(floor).max(self.min_rate);
        self.t_stage = 0;
        self.bc_stage = 0;
        self.bytes = 0;
        self.last_inc = None;
        self.inc_next = (self.recovering() && self.p.rpg_time_reset > Time::ZERO)
            .then(|| now + self.p.rpg_time_reset);
    }
}

impl CongestionControl for Dcqcn {
    fn on_send(&mut self, _now: Time, wire: u32) {
        let b = self.p.rpg_byte_reset;
        if !self.active || b == 0 || !self.recovering() {
            return;
        }
        self.bytes += wire as u64;
        while self.bytes >= b && self.recovering() {
            self.bytes -= b;
            self.bc_stage = self.bc_stage.saturating_add(1);
            self.increase(IncCause::Bytes);
        }
    }

    fn on_cnp(&mut self, now: Time) {
        self.cnps += 1;
        match self.p.alpha_update {
            AlphaUpdate::PerCnp => self.cnp_per_cnp(now),
            AlphaUpdate::Timer => self.cnp_timer(now),
        }
    }

    fn on_timer(&mut self, now: Time) {
        loop {
            let cut = self.cut_due.filter(|&t| t <= now);
            let inc = self.inc_next.filter(|&t| t <= now);
            match (cut, inc) {
                (Some(c), i) if i.is_none_or(|i| c <= i) => {
                    self.cut_due = None;
                    self.deferred_cut(c);
                }
                (_, Some(t)) => {
                    self.inc_next = Some(t + self.p.rpg_time_reset);
                    self.t_stage = self.t_stage.saturating_add(1);
                    self.increase(IncCause::Timer);
                }
                _ => break,
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        match (self.inc_next, self.cut_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn rate(&self) -> Option<Rate> {
        self.active.then(|| Rate(self.rc.round() as u64))
    }
}

#[cfg(test)]
#[path = "dcqcn_tests.rs"]
mod tests;
