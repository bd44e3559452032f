//! Faults: NIC RX stalls, link failures, packet loss.

pub mod spec;
pub use spec::{FaultKind, FaultSpec};
