//! rocesim: a fast packet-level simulator of RoCEv2 (RDMA over Converged Ethernet) datacenter
//! networks: lossless Ethernet with PFC (IEEE 802.1Qbb), shared-buffer switches, RDMA NICs,
//! congestion control, and the failures of lossless fabrics.
//!
//! The layout mirrors the network: [`engine`] runs events; [`fabric`] holds links, ports, the
//! MMU, PFC and routing; [`nic`] holds queue pairs and transports; [`topology`], [`traffic`] and
//! [`faults`] describe what to build; [`config`] parses scenario files; [`monitor`] records and
//! [`output`] writes results; [`run`] runs one scenario end to end and [`sweep`] runs many.
#![warn(missing_docs)]
#![warn(clippy::too_many_lines)]

pub mod bench;
pub mod config;
pub mod engine;
pub mod fabric;
pub mod faults;
pub mod ids;
pub mod lint;
pub mod monitor;
pub mod nic;
pub mod output;
pub mod packet;
pub mod run;
pub mod sim;
pub mod sweep;
pub mod topology;
pub mod traffic;
pub mod units;
pub use sim::Sim;
