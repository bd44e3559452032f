//! The result tables as Apache Arrow record batches (feature `arrow`): the in-memory form that
//! the Python bindings hand over without copying and that columnar writers (Parquet) consume.
//!
//! Each table has the columns of its CSV file, in the same order and with the same names (see
//! `docs/results.md`); integers keep their width (`port` is `UInt32`, `prio` `UInt8`), floats
//! are `Float64` at full precision (the CSV files round them to 6 decimals), an empty CSV cell is
//! a null. Every field carries its meaning in its metadata under `description` and, when it has
//! one, its unit under `unit` (from [`super::columns`]). The batches are built once per run, column by column, from
//! [`RunResults`].

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Float64Array, RecordBatch, StringArray, UInt16Array, UInt32Array, UInt64Array,
    UInt8Array,
};
use arrow_schema::{ArrowError, Field, Schema};

use super::columns::{self, Column};
use super::link_rows;
use super::tables::dir_str;
use crate::monitor::RunResults;

/// Every table, by name, with the result file it mirrors (relative to the result directory).
pub const ARROW_TABLES: [(&str, &str); 15] = [
    ("flows", "flows.csv"),
    ("tcp_flows", "tcp_flows.csv"),
    ("ports", "ports.csv"),
    ("port_queues", "port_queues.csv"),
    ("links", "links.csv"),
    ("pfc", "pfc.csv"),
    ("pause_intervals", "pause_intervals.csv"),
    ("throughput", "timeseries/throughput.csv"),
    ("queues", "timeseries/queues.csv"),
    ("rates", "timeseries/rates.csv"),
    ("deadlocks", "deadlocks.csv"),
    ("pingmesh", "pingmesh.csv"),
    ("nics", "nics.csv"),
    ("isolation", "isolation.csv"),
    ("counters", "timeseries/counters.csv"),
];

/// Columns of one table under construction, in order, named by the table's declaration.
struct Cols {
    columns: &'static [Column],
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
}

impl Cols {
    fn new(columns: &'static [Column]) -> Cols {
        Cols {
            columns,
            fields: Vec::with_capacity(columns.len()),
            arrays: Vec::with_capacity(columns.len()),
        }
    }

    /// Appends the next column (named, with its unit and meaning, by the declaration).
    fn push(mut self, array: ArrayRef) -> Cols {
        let Some(c) = self.columns.get(self.fields.len()) else {
            // Reported by `batch`.
            self.fields
                .push(Field::new("extra", array.data_type().clone(), true));
            self.arrays.push(array);
            return self;
        };
        let mut meta = HashMap::from([("description".to_string(), c.description.to_string())]);
        if !c.unit.is_empty() {
            meta.insert("unit".to_string(), c.unit.to_string());
        }
        let field = Field::new(c.name, array.data_type().clone(), can_be_null(c.name));
        self.fields.push(field.with_metadata(meta));
        self.arrays.push(array);
        self
    }

    fn u64(self, v: impl Iterator<Item = u64>) -> Cols {
        self.push(Arc::new(UInt64Array::from_iter_values(v)))
    }
    fn opt_u64(self, v: impl Iterator<Item = Option<u64>>) -> Cols {
        self.push(Arc::new(v.collect::<UInt64Array>()))
    }
    fn u32(self, v: impl Iterator<Item = u32>) -> Cols {
        self.push(Arc::new(UInt32Array::from_iter_values(v)))
    }
    fn u16(self, v: impl Iterator<Item = u16>) -> Cols {
        self.push(Arc::new(UInt16Array::from_iter_values(v)))
    }
    fn u8(self, v: impl Iterator<Item = u8>) -> Cols {
        self.push(Arc::new(UInt8Array::from_iter_values(v)))
    }
    fn f64(self, v: impl Iterator<Item = f64>) -> Cols {
        self.push(Arc::new(Float64Array::from_iter_values(v)))
    }
    fn opt_f64(self, v: impl Iterator<Item = Option<f64>>) -> Cols {
        self.push(Arc::new(v.collect::<Float64Array>()))
    }
    fn str<'a>(self, v: impl Iterator<Item = &'a str>) -> Cols {
        self.push(Arc::new(v.map(Some).collect::<StringArray>()))
    }
    fn opt_str<'a>(self, v: impl Iterator<Item = Option<&'a str>>) -> Cols {
        self.push(Arc::new(v.collect::<StringArray>()))
    }

    /// The record batch; fails when a column is missing or its length differs.
    fn batch(self) -> Result<RecordBatch, ArrowError> {
        if self.fields.len() != self.columns.len() {
            return Err(ArrowError::SchemaError(format!(
                "{} columns built for a table of {}",
                self.fields.len(),
                self.columns.len()
            )));
        }
        RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.arrays)
    }
}

