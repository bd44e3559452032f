//! Network topologies: the explicit list form and the generated kinds.

pub mod def;
pub mod spec;
pub use def::{ExplicitLink, LinkClass, TopologyDef};
pub use spec::{HostSpec, LinkSpec, NodeRef, SwitchSpec, Topology};
