//! `[nic.hpcc]`, `[nic.timely]` and `[nic.dctcp]`: parameters of the HPCC, TIMELY and
//! rate-based DCTCP congestion-control algorithms (user contract: `docs/cc-hpcc-timely-dctcp.md`).
//!
//! Each reader takes the table's value, its full dotted key (`nic.hpcc`, or
//! `nic.host.A.hpcc` for a per-host override) and the parameters to start from (the defaults,
//! or the `[nic]`-level ones a host override layers on), and returns the updated parameters,
//! or `None` after recording every problem.

use toml::Value;

use super::check::{at, Ctx};
use crate::nic::cc::dctcp::DctcpParams;
use crate::nic::cc::hpcc::HpccParams;
use crate::nic::cc::timely::{TimelyParams, TimelyUpdate};
use crate::units::Time;

/// Keys of `[nic.hpcc]`.
pub const HPCC_KEYS: &[&str] = &["eta", "max_stage", "w_ai", "t", "min_rate", "fast_react"];

/// Keys of `[nic.timely]`.
pub const TIMELY_KEYS: &[&str] = &[
    "alpha",
    "beta",
    "delta",
    "t_low",
    "t_high",
    "min_rtt",
    "min_rate",
    "hai_after",
    "hai_factor",
    "update",
];

/// Keys of `[nic.dctcp]`.
pub const DCTCP_KEYS: &[&str] = &["g", "rate_ai", "min_rate", "alpha_init"];

/// A number in (0, 1].
fn gain(ctx: &mut Ctx, v: &Value, key: &str) -> Option<f64> {
    let x = ctx.number(v, key)?;
    if !(x > 0.0 && x <= 1.0) {
        ctx.err(key, format!("{x} is outside (0, 1]"));
        return None;
    }
    Some(x)
}

/// A positive time.
fn positive_time(ctx: &mut Ctx, v: &Value, key: &str) -> Option<Time> {
    let t = ctx.time(v, key)?;
    if t == Time::ZERO {
        ctx.err(key, "must be above zero");
        return None;
    }
    Some(t)
}

/// A positive time, or `"auto"` (→ `Some(None)`: the QP's base RTT).
fn time_or_auto(ctx: &mut Ctx, v: &Value, key: &str) -> Option<Option<Time>> {
    match v {
        Value::String(s) if s == "auto" => Some(None),
        Value::String(_) => positive_time(ctx, v, key).map(Some),
        _ => {
            ctx.expected(key, "a time like \"12us\" or \"auto\"", v);
            None
        }
    }
}

/// Check `[nic.hpcc]` (the value `v` found at `key`) and apply it onto `base`.
pub fn parse_hpcc(ctx: &mut Ctx, v: &Value, key: &str, base: &HpccParams) -> Option<HpccParams> {
    let before = ctx.count();
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, HPCC_KEYS);
    let mut p = base.clone();
    for (k, v) in t {
        let full = at(key, k);
        match k.as_str() {
            "eta" => gain(ctx, v, &full).map(|x| p.eta = x),
            "max_stage" => ctx
                .uint(v, &full, 0, u32::MAX as u64)
                .map(|x| p.max_stage = x as u32),
            "w_ai" => ctx.rate(v, &full).map(|x| p.w_ai = x),
            "t" => time_or_auto(ctx, v, &full).map(|x| p.t = x),
            "min_rate" => ctx.rate(v, &full).map(|x| p.min_rate = x),
            "fast_react" => ctx.boolean(v, &full).map(|x| p.fast_react = x),
            _ => None,
        };
    }
    (ctx.count() == before).then_some(p)
}

