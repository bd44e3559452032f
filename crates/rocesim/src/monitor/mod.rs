//! Measurement: the live recorder components write into, samplers, the deadlock detector,
//! congestion statistics, and the result records a run reports.

pub mod congestion;
pub mod counter_sampler;
pub mod counters;
pub mod deadlock;
pub mod failures;
pub mod flow_table;
pub mod isolation;
pub mod merge;
pub mod pingmesh;
pub mod recorder;
pub mod results;
pub mod sampler;
pub mod split_samples;
pub mod view;
pub use counters::{FlowCounters, PortPrioCounters, QueueCounters, TxCounters};
pub use flow_table::FlowTable;
pub use isolation::{IsoCounters, IsoEvent, IsoLogEntry, IsolationRecord, IsolationResults};
pub use recorder::{FlowRecord, Monitor, Totals};
pub use results::*;
