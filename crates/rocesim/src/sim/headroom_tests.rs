//! Headroom against the delay budget, end to end: a lossless priority group sized by
//! `headroom = "auto"` never drops, in the worst case the budget must cover.

use super::testkit::*;
use super::Sim;
use crate::topology::{LinkSpec, NodeRef, Topology};
use crate::units::{Rate, Time};

/// A, B, C on S1; S1–S2; D, E, R on S2; every link `rate` and `delay`.
fn two_switches(rate: Rate, delay: Time) -> Topology {
    let (h, s) = (NodeRef::Host, NodeRef::Switch);
    let l = |a, b| LinkSpec { a, b, rate, delay };
    Topology {
        hosts: named_hosts(["A", "B", "C", "D", "E", "R"]),
        switches: named_switches(["S1", "S2"]),
        links: vec![
            l(h(0), s(0)),
            l(h(1), s(0)),
            l(h(2), s(0)),
            l(s(0), s(1)),
            l(h(3), s(1)),
            l(h(4), s(1)),
            l(h(5), s(1)),
        ],
    }
}

#[test]
fn auto_headroom_covers_a_switch_peer_at_line_rate() {
    // The worst case of the delay budget, at 100G with 200 ns links and 1 KB MTU (frames of
    // 1106 B on the wire, 88.48 ns; 1086 B buffered). A, B and C keep S1's port to S2 busy
    // back to back; D also writes to R, so S2's PG from S1 crosses XOFF again and again; E
    // writes to A, so the pause S2 sends toward S1 often waits behind a data frame.
    //
    // The frame that crosses XOFF is buffered whole in the headroom (its last bit arrived at
    // T). S1 started the next frames back to back from T - 200 ns and starts new ones until
    // the pause takes effect at T + w + 6.72 ns (pause frame) + 200 ns + 2017.28 ns (394
    // quanta, the 802.3 maximum at 100G): ceil((w + 2424 ns) / 88.48 ns) frames, 29 when the
    // pause waited w > 53.4 ns. With the crossing frame that is 30 × 1086 = 32,580 B, more
    // than the 802.1Qbb budget without it (5,000 + 2 × 1122 + 25,216 + 84 = 32,544 B): a
    // lossless drop. With the crossing frame in the budget (33,666 B) there is none.
    let mut sc = scenario(
        two_switches(Rate::gbps(100), Time::from_ns(200)),
        Time::from_ms(10),
    );
    sc.switches
        .iter_mut()
        .for_each(|s| s.lossless.dynamic_th = -3);
    for (src, dst) in [(0, 5), (1, 5), (2, 5), (3, 5), (4, 0)] {
        sc.flows.push(flow(src, dst, None, Time::ZERO));
    }
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    let r = sim.results(0.0);
    let s2_from_s1 = r.ports.iter().find(|p| p.node == "S2" && p.peer == "S1");
    let s2_from_s1 = s2_from_s1.expect("S2's port to S1");
    assert!(
        s2_from_s1.pause_tx > 100,
        "S2 pauses S1: {}",
        s2_from_s1.pause_tx
    );
    assert_eq!(r.drops_lossless, 0);
}
