//! TCP in the simulated world: expected values from the frame arithmetic, the RFCs and
//! Alizadeh et al.'s DCTCP analysis, never from the code under test.

use super::TcpCc;
use crate::fabric::params::{EcnParams, MarkOn, QueueSched};
use crate::faults::{FaultKind, FaultSpec};
use crate::monitor::RunResults;
use crate::sim::testkit::*;
use crate::sim::Sim;
use crate::units::{Bytes, Rate, Time};

fn run(sc: crate::config::Scenario) -> RunResults {
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    sim.results(0.0)
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * q)
}

#[test]
fn newreno_on_an_idle_link_reaches_its_frame_goodput() {
    // A full segment is 1460 B of payload in 1538 B on the wire (78 B of preamble, IFG,
    // Ethernet, FCS, IPv4 and TCP): goodput ≤ 1460/1538 × 10 Gb/s = 9.493 Gb/s.
    let mut sc = scenario(star(2, Rate::gbps(10), Time::from_us(1)), Time::from_ms(3));
    sc.sim.warmup = Time::from_ms(1);
    sc.flows
        .push(tcp_flow(0, 1, None, Time::ZERO, TcpCc::NewReno));
    let r = run(sc);
    let bound = 1460.0 / 1538.0 * 10.0;
    let got = r.flows[0].goodput_gbps;
    assert!(got >= 0.97 * bound, "goodput {got} vs {bound}");
    assert!(got <= bound * 1.0001, "goodput {got} above {bound}");
    assert_eq!((r.drops_lossy, r.flows[0].retx_packets), (0, 0));
    assert_eq!(r.tcp.len(), 1);
}

#[test]
fn a_single_drop_is_repaired_by_fast_retransmit_not_a_timeout() {
    // 4 MB over 10G: one data frame every 1538 × 8 / 10e9 = 1.2304 us. The link toward the
    // receiver drops every 500th data packet from 0 to 700 us: exactly one (the 500th, at
    // ~615 us; the 1000th would come at ~1230 us).
    let mut sc = scenario(star(2, Rate::gbps(10), Time::from_us(1)), Time::from_ms(50));
    sc.flows
        .push(tcp_flow(0, 1, Some(4_000_000), Time::ZERO, TcpCc::NewReno));
    sc.faults.push(FaultSpec {
        kind: FaultKind::Loss {
            link: 1,
            from_a: Some(false),
            every: Some(500),
            probability: None,
            all_frames: false,
        },
        at: Time::ZERO,
        until: Some(Time::from_us(700)),
    });
    let r = run(sc);
    let (f, t) = (&r.flows[0], &r.tcp[0]);
    assert_eq!(f.dropped_bytes, 1460, "one segment dropped");
    assert_eq!((t.fast_retransmits, t.timeouts, t.retx_packets), (1, 0, 1));
    assert_eq!(f.bytes_delivered, 4_000_000);
    // Without a timeout the transfer takes about its serialization time (2740 frames of
    // 1.2304 us = 3.37 ms), far below the 200 ms minimum RTO.
    let fct = f.fct_ns.expect("completes") as f64;
    assert!(fct < 4.0e6, "fct {fct} ns");
    assert_eq!(
        f.tx_bytes,
        f.bytes_delivered + f.discarded_bytes + f.dropped_bytes + f.inflight_bytes
    );
}

#[test]
fn a_lost_tail_waits_for_the_minimum_rto() {
    // A 20-segment flow whose every segment toward the receiver is lost for the first 50 us:
    // no duplicate ACK ever comes, so only the timer recovers: RTO = max(rto_min, …) = 5 ms.
    let mut sc = scenario(star(2, Rate::gbps(10), Time::from_us(1)), Time::from_ms(50));
    sc.tcp.rto_min = Time::from_ms(5);
    sc.flows
        .push(tcp_flow(0, 1, Some(20 * 1460), Time::ZERO, TcpCc::NewReno));
    sc.faults.push(FaultSpec {
        kind: FaultKind::Loss {
            link: 1,
            from_a: Some(false),
            every: Some(1),
            probability: None,
            all_frames: false,
        },
        at: Time::ZERO,
        until: Some(Time::from_us(50)),
    });
    let r = run(sc);
    let (f, t) = (&r.flows[0], &r.tcp[0]);
    assert_eq!(t.timeouts, 1);
    assert_eq!(t.fast_retransmits, 0);
    let fct = f.fct_ns.expect("completes");
    // 5 ms timer from the first send, then slow start from one segment: 1+2+4+8+5 = 5
    // round trips of ~10 us each at most.
    assert!((5_000_000..5_100_000).contains(&fct), "fct {fct}");
    assert_eq!(f.bytes_delivered, 20 * 1460);
}

/// `n` DCTCP senders into one receiver at 10G with step marking at `k` bytes in queue 0.
fn dctcp_incast(n: u32, k: u64) -> RunResults {
    let mut sc = scenario(
        star(n + 1, Rate::gbps(10), Time::from_us(1)),
        Time::from_ms(30),
    );
    sc.sim.warmup = Time::from_ms(10);
    sc.output.queue_sample_interval = Some(Time::from_us(1));
    for s in &mut sc.switches {
        s.ecn = Some(EcnParams {
            queues: 1,
            kmin: Bytes(k),
            kmax: Bytes(k),
            pmax: 1.0,
            mark_on: MarkOn::Enqueue,
        });
    }
    for s in 1..=n {
        sc.flows
            .push(tcp_flow(s, 0, None, Time::from_us(s as u64), TcpCc::Dctcp));
    }
    run(sc)
}

