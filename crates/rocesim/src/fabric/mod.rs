//! The switching fabric: links, ports, MMU, PFC, scheduling, routing.

pub mod headroom;
pub mod link;
pub mod mmu;
pub mod params;
pub mod pfc;
pub mod port;
pub mod routing;
pub mod scheduler;
