//! The switching fabric: links, ports, the switch and its mechanisms (MMU, PFC, ECN marking,
//! scheduling, forwarding, watchdog), routing, and the INT records packets collect.

pub mod at_once;
pub mod dscp;
pub mod ecn;
pub mod egress_fifo;
pub mod forwarding;
pub mod headroom;
pub mod int;
pub mod isolation;
pub mod isolation_params;
pub mod link;
pub mod mmu;
pub mod ns3_hash;
pub mod params;
pub mod pfc;
pub mod port;
pub mod queue_entry;
pub mod route_ahead;
pub mod routing;
pub mod scheduler;
pub mod switch;
pub mod watchdog;
pub mod xoff_table;
