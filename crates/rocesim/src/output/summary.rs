//! `summary.json`: the run's headline numbers (see docs/results.md).

use std::collections::HashSet;
use std::io::{self, Write};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::monitor::results::FlowResult;
use crate::monitor::RunResults;

use super::flow_stats::{flow_stats, FlowStats};
use super::json::Json;

/// Nearest-rank percentile of an ascending-sorted slice.
///
/// `per_mille` is the percentile in thousandths (500 = p50, 950 = p95, 990 = p99, 999 = p99.9),
/// so the rank is computed in exact integer arithmetic: with `n` values the result is the value of
/// rank `ceil(per_mille * n / 1000)` (1-based), clamped to `1..=n`. This is always one of the input
/// values (no interpolation). Returns `None` for an empty slice.
///
/// Example: for `[1, 2, …, 20]`, p50 is rank 10 (value 10), p95 is rank 19, p99 and p99.9 are rank 20.
pub fn percentile_nearest_rank(sorted: &[f64], per_mille: u32) -> Option<f64> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let rank = (u64::from(per_mille) * n).div_ceil(1000).clamp(1, n);
    Some(sorted[(rank - 1) as usize])
}

/// Events per wall-clock second; 0 when `wall_s` is 0 (or not a positive number).
pub(crate) fn events_per_s(results: &RunResults) -> f64 {
    if results.wall_s > 0.0 && results.wall_s.is_finite() {
        results.events as f64 / results.wall_s
    } else {
        0.0
    }
}

/// PFC totals over all ports: (pause frames sent, pause frames received, paused ns).
pub(crate) fn pfc_totals(results: &RunResults) -> (u64, u64, u64) {
    results.ports.iter().fold((0, 0, 0), |(t, r, p), row| {
        (t + row.pause_tx, r + row.pause_rx, p + row.paused_ns)
    })
}

/// Keys for `goodput_gbps`, made one flow at a time in id order: the flow name, or
/// `name#flow_id` when that name was already used, so no key repeats.
///
/// Most flows are named by their id (unnamed flows are). Ids are distinct, and a `name#id` key
/// has a `#`, so such a name can only repeat another flow's name when some flow is named by
/// a number that is not its own id; unless one is, only the other names are remembered (a
/// million id-named flows cost no set insertion).
struct GoodputKeys {
    /// Some flow is named by a number other than its own id.
    numeric_other: bool,
    /// Keys given so far, but for id-named flows' when `numeric_other` is false.
    taken: HashSet<String>,
}

/// Is `f` named by its own id?
fn own_id(f: &FlowResult) -> bool {
    is_decimal(&f.name) && f.name.parse() == Ok(f.flow_id)
}

impl GoodputKeys {
    fn new(results: &RunResults) -> GoodputKeys {
        GoodputKeys {
            numeric_other: (results.flows.iter()).any(|f| !own_id(&f) && is_decimal(&f.name)),
            taken: HashSet::new(),
        }
    }

    /// The key of the next flow.
    fn key(&mut self, f: &FlowResult) -> String {
        if !self.numeric_other && own_id(f) {
            return f.name.clone();
        }
        let key = if f.name.is_empty() {
            f.flow_id.to_string()
        } else {
            f.name.clone()
        };
        let key = if self.taken.contains(&key) {
            format!("{key}#{}", f.flow_id)
        } else {
            key
        };
        self.taken.insert(key.clone());
        key
    }
}

/// `goodput_gbps`: flow key → goodput, serialized a row at a time.
struct GoodputMap<'a>(&'a RunResults);

impl Serialize for GoodputMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut keys = GoodputKeys::new(self.0);
        let mut map = s.serialize_map(Some(self.0.flows.len()))?;
        for f in self.0.flows.iter() {
            map.serialize_entry(&keys.key(&f), &Json::F64(f.goodput_gbps))?;
        }
        map.end()
    }
}

