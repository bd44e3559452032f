//! Tests of the topology builders: naming, numbering, port order, errors, connectivity.

use super::*;
use crate::topology::ExplicitLink;
use crate::topology::{LinkClass, NodeRef, Topology, TopologyDef};
use crate::units::{Rate, Time};

fn lc(gbps: u64, us: u64) -> LinkClass {
    LinkClass {
        rate: Rate::gbps(gbps),
        delay: Time::from_us(us),
    }
}

fn ft(k: u32, o: u32) -> Topology {
    build(&TopologyDef::FatTree {
        k,
        host_link: lc(100, 1),
        fabric_link: lc(100, 1),
        oversubscription: o,
    })
    .unwrap()
}

fn degree(t: &Topology, n: NodeRef) -> usize {
    t.links.iter().filter(|l| l.a == n || l.b == n).count()
}

fn sw(t: &Topology, name: &str) -> u32 {
    t.switches.iter().position(|s| s.name == name).unwrap() as u32
}

/// Switches a host's single link goes to.
fn host_switch(t: &Topology, h: u32) -> &str {
    let l = t
        .links
        .iter()
        .find(|l| l.a == NodeRef::Host(h) || l.b == NodeRef::Host(h))
        .unwrap();
    let other = if l.a == NodeRef::Host(h) { l.b } else { l.a };
    match other {
        NodeRef::Switch(s) => &t.switches[s as usize].name,
        NodeRef::Host(_) => panic!("host-host link"),
    }
}

/// Names of the neighbours of a switch, in port order.
fn neighbours(t: &Topology, name: &str) -> Vec<String> {
    let me = NodeRef::Switch(sw(t, name));
    t.links
        .iter()
        .filter_map(|l| {
            let o = if l.a == me {
                l.b
            } else if l.b == me {
                l.a
            } else {
                return None;
            };
            Some(match o {
                NodeRef::Host(h) => t.hosts[h as usize].name.clone(),
                NodeRef::Switch(s) => t.switches[s as usize].name.clone(),
            })
        })
        .collect()
}

fn role_count(t: &Topology, role: &str) -> usize {
    t.switches.iter().filter(|s| s.role == role).count()
}

fn explicit(hosts: &[&str], switches: &[&str], links: &[(&str, &str)]) -> TopologyDef {
    TopologyDef::Explicit {
        hosts: hosts.iter().map(|s| s.to_string()).collect(),
        switches: switches.iter().map(|s| s.to_string()).collect(),
        links: links
            .iter()
            .map(|(a, b)| ExplicitLink {
                a: a.to_string(),
                b: b.to_string(),
                rate: None,
                delay: None,
            })
            .collect(),
        link: lc(40, 1),
    }
}

#[test]
fn fat_tree_k4_counts() {
    let t = ft(4, 1);
    assert_eq!(t.hosts.len(), 16);
    assert_eq!(t.switches.len(), 20);
    assert_eq!(role_count(&t, "edge"), 8);
    assert_eq!(role_count(&t, "agg"), 8);
    assert_eq!(role_count(&t, "core"), 4);
    // 16 host links + 8·2 edge–agg + 8·2 agg–core.
    assert_eq!(t.links.len(), 48);
    for s in 0..20 {
        assert_eq!(
            degree(&t, NodeRef::Switch(s)),
            4,
            "every switch has k ports"
        );
    }
}

