//! `[nic.dcqcn]`, `[nic.rcm]`, `[nic.hpcc]`, `[nic.timely]` and `[nic.dctcp]`: parameters of
//! the congestion-control reaction points. Each table applies onto the parameters of the
//! layer below (the defaults, or `[nic]`'s for a `[nic.host.<name>]` table) and changes only
//! the keys it names.

use super::check::Ctx;
use super::leaf::{
    choice, Bool, Gain, Int, Mlx5, Pos32, PosTime, PosTimeAuto, Prob, RateV, Size, SizeOff,
    TimeOff, TimeV,
};
use crate::nic::cc::dcqcn::DcqcnParams;
use crate::nic::cc::dcqcn_alpha::AlphaUpdate;
use crate::nic::cc::dctcp::DctcpParams;
use crate::nic::cc::hpcc::HpccParams;
use crate::nic::cc::rcm::{RcmParams, RcmStep};
use crate::nic::cc::timely::{TimelyParams, TimelyUpdate};
use crate::table;
use crate::units::Time;

choice!(/// A named DCQCN parameter set.
    DcqcnProfile -> DcqcnParams { "paper" => DcqcnParams::paper(), "nvidia" => DcqcnParams::nvidia() });

choice!(/// The DCQCN α rule.
    AlphaUpdateV -> AlphaUpdate { "per_cnp" => AlphaUpdate::PerCnp, "timer" => AlphaUpdate::Timer });

table! {
    /// `[nic.dcqcn]`: the DCQCN reaction point (Zhu et al., SIGCOMM 2015), keys with NVIDIA's
    /// mlx5 names. `profile` is applied first, whatever its position; every other key then
    /// overrides one value of it.
    pub struct Dcqcn {
        /// The named set to start from. Default: the paper profile (or an outer layer's).
        profile: DcqcnProfile,
        /// α period: α ← (1 − g)·α after each period without a CNP.
        /// Default: paper `"55us"` (K), nvidia `"1us"`.
        dce_tcp_rtt: PosTime,
        /// α gain g. A float is g itself. An integer n is the mlx5 fixed-point weight the old
        /// α keeps: g = (1024 − n)/1024, so 1019 means g = 5/1024 and 1020 means 1/256.
        /// Default: 1/256 (both profiles).
        dce_tcp_g: Mlx5<true, true>,
        /// α at a QP's first CNP. An integer n is mlx5 fixed point: α = n/1024 (`1` means
        /// 1/1024; write `1.0` for α = 1). Default: paper `1.0`, nvidia 1023/1024.
        initial_alpha_value: Mlx5<false, false>,
        /// A cut multiplies R_C by 1 − α·2^(10 − rpg_gd); 11 gives the paper's 1 − α/2.
        /// Default: `11`.
        rpg_gd: Int<0, 31>,
        /// Bound on one cut, in percent: the new R_C is at least this share of the old one
        /// (0: no bound). Default: paper `0`, nvidia `50`.
        rpg_min_dec_fac: Int<0, 100>,
        /// R_C never goes below this rate (or the line rate, if lower).
        /// Default: paper `"10Mbps"`, nvidia `"1000Mbps"`.
        rpg_min_rate: RateV,
        /// Rate-increase timer period; each expiry is one timer event.
        /// Default: paper `"55us"` (T), nvidia `"300us"`.
        rpg_time_reset: PosTime,
        /// Bytes sent (on the wire) per byte-counter event; 0 turns the byte counter off.
        /// Default: paper `"10MB"` (B), nvidia `32767`.
        rpg_byte_reset: Size,
        /// Fast-recovery stages F. Default: paper `5` (F), nvidia `1`.
        rpg_threshold: Int<0, 1000>,
        /// Additive-increase step R_AI of the target rate.
        /// Default: paper `"40Mbps"`, nvidia `"20Mbps"`.
        rpg_ai_rate: RateV,
        /// Hyper-increase step R_HAI. Default: paper `"400Mbps"`, nvidia `"200Mbps"`.
        rpg_hai_rate: RateV,
        /// `true`: every cut sets R_T ← R_C; `false`: only if an increase event came since
        /// the previous cut. Default: paper `true`, nvidia `false`.
        clamp_tgt_rate: Bool,
        /// With `clamp_tgt_rate = false`: a timer event also counts as an increase event.
        /// Default: `true`.
        clamp_tgt_rate_after_time_inc: Bool,
        /// The sender reacts to at most one CNP per period (0: every CNP reacts).
        /// Default: paper `"0us"`, nvidia `"4us"`.
        rate_reduce_monitor_period: TimeV,
        /// Notification point: at most one CNP per QP per interval (sets
        /// `nic.min_time_between_cnps` too). Default: paper `"50us"` (N), nvidia `"4us"`.
        min_time_between_cnps: TimeV,
        /// The α rule. `"per_cnp"`: the cut happens at the CNP (at most one per
        /// `rate_reduce_monitor_period`) and adds g to α; α decays per `dce_tcp_rtt` without a
        /// CNP. `"timer"` (the HPCC paper's ns-3 model): at each `dce_tcp_rtt` expiry
        /// α ← (1 − g)·α + g if a CNP came in that interval, else (1 − g)·α; the cut waits for
        /// the next `rate_reduce_monitor_period` expiry (timers from the first CNP, which
        /// itself cuts nothing) and happens once per interval with a CNP.
        /// Default: `"per_cnp"` (both profiles).
        alpha_update: AlphaUpdateV,
    }
}

