//! What summary.json, the report, the terminal table and sweeps read of the flow rows, in
//! passes over them ([`crate::monitor::FlowTable::iter`]) rather than from rows held in
//! memory: counts, total goodput, and FCT slowdown percentiles overall and per size bucket
//! (exact, [`super::quantiles`]).

use crate::monitor::results::FlowResult;
use crate::monitor::RunResults;

use super::metrics::{BucketSlowdown, SIZE_BUCKETS};
use super::quantiles::{nearest_ranks, IN_MEMORY_VALUES};

/// The percentiles reported, in thousandths: p50, p95, p99, p99.9.
pub(crate) const PER_MILLES: [u32; 4] = [500, 950, 990, 999];

/// Totals and slowdown percentiles of a run's flows.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlowStats {
    /// Flow rows.
    pub count: u64,
    /// Flows that completed.
    pub completed: u64,
    /// Sum of the flows' goodput over the statistics window, Gb/s (summed in id order).
    pub total_goodput_gbps: f64,
    /// Completed flows with a finite slowdown.
    pub slowdown_flows: u64,
    /// Their slowdown's p50, p95, p99 and p99.9 (`None` without such flows).
    pub slowdown: [Option<f64>; 4],
    /// The same per [`SIZE_BUCKETS`] entry, in order.
    pub buckets: Vec<BucketSlowdown>,
}

impl FlowStats {
    /// The slowdown percentile `per_mille` (one of [`PER_MILLES`]).
    pub fn slowdown_at(&self, per_mille: u32) -> Option<f64> {
        let k = PER_MILLES.iter().position(|&p| p == per_mille)?;
        self.slowdown[k]
    }
}

/// A completed flow's finite slowdown, if it has one.
pub(crate) fn completed_slowdown(f: &FlowResult) -> Option<f64> {
    f.end_ns.and(f.slowdown).filter(|s| s.is_finite())
}

/// The [`FlowStats`] of `results`' flow rows.
pub(crate) fn flow_stats(results: &RunResults) -> FlowStats {
    flow_stats_with(results, IN_MEMORY_VALUES)
}

/// [`flow_stats`], gathering at most `in_memory` slowdowns (more are selected in passes).
pub(crate) fn flow_stats_with(results: &RunResults, in_memory: u64) -> FlowStats {
    let (mut count, mut completed) = (0, 0);
    for f in results.flows.iter() {
        count += 1;
        completed += u64::from(f.end_ns.is_some());
    }
    // As `Iterator::sum` adds them (its start value is the language's to choose).
    let total = results.flows.iter().map(|f| f.goodput_gbps).sum();
    // Group 0: every completed flow with a finite slowdown; group 1 + i: those of bucket i.
    let source = |sink: &mut dyn FnMut(usize, f64)| {
        for f in results.flows.iter() {
            let Some(s) = completed_slowdown(&f) else {
                continue;
            };
            sink(0, s);
            let bucket = f
                .size_bytes
                .and_then(|n| SIZE_BUCKETS.iter().position(|b| b.contains(n)));
            if let Some(i) = bucket {
                sink(1 + i, s);
            }
        }
    };
    let p = nearest_ranks(1 + SIZE_BUCKETS.len(), &PER_MILLES, in_memory, &source);
    let four = |g: usize| [0, 1, 2, 3].map(|k| p.values[g][k]);
    let buckets = (SIZE_BUCKETS.iter().enumerate())
        .map(|(i, b)| {
            let [p50, p95, p99, p999] = four(1 + i);
            BucketSlowdown {
                bucket: *b,
                flows: p.counts[1 + i],
                p50,
                p95,
                p99,
                p999,
            }
        })
        .collect();
    FlowStats {
        count,
        completed,
        total_goodput_gbps: total,
        slowdown_flows: p.counts[0],
        slowdown: four(0),
        buckets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::FlowTable;

    /// Rows stored out of memory and percentiles selected in passes give the same statistics
    /// as rows held and slowdowns sorted.
    #[test]
    fn stored_and_selected_equal_held_and_sorted() {
        let rows: Vec<FlowResult> = (0..3000u32)
            .map(|i| {
                let done = i % 7 != 0;
                FlowResult {
                    flow_id: i,
                    name: i.to_string(),
                    size_bytes: Some(u64::from(i % 50) * 9_000 + 100),
                    end_ns: done.then_some(u64::from(i)),
                    slowdown: Some(if i % 97 == 0 {
                        f64::INFINITY
                    } else {
                        1.0 + f64::from(i % 113) / 7.0
                    }),
                    goodput_gbps: f64::from(i) / 3.0,
                    ..FlowResult::default()
                }
            })
            .collect();
        let held = RunResults {
            flows: FlowTable::held(rows.clone()),
            ..RunResults::default()
        };
        let stored = RunResults {
            flows: FlowTable::collect_rows(rows, 3000, 0, 100),
            ..RunResults::default()
        };
        let want = flow_stats_with(&held, u64::MAX);
        assert_eq!(want.count, 3000);
        assert!(
            want.slowdown_flows > 2000 && want.buckets.iter().filter(|b| b.flows > 0).count() >= 3
        );
        assert_eq!(flow_stats_with(&stored, 0), want);
        assert_eq!(flow_stats_with(&held, 0), want);
    }
}