#[test]
fn fat_tree_k8_counts_and_rules() {
    let t = ft(8, 1);
    assert_eq!(t.hosts.len(), 128);
    assert_eq!(t.switches.len(), 80);
    assert_eq!(t.links.len(), 384);
    assert_eq!(role_count(&t, "edge"), 32);
    assert_eq!(role_count(&t, "agg"), 32);
    assert_eq!(role_count(&t, "core"), 16);
    // Host i attaches to edge ⌊i/4⌋.
    assert_eq!(host_switch(&t, 0), "edge0");
    assert_eq!(host_switch(&t, 3), "edge0");
    assert_eq!(host_switch(&t, 4), "edge1");
    assert_eq!(host_switch(&t, 127), "edge31");
    assert_eq!(host_switch(&t, 70), "edge17");
    // Pods: host 70 -> edge 17 -> pod 4.
    assert_eq!(t.hosts[70].pod, Some(4));
    assert_eq!(t.switches[sw(&t, "edge17") as usize].pod, Some(4));
    assert_eq!(t.switches[sw(&t, "agg17") as usize].pod, Some(4));
    assert_eq!(t.switches[sw(&t, "core3") as usize].pod, None);
    // Edge 17 (pod 4): hosts 68..71 first, then aggs 16..19.
    assert_eq!(
        neighbours(&t, "edge17"),
        ["h68", "h69", "h70", "h71", "agg16", "agg17", "agg18", "agg19"]
    );
    // Agg 17: j = 1 -> cores 4..7, after its pod's edges 16..19.
    assert_eq!(
        neighbours(&t, "agg17"),
        ["edge16", "edge17", "edge18", "edge19", "core4", "core5", "core6", "core7"]
    );
    // Core 5 (j = 1) connects to agg pod·4+1 of every pod.
    assert_eq!(
        neighbours(&t, "core5"),
        ["agg1", "agg5", "agg9", "agg13", "agg17", "agg21", "agg25", "agg29"]
    );
    // Hosts are h0.. in order, each with exactly one link, links first.
    for (i, h) in t.hosts.iter().enumerate() {
        assert_eq!(h.name, format!("h{i}"));
        assert_eq!(t.links[i].a, NodeRef::Host(i as u32));
    }
}

#[test]
fn fat_tree_k16_counts() {
    let t = ft(16, 1);
    assert_eq!(t.hosts.len(), 1024);
    assert_eq!(t.switches.len(), 320);
    assert_eq!(t.links.len(), 1024 * 3);
}

#[test]
fn fat_tree_oversubscribed() {
    let t = ft(4, 3);
    // 8 edges × 3·2 hosts.
    assert_eq!(t.hosts.len(), 48);
    assert_eq!(host_switch(&t, 5), "edge0");
    assert_eq!(host_switch(&t, 6), "edge1");
    assert_eq!(host_switch(&t, 47), "edge7");
    assert_eq!(degree(&t, NodeRef::Switch(sw(&t, "edge0"))), 8);
    assert_eq!(t.hosts[12].pod, Some(1));
}

fn fig7() -> Topology {
    build(&TopologyDef::Clos3 {
        podsets: 2,
        tors_per_podset: 24,
        leaves_per_podset: 4,
        spines: 64,
        hosts_per_tor: 24,
        host_link: lc(40, 1),
        fabric_link: lc(40, 1),
    })
    .unwrap()
}

#[test]
fn clos3_guo_fig7() {
    let t = fig7();
    assert_eq!(t.hosts.len(), 1152);
    assert_eq!(role_count(&t, "tor"), 48);
    assert_eq!(role_count(&t, "leaf"), 8);
    assert_eq!(role_count(&t, "spine"), 64);
    // 1152 host links + 48·4 tor–leaf + 8·16 leaf–spine.
    assert_eq!(t.links.len(), 1152 + 192 + 128);
    for s in &t.switches {
        let d = degree(&t, NodeRef::Switch(sw(&t, &s.name)));
        let want = match s.role.as_str() {
            "tor" => 28,  // 24 hosts + 4 leaves: 6:1
            "leaf" => 40, // 24 ToRs + 16 spines: 3:2
            "spine" => 2, // one leaf per podset
            r => panic!("role {r}"),
        };
        assert_eq!(d, want, "{}", s.name);
    }
    // ToR 30 is in podset 1 and links to leaves 4..7.
    let n = neighbours(&t, "tor30");
    assert_eq!(n.len(), 28);
    assert_eq!(n[0], "h720");
    assert_eq!(&n[24..], ["leaf4", "leaf5", "leaf6", "leaf7"]);
    assert_eq!(t.switches[sw(&t, "tor30") as usize].pod, Some(1));
    assert_eq!(t.hosts[720].pod, Some(1));
    // Leaf 5 = position j = 1 of podset 1 -> spines 16..31.
    let n = neighbours(&t, "leaf5");
    assert_eq!(n[0], "tor24");
    assert_eq!(n[23], "tor47");
    let want: Vec<String> = (16..32).map(|s| format!("spine{s}")).collect();
    assert_eq!(&n[24..], &want[..]);
    assert_eq!(neighbours(&t, "spine17"), ["leaf1", "leaf5"]);
}

