//! report.html's distribution of pause durations: for the ports paused most often, the
//! cumulative distribution of how long each pause held the port (from `pause_intervals`).
//! Short pauses refreshed in time are one long interval; a storm shows as pauses that last.

use std::collections::{BTreeMap, HashMap};

use crate::monitor::RunResults;

use super::svg::{decimate, render, time_unit, Chart, Kind, Scale, Series, PALETTE};

/// Ports drawn (those with the most pauses).
const MAX_PORTS: usize = 8;
/// Points kept per series.
const MAX_POINTS: usize = 1500;

/// The CDF of pause durations per paused (node, port, priority), or `None` without pauses.
pub(super) fn pause_duration_chart(r: &RunResults) -> Option<String> {
    if r.pause_intervals.is_empty() {
        return None;
    }
    type Key<'a> = (&'a str, u32, u8);
    let mut per_port: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
    for p in &r.pause_intervals {
        (per_port
            .entry((p.node.as_str(), p.port, p.prio))
            .or_default())
        .push(p.duration_ns);
    }
    let mut ranked: Vec<(Key, usize, u64)> = (per_port.iter())
        .map(|(k, d)| (*k, d.len(), d.iter().sum::<u64>()))
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    let total_ports = ranked.len();
    ranked.truncate(MAX_PORTS);
    let peers: HashMap<(&str, u32), &str> = (r.ports.iter())
        .map(|p| ((p.node.as_str(), p.port), p.peer.as_str()))
        .collect();
    let all = || {
        ranked
            .iter()
            .flat_map(|(k, _, _)| per_port[k].iter().copied())
    };
    let lo = all().filter(|d| *d > 0).min().unwrap_or(1) as f64;
    let hi = all().max().unwrap_or(1) as f64;
    let (div, unit) = time_unit(hi);
    let x_scale = if hi / lo > 50.0 {
        Scale::Log
    } else {
        Scale::Linear
    };
    let series = (ranked.iter().enumerate())
        .map(|(i, (key, n, _))| {
            let mut d = per_port[key].clone();
            d.sort_unstable();
            let n_f = d.len() as f64;
            // A staircase: each pause lifts the fraction at its duration.
            let pts: Vec<(f64, f64)> = (d.iter().enumerate())
                .flat_map(|(j, &v)| {
                    let x = v as f64 / div;
                    [(x, j as f64 / n_f), (x, (j + 1) as f64 / n_f)]
                })
                .collect();
            let toward = peers
                .get(&(key.0, key.1))
                .map_or_else(|| format!(" port {}", key.1), |peer| format!("→{peer}"));
            Series {
                name: format!(
                    "{}{toward} p{} ({n} pause{})",
                    key.0,
                    key.2,
                    if *n == 1 { "" } else { "s" }
                ),
                color: PALETTE[i % PALETTE.len()].to_string(),
                points: decimate(&pts, MAX_POINTS),
            }
        })
        .collect();
    let note = (total_ports > MAX_PORTS)
        .then(|| format!("most paused {MAX_PORTS} of {total_ports} ports"));
    Some(render(&Chart {
        title: "Pause durations per port (CDF)".into(),
        x_label: format!(
            "pause duration ({unit}{})",
            if x_scale == Scale::Log {
                ", log scale"
            } else {
                ""
            }
        ),
        y_label: "fraction of pauses ≤ x".into(),
        x_scale,
        y_scale: Scale::Linear,
        kind: Kind::Line,
        series,
        note,
        marks: Vec::new(),
    }))
}
