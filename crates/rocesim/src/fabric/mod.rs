//! The switching fabric: links, ports, MMU, PFC, scheduling, routing.

pub mod params;