#[test]
fn leaf_spine_counts() {
    let t = build(&TopologyDef::LeafSpine {
        leaves: 4,
        spines: 2,
        hosts_per_leaf: 4,
        host_link: lc(100, 1),
        fabric_link: lc(400, 1),
    })
    .unwrap();
    assert_eq!(t.hosts.len(), 16);
    assert_eq!(t.switches.len(), 6);
    assert_eq!(t.links.len(), 16 + 8);
    assert_eq!(host_switch(&t, 4), "leaf1");
    assert_eq!(
        neighbours(&t, "leaf1"),
        ["h4", "h5", "h6", "h7", "spine0", "spine1"]
    );
    assert_eq!(
        neighbours(&t, "spine1"),
        ["leaf0", "leaf1", "leaf2", "leaf3"]
    );
    assert_eq!(t.links[16].rate, Rate::gbps(400));
    assert_eq!(t.links[0].rate, Rate::gbps(100));
}

#[test]
fn small_kinds() {
    let star = build(&TopologyDef::Star {
        hosts: 3,
        link: lc(100, 1),
    })
    .unwrap();
    assert_eq!(star.hosts.len(), 3);
    assert_eq!(star.switches.len(), 1);
    assert_eq!(star.switches[0].name, "sw0");
    assert_eq!(star.switches[0].role, "switch");
    assert_eq!(star.links.len(), 3);

    let db = build(&TopologyDef::Dumbbell {
        hosts_per_switch: 2,
        link: lc(100, 1),
        fabric_link: lc(40, 2),
    })
    .unwrap();
    assert_eq!(db.hosts.len(), 4);
    assert_eq!(db.switches.len(), 2);
    assert_eq!(neighbours(&db, "sw0"), ["h0", "h1", "sw1"]);
    assert_eq!(neighbours(&db, "sw1"), ["h2", "h3", "sw0"]);
    assert_eq!(db.links[4].rate, Rate::gbps(40));
    assert_eq!(db.links[4].delay, Time::from_us(2));

    let chain = build(&TopologyDef::Chain {
        switches: 4,
        hosts_per_switch: 1,
        link: lc(100, 1),
        fabric_link: lc(100, 1),
    })
    .unwrap();
    assert_eq!(chain.links.len(), 4 + 3);
    assert_eq!(neighbours(&chain, "sw1"), ["h1", "sw0", "sw2"]);
    assert_eq!(neighbours(&chain, "sw3"), ["h3", "sw2"]);

    let ring = build(&TopologyDef::Ring {
        switches: 4,
        hosts_per_switch: 2,
        link: lc(100, 1),
        fabric_link: lc(100, 1),
    })
    .unwrap();
    assert_eq!(ring.hosts.len(), 8);
    assert_eq!(ring.links.len(), 8 + 4);
    assert_eq!(neighbours(&ring, "sw0"), ["h0", "h1", "sw1", "sw3"]);
    assert_eq!(neighbours(&ring, "sw3"), ["h6", "h7", "sw2", "sw0"]);
}

