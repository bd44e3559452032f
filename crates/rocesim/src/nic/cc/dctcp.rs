//! Dctcp: placeholder until the algorithm is written (behaves as no congestion control).

use super::{CcContext, CongestionControl};

/// Parameters of Dctcp.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DctcpParams {}

/// Per-QP Dctcp state.
#[derive(Clone, Debug)]
pub struct Dctcp {}

impl Dctcp {
    /// A new QP's state.
    pub fn new(_p: &DctcpParams, _ctx: &CcContext) -> Self {
        Dctcp {}
    }
}

impl CongestionControl for Dctcp {}
