//! Hpcc: placeholder until the algorithm is written (behaves as no congestion control).

use super::{CcContext, CongestionControl};

/// Parameters of Hpcc.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HpccParams {}

/// Per-QP Hpcc state.
#[derive(Clone, Debug)]
pub struct Hpcc {}

impl Hpcc {
    /// A new QP's state.
    pub fn new(_p: &HpccParams, _ctx: &CcContext) -> Self {
        Hpcc {}
    }
}

impl CongestionControl for Hpcc {}