#[test]
fn every_kind_is_connected() {
    let l = lc(100, 1);
    let defs = [
        TopologyDef::Star { hosts: 1, link: l },
        TopologyDef::Dumbbell {
            hosts_per_switch: 1,
            link: l,
            fabric_link: l,
        },
        TopologyDef::Chain {
            switches: 5,
            hosts_per_switch: 2,
            link: l,
            fabric_link: l,
        },
        TopologyDef::Ring {
            switches: 3,
            hosts_per_switch: 1,
            link: l,
            fabric_link: l,
        },
        TopologyDef::LeafSpine {
            leaves: 3,
            spines: 1,
            hosts_per_leaf: 2,
            host_link: l,
            fabric_link: l,
        },
        TopologyDef::FatTree {
            k: 2,
            host_link: l,
            fabric_link: l,
            oversubscription: 1,
        },
        TopologyDef::FatTree {
            k: 6,
            host_link: l,
            fabric_link: l,
            oversubscription: 2,
        },
        TopologyDef::Clos3 {
            podsets: 3,
            tors_per_podset: 2,
            leaves_per_podset: 2,
            spines: 4,
            hosts_per_tor: 2,
            host_link: l,
            fabric_link: l,
        },
        explicit(
            &["A", "B", "C", "D", "R"],
            &["S1", "S2"],
            &[
                ("A", "S1"),
                ("B", "S1"),
                ("C", "S1"),
                ("S1", "S2"),
                ("D", "S2"),
                ("R", "S2"),
            ],
        ),
    ];
    for d in &defs {
        let t = build(d).unwrap_or_else(|e| panic!("{d:?}: {e:?}"));
        assert_eq!(check_connected(&t), Ok(()));
        // Every host has exactly one link.
        for h in 0..t.hosts.len() as u32 {
            assert_eq!(degree(&t, NodeRef::Host(h)), 1);
        }
    }
}

#[test]
fn explicit_parking_lot() {
    let mut d = explicit(
        &["A", "B", "C", "D", "R"],
        &["S1", "S2"],
        &[
            ("A", "S1"),
            ("B", "S1"),
            ("C", "S1"),
            ("S1", "S2"),
            ("D", "S2"),
            ("R", "S2"),
        ],
    );
    if let TopologyDef::Explicit { links, .. } = &mut d {
        links[3].rate = Some(Rate::gbps(100));
    }
    let t = build(&d).unwrap();
    assert_eq!(t.links.len(), 6);
    assert_eq!(t.links[3].a, NodeRef::Switch(0));
    assert_eq!(t.links[3].b, NodeRef::Switch(1));
    assert_eq!(t.links[3].rate, Rate::gbps(100));
    assert_eq!(t.links[3].delay, Time::from_us(1));
    assert_eq!(t.links[0].rate, Rate::gbps(40));
    assert_eq!(t.switches[1].role, "switch");
    assert_eq!(t.hosts[4].name, "R");
    assert_eq!(neighbours(&t, "S2"), ["S1", "D", "R"]);
}

#[test]
fn explicit_errors_all_at_once() {
    let d = explicit(
        &["A", "B", "A", "X"],
        &["S1", "X", "S1"],
        &[
            ("A", "S1"),
            ("B", "S9"),
            ("S1", "S1"),
            ("A", "S1"),
            ("Qxyz", "zzzz"),
        ],
    );
    let errs = build(&d).unwrap_err();
    let want = [
        "duplicate host name `A`",
        "`X` is both a host and a switch",
        "duplicate switch name `S1`",
        "link 2: unknown node `S9`; did you mean `S1`?",
        "link 3: `S1` is linked to itself",
        "link 5: unknown node `Qxyz`",
        "link 5: unknown node `zzzz`",
        "host `A` has 2 links (links 1, 4); a host has one NIC port, so exactly one link",
    ];
    for w in want {
        assert!(errs.iter().any(|e| e == w), "missing {w:?} in {errs:#?}");
    }
    assert_eq!(errs.len(), want.len(), "{errs:#?}");
}

#[test]
fn explicit_reserved_names() {
    let errs = build(&explicit(
        &["all", "a/b"],
        &["S1"],
        &[("all", "S1"), ("a/b", "S1")],
    ))
    .unwrap_err();
    assert_eq!(
        errs,
        [
            "host name `all` is reserved: it is the selector for every host",
            "name `a/b` contains `/`, which host selectors use (`tor2/*`); rename it",
        ]
    );
}

