//! `[sim]` and `[output]`.

use std::path::PathBuf;

use toml::Table;

use super::check::{at, Ctx};
use super::scenario::{OutputParams, SimParams, TableFormat};
use crate::units::Time;

/// Check `[sim]`. `None` when it has errors.
pub fn parse_sim(ctx: &mut Ctx, root: &Table) -> Option<SimParams> {
    const P: &str = "sim";
    let t = match root.get(P) {
        Some(v) => ctx.table(v, P)?,
        None => {
            ctx.err(P, "missing required section [sim] (at least `duration`)");
            return None;
        }
    };
    ctx.keys(
        t,
        P,
        &[
            "duration",
            "seed",
            "warmup",
            "stop_when_done",
            "deadlock_detection",
            "stop_on_deadlock",
        ],
    );
    let duration = ctx.req(t, P, "duration", "a time like \"10ms\"", Ctx::time);
    if duration == Some(Time::ZERO) {
        ctx.err(at(P, "duration"), "the duration must be positive");
    }
    let seed = ctx.or(t, P, "seed", 1, |c, v, k| c.uint(v, k, 0, u64::MAX));
    let warmup = ctx.or(t, P, "warmup", Time::ZERO, Ctx::time);
    if let (Some(d), Some(w)) = (duration, warmup) {
        if w >= d && d > Time::ZERO {
            ctx.err(
                at(P, "warmup"),
                format!("warmup ({w}) is not before the end of the run ({d})"),
            );
        }
    }
    let stop_when_done = ctx.or(t, P, "stop_when_done", true, Ctx::boolean);
    // "off" (zero) disables the detector.
    let deadlock_detection = ctx.or(t, P, "deadlock_detection", Time::from_ms(10), |c, v, k| {
        c.time_or_off(v, k).map(|x| x.unwrap_or(Time::ZERO))
    });
    let stop_on_deadlock = ctx.or(t, P, "stop_on_deadlock", false, Ctx::boolean);
    Some(SimParams {
        duration: duration?,
        seed: seed?,
        warmup: warmup?,
        stop_when_done: stop_when_done?,
        deadlock_detection: deadlock_detection?,
        stop_on_deadlock: stop_on_deadlock?,
    })
}

/// Check `[output]` (all optional). `None` when it has errors.
pub fn parse_output(ctx: &mut Ctx, root: &Table, name: &str) -> Option<OutputParams> {
    const P: &str = "output";
    let empty = Table::new();
    let t = match root.get(P) {
        Some(v) => ctx.table(v, P)?,
        None => &empty,
    };
    ctx.keys(
        t,
        P,
        &[
            "dir",
            "throughput_interval",
            "queue_sample_interval",
            "format",
            "report",
            "max_pfc_log",
        ],
    );
    let dir = ctx.or(t, P, "dir", format!("results/{name}"), |c, v, k| {
        match c.string(v, k) {
            Some(s) if s.is_empty() => {
                c.err(k, "the output directory cannot be empty");
                None
            }
            s => s,
        }
    });
    let nonzero = |c: &mut Ctx, v: &toml::Value, k: &str| match c.time_or_off(v, k)? {
        Some(Time::ZERO) => {
            c.err(k, "an interval must be positive (or \"off\")");
            None
        }
        x => Some(x),
    };
    let throughput_interval = ctx.or(
        t,
        P,
        "throughput_interval",
        Some(Time::from_us(100)),
        nonzero,
    );
    let queue_sample_interval = ctx.or(
        t,
        P,
        "queue_sample_interval",
        Some(Time::from_us(10)),
        nonzero,
    );
    let format = ctx.or(t, P, "format", TableFormat::Csv, |c, v, k| {
        c.choice(v, k, &["csv", "parquet"]).map(|f| match f {
            "parquet" => TableFormat::Parquet,
            _ => TableFormat::Csv,
        })
    });
    let report = ctx.or(t, P, "report", true, Ctx::boolean);
    let max_pfc_log = ctx.or(t, P, "max_pfc_log", 1_000_000, |c, v, k| {
        c.uint(v, k, 0, u64::MAX).map(|x| x as usize)
    });
    Some(OutputParams {
        dir: PathBuf::from(dir?),
        throughput_interval: throughput_interval?,
        queue_sample_interval: queue_sample_interval?,
        format: format?,
        report: report?,
        max_pfc_log: max_pfc_log?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(s: &str) -> (Option<SimParams>, Ctx) {
        let mut ctx = Ctx::new("s.toml");
        let r = parse_sim(&mut ctx, &s.parse().unwrap());
        (r, ctx)
    }

    #[test]
    fn sim_defaults_and_errors() {
        let (s, ctx) = sim("[sim]\nduration = \"10ms\"\n");
        assert!(ctx.errors.is_empty());
        let s = s.unwrap();
        assert_eq!((s.seed, s.warmup, s.stop_when_done), (1, Time::ZERO, true));
        let (s, ctx) =
            sim("[sim]\nduration = \"1ms\"\nwarmup = \"1ms\"\nseed = -1\nstop_when_done = 1\n");
        assert!(s.is_none());
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["sim.seed", "sim.warmup", "sim.stop_when_done"]);
        let (_, ctx) = sim("[sim]\nseed = 3\n");
        assert_eq!(ctx.errors[0].key, "sim.duration");
        let (_, ctx) = sim("[sim]\nduration = 5\n");
        assert_eq!(
            ctx.errors[0].message,
            "expected a time like \"1us\", found integer 5"
        );
    }

    #[test]
    fn output_defaults_and_off() {
        let mut ctx = Ctx::new("s.toml");
        let o = parse_output(&mut ctx, &Table::new(), "pl").unwrap();
        assert_eq!(o.dir, PathBuf::from("results/pl"));
        assert_eq!(o.throughput_interval, Some(Time::from_us(100)));
        assert_eq!(o.queue_sample_interval, Some(Time::from_us(10)));
        assert_eq!(
            (o.format, o.report, o.max_pfc_log),
            (TableFormat::Csv, true, 1_000_000)
        );
        let root =
            "[output]\nthroughput_interval = \"off\"\nformat = \"parquet\"\nmax_pfc_log = -5\n";
        let r = parse_output(&mut ctx, &root.parse().unwrap(), "pl");
        assert!(r.is_none());
        assert_eq!(ctx.errors.len(), 1);
        assert_eq!(ctx.errors[0].key, "output.max_pfc_log");
    }
}
