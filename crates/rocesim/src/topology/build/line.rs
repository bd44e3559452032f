//! Switches in a line: star (one switch), dumbbell (two), chain, and ring (a closed chain),
//! with the same number of hosts on every switch.

use super::builder::{fail, positive, rate_ok, size_ok, Builder};
use crate::topology::{LinkClass, NodeRef, Topology};

/// A star: one switch `sw0` with `hosts` hosts.
pub fn star(hosts: u32, link: LinkClass) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    positive(&mut errs, "star", "hosts", hosts);
    rate_ok(&mut errs, "star", "link", &link);
    fail(errs)?;
    let mut b = Builder::default();
    let sw = b.switch("sw0".into(), "switch", None);
    b.hosts_on(sw, hosts, None, link);
    Ok(b.topo)
}

/// A dumbbell: two linked switches with `hps` hosts each.
pub fn dumbbell(hps: u32, link: LinkClass, fabric: LinkClass) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    positive(&mut errs, "dumbbell", "hosts_per_switch", hps);
    rate_ok(&mut errs, "dumbbell", "link", &link);
    rate_ok(&mut errs, "dumbbell", "fabric_link", &fabric);
    fail(errs)?;
    Ok(line_of_switches(2, hps, link, fabric, false))
}

/// A chain of `n` switches with `hps` hosts each.
pub fn chain(
    n: u32,
    hps: u32,
    link: LinkClass,
    fabric: LinkClass,
) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    positive(&mut errs, "chain", "switches", n);
    positive(&mut errs, "chain", "hosts_per_switch", hps);
    rate_ok(&mut errs, "chain", "link", &link);
    rate_ok(&mut errs, "chain", "fabric_link", &fabric);
    size_ok(&mut errs, "chain", n as u64 * (1 + hps as u64));
    fail(errs)?;
    Ok(line_of_switches(n, hps, link, fabric, false))
}

/// A ring of `n` ≥ 3 switches with `hps` hosts each.
pub fn ring(n: u32, hps: u32, link: LinkClass, fabric: LinkClass) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    if n < 3 {
        errs.push(format!(
            "ring: switches = {n}; a ring needs at least 3 switches \
             (use kind = \"chain\" or \"dumbbell\" for fewer)"
        ));
    }
    positive(&mut errs, "ring", "hosts_per_switch", hps);
    rate_ok(&mut errs, "ring", "link", &link);
    rate_ok(&mut errs, "ring", "fabric_link", &fabric);
    size_ok(&mut errs, "ring", n as u64 * (1 + hps as u64));
    fail(errs)?;
    Ok(line_of_switches(n, hps, link, fabric, true))
}

/// `n` switches `sw0..` in a line (closed into a ring when `ring`), `hps` hosts on each.
fn line_of_switches(n: u32, hps: u32, link: LinkClass, fabric: LinkClass, ring: bool) -> Topology {
    let mut b = Builder::default();
    for i in 0..n {
        b.switch(format!("sw{i}"), "switch", None);
    }
    for i in 0..n {
        b.hosts_on(i, hps, None, link);
    }
    for i in 1..n {
        b.link(NodeRef::Switch(i - 1), NodeRef::Switch(i), fabric);
    }
    if ring {
        b.link(NodeRef::Switch(n - 1), NodeRef::Switch(0), fabric);
    }
    b.topo
}
