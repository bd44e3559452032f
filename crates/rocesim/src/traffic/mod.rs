//! Traffic: flows and the generators that make them.

pub mod flow;
pub use flow::{FlowKind, FlowSpec};