/// Check `[nic.dcqcn]` and apply it onto `base`; `None` when it has errors.
pub fn dcqcn(ctx: &mut Ctx, t: &Dcqcn, base: &DcqcnParams) -> Option<DcqcnParams> {
    let before = ctx.count();
    let mut p = ctx.get(&t.profile).unwrap_or_else(|| base.clone());
    ctx.set(&t.dce_tcp_rtt, |x| p.dce_tcp_rtt = x);
    ctx.set(&t.dce_tcp_g, |x| p.g = x);
    ctx.set(&t.initial_alpha_value, |x| p.initial_alpha_value = x);
    ctx.set(&t.rpg_gd, |x| p.rpg_gd = x as u8);
    ctx.set(&t.rpg_min_dec_fac, |x| p.rpg_min_dec_fac = x as u8);
    ctx.set(&t.rpg_min_rate, |x| p.rpg_min_rate = x);
    ctx.set(&t.rpg_time_reset, |x| p.rpg_time_reset = x);
    ctx.set(&t.rpg_byte_reset, |x| p.rpg_byte_reset = x.get());
    ctx.set(&t.rpg_threshold, |x| p.rpg_threshold = x as u32);
    ctx.set(&t.rpg_ai_rate, |x| p.rpg_ai_rate = x);
    ctx.set(&t.rpg_hai_rate, |x| p.rpg_hai_rate = x);
    ctx.set(&t.clamp_tgt_rate, |x| p.clamp_tgt_rate = x);
    ctx.set(&t.clamp_tgt_rate_after_time_inc, |x| {
        p.clamp_tgt_rate_after_time_inc = x
    });
    ctx.set(&t.rate_reduce_monitor_period, |x| {
        p.rate_reduce_monitor_period = x
    });
    ctx.set(&t.min_time_between_cnps, |x| p.min_time_between_cnps = x);
    ctx.set(&t.alpha_update, |x| p.alpha_update = x);
    (ctx.count() == before).then_some(p)
}

choice!(/// The RCM level size.
    RcmStepV -> RcmStep { "mtu_time" => RcmStep::MtuTime });

