//! Traffic: flows and the generators that make them.

pub mod cdf;
pub mod cdf_data;
pub mod cdf_file;
pub mod flow;
pub mod generators;
pub mod poisson;
pub mod stream;
pub mod trace;
pub mod workload;
pub use flow::{FlowKind, FlowSpec, Probe};
