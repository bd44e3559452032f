//! The RDMA NIC: the `Nic` component (`device`), its QP scheduler (`sender`), requester and
//! responder sides of the transport, congestion control (`cc/`, one file per algorithm), the
//! receive pipeline, the storm guard, and the connection table.

pub mod bitmap;
pub mod bitmap_host;
pub mod cc;
pub mod conn;
pub mod device;
pub mod irn;
pub mod params;
pub mod qp;
pub mod qp_state;
pub mod rank_set;
pub mod ready;
#[cfg(test)]
mod ready_tests;
pub mod recovery_stats;
pub mod requester;
pub mod responder;
pub mod rx_pipeline;
pub mod selective;
pub mod sender;
pub mod transport;
pub mod watchdog;
