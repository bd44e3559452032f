//! Scenario files: parse, check every rule, report all errors with file and key.

pub mod scenario;
pub use scenario::{OutputParams, Scenario, SimParams, TableFormat};
