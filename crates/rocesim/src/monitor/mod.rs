//! Measurement: counters, samplers, pause log, results.

pub mod congestion;
pub mod counters;
pub mod failures;
pub mod results;
pub use counters::{FlowCounters, PortPrioCounters, TxCounters};
pub use results::*;