#[test]
fn explicit_no_hosts() {
    let errs = build(&explicit(&[], &["S1"], &[])).unwrap_err();
    assert_eq!(errs, ["the topology has no hosts; list them in `hosts`"]);
}

#[test]
fn disconnected_is_named() {
    let d = explicit(
        &["h0", "h1", "h7"],
        &["S1", "S2", "S3"],
        &[("h0", "S1"), ("h1", "S1"), ("S1", "S2"), ("h7", "S3")],
    );
    let errs = build(&d).unwrap_err();
    assert_eq!(
        errs,
        ["the topology is disconnected: `h7`, `S3` cannot reach `h0`"]
    );
    // A host with no link at all.
    let d = explicit(&["A", "B"], &["S1"], &[("A", "S1")]);
    assert_eq!(
        build(&d).unwrap_err(),
        ["the topology is disconnected: `B` cannot reach `A`"]
    );
}

#[test]
fn disconnected_long_list_is_cut() {
    let mut t = ft(4, 1);
    t.links.clear();
    let e = check_connected(&t).unwrap_err();
    assert!(
        e.starts_with("the topology is disconnected: `h1`, `h2`"),
        "{e}"
    );
    assert!(e.ends_with("and 25 more cannot reach `h0`"), "{e}");
}

#[test]
fn generated_errors() {
    let l = lc(100, 1);
    let e = build(&TopologyDef::FatTree {
        k: 5,
        host_link: l,
        fabric_link: l,
        oversubscription: 0,
    })
    .unwrap_err();
    assert_eq!(
        e,
        [
            "fat_tree: k = 5 is odd; k must be even (4, 8, 16, ...)",
            "fat_tree: oversubscription = 0; it must be at least 1",
        ]
    );
    let e = build(&TopologyDef::FatTree {
        k: 0,
        host_link: l,
        fabric_link: l,
        oversubscription: 1,
    })
    .unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(e[0].starts_with("fat_tree: k = 0"), "{e:?}");

    let e = build(&TopologyDef::Clos3 {
        podsets: 2,
        tors_per_podset: 0,
        leaves_per_podset: 3,
        spines: 64,
        hosts_per_tor: 24,
        host_link: l,
        fabric_link: l,
    })
    .unwrap_err();
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0], "clos3: tors_per_podset = 0; it must be at least 1");
    assert!(e[1].starts_with("clos3: spines = 64 is not divisible by leaves_per_podset = 3"));

    let e = build(&TopologyDef::Star { hosts: 0, link: l }).unwrap_err();
    assert_eq!(e, ["star: hosts = 0; it must be at least 1"]);

    let e = build(&TopologyDef::LeafSpine {
        leaves: 0,
        spines: 0,
        hosts_per_leaf: 1,
        host_link: l,
        fabric_link: l,
    })
    .unwrap_err();
    assert_eq!(e.len(), 2);

    let e = build(&TopologyDef::Chain {
        switches: 0,
        hosts_per_switch: 2,
        link: l,
        fabric_link: l,
    })
    .unwrap_err();
    assert_eq!(e, ["chain: switches = 0; it must be at least 1"]);

    let e = build(&TopologyDef::Ring {
        switches: 2,
        hosts_per_switch: 1,
        link: l,
        fabric_link: l,
    })
    .unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(e[0].contains("at least 3 switches"));

    let e = build(&TopologyDef::Dumbbell {
        hosts_per_switch: 0,
        link: l,
        fabric_link: l,
    })
    .unwrap_err();
    assert_eq!(e, ["dumbbell: hosts_per_switch = 0; it must be at least 1"]);

    let e = build(&TopologyDef::FatTree {
        k: 1000,
        host_link: l,
        fabric_link: l,
        oversubscription: 1,
    })
    .unwrap_err();
    assert!(e[0].contains("more than the"), "{e:?}");
}
