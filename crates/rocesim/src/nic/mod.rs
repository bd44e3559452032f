//! The RDMA NIC: queue pairs, transport, congestion control, receive pipeline.

pub mod cc;
pub mod host;
pub mod params;
pub mod qp;
pub mod rx_pipeline;
pub mod transport;
