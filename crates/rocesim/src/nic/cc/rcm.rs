//! Rcm: placeholder until the algorithm is written (behaves as no congestion control).

use super::{CcContext, CongestionControl};

/// Parameters of Rcm.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RcmParams {}

/// Per-QP Rcm state.
#[derive(Clone, Debug)]
pub struct Rcm {}

impl Rcm {
    /// A new QP's state.
    pub fn new(_p: &RcmParams, _ctx: &CcContext) -> Self {
        Rcm {}
    }
}

impl CongestionControl for Rcm {}
