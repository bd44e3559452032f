//! The RDMA NIC: queue pairs, transport, congestion control, receive pipeline.

pub mod params;
