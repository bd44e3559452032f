//! Measurement: counters, samplers, pause log, results.

pub mod results;
pub use results::*;
