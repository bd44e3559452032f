//! Derived metrics shared by the writers and by `rocesim sweep`: FCT slowdown percentiles per
//! flow-size bucket, per-link utilisation, and the headline numbers of a run.
//!
//! Everything here is computed from a [`RunResults`] alone, deterministically.

use crate::monitor::RunResults;

use super::flow_stats::flow_stats;
use super::summary::pfc_totals;

/// One flow-size bucket of `fct_slowdown_by_size`: sizes in `[min_bytes, max_bytes)` (payload
/// bytes, decimal units as in scenario files: 1 KB = 1000 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeBucket {
    /// Label used as the key in `summary.json` and in tables (`"<10KB"`, `"10KB-100KB"`, ...).
    pub label: &'static str,
    /// Smallest size in the bucket (inclusive), bytes.
    pub min_bytes: u64,
    /// End of the bucket (exclusive), bytes; `None` for the last, open-ended bucket.
    pub max_bytes: Option<u64>,
}

/// The flow-size buckets, in ascending order: < 10 KB, 10–100 KB, 100 KB–1 MB, 1–10 MB, ≥ 10 MB.
/// A size on a boundary belongs to the bucket it starts (10 000 B is in `10KB-100KB`).
pub const SIZE_BUCKETS: [SizeBucket; 5] = [
    SizeBucket {
        label: "<10KB",
        min_bytes: 0,
        max_bytes: Some(10_000),
    },
    SizeBucket {
        label: "10KB-100KB",
        min_bytes: 10_000,
        max_bytes: Some(100_000),
    },
    SizeBucket {
        label: "100KB-1MB",
        min_bytes: 100_000,
        max_bytes: Some(1_000_000),
    },
    SizeBucket {
        label: "1MB-10MB",
        min_bytes: 1_000_000,
        max_bytes: Some(10_000_000),
    },
    SizeBucket {
        label: ">=10MB",
        min_bytes: 10_000_000,
        max_bytes: None,
    },
];

impl SizeBucket {
    /// True when a flow of `size` payload bytes falls in this bucket.
    pub fn contains(&self, size: u64) -> bool {
        size >= self.min_bytes && self.max_bytes.is_none_or(|m| size < m)
    }
}

/// FCT slowdown percentiles (nearest rank, see [`super::summary::percentile_nearest_rank`])
/// of one size bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketSlowdown {
    /// The bucket.
    pub bucket: SizeBucket,
    /// Completed flows in the bucket with a finite slowdown.
    pub flows: u64,
    /// Median slowdown; `None` when the bucket is empty.
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// 99.9th percentile.
    pub p999: Option<f64>,
}

/// Slowdown percentiles per size bucket, one entry per [`SIZE_BUCKETS`] entry (in that order,
/// empty buckets included), over completed flows with a known size and a finite slowdown (the
/// same flows as the overall `fct_slowdown`; long-lived flows have no size and never complete).
pub fn slowdown_by_size(results: &RunResults) -> Vec<BucketSlowdown> {
    flow_stats(results).buckets
}

/// Transmit statistics of one link direction (a node's port), summed over its priorities.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    /// Node name.
    pub node: String,
    /// Port index on the node.
    pub port: u32,
    /// Name of the node at the other end.
    pub peer: String,
    /// Line rate of the port, bits per second (0 when unknown).
    pub rate_bps: u64,
    /// Wire bytes transmitted in the statistics window [warmup, end], all priorities (PFC
    /// frames not included).
    pub tx_bytes: u64,
    /// Average transmit rate over the statistics window, Gb/s of wire bits; `None` when the
    /// window is empty.
    pub tx_gbps: Option<f64>,
    /// `tx bits / (rate × window)`: the fraction of the window the port was transmitting;
    /// `None` when the rate or the window is 0.
    pub utilisation: Option<f64>,
}

