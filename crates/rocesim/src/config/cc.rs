//! `[nic.dcqcn]`, `[nic.rcm]`, `[nic.hpcc]`, `[nic.timely]` and `[nic.dctcp]`: parameters of
//! the congestion-control reaction points. Each table applies onto the parameters of the
//! layer below (the defaults, or `[nic]`'s for a `[nic.host.<name>]` table) and changes only
//! the keys it names.

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

choice!(/// A named DCQCN parameter set.
    DcqcnProfile -> DcqcnParams { "paper" => DcqcnParams::paper(), "nvidia" => DcqcnParams::nvidia() });

choice!(/// The DCQCN α rule.
    AlphaUpdateV -> AlphaUpdate { "per_cnp" => AlphaUpdate::PerCnp, "timer" => AlphaUpdate::Timer });

table! {
    /// `[nic.dcqcn]`: the DCQCN reaction point (Zhu et al., SIGCOMM 2015), keys with NVIDIA's
    /// mlx5 names. `profile` is applied first, whatever its position; every other key then
    /// overrides one value of it.
    pub struct Dcqcn => DcqcnParams {
        /// The named set to start from. Default: the paper profile (or an outer layer's).
        profile: DcqcnProfile,
        /// α period: α ← (1 − g)·α after each period without a CNP.
        /// Default: paper `"55us"` (K), nvidia `"1us"`.
        dce_tcp_rtt: PosTime => dce_tcp_rtt,
        /// α gain g. A float is g itself. An integer n is the mlx5 fixed-point weight the old
        /// α keeps: g = (1024 − n)/1024, so 1019 means g = 5/1024 and 1020 means 1/256.
        /// Default: 1/256 (both profiles).
        dce_tcp_g: Mlx5<true, true> => g,
        /// α at a QP's first CNP. An integer n is mlx5 fixed point: α = n/1024 (`1` means
        /// 1/1024; write `1.0` for α = 1). Default: paper `1.0`, nvidia 1023/1024.
        initial_alpha_value: Mlx5<false, false> => initial_alpha_value,
        /// A cut multiplies R_C by 1 − α·2^(10 − rpg_gd); 11 gives the paper's 1 − α/2.
        /// Default: `11`.
        rpg_gd: Int<0, 31> => rpg_gd,
        /// Bound on one cut, in percent: the new R_C is at least this share of the old one
        /// (0: no bound). Default: paper `0`, nvidia `50`.
        rpg_min_dec_fac: Int<0, 100> => rpg_min_dec_fac,
        /// R_C never goes below this rate (or the line rate, if lower).
        /// Default: paper `"10Mbps"`, nvidia `"1000Mbps"`.
        rpg_min_rate: RateV => rpg_min_rate,
        /// Rate-increase timer period; each expiry is one timer event.
        /// Default: paper `"55us"` (T), nvidia `"300us"`.
        rpg_time_reset: PosTime => rpg_time_reset,
        /// Bytes sent (on the wire) per byte-counter event; 0 turns the byte counter off.
        /// Default: paper `"10MB"` (B), nvidia `32767`.
        rpg_byte_reset: Size => rpg_byte_reset,
        /// Fast-recovery stages F. Default: paper `5` (F), nvidia `1`.
        rpg_threshold: Int<0, 1000> => rpg_threshold,
        /// Additive-increase step R_AI of the target rate.
        /// Default: paper `"40Mbps"`, nvidia `"20Mbps"`.
        rpg_ai_rate: RateV => rpg_ai_rate,
        /// Hyper-increase step R_HAI. Default: paper `"400Mbps"`, nvidia `"200Mbps"`.
        rpg_hai_rate: RateV => rpg_hai_rate,
        /// `true`: every cut sets R_T ← R_C; `false`: only if an increase event came since
        /// the previous cut. Default: paper `true`, nvidia `false`.
        clamp_tgt_rate: Bool => clamp_tgt_rate,
        /// With `clamp_tgt_rate = false`: a timer event also counts as an increase event.
        /// Default: `true`.
        clamp_tgt_rate_after_time_inc: Bool => clamp_tgt_rate_after_time_inc,
        /// The sender reacts to at most one CNP per period (0: every CNP reacts).
        /// Default: paper `"0us"`, nvidia `"4us"`.
        rate_reduce_monitor_period: TimeV => rate_reduce_monitor_period,
        /// Notification point: at most one CNP per QP per interval (sets
        /// `nic.min_time_between_cnps` too). Default: paper `"50us"` (N), nvidia `"4us"`.
        min_time_between_cnps: TimeV => min_time_between_cnps,
        /// The α rule. `"per_cnp"`: the cut happens at the CNP (at most one per
        /// `rate_reduce_monitor_period`) and adds g to α; α decays per `dce_tcp_rtt` without a
        /// CNP. `"timer"` (the HPCC paper's ns-3 model): at each `dce_tcp_rtt` expiry
        /// α ← (1 − g)·α + g if a CNP came in that interval, else (1 − g)·α; the cut waits for
        /// the next `rate_reduce_monitor_period` expiry (timers from the first CNP, which
        /// itself cuts nothing) and happens once per interval with a CNP.
        /// Default: `"per_cnp"` (both profiles).
        alpha_update: AlphaUpdateV => alpha_update,
    }
}

