//! `[sim]` (run control) and `[output]` (what to write and where).

use std::path::PathBuf;

use super::check::Ctx;
use super::leaf::{choice, Bool, Count, Int, Size, Str, TimeOff, TimeV};
use super::scenario::{OutputParams, RouteAheadMode, SimParams, TableFormat};
use crate::table;
use crate::units::Time;

table! {
    /// `[sim]`: run control.
    pub struct Sim {
        /// Simulated time to run; must be positive. Required.
        duration: TimeV,
        /// Master seed; every random stream (ECMP source ports, loss, ...) derives from it.
        /// Default: `1`.
        seed: Count,
        /// The statistics window (goodput, counters in the summary) starts here; must be
        /// before `duration`. Default: `"0us"`.
        warmup: TimeV,
        /// End the run as soon as every finite flow has completed. Default: `true`.
        stop_when_done: Bool,
        /// Report a PFC deadlock once its wait-for cycle has persisted this long (the detector
        /// checks every tenth of it, between 10 us and 1 ms, and idles while nothing is
        /// paused). Default: `"10ms"`.
        deadlock_detection: TimeOff,
        /// End the run when a deadlock is reported. Default: `false`.
        stop_on_deadlock: Bool,
        /// Stop the run after this much wall-clock time (`"30s"`), writing the results so far
        /// marked `"incomplete": true, "stopped_by": "wall_limit"`; the run exits with code 3.
        /// Default: `"off"`.
        wall_limit: TimeOff,
        /// Refuse to start a run whose estimated memory (ports, routing tables, flows, time
        /// series samples) is above this size; the error names the key that makes it large.
        /// Default: 80 % of the machine's physical memory.
        max_memory: Size,
        /// Split the fabric across this many threads (by pod, hosts with their ToR), each
        /// simulating its part; they exchange the frames that cross between parts once per
        /// lookahead window (the shortest delay of a link between parts, which must not be
        /// zero). Results are byte-identical to one thread's. A run whose flows all complete
        /// before `duration` (with `stop_when_done`) is repeated on one thread, and a flow
        /// chained to one sent from another part must start at least the lookahead after it;
        /// see docs/performance.md, "`sim.threads`". Default: `1`.
        threads: Int<1, 256>,
        /// Look up, when a switch forwards a frame, the egress port the next switch will
        /// give it, so that the run prefetches that port before the frame arrives:
        /// `"auto"` (when the switches' ports outgrow a core's 2 MiB cache, from a
        /// fat-tree of k = 16 on), `"on"` or `"off"`. Never with faults, which can change
        /// routes (a run that asked for `"on"` says so in its warnings). The same setting
        /// turns on two more prefetch hints for large fabrics: each arriving frame's INT
        /// record and, at a host, its queue pair start loading when its wheel slot starts
        /// draining. Speed only: results are byte-identical either way; see
        /// docs/performance.md, "Slots of a large fabric and routing one hop ahead" and "INT
        /// records and queue pairs loaded a slot ahead". Default: `"auto"`.
        route_ahead: RouteAheadV,
    }
}

choice!(/// When to route one hop ahead.
RouteAheadV -> RouteAheadMode {
    "auto" => RouteAheadMode::Auto,
    "on" => RouteAheadMode::On,
    "off" => RouteAheadMode::Off
});

choice!(/// Table file format.
FormatV -> TableFormat {
    "csv" => TableFormat::Csv,
    "parquet" => TableFormat::Parquet,
    "both" => TableFormat::Both
});

table! {
    /// `[output]`: what to write and where.
    pub struct Output {
        /// Result directory (`--out DIR` overrides). Default: `"results/<scenario name>"`.
        dir: Str,
        /// Per-flow throughput sampling interval (`timeseries/throughput.csv`).
        /// Default: `"100us"`.
        throughput_interval: TimeOff,
        /// Queue-depth sampling interval (`timeseries/queues.csv`). Default: `"10us"`.
        queue_sample_interval: TimeOff,
        /// Switch counter sampling interval (`timeseries/counters.csv`: PFC, queue and
        /// priority-group counters per port and priority, named as SONiC's COUNTERS_DB names
        /// them). Default: `"off"`.
        counters_interval: TimeOff,
        /// Format of the result tables: `"csv"`, `"parquet"` (`flows.parquet`, ..., with each
        /// column's unit and meaning in the schema metadata) or `"both"`. `summary.json` and
        /// `report.html` are written either way.
        /// Default: `"csv"`.
        format: FormatV,
        /// Write `report.html`. Default: `true`.
        report: Bool,
        /// Keep at most this many rows in `pfc.csv`; later pauses are counted, not kept.
        /// Default: `1000000`.
        max_pfc_log: Count,
    }
}

