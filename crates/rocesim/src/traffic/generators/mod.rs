//! Workload generators: each turns its parameters and a seed into a deterministic list of
//! [`FlowSpec`]s. Random choices come from rocesim's seeded streams
//! (`stream(seed, StreamKind::Workload, id)`), so one workload's draws do not depend on
//! another's. The exact HPCC generator of BENCHMARKS.md is [`super::poisson::hpcc_poisson`].
//!
//! `dscp` arguments give each flow's DSCP from its sending host. `after` indices of the
//! returned flows are local to the returned list; the caller offsets them into the scenario's
//! flow list.
//!
//! One file per generator: [`poisson`](fn@poisson), [`incast`](fn@incast), [`permutation`](fn@permutation) and
//! [`all_to_all`], [`tor_to_tor`](fn@tor_to_tor), [`storage_read`](fn@storage_read),
//! [`pingmesh`](fn@pingmesh).

mod incast;
mod permutation;
mod pingmesh;
mod poisson;
mod storage_read;
mod tor_to_tor;

#[cfg(test)]
mod tests;

pub use incast::{incast, Incast};
pub use permutation::{all_to_all, derangement, permutation};
pub use pingmesh::{peers, pingmesh, probe_count, PingLevel, Pingmesh};
pub use poisson::{poisson, Poisson, PoissonArrival, PoissonArrivals};
pub use storage_read::{storage_read, StorageRead};
pub use tor_to_tor::{tor_to_tor, tors_of_pod, GenError, TorToTor};

use super::flow::{FlowKind, FlowSpec};
use crate::engine::rng::{stream, SimRng, StreamKind};
use crate::units::Time;

/// The lowest port of the dynamic range (RFC 6335) from which random UDP source ports are drawn.
pub const SPORT_MIN: u16 = 49152;

/// The random stream of generator `id` (a workload's index) and `sub` (e.g. a host).
pub fn workload_stream(seed: u64, id: u64, sub: u64) -> SimRng {
    stream(seed, StreamKind::Workload, (id << 32) ^ sub)
}

/// A flow of the generators: an RDMA WRITE of `size` bytes (`None`: long-lived) from host
/// `src` to host `dst` starting at `start`, with DSCP `dscp`, no name, limit or dependency.
pub(crate) fn flow(src: u32, dst: u32, size: Option<u64>, start: Time, dscp: u8) -> FlowSpec {
    FlowSpec::new(src, dst, size, start, dscp, FlowKind::RdmaWrite)
}
