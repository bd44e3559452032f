//! What the generated topologies share: a `Builder` that accumulates hosts, switches and
//! links, and the checks of their parameters.

use crate::topology::{HostSpec, LinkClass, LinkSpec, NodeRef, SwitchSpec, Topology};

/// Upper bound on the number of nodes (hosts plus switches) a generated topology may have; a
/// guard against a typo such as `k = 4000` exhausting memory.
pub const MAX_NODES: u64 = 1 << 24;

/// Accumulates hosts, switches and links of a generated topology.
#[derive(Default)]
pub(crate) struct Builder {
    /// What was built so far.
    pub topo: Topology,
}

impl Builder {
    /// Adds a switch; returns its index.
    pub fn switch(&mut self, name: String, role: &str, pod: Option<u32>) -> u32 {
        self.topo.switches.push(SwitchSpec {
            name,
            role: role.to_string(),
            pod,
        });
        (self.topo.switches.len() - 1) as u32
    }

    /// Adds a link of class `class` between `a` and `b`.
    pub fn link(&mut self, a: NodeRef, b: NodeRef, class: LinkClass) {
        self.topo.links.push(LinkSpec {
            a,
            b,
            rate: class.rate,
            delay: class.delay,
        });
    }

    /// Add `n` hosts `h<id>` attached to switch `sw`, each with one link (host end first).
    pub fn hosts_on(&mut self, sw: u32, n: u32, pod: Option<u32>, class: LinkClass) {
        for _ in 0..n {
            let id = self.topo.hosts.len() as u32;
            self.topo.hosts.push(HostSpec {
                name: format!("h{id}"),
                pod,
            });
            self.link(NodeRef::Host(id), NodeRef::Switch(sw), class);
        }
    }
}

/// `Err(errs)` when any error was found.
pub(crate) fn fail(errs: Vec<String>) -> Result<(), Vec<String>> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

/// Checks that count `key` of a `kind` topology is at least 1.
pub(crate) fn positive(errs: &mut Vec<String>, kind: &str, key: &str, v: u32) {
    if v == 0 {
        errs.push(format!("{kind}: {key} = 0; it must be at least 1"));
    }
}

/// Checks that link class `key` of a `kind` topology has a non-zero rate.
pub(crate) fn rate_ok(errs: &mut Vec<String>, kind: &str, key: &str, c: &LinkClass) {
    if c.rate.bps() == 0 {
        errs.push(format!("{kind}: {key} has a rate of zero"));
    }
}

/// Checks that a `kind` topology of `nodes` nodes is within [`MAX_NODES`].
pub(crate) fn size_ok(errs: &mut Vec<String>, kind: &str, nodes: u64) {
    if nodes > MAX_NODES {
        errs.push(format!(
            "{kind}: {nodes} nodes is more than the {MAX_NODES} a topology may have"
        ));
    }
}
