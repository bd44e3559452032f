//! The compact table printed to the terminal at the end of a run.

use std::fmt::Write as _;

use crate::monitor::RunResults;

use super::flow_stats::flow_stats;
use super::fmt::{human_bytes, human_count, human_ns};
use super::summary::{events_per_s, pfc_totals};

/// Most flow rows printed.
const MAX_ROWS: usize = 20;

/// A plain-text table (no colours): one row per flow (at most 20, then "… N more flows") with
/// name, src→dst, size, goodput and FCT, then one line of totals.
pub fn terminal_table(results: &RunResults) -> String {
    let header = ["flow", "src→dst", "size", "goodput Gb/s", "FCT"];
    let right = [false, false, true, true, true];
    let rows: Vec<[String; 5]> = results
        .flows
        .iter()
        .take(MAX_ROWS)
        .map(|f| {
            [
                f.name.clone(),
                format!("{}→{}", f.src, f.dst),
                f.size_bytes.map_or("inf".to_string(), human_bytes),
                goodput(f.goodput_gbps),
                f.fct_ns.map_or("-".to_string(), human_ns),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..5).map(width).collect();
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| pad(c, widths[i], right[i]))
            .collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    if results.flows.is_empty() {
        out.push_str("no flows\n");
    } else {
        line(&mut out, &header.map(String::from));
        for r in &rows {
            line(&mut out, r);
        }
        if results.flows.len() > MAX_ROWS {
            let _ = writeln!(out, "… {} more flows", results.flows.len() - MAX_ROWS);
        }
    }
    out.push_str(&slowdown_table(results));
    out.push_str(&pingmesh_lines(results));
    out.push_str(&totals(results));
    if let Some(t) = &results.threads {
        out.push_str(&threads_line(t));
    }
    if results.incomplete {
        let by = results.stopped_by.as_deref().unwrap_or("interrupt");
        let _ = writeln!(out, "run stopped ({by}): results are incomplete");
    }
    out
}

/// How a run split across threads went: its parts (hosts, switches, events each), the
/// lookahead, the windows run and the frames that crossed between parts.
fn threads_line(t: &crate::monitor::ThreadStats) -> String {
    if t.repeated {
        return "threads: every flow completed before the end (sim.stop_when_done), so the \
                run was repeated on one thread to stop where one thread stops; set \
                sim.stop_when_done = false to keep the threads\n"
            .to_string();
    }
    let join = |v: &[u64]| {
        let v: Vec<String> = v.iter().map(|&x| human_count(x as f64)).collect();
        v.join("/")
    };
    let as64 = |v: &[u32]| v.iter().map(|&x| x as u64).collect::<Vec<u64>>();
    let lookahead = t.lookahead_ns.map_or("none".to_string(), human_ns);
    format!(
        "threads {}: hosts {} · switches {} · events {} · lookahead {lookahead} · windows {} · frames across parts {}\n",
        t.hosts.len(),
        join(&as64(&t.hosts)),
        join(&as64(&t.switches)),
        join(&t.events),
        human_count(t.windows as f64),
        human_count(t.cut_frames as f64),
    )
}

/// The totals line, then deadlocks, watchdog actions and every warning.
fn totals(results: &RunResults) -> String {
    let mut out = String::new();
    let (ptx, prx, _) = pfc_totals(results);
    let _ = writeln!(
        out,
        "pauses sent/received {ptx}/{prx} · drops lossless/lossy/ttl/fault {}/{}/{}/{} · ECN marks {} · CNPs {} · events {} ({}/s)",
        results.drops_lossless,
        results.drops_lossy,
        results.drops_ttl,
        results.drops_fault,
        results.ecn_marked,
        results.cnp_tx,
        results.events,
        human_count(events_per_s(results)),
    );
    if let Some(d) = results.deadlocks.first() {
        let _ = writeln!(
            out,
            "deadlocks {} · first: a cycle of {} paused queues formed at {}",
            results.deadlocks.len(),
            d.members.len(),
            human_ns(d.formed_ns),
        );
    }
    if !results.watchdog.is_empty() {
        let count = |e: &str| results.watchdog.iter().filter(|w| w.event == e).count();
        let _ = writeln!(
            out,
            "watchdog: storms detected {} · restored {} · NIC pause-storm errors {}",
            count("storm_detected"),
            count("storm_restored"),
            count("pause_storm_error"),
        );
    }
    for w in &results.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// One line per Pingmesh level: probes, timeouts, RTT p50/p99/p99.9; empty without probes.
fn pingmesh_lines(results: &RunResults) -> String {
    let mut out = String::new();
    let ns = |x: Option<u64>| x.map_or("-".to_string(), human_ns);
    for s in crate::monitor::pingmesh::stats(&results.pingmesh) {
        let _ = writeln!(
            out,
            "pingmesh {}: {} probes, {} timeouts · RTT p50 {} · p99 {} · p99.9 {}",
            s.level.name(),
            s.probes,
            s.timeouts,
            ns(s.p50_ns),
            ns(s.p99_ns),
            ns(s.p999_ns),
        );
    }
    out
}

/// FCT slowdown percentiles, overall and per size bucket (buckets without flows left out); empty
/// when no flow completed with a finite slowdown.
fn slowdown_table(results: &RunResults) -> String {
    let stats = flow_stats(results);
    if stats.slowdown_flows == 0 {
        return String::new();
    }
    let two = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.2}"));
    let mut rows: Vec<[String; 6]> = vec![[
        "FCT slowdown".into(),
        "flows".into(),
        "p50".into(),
        "p95".into(),
        "p99".into(),
        "p99.9".into(),
    ]];
    let pct = |pm| stats.slowdown_at(pm);
    rows.push([
        "all".into(),
        stats.slowdown_flows.to_string(),
        two(pct(500)),
        two(pct(950)),
        two(pct(990)),
        two(pct(999)),
    ]);
    for b in &stats.buckets {
        if b.flows > 0 {
            rows.push([
                b.bucket.label.to_string(),
                b.flows.to_string(),
                two(b.p50),
                two(b.p95),
                two(b.p99),
                two(b.p999),
            ]);
        }
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let cells: Vec<String> = (0..6).map(|i| pad(&r[i], widths[i], i > 0)).collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// Goodput with two decimals ("9.62"), "-" when not a number.
fn goodput(g: f64) -> String {
    if g.is_finite() {
        let s = format!("{g:.2}");
        if s == "-0.00" {
            "0.00".to_string()
        } else {
            s
        }
    } else {
        "-".to_string()
    }
}

fn pad(s: &str, w: usize, right: bool) -> String {
    let fill = " ".repeat(w.saturating_sub(s.chars().count()));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}
