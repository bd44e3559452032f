//! Three-tier Clos networks: the k-ary fat-tree (Al-Fares et al. 2008) and the 3-tier Clos
//! with podsets (Guo et al. 2016, Fig. 7).

use super::builder::{fail, positive, rate_ok, size_ok, Builder};
use crate::topology::{LinkClass, NodeRef, Topology};

/// Sizes of a three-tier Clos.
pub struct Tiers {
    /// Pods (podsets).
    pub pods: u32,
    /// Lower-tier switches (edge/ToR) per pod.
    pub lower: u32,
    /// Middle-tier switches (aggregation/leaf) per pod.
    pub middle: u32,
    /// Top-tier switches (core/spine), split evenly among the middle positions.
    pub tops: u32,
    /// Hosts per lower-tier switch.
    pub hosts: u32,
}

/// k-ary fat-tree (Al-Fares numbering, BENCHMARKS.md): k pods of k/2 edge and k/2 aggregation
/// switches, (k/2)² cores; aggregation j of a pod connects to cores j·k/2 .. j·k/2 + k/2 − 1.
/// It is the three-tier Clos below with pods as podsets; `oversub` multiplies the hosts per
/// edge switch.
pub fn fat_tree(
    k: u32,
    oversub: u32,
    host: LinkClass,
    fabric: LinkClass,
) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    if k < 2 {
        errs.push(format!(
            "fat_tree: k = {k}; k must be an even number ≥ 2 (4, 8, 16, ...)"
        ));
    } else if k % 2 != 0 {
        errs.push(format!(
            "fat_tree: k = {k} is odd; k must be even (4, 8, 16, ...)"
        ));
    }
    positive(&mut errs, "fat_tree", "oversubscription", oversub);
    rate_ok(&mut errs, "fat_tree", "host_link", &host);
    rate_ok(&mut errs, "fat_tree", "fabric_link", &fabric);
    let k64 = k as u64;
    let hosts = k64 * k64 * k64 / 4 * (oversub as u64);
    size_ok(&mut errs, "fat_tree", hosts + 5 * k64 * k64 / 4);
    fail(errs)?;
    let half = k / 2;
    let tiers = Tiers {
        pods: k,
        lower: half,
        middle: half,
        tops: half * half,
        hosts: oversub * half,
    };
    Ok(three_tier(&tiers, ["edge", "agg", "core"], host, fabric))
}

/// Three-tier Clos with podsets (Guo et al. 2016, Fig. 7): `t.pods` podsets of `t.lower` ToRs
/// and `t.middle` leaves, `t.tops` spines, `t.hosts` hosts per ToR.
pub fn clos3(t: &Tiers, host: LinkClass, fabric: LinkClass) -> Result<Topology, Vec<String>> {
    let mut errs = Vec::new();
    positive(&mut errs, "clos3", "podsets", t.pods);
    positive(&mut errs, "clos3", "tors_per_podset", t.lower);
    positive(&mut errs, "clos3", "leaves_per_podset", t.middle);
    positive(&mut errs, "clos3", "spines", t.tops);
    positive(&mut errs, "clos3", "hosts_per_tor", t.hosts);
    let (spines, leaves_per_podset) = (t.tops, t.middle);
    if leaves_per_podset > 0 && spines > 0 && spines % leaves_per_podset != 0 {
        errs.push(format!(
            "clos3: spines = {spines} is not divisible by leaves_per_podset = \
             {leaves_per_podset}; leaf j of every podset connects to its own group of \
             spines/leaves_per_podset spines"
        ));
    }
    rate_ok(&mut errs, "clos3", "host_link", &host);
    rate_ok(&mut errs, "clos3", "fabric_link", &fabric);
    let (p, tp, l, s, h) = (
        t.pods as u64,
        t.lower as u64,
        t.middle as u64,
        t.tops as u64,
        t.hosts as u64,
    );
    size_ok(
        &mut errs,
        "clos3",
        p * tp * (1 + h) + p * l + s + p * tp * l,
    );
    fail(errs)?;
    Ok(three_tier(t, ["tor", "leaf", "spine"], host, fabric))
}

/// A three-tier Clos: every lower switch links to every middle switch of its pod; middle
/// switch j of every pod links to tops j·T/M .. (j+1)·T/M − 1. Switches are named
/// `<role><n>` with the roles given (lower, middle, top), numbered across pods; hosts are
/// numbered lower switch by lower switch.
fn three_tier(t: &Tiers, roles: [&str; 3], host: LinkClass, fabric: LinkClass) -> Topology {
    let lowers = t.pods * t.lower;
    let middles = t.pods * t.middle;
    let per_middle = t.tops / t.middle;
    let mut b = Builder::default();
    for i in 0..lowers {
        b.switch(format!("{}{i}", roles[0]), roles[0], Some(i / t.lower));
    }
    for i in 0..middles {
        b.switch(format!("{}{i}", roles[1]), roles[1], Some(i / t.middle));
    }
    for i in 0..t.tops {
        b.switch(format!("{}{i}", roles[2]), roles[2], None);
    }
    let middle_id = |m: u32| lowers + m;
    let top_id = |x: u32| lowers + middles + x;
    for l in 0..lowers {
        b.hosts_on(l, t.hosts, Some(l / t.lower), host);
    }
    for l in 0..lowers {
        let pod = l / t.lower;
        for j in 0..t.middle {
            b.link(
                NodeRef::Switch(l),
                NodeRef::Switch(middle_id(pod * t.middle + j)),
                fabric,
            );
        }
    }
    for m in 0..middles {
        let j = m % t.middle;
        for x in 0..per_middle {
            b.link(
                NodeRef::Switch(middle_id(m)),
                NodeRef::Switch(top_id(j * per_middle + x)),
                fabric,
            );
        }
    }
    b.topo
}