/// True for the columns whose CSV cell may be empty: nullable in every run's schema, so that
/// the schema does not depend on what one run holds.
fn can_be_null(name: &str) -> bool {
    matches!(
        name,
        "size_bytes"
            | "end_ns"
            | "acked_ns"
            | "delivered_ns"
            | "fct_ns"
            | "ideal_fct_ns"
            | "slowdown"
            | "tx_gbps"
            | "utilisation"
            | "rate_gbps"
            | "rtt_ns"
            | "error"
    )
}

/// Every table of `results`, in [`ARROW_TABLES`] order, as `(name, batch)`.
pub fn arrow_tables(results: &RunResults) -> Result<Vec<(&'static str, RecordBatch)>, ArrowError> {
    (ARROW_TABLES.iter())
        .map(|&(name, _)| Ok((name, arrow_table(results, name)?)))
        .collect()
}

/// Table `name` (a name of [`ARROW_TABLES`]) as a batch; an unknown name gives an error. The
/// writers build one table at a time, so the big ones (flows) are not held together.
pub fn arrow_table(results: &RunResults, name: &str) -> Result<RecordBatch, ArrowError> {
    match name {
        "flows" => flows(results),
        "tcp_flows" => tcp_flows(results),
        "ports" => ports(results),
        "port_queues" => port_queues(results),
        "links" => links(results),
        "pfc" => pfc(results),
        "pause_intervals" => pause_intervals(results),
        "throughput" => throughput(results),
        "queues" => queues(results),
        "rates" => rates(results),
        "deadlocks" => deadlocks(results),
        "pingmesh" => pingmesh(results),
        "nics" => nics(results),
        "isolation" => isolation(results),
        "counters" => counters(results),
        other => Err(ArrowError::InvalidArgumentError(format!(
            "no result table `{other}`"
        ))),
    }
}

/// flows.csv as a batch.
pub fn flows(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    if !r.flows.is_stored() {
        return flow_rows(r.flows.held_rows());
    }
    let rows: Vec<_> = r.flows.iter().map(std::borrow::Cow::into_owned).collect();
    flow_rows(&rows)
}

/// flows.parquet is written in batches of this many rows (its bytes depend on the batches it
/// is given, so this stays what it was when the file was written in one batch up to it).
pub const FLOW_CHUNK: usize = 64 * 1024;

/// flows.csv is written in batches of this many rows (its bytes do not depend on them).
pub const CSV_FLOW_CHUNK: usize = 8 * 1024;

/// The flows.csv rows `f` (a chunk of a run's flows) as a batch.
pub fn flow_rows(f: &[crate::monitor::FlowResult]) -> Result<RecordBatch, ArrowError> {
    Cols::new(columns::FLOWS)
        .u32(f.iter().map(|f| f.flow_id))
        .str(f.iter().map(|f| f.name.as_str()))
        .str(f.iter().map(|f| &*f.src))
        .str(f.iter().map(|f| &*f.dst))
        .opt_u64(f.iter().map(|f| f.size_bytes))
        .u64(f.iter().map(|f| f.start_ns))
        .opt_u64(f.iter().map(|f| f.end_ns))
        .opt_u64(f.iter().map(|f| f.acked_ns))
        .opt_u64(f.iter().map(|f| f.delivered_ns))
        .opt_u64(f.iter().map(|f| f.fct_ns))
        .opt_u64(f.iter().map(|f| f.ideal_fct_ns))
        .opt_f64(f.iter().map(|f| f.slowdown))
        .u64(f.iter().map(|f| f.bytes_delivered))
        .f64(f.iter().map(|f| f.goodput_gbps))
        .f64(f.iter().map(|f| f.goodput_active_gbps))
        .u64(f.iter().map(|f| f.retx_packets))
        .u64(f.iter().map(|f| f.cnp_rx))
        .u64(f.iter().map(|f| f.ecn_marked))
        .u64(f.iter().map(|f| f.tx_bytes))
        .u64(f.iter().map(|f| f.discarded_bytes))
        .u64(f.iter().map(|f| f.dropped_bytes))
        .u64(f.iter().map(|f| f.inflight_bytes))
        .batch()
}

