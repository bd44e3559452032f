//! `[nic.dcqcn]` and `[nic.rcm]`: parameters of the DCQCN and RCM reaction points.
//!
//! DCQCN keys carry NVIDIA's mlx5 names; `profile` picks a named set first and the other keys
//! override it. The key reference is `docs/cc-dcqcn-rcm.md`.

use toml::Value;

use super::check::{at, Ctx};
use crate::nic::cc::dcqcn::DcqcnParams;
use crate::nic::cc::rcm::{RcmParams, RcmStep};
use crate::units::Time;

/// Keys of `[nic.dcqcn]`.
pub const DCQCN_KEYS: &[&str] = &[
    "profile",
    "rpg_time_reset",
    "rpg_byte_reset",
    "rpg_threshold",
    "rpg_ai_rate",
    "rpg_hai_rate",
    "rpg_min_rate",
    "rpg_gd",
    "rpg_min_dec_fac",
    "dce_tcp_g",
    "dce_tcp_rtt",
    "initial_alpha_value",
    "clamp_tgt_rate",
    "clamp_tgt_rate_after_time_inc",
    "rate_reduce_monitor_period",
    "min_time_between_cnps",
];

/// Keys of `[nic.rcm]`.
pub const RCM_KEYS: &[&str] = &["step", "recovery_time", "recovery_bytes", "max_level"];

/// A positive time.
fn positive_time(ctx: &mut Ctx, v: &Value, key: &str) -> Option<Time> {
    let t = ctx.time(v, key)?;
    if t == Time::ZERO {
        ctx.err(key, "must be positive");
        return None;
    }
    Some(t)
}

/// A fraction given either as a float in `[lo_float, 1]` (`lo_open`: `(0, 1]`) or as an mlx5
/// 10-bit fixed-point integer `0..=1023`, mapped by `fixed`.
fn fraction(
    ctx: &mut Ctx,
    v: &Value,
    key: &str,
    lo_open: bool,
    fixed: impl Fn(i64) -> f64,
) -> Option<f64> {
    match v {
        Value::Float(f) => {
            let ok = f.is_finite() && *f <= 1.0 && if lo_open { *f > 0.0 } else { *f >= 0.0 };
            if !ok {
                let range = if lo_open { "(0, 1]" } else { "[0, 1]" };
                ctx.err(
                    key,
                    format!(
                        "{f} is outside {range} (a float is the fraction itself; an integer \
                         0..=1023 is mlx5 fixed point)"
                    ),
                );
                return None;
            }
            Some(*f)
        }
        Value::Integer(i) if (0..=1023).contains(i) => Some(fixed(*i)),
        Value::Integer(i) => {
            ctx.err(
                key,
                format!(
                    "{i} is out of range: an integer is mlx5 10-bit fixed point (0..=1023); \
                     write a float such as 1.0 for the fraction itself"
                ),
            );
            None
        }
        _ => {
            ctx.expected(
                key,
                "a fraction (float) or an mlx5 fixed-point integer 0..=1023",
                v,
            );
            None
        }
    }
}

/// Check `[nic.dcqcn]` (the value `v` at dotted key `key`) and resolve it onto `base`.
///
/// `profile = "paper" | "nvidia"` is applied first (replacing `base`), then every other key
/// overrides one field. Returns `None` when the table has errors (all of them recorded).
pub fn parse_dcqcn(
    ctx: &mut Ctx,
    v: &toml::Value,
    key: &str,
    base: &DcqcnParams,
) -> Option<DcqcnParams> {
    let before = ctx.count();
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, DCQCN_KEYS);
    let mut p = match t.get("profile") {
        Some(pv) => match ctx.choice(pv, &at(key, "profile"), &["paper", "nvidia"]) {
            Some("paper") => DcqcnParams::paper(),
            Some(_) => DcqcnParams::nvidia(),
            None => base.clone(),
        },
        None => base.clone(),
    };
    for (k, v) in t {
        let full = at(key, k);
        let full = full.as_str();
        match k.as_str() {
            "rpg_time_reset" => {
                if let Some(x) = positive_time(ctx, v, full) {
                    p.rpg_time_reset = x;
                }
            }
            "rpg_byte_reset" => {
                if let Some(x) = ctx.size(v, full) {
                    p.rpg_byte_reset = x.get();
                }
            }
            "rpg_threshold" => {
                if let Some(x) = ctx.uint(v, full, 0, 1000) {
                    p.rpg_threshold = x as u32;
                }
            }
            "rpg_ai_rate" => {
                if let Some(x) = ctx.rate(v, full) {
                    p.rpg_ai_rate = x;
                }
            }
            "rpg_hai_rate" => {
                if let Some(x) = ctx.rate(v, full) {
                    p.rpg_hai_rate = x;
                }
            }
            "rpg_min_rate" => {
                if let Some(x) = ctx.rate(v, full) {
                    p.rpg_min_rate = x;
                }
            }
            "rpg_gd" => {
                if let Some(x) = ctx.uint(v, full, 0, 31) {
                    p.rpg_gd = x as u8;
                }
            }
            "rpg_min_dec_fac" => {
                if let Some(x) = ctx.uint(v, full, 0, 100) {
                    p.rpg_min_dec_fac = x as u8;
                }
            }
            // mlx5 integer n: the weight (out of 1024) the old α keeps, g = (1024 − n)/1024.
            "dce_tcp_g" => {
                if let Some(g) = fraction(ctx, v, full, true, |n| (1024 - n) as f64 / 1024.0) {
                    p.g = g;
                }
            }
            "dce_tcp_rtt" => {
                if let Some(x) = positive_time(ctx, v, full) {
                    p.dce_tcp_rtt = x;
                }
            }
            // mlx5 integer n: α = n/1024.
            "initial_alpha_value" => {
                if let Some(a) = fraction(ctx, v, full, false, |n| n as f64 / 1024.0) {
                    p.initial_alpha_value = a;
                }
            }
            "clamp_tgt_rate" => {
                if let Some(x) = ctx.boolean(v, full) {
                    p.clamp_tgt_rate = x;
                }
            }
            "clamp_tgt_rate_after_time_inc" => {
                if let Some(x) = ctx.boolean(v, full) {
                    p.clamp_tgt_rate_after_time_inc = x;
                }
            }
            "rate_reduce_monitor_period" => {
                if let Some(x) = ctx.time(v, full) {
                    p.rate_reduce_monitor_period = x;
                }
            }
            "min_time_between_cnps" => {
                if let Some(x) = ctx.time(v, full) {
                    p.min_time_between_cnps = x;
                }
            }
            // `profile` was applied above; unknown keys were reported by `ctx.keys`.
            _ => {}
        }
    }
    (ctx.count() == before).then_some(p)
}