table! {
    /// `[nic.rcm]`: linear RoCEv2 Congestion Management as Liu et al. configured it (OMNeT++
    /// Summit 2015, §IV.4–5). Setting both recoveries to `"off"` is an error.
    pub struct Rcm {
        /// Size of one level: T, the MTU frame time. No other kind is supported.
        /// Default: `"mtu_time"`.
        step: RcmStepV,
        /// Step back one level after this long at a level without a CNP. Default: `"55us"`.
        recovery_time: TimeOff,
        /// Step back one level after this many wire bytes sent at a level. Default: `"off"` (time-only recovery, as Liu et al.'s Table II).
        recovery_bytes: SizeOff,
        /// Highest level n; the rate never goes below line_rate/(max_level + 1).
        /// Default: `63`.
        max_level: Pos32,
    }
}

/// Check `[nic.rcm]` (at dotted `key`) and apply it onto `base`; `None` when it has errors.
pub fn rcm(ctx: &mut Ctx, t: &Rcm, key: &str, base: &RcmParams) -> Option<RcmParams> {
    let before = ctx.count();
    let mut p = base.clone();
    ctx.set(&t.step, |x| p.step = x);
    match ctx.get(&t.recovery_time) {
        Some(Some(Time::ZERO)) => ctx.err(&t.recovery_time.key, "must be positive (or \"off\")"),
        Some(x) => p.recovery_time = x,
        None => {}
    }
    ctx.set(&t.recovery_bytes, |x| p.recovery_bytes = x);
    ctx.set(&t.max_level, |x| p.max_level = x as u32);
    if ctx.count() == before && p.recovery_time.is_none() && p.recovery_bytes.is_none() {
        ctx.err(
            key,
            "recovery_time and recovery_bytes are both off: the rate would never recover",
        );
    }
    (ctx.count() == before).then_some(p)
}

table! {
    /// `[nic.hpcc]`: HPCC (Li et al., SIGCOMM 2019), window-based with pacing, driven by INT.
    pub struct Hpcc {
        /// Target utilisation η. Default: `0.95`.
        eta: Gain,
        /// Additive-increase stages (RTTs) before one multiplicative increase; `0` = always
        /// `W = W_c/(U/η) + W_AI`. Default: `5`.
        max_stage: Int<0, { u32::MAX as i64 }>,
        /// Additive increase, as a rate: `W_AI = w_ai × T` bytes. Default: `"50Mbps"`.
        w_ai: RateV,
        /// The control period `T`; `"auto"` = the QP's own base RTT. Default: `"auto"`.
        t: PosTimeAuto,
        /// Lowest pacing rate; the window floor is `min_rate × T`. Default: `"100Mbps"`.
        min_rate: RateV,
        /// React on every ACK and commit `W_c` once per RTT (`false`: only the once-per-RTT
        /// update). Default: `true`.
        fast_react: Bool,
        /// Bytes the INT header adds to every data packet on the wire (ns-3's HPCC code counts
        /// a fixed 42). Default: `0`.
        int_header: Int<0, 1000>,
    }
}

/// Check `[nic.hpcc]` and apply it onto `base`; `None` when it has errors.
pub fn hpcc(ctx: &mut Ctx, t: &Hpcc, base: &HpccParams) -> Option<HpccParams> {
    let before = ctx.count();
    let mut p = base.clone();
    ctx.set(&t.eta, |x| p.eta = x);
    ctx.set(&t.max_stage, |x| p.max_stage = x as u32);
    ctx.set(&t.w_ai, |x| p.w_ai = x);
    ctx.set(&t.t, |x| p.t = x);
    ctx.set(&t.min_rate, |x| p.min_rate = x);
    ctx.set(&t.fast_react, |x| p.fast_react = x);
    ctx.set(&t.int_header, |x| p.int_header = x as u32);
    (ctx.count() == before).then_some(p)
}

choice!(/// When TIMELY updates its rate.
    TimelyUpdateV -> TimelyUpdate { "rtt" => TimelyUpdate::PerRtt, "ack" => TimelyUpdate::PerAck });