/// summary.json: its fields in order, `goodput_gbps` made from the flow rows as it is written.
struct SummaryDoc<'a> {
    fields: Vec<(&'static str, Json)>,
    results: &'a RunResults,
}

impl Serialize for SummaryDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.fields.len()))?;
        for (k, v) in &self.fields {
            if *k == GOODPUT {
                map.serialize_entry(k, &GoodputMap(self.results))?;
            } else {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

/// The key of the per-flow goodput map.
const GOODPUT: &str = "goodput_gbps";

/// Is `s` a decimal number as an id prints (digits, no sign, no leading zero)?
fn is_decimal(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b.len() == 1 || b[0] != b'0')
}

/// The summary's fields in order (`goodput_gbps` stands as null: [`SummaryDoc`] writes it).
fn summary_fields(results: &RunResults, stats: &FlowStats) -> Vec<(&'static str, Json)> {
    let mut fields = run_fields(results);
    fields.extend(traffic_fields(results, stats));
    if !results.pingmesh.is_empty() {
        fields.push(("pingmesh", pingmesh_json(results)));
    }
    fields.extend(failure_fields(results));
    if let Some(iso) = &results.isolation {
        fields.push(("isolation", super::isolation::isolation_json(iso)));
    }
    if let Some(n) = super::nics::nic_totals(results) {
        fields.push(("nic", n));
    }
    if let Some(t) = &results.recovery {
        fields.push(("transport", recovery_json(t)));
    }
    fields
}

/// `transport`: loss-recovery totals over every NIC.
fn recovery_json(t: &crate::nic::recovery_stats::RecoveryCounters) -> Json {
    Json::obj(vec![
        ("retx_timeout", Json::U64(t.retx_timeout)),
        ("retx_nack", Json::U64(t.retx_nack)),
        ("retx_selective", Json::U64(t.retx_selective)),
        ("ooo_rx", Json::U64(t.ooo_rx)),
        ("bitmap_host_accesses", Json::U64(t.bitmap_host_accesses)),
    ])
}

/// What ran: scenario, seed, times, events, memory, whether it completed.
fn run_fields(results: &RunResults) -> Vec<(&'static str, Json)> {
    let stopped_by = (results.stopped_by.as_ref()).map_or(Json::Null, |s| Json::Str(s.clone()));
    vec![
        ("scenario", Json::Str(results.scenario.clone())),
        ("seed", Json::U64(results.seed)),
        ("sim_time_ns", Json::U64(results.sim_time_ns)),
        ("warmup_ns", Json::U64(results.warmup_ns)),
        ("wall_s", Json::F64(results.wall_s)),
        ("events", Json::U64(results.events)),
        ("events_per_s", Json::F64(events_per_s(results))),
        ("packet_hops", Json::U64(results.packet_hops)),
        ("peak_memory_kb", Json::U64(results.peak_memory_kb)),
        ("incomplete", Json::Bool(results.incomplete)),
        ("stopped_by", stopped_by),
    ]
}

/// Flows, goodput, drops, pauses, marks and completion-time percentiles.
fn traffic_fields(results: &RunResults, stats: &FlowStats) -> Vec<(&'static str, Json)> {
    let (pause_tx, pause_rx, paused_ns) = pfc_totals(results);
    let pct = |pm| Json::opt_f64(stats.slowdown_at(pm));
    let count = Json::U64(stats.count);
    let completed = stats.completed;
    let total_goodput = stats.total_goodput_gbps;
    vec![
        (
            "flows",
            Json::obj(vec![("count", count), ("completed", Json::U64(completed))]),
        ),
        (GOODPUT, Json::Null),
        ("total_goodput_gbps", Json::F64(total_goodput)),
        (
            "drops",
            Json::obj(vec![
                ("lossless", Json::U64(results.drops_lossless)),
                ("lossy", Json::U64(results.drops_lossy)),
                ("ttl", Json::U64(results.drops_ttl)),
                ("fault", Json::U64(results.drops_fault)),
            ]),
        ),
        (
            "pfc",
            Json::obj(vec![
                ("pause_tx", Json::U64(pause_tx)),
                ("pause_rx", Json::U64(pause_rx)),
                ("paused_ns", Json::U64(paused_ns)),
            ]),
        ),
        ("ecn_marked", Json::U64(results.ecn_marked)),
        ("cnp_tx", Json::U64(results.cnp_tx)),
        (
            "fct_slowdown",
            Json::obj(vec![
                ("p50", pct(500)),
                ("p95", pct(950)),
                ("p99", pct(990)),
                ("p999", pct(999)),
            ]),
        ),
        (
            "fct_slowdown_by_size",
            slowdown_by_size_json(&stats.buckets),
        ),
    ]
}

/// `pingmesh`: level → `{probes, timeouts, p50_ns, p99_ns, p999_ns}`, for the levels probed.
fn pingmesh_json(results: &RunResults) -> Json {
    let ns = |x: Option<u64>| x.map_or(Json::Null, Json::U64);
    Json::Obj(
        crate::monitor::pingmesh::stats(&results.pingmesh)
            .into_iter()
            .map(|s| {
                let v = Json::obj(vec![
                    ("probes", Json::U64(s.probes)),
                    ("timeouts", Json::U64(s.timeouts)),
                    ("p50_ns", ns(s.p50_ns)),
                    ("p99_ns", ns(s.p99_ns)),
                    ("p999_ns", ns(s.p999_ns)),
                ]);
                (s.level.name().to_string(), v)
            })
            .collect(),
    )
}

/// Congestion points, watchdog actions, deadlocks, warnings.
fn failure_fields(results: &RunResults) -> Vec<(&'static str, Json)> {
    let (queues, storms) = super::failures::watchdog_counters_json(results);
    vec![
        (
            "congestion",
            Json::Arr(results.congestion.iter().map(congestion_point).collect()),
        ),
        ("watchdog", super::failures::watchdog_json(results)),
        ("watchdog_queues", queues),
        ("nic_pause_storms", storms),
        ("deadlocks", super::failures::deadlocks_json(results)),
        (
            "warnings",
            Json::Arr(results.warnings.iter().cloned().map(Json::Str).collect()),
        ),
        ("pfc_log_truncated", Json::U64(results.pfc_log_truncated)),
    ]
}

/// `fct_slowdown_by_size`: bucket label → `{flows, p50, p95, p99, p999}`, every bucket of
/// [`super::SIZE_BUCKETS`] in order (percentiles `null` for an empty bucket).
fn slowdown_by_size_json(buckets: &[super::BucketSlowdown]) -> Json {
    Json::Obj(
        buckets
            .iter()
            .map(|b| {
                let v = Json::obj(vec![
                    ("flows", Json::U64(b.flows)),
                    ("p50", Json::opt_f64(b.p50)),
                    ("p95", Json::opt_f64(b.p95)),
                    ("p99", Json::opt_f64(b.p99)),
                    ("p999", Json::opt_f64(b.p999)),
                ]);
                (b.bucket.label.to_string(), v)
            })
            .collect(),
    )
}

/// One congestion point of `summary.json`'s `congestion` list.
fn congestion_point(c: &crate::monitor::congestion::CongestionRecord) -> Json {
    let names = |v: &[String]| Json::Arr(v.iter().cloned().map(Json::Str).collect());
    Json::obj(vec![
        ("node", Json::Str(c.node.clone())),
        ("port", Json::U64(c.port as u64)),
        ("peer", Json::Str(c.peer.clone())),
        ("queue", Json::U64(c.queue as u64)),
        ("first_ns", Json::U64(c.first_ns)),
        ("last_ns", Json::U64(c.last_ns)),
        ("congested_ns", Json::U64(c.congested_ns)),
        ("marked", Json::U64(c.marked)),
        ("sources", names(&c.sources)),
        ("destinations", names(&c.destinations)),
    ])
}

/// The text of `summary.json`: pretty-printed, keys in a fixed order, floats rounded to 6
/// significant digits, ending with a newline.
pub fn summary_json(results: &RunResults) -> String {
    let mut out = Vec::new();
    let _ = write_summary(results, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes `summary.json` (the text of [`summary_json`]) to `w` as it is made: a run of
/// millions of flows does not build its per-flow goodput map in memory first.
pub fn write_summary(results: &RunResults, w: &mut dyn Write) -> io::Result<()> {
    write_summary_with(results, &flow_stats(results), w)
}

/// [`write_summary`] with the flows' statistics already computed.
pub(crate) fn write_summary_with(
    results: &RunResults,
    stats: &FlowStats,
    w: &mut dyn Write,
) -> io::Result<()> {
    let doc = SummaryDoc {
        fields: summary_fields(results, stats),
        results,
    };
    serde_json::to_writer_pretty(&mut *w, &doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

/// The keys `goodput_gbps` gives the flows, in order.
#[cfg(test)]
fn goodput_keys(results: &RunResults) -> Vec<String> {
    let mut keys = GoodputKeys::new(results);
    results.flows.iter().map(|f| keys.key(&f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile_nearest_rank(&v, 500), Some(10.0));
        assert_eq!(percentile_nearest_rank(&v, 950), Some(19.0));
        assert_eq!(percentile_nearest_rank(&v, 990), Some(20.0));
        assert_eq!(percentile_nearest_rank(&v, 999), Some(20.0));
        assert_eq!(percentile_nearest_rank(&v, 0), Some(1.0));
        let three = [1.0, 2.0, 3.0];
        assert_eq!(percentile_nearest_rank(&three, 500), Some(2.0));
        assert_eq!(percentile_nearest_rank(&three, 333), Some(1.0));
        assert_eq!(percentile_nearest_rank(&three, 334), Some(2.0));
        // 1000 values 1..=1000: p99.9 is rank 999 exactly (no floating-point overshoot).
        let k: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(percentile_nearest_rank(&k, 999), Some(999.0));
        assert_eq!(percentile_nearest_rank(&k, 950), Some(950.0));
        assert_eq!(percentile_nearest_rank(&[], 500), None);
    }

    #[test]
    fn goodput_keys_never_repeat() {
        use crate::monitor::results::FlowResult;
        let mut r = RunResults::default();
        for (i, name) in ["a", "a", "2", "", "a#1", "b"].iter().enumerate() {
            r.flows.push(FlowResult {
                flow_id: i as u32,
                name: name.to_string(),
                ..FlowResult::default()
            });
        }
        // Flow 1 repeats `a`; flow 3 has no name, so its id `3`; flow 4's own name `a#1` was
        // taken by flow 1's key; flow 2 is named by its own id.
        assert_eq!(
            goodput_keys(&r),
            ["a", "a#1", "2", "3", "a#1#4", "b"].map(String::from)
        );
        // A flow named by another's id: the later of the two gets `#id`, whichever it is.
        r.flows[5].name = "3".into();
        let k = goodput_keys(&r);
        assert_eq!((k[3].as_str(), k[5].as_str()), ("3", "3#5"));
        r.flows[1].name = "5".into();
        r.flows[5].name = "5".into();
        let k = goodput_keys(&r);
        assert_eq!((k[1].as_str(), k[5].as_str()), ("5", "5#5"));
        // Ids as unnamed flows' rows carry them (the name is the id) never clash.
        r.flows = (0..1000)
            .map(|i| FlowResult {
                flow_id: i,
                name: i.to_string(),
                ..FlowResult::default()
            })
            .collect();
        let k = goodput_keys(&r);
        assert!(k.iter().enumerate().all(|(i, s)| *s == i.to_string()));
    }
}
