//! The built topology: named hosts and switches and the links between them.
//!
//! Every topology kind (explicit list, star, dumbbell, chain, ring, leaf-spine, fat-tree,
//! 3-tier Clos) is expanded into this one flat form before the simulator is built.

use crate::units::{Rate, Time};

/// One end of a link: a host or a switch, by index into [`Topology::hosts`] or
/// [`Topology::switches`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeRef {
    /// A host (an RDMA NIC with one port).
    Host(u32),
    /// A switch.
    Switch(u32),
}

/// A host: one RDMA NIC with a single port.
#[derive(Clone, Debug, PartialEq)]
pub struct HostSpec {
    /// Name used in scenario files and results (`h0`, `A`, ...).
    pub name: String,
    /// Group (pod or podset) index, for `"pod1/*"` selectors; `None` in flat topologies.
    pub pod: Option<u32>,
}

/// A switch.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchSpec {
    /// Name used in scenario files and results (`tor0`, `leaf3`, `spine0`, `edge0`, `S1`, ...).
    pub name: String,
    /// Role for `[switch.role.<role>]` overrides: `tor`, `leaf`, `spine`, `edge`, `agg`, `core`,
    /// or `switch` for explicit and single-tier topologies.
    pub role: String,
    /// Group (pod or podset) index, if the kind has one.
    pub pod: Option<u32>,
}

/// A full-duplex link: two unidirectional channels of the same rate and propagation delay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// One end.
    pub a: NodeRef,
    /// The other end.
    pub b: NodeRef,
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
}

/// A built topology.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Hosts, indexed by host id.
    pub hosts: Vec<HostSpec>,
    /// Switches, indexed by switch id.
    pub switches: Vec<SwitchSpec>,
    /// Links in declaration order; a node's ports are numbered in the order its links appear.
    pub links: Vec<LinkSpec>,
}