/// tcp_flows.csv as a batch (no rows without TCP flows).
pub fn tcp_flows(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let f = &r.tcp;
    Cols::new(columns::TCP_FLOWS)
        .u32(f.iter().map(|f| f.flow_id))
        .str(f.iter().map(|f| f.name.as_str()))
        .str(f.iter().map(|f| f.cc.as_str()))
        .f64(f.iter().map(|f| f.goodput_gbps))
        .u64(f.iter().map(|f| f.retx_packets))
        .u64(f.iter().map(|f| f.fast_retransmits))
        .u64(f.iter().map(|f| f.timeouts))
        .batch()
}

/// nics.csv as a batch (no rows when no NIC models its caches or loss recovery).
pub fn nics(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let n = &r.nics;
    Cols::new(columns::NICS)
        .str(n.iter().map(|n| n.node.as_str()))
        .u64(n.iter().map(|n| n.qpc_hits))
        .u64(n.iter().map(|n| n.qpc_misses))
        .u64(n.iter().map(|n| n.wqe_hits))
        .u64(n.iter().map(|n| n.wqe_misses))
        .u64(n.iter().map(|n| n.mtt_hits))
        .u64(n.iter().map(|n| n.mtt_misses))
        .u64(n.iter().map(|n| n.tx_stall_ns))
        .u64(n.iter().map(|n| n.rx_stall_ns))
        .u64(n.iter().map(|n| n.pause_tx))
        .u64(n.iter().map(|n| n.pausing_ns))
        .u64(n.iter().map(|n| n.paused_ns))
        .u64(n.iter().map(|n| n.retx_packets))
        .u64(n.iter().map(|n| n.retx_timeout))
        .u64(n.iter().map(|n| n.retx_nack))
        .u64(n.iter().map(|n| n.retx_selective))
        .u64(n.iter().map(|n| n.ooo_rx))
        .u64(n.iter().map(|n| n.bitmap_host_accesses))
        .batch()
}

/// isolation.csv as a batch (no rows when congestion isolation is off).
pub fn isolation(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let e: &[_] = r.isolation.as_ref().map_or(&[], |i| &i.events);
    Cols::new(columns::ISOLATION)
        .u64(e.iter().map(|e| e.time_ns))
        .str(e.iter().map(|e| e.switch.as_str()))
        .u32(e.iter().map(|e| e.port))
        .str(e.iter().map(|e| e.flow.as_str()))
        .str(e.iter().map(|e| e.event))
        .batch()
}

/// ports.csv as a batch (without the `cfq` column that congestion isolation adds).
pub fn ports(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let p = &r.ports;
    Cols::new(columns::PORTS)
        .str(p.iter().map(|p| p.node.as_str()))
        .u32(p.iter().map(|p| p.port))
        .str(p.iter().map(|p| p.peer.as_str()))
        .u8(p.iter().map(|p| p.prio))
        .u64(p.iter().map(|p| p.tx_packets))
        .u64(p.iter().map(|p| p.tx_bytes))
        .u64(p.iter().map(|p| p.rx_packets))
        .u64(p.iter().map(|p| p.rx_bytes))
        .u64(p.iter().map(|p| p.drops))
        .u64(p.iter().map(|p| p.pause_tx))
        .u64(p.iter().map(|p| p.pause_rx))
        .u64(p.iter().map(|p| p.paused_ns))
        .batch()
}

/// port_queues.csv as a batch.
pub fn port_queues(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let q = &r.port_queues;
    Cols::new(columns::PORT_QUEUES)
        .str(q.iter().map(|q| q.node.as_str()))
        .u32(q.iter().map(|q| q.port))
        .str(q.iter().map(|q| q.peer.as_str()))
        .u8(q.iter().map(|q| q.queue))
        .u64(q.iter().map(|q| q.ecn_marked))
        .u64(q.iter().map(|q| q.max_queue_bytes))
        .batch()
}

/// links.csv as a batch (`rate_gbps` = line rate in Gb/s).
pub fn links(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let l = link_rows(r);
    Cols::new(columns::LINKS)
        .str(l.iter().map(|l| l.node.as_str()))
        .u32(l.iter().map(|l| l.port))
        .str(l.iter().map(|l| l.peer.as_str()))
        .f64(l.iter().map(|l| l.rate_bps as f64 * 1e-9))
        .opt_f64(l.iter().map(|l| l.tx_gbps))
        .opt_f64(l.iter().map(|l| l.utilisation))
        .batch()
}

/// pfc.csv as a batch (`direction` is `tx` or `rx`).
pub fn pfc(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let p = &r.pfc_log;
    Cols::new(columns::PFC)
        .u64(p.iter().map(|p| p.time_ns))
        .str(p.iter().map(|p| p.node.as_str()))
        .u32(p.iter().map(|p| p.port))
        .u8(p.iter().map(|p| p.prio))
        .str(p.iter().map(|p| dir_str(p.direction)))
        .u16(p.iter().map(|p| p.quanta))
        .batch()
}

