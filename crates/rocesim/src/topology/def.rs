//! What the scenario says about the topology, before it is expanded into a [`Topology`](super::Topology).

use crate::units::{Rate, Time};

/// Rate and propagation delay of a link class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkClass {
    /// Line rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
}

/// An explicit link between two named nodes, with optional overrides of the default link class.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplicitLink {
    /// Name of one end.
    pub a: String,
    /// Name of the other end.
    pub b: String,
    /// Rate override.
    pub rate: Option<Rate>,
    /// Delay override.
    pub delay: Option<Time>,
}

/// The `[topology]` section, typed.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologyDef {
    /// Explicit lists of hosts, switches and links.
    Explicit {
        /// Host names.
        hosts: Vec<String>,
        /// Switch names.
        switches: Vec<String>,
        /// Links.
        links: Vec<ExplicitLink>,
        /// Default link class.
        link: LinkClass,
    },
    /// One switch `sw0` with `hosts` hosts.
    Star {
        /// Number of hosts.
        hosts: u32,
        /// Link class.
        link: LinkClass,
    },
    /// Two switches `sw0`–`sw1` joined by one link, `hosts_per_switch` hosts on each.
    Dumbbell {
        /// Hosts on each side.
        hosts_per_switch: u32,
        /// Host links.
        link: LinkClass,
        /// The middle link (defaults to `link`).
        fabric_link: LinkClass,
    },
    /// `switches` switches in a line `sw0`–`sw1`–…, `hosts_per_switch` hosts on each.
    Chain {
        /// Number of switches.
        switches: u32,
        /// Hosts per switch.
        hosts_per_switch: u32,
        /// Host links.
        link: LinkClass,
        /// Switch-to-switch links.
        fabric_link: LinkClass,
    },
    /// A chain closed into a ring (`sw{n-1}`–`sw0`).
    Ring {
        /// Number of switches.
        switches: u32,
        /// Hosts per switch.
        hosts_per_switch: u32,
        /// Host links.
        link: LinkClass,
        /// Switch-to-switch links.
        fabric_link: LinkClass,
    },
    /// Two-tier leaf-spine: every leaf connects to every spine.
    LeafSpine {
        /// Number of leaves (`leaf0..`).
        leaves: u32,
        /// Number of spines (`spine0..`).
        spines: u32,
        /// Hosts per leaf.
        hosts_per_leaf: u32,
        /// Host links.
        host_link: LinkClass,
        /// Leaf–spine links.
        fabric_link: LinkClass,
    },
    /// k-ary fat-tree (Al-Fares numbering, BENCHMARKS.md): `edge`, `agg`, `core` switches.
    FatTree {
        /// Port count k (even).
        k: u32,
        /// Host links.
        host_link: LinkClass,
        /// Switch links.
        fabric_link: LinkClass,
        /// Hosts per edge = oversubscription × k/2 (1 = full bisection).
        oversubscription: u32,
    },
    /// Three-tier Clos with podsets (Guo et al. 2016, Fig. 7): ToRs, leaves per podset, spines.
    Clos3 {
        /// Number of podsets.
        podsets: u32,
        /// ToRs per podset.
        tors_per_podset: u32,
        /// Leaves per podset; every ToR connects to every leaf of its podset.
        leaves_per_podset: u32,
        /// Spines; spines are split evenly among the leaf positions (leaf j of every podset
        /// connects to spines j·S/L .. (j+1)·S/L − 1).
        spines: u32,
        /// Hosts per ToR.
        hosts_per_tor: u32,
        /// Host links.
        host_link: LinkClass,
        /// Switch links.
        fabric_link: LinkClass,
    },
}