/// One [`LinkRow`] per (node, port) that appears in `results.ports`, in the order of first
/// appearance. Rates are averaged over the statistics window [warmup, end].
pub fn link_rows(results: &RunResults) -> Vec<LinkRow> {
    let mut rows: Vec<LinkRow> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for p in &results.ports {
        let key = (p.node.as_str(), p.port);
        let i = *index.entry(key).or_insert_with(|| {
            rows.push(LinkRow {
                node: p.node.clone(),
                port: p.port,
                peer: p.peer.clone(),
                rate_bps: p.rate_bps,
                tx_bytes: 0,
                tx_gbps: None,
                utilisation: None,
            });
            rows.len() - 1
        });
        rows[i].tx_bytes += p.tx_bytes_window;
        rows[i].rate_bps = rows[i].rate_bps.max(p.rate_bps);
    }
    let secs = results.sim_time_ns.saturating_sub(results.warmup_ns) as f64 * 1e-9;
    for r in &mut rows {
        let bits = r.tx_bytes as f64 * 8.0;
        if secs > 0.0 {
            r.tx_gbps = Some(bits / secs * 1e-9);
            if r.rate_bps > 0 {
                r.utilisation = Some(bits / (r.rate_bps as f64 * secs));
            }
        }
    }
    rows
}

/// The headline numbers of a run: one row of `rocesim sweep`'s `sweep.csv`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Headline {
    /// Simulated time reached, ns.
    pub sim_time_ns: u64,
    /// Wall-clock seconds of the run.
    pub wall_s: f64,
    /// Events processed.
    pub events: u64,
    /// Sum of all flows' goodput over the statistics window, Gb/s.
    pub total_goodput_gbps: f64,
    /// Pause frames sent, all ports and priorities.
    pub pause_tx: u64,
    /// Lossless drops.
    pub drops_lossless: u64,
    /// Lossy drops.
    pub drops_lossy: u64,
    /// Packets CE-marked.
    pub ecn_marked: u64,
    /// CNPs sent.
    pub cnp_tx: u64,
    /// Number of flows.
    pub flows: u64,
    /// Flows completed.
    pub flows_completed: u64,
    /// Median FCT slowdown over completed flows.
    pub fct_slowdown_p50: Option<f64>,
    /// 99th-percentile FCT slowdown over completed flows.
    pub fct_slowdown_p99: Option<f64>,
}

