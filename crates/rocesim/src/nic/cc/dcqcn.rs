//! Dcqcn: placeholder until the algorithm is written (behaves as no congestion control).

use super::{CcContext, CongestionControl};

/// Parameters of Dcqcn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DcqcnParams {}

/// Per-QP Dcqcn state.
#[derive(Clone, Debug)]
pub struct Dcqcn {}

impl Dcqcn {
    /// A new QP's state.
    pub fn new(_p: &DcqcnParams, _ctx: &CcContext) -> Self {
        Dcqcn {}
    }
}

impl CongestionControl for Dcqcn {}