table! {
    /// `[nic.timely]`: TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1), rate-based from
    /// RTT samples.
    pub struct Timely {
        /// EWMA weight of the newest RTT difference. Default: `0.875`.
        alpha: Gain,
        /// Multiplicative-decrease factor β. Default: `0.8`.
        beta: Gain,
        /// Additive-increase step δ. Default: `"10Mbps"`.
        delta: RateV,
        /// Below this RTT, always `rate += δ`. Default: `"50us"`.
        t_low: TimeV,
        /// Above this RTT, `rate ×= 1 − β × (1 − t_high/rtt)`; must be above `t_low`.
        /// Default: `"500us"`.
        t_high: PosTime,
        /// Normalises the gradient; `"auto"` = the QP's base RTT. Default: `"auto"`.
        min_rtt: PosTimeAuto,
        /// Lowest rate. Default: `"10Mbps"`.
        min_rate: RateV,
        /// Consecutive `gradient ≤ 0` updates after which hyperactive increase starts.
        /// Default: `5`.
        hai_after: Pos32,
        /// HAI step is `hai_factor × δ`. Default: `5`.
        hai_factor: Pos32,
        /// Run the update once per RTT or on every RTT sample. Default: `"rtt"`.
        update: TimelyUpdateV,
    }
}

/// Check `[nic.timely]` and apply it onto `base`; `None` when it has errors.
pub fn timely(ctx: &mut Ctx, t: &Timely, base: &TimelyParams) -> Option<TimelyParams> {
    let before = ctx.count();
    let mut p = base.clone();
    ctx.set(&t.alpha, |x| p.alpha = x);
    ctx.set(&t.beta, |x| p.beta = x);
    ctx.set(&t.delta, |x| p.delta = x);
    ctx.set(&t.t_low, |x| p.t_low = x);
    ctx.set(&t.t_high, |x| p.t_high = x);
    ctx.set(&t.min_rtt, |x| p.min_rtt = x);
    ctx.set(&t.min_rate, |x| p.min_rate = x);
    ctx.set(&t.hai_after, |x| p.hai_after = x as u32);
    ctx.set(&t.hai_factor, |x| p.hai_factor = x as u32);
    ctx.set(&t.update, |x| p.update = x);
    if ctx.count() == before && p.t_low >= p.t_high {
        let key = if t.t_high.given() || !t.t_low.given() {
            &t.t_high.key
        } else {
            &t.t_low.key
        };
        ctx.err(
            key,
            format!("t_low ({}) must be below t_high ({})", p.t_low, p.t_high),
        );
    }
    (ctx.count() == before).then_some(p)
}

table! {
    /// `[nic.dctcp]`: DCTCP, rate-based (Alizadeh et al., SIGCOMM 2010) as the HPCC authors'
    /// simulator adapts it to a paced RDMA NIC.
    pub struct Dctcp {
        /// EWMA gain of α. Default: `0.0625`.
        g: Gain,
        /// Additive increase per observation window without a cut. Default: `"50Mbps"`.
        rate_ai: RateV,
        /// Lowest rate. Default: `"100Mbps"`.
        min_rate: RateV,
        /// α of a new QP (as Linux DCTCP). Default: `1`.
        alpha_init: Prob,
    }
}

/// Check `[nic.dctcp]` and apply it onto `base`; `None` when it has errors.
pub fn dctcp(ctx: &mut Ctx, t: &Dctcp, base: &DctcpParams) -> Option<DctcpParams> {
    let before = ctx.count();
    let mut p = base.clone();
    ctx.set(&t.g, |x| p.g = x);
    ctx.set(&t.rate_ai, |x| p.rate_ai = x);
    ctx.set(&t.min_rate, |x| p.min_rate = x);
    ctx.set(&t.alpha_init, |x| p.alpha_init = x);
    (ctx.count() == before).then_some(p)
}
