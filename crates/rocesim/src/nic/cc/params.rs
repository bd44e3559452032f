//! Parameters of every congestion-control algorithm, as resolved from `[nic]` (one set per NIC;
//! the NIC's `cc` key selects which one its QPs use).

use super::{
    dcqcn::DcqcnParams, dctcp::DctcpParams, hpcc::HpccParams, rcm::RcmParams, timely::TimelyParams,
};

/// All algorithms' parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcParams {
    /// `[nic.rcm]`.
    pub rcm: RcmParams,
    /// `[nic.dcqcn]`.
    pub dcqcn: DcqcnParams,
    /// `[nic.hpcc]`.
    pub hpcc: HpccParams,
    /// `[nic.timely]`.
    pub timely: TimelyParams,
    /// `[nic.dctcp]`.
    pub dctcp: DctcpParams,
}
