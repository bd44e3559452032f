//! Network topologies: the explicit list form and the generated kinds.

pub mod build;
pub mod def;
pub mod port_loc;
pub mod select;
pub mod spec;
pub mod suggest;
pub use build::{build, check_connected};
pub use def::{ExplicitLink, LinkClass, TopologyDef};
pub use port_loc::PortLocs;
pub use select::{node_by_name, select, select_many};
pub use spec::{HostSpec, LinkSpec, NodeRef, SwitchSpec, Topology};
pub use suggest::suggest;
