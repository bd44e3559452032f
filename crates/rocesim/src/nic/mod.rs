//! The RDMA NIC: the `Nic` component (`device`), its QP scheduler (`sender`), requester and
//! responder sides of the transport, congestion control (`cc/`, one file per algorithm), the
//! receive pipeline, the storm guard, the connection table, and TCP for the lossy classes
//! (`tcp/`).

pub mod bitmap;
pub mod bitmap_host;
pub mod cache;
pub mod cc;
pub mod conn;
pub mod device;
pub mod irn;
pub mod isolation;
pub mod memory;
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
pub mod tcp;
pub mod transport;
pub mod watchdog;
