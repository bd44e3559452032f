//! No congestion control: the QP sends at line rate and only PFC holds it back.

use super::CongestionControl;

/// The "none" algorithm: every hook is the default no-op.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCc;

impl CongestionControl for NoCc {}
