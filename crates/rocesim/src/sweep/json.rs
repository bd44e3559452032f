//! `sweep.json`: the sweep table as JSON, each run with its overrides in their TOML types.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::table::{Record, Table};
use crate::output::round_sig;

/// `{key: value}` in the given order.
struct Ordered<'a>(Vec<(&'a str, serde_json::Value)>);

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One run of sweep.json.
#[derive(Serialize)]
struct JsonRun<'a> {
    run: usize,
    overrides: Ordered<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<u32>,
    status: String,
    dir: &'a str,
    sim_time_ns: Option<u64>,
    wall_s: Option<f64>,
    events: Option<u64>,
    total_goodput_gbps: Option<f64>,
    pause_tx: Option<u64>,
    drops_lossless: Option<u64>,
    drops_lossy: Option<u64>,
    ecn_marked: Option<u64>,
    cnp_tx: Option<u64>,
    flows: Option<u64>,
    flows_completed: Option<u64>,
    fct_slowdown_p50: Option<f64>,
    fct_slowdown_p99: Option<f64>,
}

/// An optional float rounded to 6 significant digits (JSON), `None` when missing or not finite.
fn json_f64(x: Option<f64>) -> Option<f64> {
    x.map(round_sig).filter(|v| v.is_finite())
}

impl<'a> JsonRun<'a> {
    /// The JSON form of `r`.
    fn new(r: &'a Record) -> JsonRun<'a> {
        let m = r.metrics.as_ref();
        JsonRun {
            run: r.run,
            overrides: Ordered(
                r.overrides
                    .iter()
                    .filter_map(|(k, v)| Some((k.as_str(), serde_json::to_value(v).ok()?)))
                    .collect(),
            ),
            repeat: r.repeat,
            status: r.status.text(),
            dir: &r.dir,
            sim_time_ns: m.map(|m| m.sim_time_ns),
            wall_s: json_f64(m.map(|m| m.wall_s)),
            events: m.map(|m| m.events),
            total_goodput_gbps: json_f64(m.map(|m| m.total_goodput_gbps)),
            pause_tx: m.map(|m| m.pause_tx),
            drops_lossless: m.map(|m| m.drops_lossless),
            drops_lossy: m.map(|m| m.drops_lossy),
            ecn_marked: m.map(|m| m.ecn_marked),
            cnp_tx: m.map(|m| m.cnp_tx),
            flows: m.map(|m| m.flows),
            flows_completed: m.map(|m| m.flows_completed),
            fct_slowdown_p50: json_f64(m.and_then(|m| m.fct_slowdown_p50)),
            fct_slowdown_p99: json_f64(m.and_then(|m| m.fct_slowdown_p99)),
        }
    }
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let records = self.records();
        let runs: Vec<JsonRun> = records.iter().map(JsonRun::new).collect();
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("sweep", &self.sweep.name)?;
        m.serialize_entry("base", &self.sweep.base.display().to_string())?;
        m.serialize_entry("keys", &self.sweep.keys)?;
        m.serialize_entry("runs_total", &self.rows.len())?;
        m.serialize_entry("ok", &self.ok())?;
        m.serialize_entry("failed", &self.failed())?;
        m.serialize_entry("runs", &runs)?;
        m.end()
    }
}
