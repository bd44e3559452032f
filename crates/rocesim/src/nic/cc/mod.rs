//! Congestion control at the reaction point (the sender NIC), one file per algorithm.
//!
//! Every algorithm implements [`CongestionControl`], whose methods default to doing nothing;
//! [`CcState`] dispatches by enum (no trait objects on the per-packet path).

pub mod none;

use crate::units::{Rate, Time};

/// The hooks a congestion-control algorithm may use. Defaults are no-ops: line rate, no window.
pub trait CongestionControl {
    /// A data packet of `wire` bytes left the NIC.
    fn on_send(&mut self, _now: Time, _wire: u32) {}
    /// An ACK arrived acknowledging `acked_bytes` more payload.
    fn on_ack(&mut self, _now: Time, _acked_bytes: u64) {}
    /// A CNP arrived.
    fn on_cnp(&mut self, _now: Time) {}
    /// Current sending rate, if the algorithm paces (`None` = line rate).
    fn rate(&self) -> Option<Rate> {
        None
    }
    /// Current window in bytes in flight, if the algorithm has one.
    fn window(&self) -> Option<u64> {
        None
    }
}

/// Per-QP congestion-control state, one variant per algorithm.
#[derive(Clone, Debug)]
pub enum CcState {
    /// No congestion control.
    None(none::NoCc),
}

impl CcState {
    /// Dispatch to the algorithm.
    #[inline]
    fn algo(&mut self) -> &mut dyn CongestionControl {
        match self {
            CcState::None(c) => c,
        }
    }
    /// See [`CongestionControl::on_send`].
    #[inline]
    pub fn on_send(&mut self, now: Time, wire: u32) {
        match self {
            CcState::None(c) => c.on_send(now, wire),
        }
    }
    /// See [`CongestionControl::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, now: Time, acked: u64) {
        match self {
            CcState::None(c) => c.on_ack(now, acked),
        }
    }
    /// See [`CongestionControl::on_cnp`].
    pub fn on_cnp(&mut self, now: Time) {
        self.algo().on_cnp(now)
    }
    /// See [`CongestionControl::rate`].
    #[inline]
    pub fn rate(&self) -> Option<Rate> {
        match self {
            CcState::None(c) => c.rate(),
        }
    }
    /// See [`CongestionControl::window`].
    #[inline]
    pub fn window(&self) -> Option<u64> {
        match self {
            CcState::None(c) => c.window(),
        }
    }
}
