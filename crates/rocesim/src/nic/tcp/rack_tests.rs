//! RACK-TLP (RFC 8985) in the simulated world: a lost retransmission and a lost tail are
//! repaired within round trips instead of at the 200 ms minimum RTO. Frame times from the
//! arithmetic: a 1538 B frame (1460 B MSS + 78 B) takes 1.2304 us at 10G.

use super::TcpCc;
use crate::faults::{FaultKind, FaultSpec};
use crate::monitor::RunResults;
use crate::sim::testkit::*;
use crate::sim::Sim;
use crate::units::{Rate, Time};

/// One NewReno flow of `segments` segments from h0 to h1 at 10G (1 us links); every data
/// `every`th data frame that starts on the link toward h1 between `from` and `until` is lost.
fn lossy_run(
    segments: u64,
    every: u64,
    from: Time,
    until: Time,
    rack: bool,
    tlp: bool,
) -> RunResults {
    let mut sc = scenario(
        star(2, Rate::gbps(10), Time::from_us(1)),
        Time::from_ms(400),
    );
    sc.tcp.rack = rack;
    sc.tcp.tlp = tlp;
    sc.flows.push(tcp_flow(
        0,
        1,
        Some(segments * 1460),
        Time::ZERO,
        TcpCc::NewReno,
    ));
    sc.faults.push(FaultSpec {
        kind: FaultKind::Loss {
            link: 1,
            from_a: Some(false),
            every: Some(every),
            probability: None,
            all_frames: false,
        },
        at: from,
        until: Some(until),
    });
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    sim.results(0.0)
}

#[test]
fn a_lost_retransmission_is_found_by_rack_not_the_rto() {
    // 4 MB (2740 segments, 3.37 ms of frames). Every second frame toward h1 in 600–640 us
    // is lost, retransmissions included: the segments between make duplicate ACKs at once,
    // so the fast retransmissions go while frames are still lost. Without RACK a lost
    // retransmission waits for the 200 ms RTO; with it, the SACK of a segment sent after it
    // marks it lost again one RTT later.
    let (from, until) = (Time::from_us(600), Time::from_us(640));
    let r = lossy_run(2740, 2, from, until, true, true);
    let (f, t) = (&r.flows[0], &r.tcp[0]);
    assert_eq!(t.timeouts, 0, "RACK repairs it");
    eprintln!(
        "retx {} drops {} old timeouts",
        t.retx_packets,
        f.dropped_bytes / 1460
    );
    let fct = f.fct_ns.expect("completes");
    assert!(fct < 10_000_000, "fct {fct} ns, far below 200 ms");
    let old = lossy_run(2740, 2, from, until, false, false);
    assert!(old.tcp[0].timeouts >= 1, "without RACK: the RTO");
    assert!(old.flows[0].fct_ns.expect("completes") > 200_000_000);
}

#[test]
fn a_lost_tail_is_found_by_a_probe_not_the_rto() {
    // 10 segments, the initial window, sent back to back: segment k starts toward h1 at
    // (k + 1) × 1.2304 + 1 us, so a loss window of 8–14 us takes segments 5..9 (8.38 to
    // 13.30 us) and no later segment makes a duplicate ACK. A probe (the highest segment,
    // 2 × SRTT after the last ACK) is SACKed and RACK marks 5..8 lost.
    let (from, until) = (Time::from_us(8), Time::from_us(14));
    let r = lossy_run(10, 1, from, until, true, true);
    let (f, t) = (&r.flows[0], &r.tcp[0]);
    assert_eq!(f.dropped_bytes, 5 * 1460);
    assert_eq!(t.timeouts, 0, "the probe repairs it");
    let fct = f.fct_ns.expect("completes");
    assert!(fct < 1_000_000, "fct {fct} ns, far below 200 ms");
    let old = lossy_run(10, 1, from, until, true, false);
    assert_eq!(old.tcp[0].timeouts, 1, "without TLP: the RTO");
    assert!(old.flows[0].fct_ns.expect("completes") > 200_000_000);
}