/// Check `[nic.timely]` (the value `v` found at `key`) and apply it onto `base`.
pub fn parse_timely(
    ctx: &mut Ctx,
    v: &Value,
    key: &str,
    base: &TimelyParams,
) -> Option<TimelyParams> {
    let before = ctx.count();
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, TIMELY_KEYS);
    let mut p = base.clone();
    for (k, v) in t {
        let full = at(key, k);
        match k.as_str() {
            "alpha" => gain(ctx, v, &full).map(|x| p.alpha = x),
            "beta" => gain(ctx, v, &full).map(|x| p.beta = x),
            "delta" => ctx.rate(v, &full).map(|x| p.delta = x),
            "t_low" => ctx.time(v, &full).map(|x| p.t_low = x),
            "t_high" => positive_time(ctx, v, &full).map(|x| p.t_high = x),
            "min_rtt" => time_or_auto(ctx, v, &full).map(|x| p.min_rtt = x),
            "min_rate" => ctx.rate(v, &full).map(|x| p.min_rate = x),
            "hai_after" => ctx
                .uint(v, &full, 1, u32::MAX as u64)
                .map(|x| p.hai_after = x as u32),
            "hai_factor" => ctx
                .uint(v, &full, 1, u32::MAX as u64)
                .map(|x| p.hai_factor = x as u32),
            "update" => ctx.choice(v, &full, &["rtt", "ack"]).map(|x| {
                p.update = if x == "rtt" {
                    TimelyUpdate::PerRtt
                } else {
                    TimelyUpdate::PerAck
                }
            }),
            _ => None,
        };
    }
    if ctx.count() == before && p.t_low >= p.t_high {
        let which = if t.contains_key("t_high") || !t.contains_key("t_low") {
            "t_high"
        } else {
            "t_low"
        };
        ctx.err(
            at(key, which),
            format!("t_low ({}) must be below t_high ({})", p.t_low, p.t_high),
        );
    }
    (ctx.count() == before).then_some(p)
}