/// pause_intervals.csv as a batch.
pub fn pause_intervals(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let p = &r.pause_intervals;
    Cols::new(columns::PAUSE_INTERVALS)
        .str(p.iter().map(|p| p.node.as_str()))
        .u32(p.iter().map(|p| p.port))
        .u8(p.iter().map(|p| p.prio))
        .u64(p.iter().map(|p| p.start_ns))
        .u64(p.iter().map(|p| p.duration_ns))
        .batch()
}

/// timeseries/throughput.csv as a batch.
pub fn throughput(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let s = &r.throughput;
    Cols::new(columns::THROUGHPUT)
        .u64(s.iter().map(|s| s.time_ns))
        .u32(s.iter().map(|s| s.flow_id))
        .f64(s.iter().map(|s| s.gbps))
        .batch()
}

/// timeseries/queues.csv as a batch.
pub fn queues(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let s = &r.queues;
    Cols::new(columns::QUEUES)
        .u64(s.iter().map(|s| s.time_ns))
        .str(s.iter().map(|s| s.node.as_str()))
        .u32(s.iter().map(|s| s.port))
        .u8(s.iter().map(|s| s.queue))
        .u64(s.iter().map(|s| s.bytes))
        .batch()
}

/// timeseries/rates.csv as a batch.
pub fn rates(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let s = &r.rates;
    Cols::new(columns::RATES)
        .u64(s.iter().map(|s| s.time_ns))
        .u32(s.iter().map(|s| s.flow_id))
        .opt_f64(s.iter().map(|s| s.rate_gbps))
        .u64(s.iter().map(|s| s.window_bytes))
        .batch()
}

/// deadlocks.csv as a batch: one row per member of each cycle.
pub fn deadlocks(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let rows: Vec<_> = r
        .deadlocks
        .iter()
        .enumerate()
        .flat_map(|(i, d)| d.members.iter().enumerate().map(move |(j, m)| (i, d, j, m)))
        .collect();
    Cols::new(columns::DEADLOCKS)
        .u64(rows.iter().map(|r| r.0 as u64))
        .u64(rows.iter().map(|r| r.1.formed_ns))
        .u64(rows.iter().map(|r| r.1.detected_ns))
        .u64(rows.iter().map(|r| r.2 as u64))
        .str(rows.iter().map(|r| r.3.node.as_str()))
        .u32(rows.iter().map(|r| r.3.port))
        .u8(rows.iter().map(|r| r.3.prio))
        .batch()
}

/// pingmesh.csv as a batch (`rtt_ns` null on an error, `error` null on success).
pub fn pingmesh(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let p = &r.pingmesh;
    Cols::new(columns::PINGMESH)
        .u64(p.iter().map(|p| p.time_ns))
        .str(p.iter().map(|p| p.src.as_str()))
        .str(p.iter().map(|p| p.dst.as_str()))
        .str(p.iter().map(|p| p.level))
        .opt_u64(p.iter().map(|p| p.rtt_ns))
        .opt_str(p.iter().map(|p| p.error))
        .batch()
}

/// timeseries/counters.csv as a batch (SONiC's COUNTERS_DB names as column names).
pub fn counters(r: &RunResults) -> Result<RecordBatch, ArrowError> {
    let c = &r.counters;
    Cols::new(columns::COUNTERS)
        .u64(c.iter().map(|c| c.time_ns))
        .str(c.iter().map(|c| c.node.as_str()))
        .u32(c.iter().map(|c| c.port))
        .str(c.iter().map(|c| c.peer.as_str()))
        .u8(c.iter().map(|c| c.prio))
        .u8(c.iter().map(|c| c.queue))
        .u64(c.iter().map(|c| c.pfc_rx_pkts))
        .u64(c.iter().map(|c| c.pfc_tx_pkts))
        .u64(c.iter().map(|c| c.pfc_rx_pause_duration_us))
        .u64(c.iter().map(|c| c.queue_packets))
        .u64(c.iter().map(|c| c.queue_bytes))
        .u64(c.iter().map(|c| c.queue_curr_occupancy_bytes))
        .u64(c.iter().map(|c| c.queue_watermark_bytes))
        .u64(c.iter().map(|c| c.pg_curr_occupancy_bytes))
        .u64(c.iter().map(|c| c.pg_xoff_room_curr_occupancy_bytes))
        .u64(c.iter().map(|c| c.pg_dropped_packets))
        .batch()
}
