//! RDMA Pingmesh results (Guo et al. 2016 §5.3): one record per probe (its RTT or its error)
//! and the RTT percentiles per level that operators watch.

use serde::Serialize;

use super::FlowRecord;
use crate::traffic::generators::PingLevel;
use crate::traffic::{FlowKind, FlowSpec};
use crate::units::Time;

/// One probe's outcome (a row of `pingmesh.csv`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PingRecord {
    /// When the probe was posted, ns.
    pub time_ns: u64,
    /// Probing server.
    pub src: String,
    /// Probed server.
    pub dst: String,
    /// `tor`, `podset` or `dc`.
    pub level: &'static str,
    /// Round-trip time (post to final ACK at the prober), ns; empty on an error.
    pub rtt_ns: Option<u64>,
    /// `timeout` (no ACK within the probe's timeout) or `unfinished` (the run ended first,
    /// before the timeout); empty on success.
    pub error: Option<&'static str>,
}

/// RTT percentiles of one level (nearest rank over the successful probes).
#[derive(Clone, Debug, PartialEq)]
pub struct PingLevelStats {
    /// The level.
    pub level: PingLevel,
    /// Probes sent whose outcome is known (successes and timeouts).
    pub probes: u64,
    /// Probes that timed out.
    pub timeouts: u64,
    /// Median RTT, ns.
    pub p50_ns: Option<u64>,
    /// 99th-percentile RTT, ns.
    pub p99_ns: Option<u64>,
    /// 99.9th-percentile RTT, ns.
    pub p999_ns: Option<u64>,
}

/// The outcome of one probe that started at `start`, acknowledged at `done` (if it was), at
/// run time `now`: the RTT, or `timeout`, or `unfinished`.
pub fn outcome(
    start: Time,
    done: Option<Time>,
    timeout: Time,
    now: Time,
) -> Result<Time, &'static str> {
    let deadline = start.saturating_add(timeout);
    match done {
        Some(d) if d <= deadline => Ok(d - start),
        Some(_) => Err("timeout"),
        None if now >= deadline => Err("timeout"),
        None => Err("unfinished"),
    }
}

/// The records of every probe among `flows` (each spec with its record), in flow order; `name` gives
/// a host's name.
pub fn records<S: std::borrow::Borrow<FlowSpec>>(
    flows: impl Iterator<Item = (S, FlowRecord)>,
    now: Time,
    name: &dyn Fn(u32) -> String,
) -> Vec<PingRecord> {
    let mut out = Vec::new();
    for (spec, rec) in flows {
        let spec = spec.borrow();
        let FlowKind::Probe(p) = spec.kind else {
            continue;
        };
        let o = outcome(rec.start, rec.done_at(), p.timeout, now);
        out.push(PingRecord {
            time_ns: rec.start.ns(),
            src: name(spec.src),
            dst: name(spec.dst),
            level: p.level.name(),
            rtt_ns: o.ok().map(|t| t.ns()),
            error: o.err(),
        });
    }
    out
}

/// Nearest-rank percentile (`per_mille`: 500 = p50) of ascending `v`.
fn nearest_rank(v: &[u64], per_mille: u64) -> Option<u64> {
    let n = v.len() as u64;
    let rank = (per_mille * n).div_ceil(1000).clamp(1, n.max(1));
    v.get((rank - 1) as usize).copied()
}

/// Per level present in `records`, nearest first: probes, timeouts and RTT percentiles
/// (unfinished probes are left out: their outcome is unknown).
pub fn stats(records: &[PingRecord]) -> Vec<PingLevelStats> {
    PingLevel::ALL
        .into_iter()
        .filter_map(|level| {
            let of = || records.iter().filter(move |r| r.level == level.name());
            of().next()?;
            let mut rtt: Vec<u64> = of().filter_map(|r| r.rtt_ns).collect();
            rtt.sort_unstable();
            let timeouts = of().filter(|r| r.error == Some("timeout")).count() as u64;
            Some(PingLevelStats {
                level,
                probes: rtt.len() as u64 + timeouts,
                timeouts,
                p50_ns: nearest_rank(&rtt, 500),
                p99_ns: nearest_rank(&rtt, 990),
                p999_ns: nearest_rank(&rtt, 999),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_by_deadline() {
        let (s, to) = (Time::from_us(10), Time::from_us(100));
        let now = Time::from_ms(1);
        assert_eq!(
            outcome(s, Some(Time::from_us(15)), to, now),
            Ok(Time::from_us(5))
        );
        assert_eq!(outcome(s, Some(Time::from_us(110)), to, now), Ok(to));
        assert_eq!(
            outcome(s, Some(Time::from_us(111)), to, now),
            Err("timeout")
        );
        assert_eq!(outcome(s, None, to, now), Err("timeout"));
        assert_eq!(outcome(s, None, to, Time::from_us(50)), Err("unfinished"));
    }

    fn rec(level: &'static str, rtt: Option<u64>, error: Option<&'static str>) -> PingRecord {
        PingRecord {
            time_ns: 0,
            src: "a".into(),
            dst: "b".into(),
            level,
            rtt_ns: rtt,
            error,
        }
    }

    #[test]
    fn stats_per_level_by_hand() {
        // 1..=100 us at the ToR level, one timeout and one unfinished; nothing at podset.
        let mut r: Vec<PingRecord> = (1..=100)
            .map(|i| rec("tor", Some(i * 1000), None))
            .collect();
        r.push(rec("tor", None, Some("timeout")));
        r.push(rec("tor", None, Some("unfinished")));
        r.push(rec("dc", Some(7), None));
        let s = stats(&r);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].level, s[0].probes, s[0].timeouts),
            (PingLevel::Tor, 101, 1)
        );
        // Nearest rank over 100 values: p50 = 50th, p99 = 99th, p99.9 = 100th.
        assert_eq!(s[0].p50_ns, Some(50_000));
        assert_eq!(s[0].p99_ns, Some(99_000));
        assert_eq!(s[0].p999_ns, Some(100_000));
        assert_eq!((s[1].level, s[1].p50_ns), (PingLevel::Dc, Some(7)));
    }
}
