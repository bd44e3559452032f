//! Frames on the wires: each is one pending arrival event; when links can fail the wires also
//! keep them in FIFOs (`fabric::link`). The end-of-run accounting must count the same frames
//! either way.

use super::testkit::*;
use super::Sim;
use crate::units::{Rate, Time};

#[test]
fn frames_on_the_wires_read_from_fifos_or_from_pending_arrivals_agree() {
    // Stopped while 4 senders still have frames on their wires: the end-of-run accounting
    // (receive counters, bytes in flight per flow) reads those frames from the pending arrival
    // events, or from the wires' FIFOs when links can fail. Both must count the same frames.
    let mk = |fifo: bool| {
        let topo = star(5, Rate::gbps(100), Time::from_us(2));
        let mut sc = scenario(topo, Time::from_us(30));
        for s in 1..5 {
            sc.flows.push(flow(s, 0, Some(1_000_000), Time::ZERO));
        }
        let mut sim = Sim::new(sc).expect("builds");
        if fifo {
            sim.track_wires();
        }
        sim.run(|_| true);
        sim
    };
    let (events, fifo) = (mk(false), mk(true));
    let on_wires = |s: &Sim| {
        let mut v = s.frames_on_wires();
        v.sort();
        v
    };
    // 2 us of 100G wire holds about 23 frames of 1,082 bytes per busy link.
    assert!(
        on_wires(&events).len() > 20,
        "frames are in flight at the end"
    );
    assert_eq!(on_wires(&events), on_wires(&fifo));
    let (a, b) = (events.results(0.0), fifo.results(0.0));
    assert_eq!(a.ports, b.ports);
    let rows =
        |r: &crate::monitor::RunResults| r.flows.iter().map(|f| f.into_owned()).collect::<Vec<_>>();
    assert_eq!(rows(&a), rows(&b));
    assert!(rows(&a).iter().any(|f| f.inflight_bytes > 0));
}
