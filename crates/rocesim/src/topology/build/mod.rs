//! Expands a [`TopologyDef`] into a [`Topology`].
//!
//! Naming and numbering (SCENARIO.md, BENCHMARKS.md):
//! - hosts are `h0..`, numbered switch by switch (the hosts under the first ToR/edge/leaf come
//!   first);
//! - star has one switch `sw0`; dumbbell, chain and ring have `sw0..`; all with role `switch`;
//! - leaf-spine: `leaf0..`, `spine0..` (roles `leaf`, `spine`);
//! - fat-tree: `edge0..`, `agg0..`, `core0..` (roles `edge`, `agg`, `core`; hosts, edges and
//!   aggregation switches carry their pod index);
//! - 3-tier Clos: `tor0..`, `leaf0..` numbered across podsets (podset p holds tors
//!   `p·T .. p·T+T−1`), `spine0..` (roles `tor`, `leaf`, `spine`; pod = podset index).
//!
//! Switches are numbered tier by tier in the order above (e.g. fat-tree edges, then aggs, then
//! cores). Links are emitted host links first (switch by switch, in host order), then fabric
//! links from the lower tier upward, so a switch's ports are its hosts first, then its uplinks,
//! then its downlinks from the tier above in the order of the lower-tier switches.
//!
//! One file per kind: [`mod@line`] (star, dumbbell, chain, ring), [`leaf_spine`], [`clos`]
//! (fat-tree and 3-tier Clos), [`explicit`] (the list form); [`builder`] holds what they share
//! and [`connected`] the connectivity check.

pub mod builder;
pub mod clos;
pub mod connected;
pub mod explicit;
pub mod leaf_spine;
pub mod line;

#[cfg(test)]
mod tests;

pub use builder::MAX_NODES;
pub use connected::check_connected;

use super::{Topology, TopologyDef};

/// Build the topology a definition describes. Errors name what is wrong (unknown node in a
/// link, a count of zero, an odd fat-tree k, ...), all of them at once. Links in messages are
/// numbered from 1 in the order they are written. A topology that is otherwise valid is also
/// checked for connectivity ([`check_connected`]).
pub fn build(def: &TopologyDef) -> Result<Topology, Vec<String>> {
    let topo = match def {
        TopologyDef::Explicit {
            hosts,
            switches,
            links,
            link,
        } => explicit::build_explicit(hosts, switches, links, *link)?,
        TopologyDef::Star { hosts, link } => line::star(*hosts, *link)?,
        TopologyDef::Dumbbell {
            hosts_per_switch,
            link,
            fabric_link,
        } => line::dumbbell(*hosts_per_switch, *link, *fabric_link)?,
        TopologyDef::Chain {
            switches,
            hosts_per_switch,
            link,
            fabric_link,
        } => line::chain(*switches, *hosts_per_switch, *link, *fabric_link)?,
        TopologyDef::Ring {
            switches,
            hosts_per_switch,
            link,
            fabric_link,
        } => line::ring(*switches, *hosts_per_switch, *link, *fabric_link)?,
        TopologyDef::LeafSpine {
            leaves,
            spines,
            hosts_per_leaf,
            host_link,
            fabric_link,
        } => leaf_spine::leaf_spine(*leaves, *spines, *hosts_per_leaf, *host_link, *fabric_link)?,
        TopologyDef::FatTree {
            k,
            host_link,
            fabric_link,
            oversubscription,
        } => clos::fat_tree(*k, *oversubscription, *host_link, *fabric_link)?,
        TopologyDef::Clos3 {
            podsets,
            tors_per_podset,
            leaves_per_podset,
            spines,
            hosts_per_tor,
            host_link,
            fabric_link,
        } => {
            let tiers = clos::Tiers {
                pods: *podsets,
                lower: *tors_per_podset,
                middle: *leaves_per_podset,
                tops: *spines,
                hosts: *hosts_per_tor,
            };
            clos::clos3(&tiers, *host_link, *fabric_link)?
        }
    };
    check_connected(&topo).map_err(|e| vec![e])?;
    Ok(topo)
}