/// Check `[sim]`; `None` when it has errors.
pub fn sim(ctx: &mut Ctx, t: Option<&Sim>) -> Option<SimParams> {
    let Some(t) = t else {
        ctx.err(
            "sim",
            "missing required section [sim] (at least `duration`)",
        );
        return None;
    };
    let duration = ctx.req(&t.duration, "a time like \"10ms\"");
    if duration == Some(Time::ZERO) {
        ctx.err(&t.duration.key, "the duration must be positive");
    }
    let seed = ctx.or(&t.seed, 1);
    let warmup = ctx.or(&t.warmup, Time::ZERO);
    if let (Some(d), Some(w)) = (duration, warmup) {
        if w >= d && d > Time::ZERO {
            let msg = format!("warmup ({w}) is not before the end of the run ({d})");
            ctx.err(&t.warmup.key, msg);
        }
    }
    let stop_when_done = ctx.or(&t.stop_when_done, true);
    // "off" (zero) disables the detector.
    let deadlock = ctx.or(&t.deadlock_detection, Some(Time::from_ms(10)));
    let stop_on_deadlock = ctx.or(&t.stop_on_deadlock, false);
    let wall_limit = ctx.or(&t.wall_limit, None);
    let max_memory = ctx.or(&t.max_memory, super::memory::default_max_memory());
    let threads = ctx.or(&t.threads, 1);
    let route_ahead = ctx.or(&t.route_ahead, RouteAheadMode::Auto);
    Some(SimParams {
        threads: threads? as u16,
        route_ahead: route_ahead?,
        max_memory: max_memory?,
        wall_limit: wall_limit?.map(|t| std::time::Duration::from_nanos(t.ns())),
        stop_when_done: stop_when_done?,
        deadlock_detection: deadlock?.unwrap_or(Time::ZERO),
        stop_on_deadlock: stop_on_deadlock?,
        duration: duration?,
        seed: seed? as u64,
        warmup: warmup?,
    })
}

/// A sampling interval: positive or off (`dflt` when not given).
fn interval(
    ctx: &mut Ctx,
    f: &super::declare::V<TimeOff>,
    dflt: Option<Time>,
) -> Option<Option<Time>> {
    match ctx.or(f, dflt)? {
        Some(Time::ZERO) => {
            ctx.err(&f.key, "an interval must be positive (or \"off\")");
            None
        }
        x => Some(x),
    }
}

/// Check `[output]` (all optional); `name` is the scenario's. `None` when it has errors.
pub fn output(ctx: &mut Ctx, t: &Output, name: &str) -> Option<OutputParams> {
    let dir = match ctx.or(&t.dir, format!("results/{name}")) {
        Some(s) if s.is_empty() => {
            ctx.err(&t.dir.key, "the output directory cannot be empty");
            None
        }
        s => s,
    };
    let throughput_interval = interval(ctx, &t.throughput_interval, Some(Time::from_us(100)));
    let queue_sample_interval = interval(ctx, &t.queue_sample_interval, Some(Time::from_us(10)));
    let counters_interval = interval(ctx, &t.counters_interval, None);
    let format = ctx.or(&t.format, TableFormat::Csv);
    let report = ctx.or(&t.report, true);
    let max_pfc_log = ctx.or(&t.max_pfc_log, 1_000_000);
    Some(OutputParams {
        dir: PathBuf::from(dir?),
        throughput_interval: throughput_interval?,
        queue_sample_interval: queue_sample_interval?,
        counters_interval: counters_interval?,
        format: format?,
        report: report?,
        max_pfc_log: max_pfc_log? as usize,
    })
}