choice!(/// The RCM level size.
    RcmStepV -> RcmStep { "mtu_time" => RcmStep::MtuTime });

table! {
    /// `[nic.rcm]`: linear RoCEv2 Congestion Management as Liu et al. configured it (OMNeT++
    /// Summit 2015, §IV.4–5). Setting both recoveries to `"off"` is an error.
    pub struct Rcm => RcmParams {
        /// Size of one level: T, the MTU frame time. No other kind is supported.
        /// Default: `"mtu_time"`.
        step: RcmStepV => step,
        /// Step back one level after this long at a level without a CNP. Default: `"55us"`.
        recovery_time: TimeOff => recovery_time,
        /// Step back one level after this many wire bytes sent at a level. Default: `"off"` (time-only recovery, as Liu et al.'s Table II).
        recovery_bytes: SizeOff => recovery_bytes,
        /// Highest level n; the rate never goes below line_rate/(max_level + 1).
        /// Default: `63`.
        max_level: Pos32 => max_level,
    }
}

table! {
    /// `[nic.hpcc]`: HPCC (Li et al., SIGCOMM 2019), window-based with pacing, driven by INT.
    pub struct Hpcc => HpccParams {
        /// Target utilisation η. Default: `0.95`.
        eta: Gain => eta,
        /// Additive-increase stages (RTTs) before one multiplicative increase; `0` = always
        /// `W = W_c/(U/η) + W_AI`. Default: `5`.
        max_stage: Int<0, { u32::MAX as i64 }> => max_stage,
        /// Additive increase, as a rate: `W_AI = w_ai × T` bytes. Default: `"50Mbps"`.
        w_ai: RateV => w_ai,
        /// The control period `T`; `"auto"` = the QP's own base RTT. Default: `"auto"`.
        t: PosTimeAuto => t,
        /// Lowest pacing rate; the window floor is `min_rate × T`. Default: `"100Mbps"`.
        min_rate: RateV => min_rate,
        /// React on every ACK and commit `W_c` once per RTT (`false`: only the once-per-RTT
        /// update). Default: `true`.
        fast_react: Bool => fast_react,
        /// Bytes the INT header adds to every data packet on the wire (ns-3's HPCC code counts
        /// a fixed 42). Default: `0`.
        int_header: Int<0, 1000> => int_header,
    }
}

choice!(/// When TIMELY updates its rate.
    TimelyUpdateV -> TimelyUpdate { "rtt" => TimelyUpdate::PerRtt, "ack" => TimelyUpdate::PerAck });

table! {
    /// `[nic.timely]`: TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1), rate-based from
    /// RTT samples.
    pub struct Timely => TimelyParams {
        /// EWMA weight of the newest RTT difference. Default: `0.875`.
        alpha: Gain => alpha,
        /// Multiplicative-decrease factor β. Default: `0.8`.
        beta: Gain => beta,
        /// Additive-increase step δ. Default: `"10Mbps"`.
        delta: RateV => delta,
        /// Below this RTT, always `rate += δ`. Default: `"50us"`.
        t_low: TimeV => t_low,
        /// Above this RTT, `rate ×= 1 − β × (1 − t_high/rtt)`; must be above `t_low`.
        /// Default: `"500us"`.
        t_high: PosTime => t_high,
        /// Normalises the gradient; `"auto"` = the QP's base RTT. Default: `"auto"`.
        min_rtt: PosTimeAuto => min_rtt,
        /// Lowest rate. Default: `"10Mbps"`.
        min_rate: RateV => min_rate,
        /// Consecutive `gradient ≤ 0` updates after which hyperactive increase starts.
        /// Default: `5`.
        hai_after: Pos32 => hai_after,
        /// HAI step is `hai_factor × δ`. Default: `5`.
        hai_factor: Pos32 => hai_factor,
        /// Run the update once per RTT or on every RTT sample. Default: `"rtt"`.
        update: TimelyUpdateV => update,
    }
}

table! {
    /// `[nic.dctcp]`: DCTCP, rate-based (Alizadeh et al., SIGCOMM 2010) as the HPCC authors'
    /// simulator adapts it to a paced RDMA NIC.
    pub struct Dctcp => DctcpParams {
        /// EWMA gain of α. Default: `0.0625`.
        g: Gain => g,
        /// Additive increase per observation window without a cut. Default: `"50Mbps"`.
        rate_ai: RateV => rate_ai,
        /// Lowest rate. Default: `"100Mbps"`.
        min_rate: RateV => min_rate,
        /// α of a new QP (as Linux DCTCP). Default: `1`.
        alpha_init: Prob => alpha_init,
    }
}
