//! A host: one NIC port, the queue pairs it sends on, and its receive pipeline.

use super::rx_pipeline::RxPipeline;
use crate::units::Time;

/// A host NIC.
#[derive(Clone, Debug)]
pub struct Host {
    /// Global id of its port.
    pub port: u32,
    /// Flows this NIC is sending (started, not yet fully acknowledged), served round robin.
    pub active: Vec<u32>,
    /// Round-robin position in `active`.
    pub rr: usize,
    /// When a pending NicWake fires (`NEVER` = none pending).
    pub wake_at: Time,
    /// The receive pipeline.
    pub rx: RxPipeline,
    /// Bitmask of PFC-enabled priorities.
    pub pfc_enable: u8,
    /// Quanta of the NIC's pause frames.
    pub pfc_quanta: u16,
}
