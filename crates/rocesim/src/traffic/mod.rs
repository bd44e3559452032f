//! Traffic: flows and the generators that make them.

pub mod cdf;
pub mod flow;
pub mod poisson;
pub use flow::{FlowKind, FlowSpec};
