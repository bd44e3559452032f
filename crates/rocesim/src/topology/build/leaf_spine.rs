//! Two-tier leaf-spine: every leaf links to every spine; hosts hang under the leaves.

use super::builder::{fail, positive, rate_ok, size_ok, Builder};
use crate::topology::{LinkClass, NodeRef, Topology};

/// A leaf-spine of `leaves` leaves `leaf0..`, `spines` spines `spine0..` and `hpl` hosts per
/// leaf.
pub fn leaf_spine(
    leaves: u32,
    spines: u32,
    hpl: u32,
    host: LinkClass,
    fabric: LinkClass,
) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    positive(&mut errs, "leaf_spine", "leaves", leaves);
    positive(&mut errs, "leaf_spine", "spines", spines);
    positive(&mut errs, "leaf_spine", "hosts_per_leaf", hpl);
    rate_ok(&mut errs, "leaf_spine", "host_link", &host);
    rate_ok(&mut errs, "leaf_spine", "fabric_link", &fabric);
    let (l, s, h) = (leaves as u64, spines as u64, hpl as u64);
    size_ok(&mut errs, "leaf_spine", l * (1 + h) + s + l * s);
    fail(errs)?;
    let mut b = Builder::default();
    for i in 0..leaves {
        b.switch(format!("leaf{i}"), "leaf", None);
    }
    for i in 0..spines {
        b.switch(format!("spine{i}"), "spine", None);
    }
    for l in 0..leaves {
        b.hosts_on(l, hpl, None, host);
    }
    for l in 0..leaves {
        for s in 0..spines {
            b.link(NodeRef::Switch(l), NodeRef::Switch(leaves + s), fabric);
        }
    }
    Ok(b.topo)
}