#[test]
fn dctcp_flows_share_a_bottleneck_fairly_with_the_queue_near_k() {
    // Alizadeh et al. 2010 §3.3: N synchronized flows keep the queue between
    // Q_max = K + N and Q_min = Q_max − A, A = ½·√(2N(C·RTT + K)) packets.
    let (n, pkt) = (4u32, 1518.0);
    let k_pkts = 20.0;
    let r = dctcp_incast(n, (k_pkts * pkt) as u64);
    let goodputs: Vec<f64> = r.flows.iter().map(|f| f.goodput_gbps).collect();
    let j = jain(&goodputs);
    assert!(j >= 0.95, "Jain {j}: {goodputs:?}");
    let total: f64 = goodputs.iter().sum();
    let line = 1460.0 / 1538.0 * 10.0;
    assert!(total >= 0.95 * line, "total {total} vs {line}");
    // C·RTT: 4 propagations of 1 us plus two frames per hop at 10G ≈ 6.5 us → 5.3 packets.
    let bdp = 6.5e-6 * 10e9 / 8.0 / 1538.0;
    let nf = n as f64;
    let a = 0.5 * (2.0 * nf * (bdp + k_pkts)).sqrt();
    let (q_max, q_min) = (k_pkts + nf, k_pkts + nf - a);
    let depths: Vec<f64> = r
        .queues
        .iter()
        .filter(|q| q.node == "sw0" && q.port == 0 && q.queue == 0)
        .filter(|q| q.time_ns >= 10_000_000)
        .map(|q| q.bytes as f64 / pkt)
        .collect();
    assert!(depths.len() > 1000, "{} samples", depths.len());
    let mean = depths.iter().sum::<f64>() / depths.len() as f64;
    assert!(
        mean >= q_min - 2.0 && mean <= q_max + 2.0,
        "mean queue {mean:.1} packets, expected in [{q_min:.1}, {q_max:.1}]"
    );
    assert_eq!(r.drops_lossy, 0);
    assert!(r.flows.iter().all(|f| f.ecn_marked > 0));
}

#[test]
fn tcp_and_roce_share_the_wire_by_dwrr_weights() {
    // h1 → h0 TCP (DSCP 0 → queue 0, lossy) and h2 → h0 RoCE (DSCP 26 → queue 3, lossless),
    // both backlogged at sw0's port to h0. DWRR with weights 1 (queue 0) and 3 (queue 3)
    // serves wire bytes 1:3.
    let mut sc = scenario(star(3, Rate::gbps(10), Time::from_us(1)), Time::from_ms(20));
    sc.sim.warmup = Time::from_ms(5);
    for s in &mut sc.switches {
        s.scheduler[0] = QueueSched::Dwrr(1);
        s.scheduler[3] = QueueSched::Dwrr(3);
    }
    sc.flows
        .push(tcp_flow(1, 0, None, Time::ZERO, TcpCc::Cubic));
    sc.flows.push(flow(2, 0, None, Time::ZERO));
    let r = run(sc);
    let wire = |prio: u8| {
        r.ports
            .iter()
            .filter(|p| p.node == "sw0" && p.peer == "h0" && p.prio == prio)
            .map(|p| p.tx_bytes_window as f64)
            .sum::<f64>()
    };
    let (tcp, roce) = (wire(0), wire(3));
    let ratio = roce / tcp;
    assert!((ratio / 3.0 - 1.0).abs() < 0.03, "RoCE:TCP wire {ratio:.3}");
    let total = (tcp + roce) * 8.0 / 15e-3 / 10e9;
    assert!(total > 0.99, "port utilisation {total}");
}

#[test]
fn several_drops_in_one_window_are_repaired_in_one_recovery() {
    // 50 us links: an RTT of 200 us holds ~160 frames of 1.2304 us at 10G. Every 20th data
    // packet toward the receiver is lost for 100 us (at most 81 frames: 3 or 4 drops, all in
    // flight at once). The duplicate ACKs' SACK blocks
    // (RFC 2018) name what arrived, so one recovery episode resends exactly the holes: one
    // fast retransmit, no timeout, one retransmission per drop.
    let mut sc = scenario(
        star(2, Rate::gbps(10), Time::from_us(50)),
        Time::from_ms(100),
    );
    sc.flows
        .push(tcp_flow(0, 1, Some(8_000_000), Time::ZERO, TcpCc::NewReno));
    sc.faults.push(FaultSpec {
        kind: FaultKind::Loss {
            link: 1,
            from_a: Some(false),
            every: Some(20),
            probability: None,
            all_frames: false,
        },
        at: Time::from_ms(3),
        until: Some(Time::from_us(3100)),
    });
    let r = run(sc);
    let (f, t) = (&r.flows[0], &r.tcp[0]);
    let drops = f.dropped_bytes / 1460;
    assert!((3..=4).contains(&drops), "{drops} drops");
    assert_eq!((t.fast_retransmits, t.timeouts), (1, 0));
    assert_eq!(t.retx_packets, drops);
    assert_eq!(f.bytes_delivered, 8_000_000);
}
