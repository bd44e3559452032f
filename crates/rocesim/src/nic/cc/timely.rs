//! Timely: placeholder until the algorithm is written (behaves as no congestion control).

use super::{CcContext, CongestionControl};

/// Parameters of Timely.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelyParams {}

/// Per-QP Timely state.
#[derive(Clone, Debug)]
pub struct Timely {}

impl Timely {
    /// A new QP's state.
    pub fn new(_p: &TimelyParams, _ctx: &CcContext) -> Self {
        Timely {}
    }
}

impl CongestionControl for Timely {}
