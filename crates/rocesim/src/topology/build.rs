//! Expands a [`TopologyDef`] into a [`Topology`].

use super::{Topology, TopologyDef};

/// Build the topology a definition describes. Errors name what is wrong (unknown node in a
/// link, a count of zero, an odd fat-tree k, ...), all of them at once.
pub fn build(def: &TopologyDef) -> Result<Topology, Vec<String>> {
    let _ = def;
    Err(vec!["topology builders are not implemented yet".into()])
}
