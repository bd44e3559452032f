//! Resuming a sweep: a run whose directory holds a complete summary.json (one that parses and
//! is not `incomplete`) is not run again; its headline numbers are read back from that file.

use std::path::Path;

use serde_json::Value;

use crate::output::Headline;

/// The headline numbers of the finished run in `dir`, read from its summary.json; `None` when
/// the file is missing, unreadable, partial (`"incomplete": true`) or lacks a number. Floats
/// are those of summary.json, rounded to 6 significant digits.
pub fn completed_run(dir: &Path) -> Option<Headline> {
    let text = std::fs::read_to_string(dir.join("summary.json")).ok()?;
    let s: Value = serde_json::from_str(&text).ok()?;
    if s.get("incomplete")?.as_bool()? {
        return None;
    }
    from_summary(&s)
}

/// The [`Headline`] of a parsed summary.json (see docs/results.md for its keys).
fn from_summary(s: &Value) -> Option<Headline> {
    let u = |v: &Value| v.as_u64();
    Some(Headline {
        sim_time_ns: u(&s["sim_time_ns"])?,
        wall_s: s["wall_s"].as_f64()?,
        events: u(&s["events"])?,
        total_goodput_gbps: s["total_goodput_gbps"].as_f64()?,
        pause_tx: u(&s["pfc"]["pause_tx"])?,
        drops_lossless: u(&s["drops"]["lossless"])?,
        drops_lossy: u(&s["drops"]["lossy"])?,
        ecn_marked: u(&s["ecn_marked"])?,
        cnp_tx: u(&s["cnp_tx"])?,
        flows: u(&s["flows"]["count"])?,
        flows_completed: u(&s["flows"]["completed"])?,
        fct_slowdown_p50: s["fct_slowdown"]["p50"].as_f64(),
        fct_slowdown_p99: s["fct_slowdown"]["p99"].as_f64(),
    })
}
