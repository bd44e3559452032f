//! Network topologies: the explicit list form and the generated kinds.

pub mod build;
pub mod def;
pub mod select;
pub mod spec;
pub use build::build;
pub use def::{ExplicitLink, LinkClass, TopologyDef};
pub use select::select;
pub use spec::{HostSpec, LinkSpec, NodeRef, SwitchSpec, Topology};