/// The [`Headline`] of `results`, computed exactly as in `summary.json`.
pub fn headline(results: &RunResults) -> Headline {
    let stats = flow_stats(results);
    Headline {
        sim_time_ns: results.sim_time_ns,
        wall_s: results.wall_s,
        events: results.events,
        total_goodput_gbps: stats.total_goodput_gbps,
        pause_tx: pfc_totals(results).0,
        drops_lossless: results.drops_lossless,
        drops_lossy: results.drops_lossy,
        ecn_marked: results.ecn_marked,
        cnp_tx: results.cnp_tx,
        flows: stats.count,
        flows_completed: stats.completed,
        fct_slowdown_p50: stats.slowdown_at(500),
        fct_slowdown_p99: stats.slowdown_at(990),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{FlowResult, PortRow};

    fn done(size: u64, slowdown: f64) -> FlowResult {
        FlowResult {
            size_bytes: Some(size),
            end_ns: Some(1),
            slowdown: Some(slowdown),
            ..FlowResult::default()
        }
    }

    #[test]
    fn buckets_split_at_decimal_boundaries() {
        let b = &SIZE_BUCKETS;
        assert!(b[0].contains(0) && b[0].contains(9_999) && !b[0].contains(10_000));
        assert!(b[1].contains(10_000) && b[1].contains(99_999) && !b[1].contains(100_000));
        assert!(b[2].contains(100_000) && !b[2].contains(1_000_000));
        assert!(b[3].contains(1_000_000) && !b[3].contains(10_000_000));
        assert!(b[4].contains(10_000_000) && b[4].contains(u64::MAX));
        // Every size is in exactly one bucket.
        for s in [
            0,
            1,
            9_999,
            10_000,
            123_456,
            999_999,
            5_000_000,
            10_000_000,
            1 << 40,
        ] {
            assert_eq!(b.iter().filter(|x| x.contains(s)).count(), 1, "{s}");
        }
    }

    #[test]
    fn bucket_percentiles_by_hand() {
        let mut r = RunResults::default();
        // <10KB: slowdowns 5, 1, 4, 2, 3 -> sorted 1..5; p50 = rank ceil(2.5) = 3 -> 3;
        // p95 = rank ceil(4.75) = 5 -> 5; p99, p99.9 -> 5.
        for (i, s) in [5.0, 1.0, 4.0, 2.0, 3.0].into_iter().enumerate() {
            r.flows.push(done(1000 + i as u64, s));
        }
        // 10KB-100KB: 20 flows with slowdowns 1..=20 -> p50 rank 10 (10), p95 rank 19 (19),
        // p99 rank ceil(19.8) = 20, p99.9 rank 20.
        for k in 1..=20 {
            r.flows.push(done(10_000 + k, f64::from(k as u32)));
        }
        // 1MB-10MB: one flow at 7.5.
        r.flows.push(done(2_000_000, 7.5));
        // Not counted: incomplete, long-lived, infinite slowdown.
        r.flows.push(FlowResult {
            size_bytes: Some(500),
            slowdown: Some(100.0),
            ..FlowResult::default()
        });
        r.flows.push(FlowResult::default());
        r.flows.push(done(600, f64::INFINITY));

        let v = slowdown_by_size(&r);
        assert_eq!(v.len(), 5);
        let labels: Vec<&str> = v.iter().map(|b| b.bucket.label).collect();
        assert_eq!(
            labels,
            ["<10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">=10MB"]
        );
        let p = |b: &BucketSlowdown| (b.flows, b.p50, b.p95, b.p99, b.p999);
        assert_eq!(p(&v[0]), (5, Some(3.0), Some(5.0), Some(5.0), Some(5.0)));
        assert_eq!(
            p(&v[1]),
            (20, Some(10.0), Some(19.0), Some(20.0), Some(20.0))
        );
        assert_eq!(p(&v[2]), (0, None, None, None, None));
        assert_eq!(p(&v[3]), (1, Some(7.5), Some(7.5), Some(7.5), Some(7.5)));
        assert_eq!(p(&v[4]), (0, None, None, None, None));
    }

    fn port(node: &str, port: u32, prio: u8, rate_bps: u64, tx_bytes: u64) -> PortRow {
        PortRow {
            node: node.into(),
            port,
            peer: "peer".into(),
            prio,
            rate_bps,
            tx_bytes: tx_bytes * 2,
            tx_bytes_window: tx_bytes,
            ..PortRow::default()
        }
    }

    #[test]
    fn utilisation_arithmetic() {
        let r = RunResults {
            sim_time_ns: 1_500_000, // a 1 ms window after
            warmup_ns: 500_000,     // 0.5 ms of warm-up
            ports: vec![
                // 100G port: 4 MB + 2.25 MB = 6.25 MB = 50 Mbit in 1 ms = 50 Gb/s = 0.5.
                port("S1", 0, 3, 100_000_000_000, 4_000_000),
                port("S1", 0, 6, 100_000_000_000, 2_250_000),
                // 40G port: 5 MB = 40 Mbit in 1 ms = 40 Gb/s = 1.0 (saturated).
                port("S1", 1, 3, 40_000_000_000, 5_000_000),
                // Unknown rate: tx_gbps but no utilisation.
                port("h0", 0, 3, 0, 125_000),
            ],
            ..RunResults::default()
        };
        let rows = link_rows(&r);
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].node.as_str(), rows[0].port), ("S1", 0));
        assert_eq!(rows[0].tx_bytes, 6_250_000);
        assert!((rows[0].tx_gbps.unwrap() - 50.0).abs() < 1e-9);
        assert!((rows[0].utilisation.unwrap() - 0.5).abs() < 1e-12);
        assert!((rows[1].tx_gbps.unwrap() - 40.0).abs() < 1e-9);
        assert!((rows[1].utilisation.unwrap() - 1.0).abs() < 1e-12);
        assert!((rows[2].tx_gbps.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(rows[2].utilisation, None);
        // No simulated time: nothing to divide by.
        let empty = RunResults {
            ports: r.ports.clone(),
            ..RunResults::default()
        };
        assert!(link_rows(&empty).iter().all(|l| l.tx_gbps.is_none()));
    }

    #[test]
    fn headline_matches_summary_definitions() {
        let mut r = RunResults {
            sim_time_ns: 5,
            events: 9,
            drops_lossless: 2,
            ..RunResults::default()
        };
        for s in [3.0, 1.0, 2.0] {
            r.flows.push(FlowResult {
                goodput_gbps: 1.5,
                ..done(100, s)
            });
        }
        r.flows.push(FlowResult::default());
        r.ports.push(PortRow {
            pause_tx: 4,
            ..PortRow::default()
        });
        let h = headline(&r);
        assert_eq!(h.flows, 4);
        assert_eq!(h.flows_completed, 3);
        assert_eq!(h.total_goodput_gbps, 4.5);
        assert_eq!(h.pause_tx, 4);
        assert_eq!(h.fct_slowdown_p50, Some(2.0));
        assert_eq!(h.fct_slowdown_p99, Some(3.0));
    }
}