/// Check `[nic.rcm]` (the value `v` at dotted key `key`) and resolve it onto `base`.
///
/// Keys: `step` (only `"mtu_time"`), `recovery_time` (time or `"off"`), `recovery_bytes`
/// (size or `"off"`), `max_level` (integer ≥ 1). Turning both recoveries off is an error (the
/// rate would never recover). Returns `None` when the table has errors.
pub fn parse_rcm(ctx: &mut Ctx, v: &toml::Value, key: &str, base: &RcmParams) -> Option<RcmParams> {
    let before = ctx.count();
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, RCM_KEYS);
    let mut p = base.clone();
    for (k, v) in t {
        let full = at(key, k);
        let full = full.as_str();
        match k.as_str() {
            // Only one step kind exists; `choice` reports anything else.
            "step" => {
                p.step = ctx
                    .choice(v, full, &["mtu_time"])
                    .map_or(p.step, |_| RcmStep::MtuTime)
            }
            "recovery_time" => match ctx.time_or_off(v, full) {
                Some(Some(Time::ZERO)) => ctx.err(full, "must be positive (or \"off\")"),
                Some(x) => p.recovery_time = x,
                None => {}
            },
            "recovery_bytes" => match v {
                Value::String(s) if s == "off" => p.recovery_bytes = None,
                Value::Boolean(false) => p.recovery_bytes = None,
                _ => match ctx.size(v, full) {
                    Some(b) if b.get() == 0 => ctx.err(full, "must be positive (or \"off\")"),
                    Some(b) => p.recovery_bytes = Some(b.get()),
                    None => {}
                },
            },
            "max_level" => {
                if let Some(x) = ctx.uint(v, full, 1, u32::MAX as u64) {
                    p.max_level = x as u32;
                }
            }
            _ => {}
        }
    }
    if ctx.count() == before && p.recovery_time.is_none() && p.recovery_bytes.is_none() {
        ctx.err(
            key,
            "recovery_time and recovery_bytes are both off: the rate would never recover",
        );
    }
    (ctx.count() == before).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    fn val(s: &str) -> Value {
        Value::Table(s.parse().unwrap())
    }

    fn dcqcn(s: &str) -> (Option<DcqcnParams>, Ctx) {
        let mut ctx = Ctx::new("d.toml");
        let p = parse_dcqcn(&mut ctx, &val(s), "nic.dcqcn", &DcqcnParams::default());
        (p, ctx)
    }

    fn rcm(s: &str) -> (Option<RcmParams>, Ctx) {
        let mut ctx = Ctx::new("r.toml");
        let p = parse_rcm(&mut ctx, &val(s), "nic.rcm", &RcmParams::default());
        (p, ctx)
    }

    #[test]
    fn dcqcn_profiles_and_overrides() {
        let (p, ctx) = dcqcn("");
        assert!(ctx.errors.is_empty());
        assert_eq!(p, Some(DcqcnParams::paper()));

        let (p, ctx) = dcqcn(
            r#"
            rpg_time_reset = "100us"   # applied after the profile, whatever the order
            profile = "nvidia"
            rpg_byte_reset = "64KB"
            rpg_threshold = 3
            rpg_ai_rate = "5Mbps"
            rpg_hai_rate = "50Mbps"
            rpg_min_rate = "1Mbps"
            rpg_gd = 12
            rpg_min_dec_fac = 90
            dce_tcp_g = 1019
            dce_tcp_rtt = "2us"
            initial_alpha_value = 512
            clamp_tgt_rate = true
            clamp_tgt_rate_after_time_inc = false
            rate_reduce_monitor_period = "0us"
            min_time_between_cnps = "2us"
            "#,
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let p = p.unwrap();
        let want = DcqcnParams {
            rpg_time_reset: Time::from_us(100),
            rpg_byte_reset: 64_000,
            rpg_threshold: 3,
            rpg_ai_rate: Rate::mbps(5),
            rpg_hai_rate: Rate::mbps(50),
            rpg_min_rate: Rate::mbps(1),
            rpg_gd: 12,
            rpg_min_dec_fac: 90,
            g: 5.0 / 1024.0,
            dce_tcp_rtt: Time::from_us(2),
            initial_alpha_value: 0.5,
            clamp_tgt_rate: true,
            clamp_tgt_rate_after_time_inc: false,
            rate_reduce_monitor_period: Time::ZERO,
            min_time_between_cnps: Time::from_us(2),
        };
        assert_eq!(p, want);

        let (p, ctx) = dcqcn("dce_tcp_g = 0.00390625\ninitial_alpha_value = 1.0");
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let p = p.unwrap();
        assert_eq!((p.g, p.initial_alpha_value), (1.0 / 256.0, 1.0));
    }

    #[test]
    fn dcqcn_errors() {
        let (p, ctx) = dcqcn("rpg_time_rest = \"55us\"");
        assert_eq!(p, None);
        assert_eq!(ctx.errors[0].key, "nic.dcqcn.rpg_time_rest");
        assert!(
            ctx.errors[0]
                .message
                .contains("did you mean `rpg_time_reset`"),
            "{}",
            ctx.errors[0].message
        );

        let (p, ctx) = dcqcn(
            "rpg_time_reset = \"55\"\nrpg_ai_rate = \"40Mbs\"\ndce_tcp_g = 1.5\n\
             initial_alpha_value = 1024\nrpg_min_dec_fac = 101\nprofile = \"mellanox\"\n\
             dce_tcp_rtt = \"0us\"\nclamp_tgt_rate = 1",
        );
        assert_eq!(p, None);
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "rpg_time_reset",
            "rpg_ai_rate",
            "dce_tcp_g",
            "initial_alpha_value",
            "rpg_min_dec_fac",
            "profile",
            "dce_tcp_rtt",
            "clamp_tgt_rate",
        ] {
            assert!(
                keys.contains(&format!("nic.dcqcn.{k}").as_str()),
                "no {k} in {keys:?}"
            );
        }
        let unit = ctx
            .errors
            .iter()
            .find(|e| e.key == "nic.dcqcn.rpg_time_reset")
            .unwrap();
        assert!(unit.message.contains("no unit"), "{}", unit.message);

        let mut ctx = Ctx::new("d.toml");
        let p = parse_dcqcn(
            &mut ctx,
            &Value::Integer(3),
            "nic.dcqcn",
            &DcqcnParams::default(),
        );
        assert_eq!(p, None);
        assert!(ctx.errors[0].message.contains("expected a table"));
    }

    #[test]
    fn rcm_valid() {
        let (p, ctx) = rcm("");
        assert!(ctx.errors.is_empty());
        assert_eq!(p, Some(RcmParams::default()));

        let (p, ctx) = rcm(
            "step = \"mtu_time\"\nrecovery_time = \"off\"\nrecovery_bytes = \"128KiB\"\nmax_level = 7",
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        assert_eq!(
            p,
            Some(RcmParams {
                step: RcmStep::MtuTime,
                recovery_time: None,
                recovery_bytes: Some(131_072),
                max_level: 7,
            })
        );

        let (p, ctx) = rcm("recovery_time = \"100us\"\nrecovery_bytes = \"off\"");
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        let p = p.unwrap();
        assert_eq!(
            (p.recovery_time, p.recovery_bytes),
            (Some(Time::from_us(100)), None)
        );
    }

    #[test]
    fn rcm_errors() {
        let (p, ctx) = rcm("recovery_tme = \"55us\"");
        assert_eq!(p, None);
        assert!(ctx.errors[0]
            .message
            .contains("did you mean `recovery_time`"));

        let (p, ctx) = rcm(
            "step = \"rtt\"\nrecovery_time = \"55qs\"\nrecovery_bytes = \"64XB\"\nmax_level = 0",
        );
        assert_eq!(p, None);
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "nic.rcm.max_level",
                "nic.rcm.recovery_bytes",
                "nic.rcm.recovery_time",
                "nic.rcm.step"
            ]
        );

        let (p, ctx) = rcm("recovery_time = \"off\"\nrecovery_bytes = \"off\"");
        assert_eq!(p, None);
        assert_eq!(ctx.errors[0].key, "nic.rcm");
        assert!(ctx.errors[0].message.contains("never recover"));
    }
}