/// Check `[nic.dctcp]` (the value `v` found at `key`) and apply it onto `base`.
pub fn parse_dctcp(ctx: &mut Ctx, v: &Value, key: &str, base: &DctcpParams) -> Option<DctcpParams> {
    let before = ctx.count();
    let t = ctx.table(v, key)?;
    ctx.keys(t, key, DCTCP_KEYS);
    let mut p = base.clone();
    for (k, v) in t {
        let full = at(key, k);
        match k.as_str() {
            "g" => gain(ctx, v, &full).map(|x| p.g = x),
            "rate_ai" => ctx.rate(v, &full).map(|x| p.rate_ai = x),
            "min_rate" => ctx.rate(v, &full).map(|x| p.min_rate = x),
            "alpha_init" => ctx.probability(v, &full).map(|x| p.alpha_init = x),
            _ => None,
        };
    }
    (ctx.count() == before).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    fn val(s: &str) -> Value {
        let t: toml::Table = s.parse().unwrap();
        Value::Table(t)
    }

    fn keys(ctx: &Ctx) -> Vec<&str> {
        ctx.errors.iter().map(|e| e.key.as_str()).collect()
    }

    #[test]
    fn empty_tables_keep_the_base() {
        let mut ctx = Ctx::new("c.toml");
        let v = val("");
        let h = parse_hpcc(&mut ctx, &v, "nic.hpcc", &HpccParams::default()).unwrap();
        assert_eq!(h, HpccParams::default());
        let t = parse_timely(&mut ctx, &v, "nic.timely", &TimelyParams::default()).unwrap();
        assert_eq!(t, TimelyParams::default());
        let d = parse_dctcp(&mut ctx, &v, "nic.dctcp", &DctcpParams::default()).unwrap();
        assert_eq!(d, DctcpParams::default());
        assert!(ctx.errors.is_empty());
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let h = HpccParams::default();
        assert_eq!((h.eta, h.max_stage), (0.95, 5));
        assert_eq!(
            (h.w_ai, h.t, h.min_rate),
            (Rate::mbps(50), None, Rate::mbps(100))
        );
        assert!(h.fast_react);
        let t = TimelyParams::default();
        assert_eq!((t.alpha, t.beta, t.delta), (0.875, 0.8, Rate::mbps(10)));
        assert_eq!((t.t_low, t.t_high), (Time::from_us(50), Time::from_us(500)));
        assert_eq!((t.min_rtt, t.min_rate), (None, Rate::mbps(10)));
        assert_eq!(
            (t.hai_after, t.hai_factor, t.update),
            (5, 5, TimelyUpdate::PerRtt)
        );
        let d = DctcpParams::default();
        assert_eq!(
            (d.g, d.rate_ai, d.min_rate, d.alpha_init),
            (0.0625, Rate::mbps(50), Rate::mbps(100), 1.0)
        );
    }

    #[test]
    fn reads_every_key() {
        let mut ctx = Ctx::new("c.toml");
        let h = parse_hpcc(
            &mut ctx,
            &val(
                "eta = 0.99\nmax_stage = 0\nw_ai = \"400Mbps\"\nt = \"12.48us\"\n\
                  min_rate = \"1Gbps\"\nfast_react = false",
            ),
            "nic.hpcc",
            &HpccParams::default(),
        )
        .unwrap();
        assert_eq!(
            h,
            HpccParams {
                eta: 0.99,
                max_stage: 0,
                w_ai: Rate::mbps(400),
                t: Some(Time::from_ns(12_480)),
                min_rate: Rate::gbps(1),
                fast_react: false,
            }
        );
        let t = parse_timely(
            &mut ctx,
            &val(
                "alpha = 0.02\nbeta = 0.5\ndelta = \"100Mbps\"\nt_low = \"20us\"\n\
                  t_high = \"200us\"\nmin_rtt = \"20us\"\nmin_rate = \"100Mbps\"\n\
                  hai_after = 3\nhai_factor = 10\nupdate = \"ack\"",
            ),
            "nic.timely",
            &TimelyParams::default(),
        )
        .unwrap();
        assert_eq!(
            t,
            TimelyParams {
                alpha: 0.02,
                beta: 0.5,
                delta: Rate::mbps(100),
                t_low: Time::from_us(20),
                t_high: Time::from_us(200),
                min_rtt: Some(Time::from_us(20)),
                min_rate: Rate::mbps(100),
                hai_after: 3,
                hai_factor: 10,
                update: TimelyUpdate::PerAck,
            }
        );
        let d = parse_dctcp(
            &mut ctx,
            &val("g = 0.5\nrate_ai = \"615Mbps\"\nmin_rate = \"1Gbps\"\nalpha_init = 0"),
            "nic.dctcp",
            &DctcpParams::default(),
        )
        .unwrap();
        assert_eq!(
            d,
            DctcpParams {
                g: 0.5,
                rate_ai: Rate::mbps(615),
                min_rate: Rate::gbps(1),
                alpha_init: 0.0,
            }
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
    }

    #[test]
    fn auto_and_layering_on_a_base() {
        let mut ctx = Ctx::new("c.toml");
        let base = HpccParams {
            t: Some(Time::from_us(9)),
            eta: 0.9,
            ..HpccParams::default()
        };
        let h = parse_hpcc(&mut ctx, &val("t = \"auto\""), "nic.host.A.hpcc", &base).unwrap();
        assert_eq!(h.t, None);
        assert_eq!(h.eta, 0.9, "keys not given keep the base's value");
        let t = parse_timely(
            &mut ctx,
            &val("min_rtt = \"auto\""),
            "nic.timely",
            &TimelyParams {
                min_rtt: Some(Time::from_us(20)),
                ..TimelyParams::default()
            },
        )
        .unwrap();
        assert_eq!(t.min_rtt, None);
    }

    #[test]
    fn unknown_keys_get_suggestions() {
        let mut ctx = Ctx::new("c.toml");
        assert!(parse_hpcc(
            &mut ctx,
            &val("etaa = 0.9"),
            "nic.hpcc",
            &HpccParams::default()
        )
        .is_none());
        assert!(parse_timely(
            &mut ctx,
            &val("t_hihg = \"1ms\""),
            "nic.timely",
            &TimelyParams::default()
        )
        .is_none());
        assert!(parse_dctcp(
            &mut ctx,
            &val("rate_ia = \"1Gbps\""),
            "nic.dctcp",
            &DctcpParams::default()
        )
        .is_none());
        let m: Vec<&str> = ctx.errors.iter().map(|e| e.message.as_str()).collect();
        assert!(
            m[0].contains("unknown key `nic.hpcc.etaa`") && m[0].ends_with("did you mean `eta`?"),
            "{m:?}"
        );
        assert!(m[1].ends_with("did you mean `t_high`?"), "{m:?}");
        assert!(m[2].ends_with("did you mean `rate_ai`?"), "{m:?}");
    }

    #[test]
    fn bad_values_name_their_keys() {
        let mut ctx = Ctx::new("c.toml");
        let h = parse_hpcc(
            &mut ctx,
            &val("eta = 1.5\nmax_stage = -1\nw_ai = \"50\"\nt = \"0us\"\nmin_rate = 5\nfast_react = \"yes\""),
            "nic.hpcc",
            &HpccParams::default(),
        );
        assert!(h.is_none());
        let t = parse_timely(
            &mut ctx,
            &val("alpha = 0\nbeta = 2\ndelta = \"0Mbps\"\nt_low = 50\nmin_rtt = 20\nhai_after = 0\nhai_factor = 0\nupdate = \"rrt\""),
            "nic.timely",
            &TimelyParams::default(),
        );
        assert!(t.is_none());
        let d = parse_dctcp(
            &mut ctx,
            &val("g = 0\nrate_ai = \"fast\"\nmin_rate = \"1Gb\"\nalpha_init = 1.5"),
            "nic.dctcp",
            &DctcpParams::default(),
        );
        assert!(d.is_none());
        let k = keys(&ctx);
        for want in [
            "nic.hpcc.eta",
            "nic.hpcc.max_stage",
            "nic.hpcc.w_ai",
            "nic.hpcc.t",
            "nic.hpcc.min_rate",
            "nic.hpcc.fast_react",
            "nic.timely.alpha",
            "nic.timely.beta",
            "nic.timely.delta",
            "nic.timely.t_low",
            "nic.timely.min_rtt",
            "nic.timely.hai_after",
            "nic.timely.hai_factor",
            "nic.timely.update",
            "nic.dctcp.g",
            "nic.dctcp.rate_ai",
            "nic.dctcp.min_rate",
            "nic.dctcp.alpha_init",
        ] {
            assert!(k.contains(&want), "no {want} in {k:?}");
        }
        let upd = ctx
            .errors
            .iter()
            .find(|e| e.key == "nic.timely.update")
            .unwrap();
        assert!(
            upd.message.ends_with("did you mean `rtt`?"),
            "{}",
            upd.message
        );
    }

    #[test]
    fn timely_thresholds_must_be_ordered() {
        let mut ctx = Ctx::new("c.toml");
        let t = parse_timely(
            &mut ctx,
            &val("t_low = \"600us\""),
            "nic.timely",
            &TimelyParams::default(),
        );
        assert!(t.is_none());
        assert_eq!(ctx.errors[0].key, "nic.timely.t_low");
        assert_eq!(
            ctx.errors[0].message,
            "t_low (600us) must be below t_high (500us)"
        );
        let mut ctx = Ctx::new("c.toml");
        let t = parse_timely(
            &mut ctx,
            &val("t_low = \"50us\"\nt_high = \"50us\""),
            "nic.timely",
            &TimelyParams::default(),
        );
        assert!(t.is_none());
        assert_eq!(keys(&ctx), ["nic.timely.t_high"]);
    }

    #[test]
    fn not_a_table() {
        let mut ctx = Ctx::new("c.toml");
        assert!(parse_dctcp(
            &mut ctx,
            &Value::Integer(3),
            "nic.dctcp",
            &DctcpParams::default()
        )
        .is_none());
        assert_eq!(ctx.errors[0].message, "expected a table, found integer 3");
    }
}
