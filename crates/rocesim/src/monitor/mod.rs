//! Measurement: counters, samplers, pause log, results.

pub mod counters;
pub mod results;
pub use counters::{FlowCounters, PortPrioCounters};
pub use results::*;
