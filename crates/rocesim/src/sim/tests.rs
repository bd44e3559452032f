//! Physics checks of the simulated world: expected values come from the analytic model
//! (serialization, propagation, pause quanta, max-min shares), never from the code.

use super::testkit::*;
use super::Sim;
use crate::nic::params::TransportKind;
use crate::units::{Rate, Time};

fn run(sc: crate::config::Scenario) -> crate::monitor::RunResults {
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    sim.results(0.0)
}

#[test]
fn one_packet_latency_is_serialization_plus_propagation() {
    // One 1000-byte message, back to back at 40G with 1 us of cable: the data frame takes
    // (1000 + 82 + 16) × 8 / 40e9 = 219.6 ns to serialize and 1 us to propagate; the ACK
    // (86 B = 17.2 ns) comes back over the same cable. Completion is when the ACK lands.
    let mut sc = scenario(
        back_to_back(Rate::gbps(40), Time::from_us(1)),
        Time::from_ms(1),
    );
    sc.flows.push(flow(0, 1, Some(1000), Time::ZERO));
    let r = run(sc);
    let expect_ps = 219_600 + 1_000_000 + 17_200 + 1_000_000;
    assert_eq!(r.flows[0].fct_ns, Some(expect_ps / 1000));
    assert_eq!(r.flows[0].bytes_delivered, 1000);
}

#[test]
fn pingmesh_probe_rtt_is_serialization_plus_propagation() {
    // A 512-byte probe through one 40G switch, 1 us cables: the data frame (512 + 82 + 16 B)
    // takes 122 ns per link, the 86 B ACK 17.2 ns; four cable crossings of 1 us. A probe whose
    // ACK is later than its timeout is an error, and probes are not application flows.
    use crate::traffic::generators::PingLevel;
    use crate::traffic::{FlowKind, Probe};
    let mut sc = scenario(star(2, Rate::gbps(40), Time::from_us(1)), Time::from_us(20));
    for (start, timeout) in [(1, 1000), (10, 4)] {
        let mut f = flow(0, 1, Some(512), Time::from_us(start));
        f.kind = FlowKind::Probe(Probe {
            level: PingLevel::Tor,
            timeout: Time::from_us(timeout),
        });
        sc.flows.push(f);
    }
    let r = run(sc);
    assert!(r.flows.is_empty());
    let expect_ps: u64 = 2 * 122_000 + 2 * 17_200 + 4 * 1_000_000;
    assert_eq!(r.pingmesh[0].rtt_ns, Some(expect_ps / 1000));
    assert_eq!((r.pingmesh[0].level, r.pingmesh[0].error), ("tor", None));
    assert_eq!(
        (r.pingmesh[1].rtt_ns, r.pingmesh[1].error),
        (None, Some("timeout"))
    );
}

#[test]
fn one_flow_goodput_is_payload_over_frame() {
    // A long-lived flow over one switch at 100G: goodput = 1024/1106 × 100 Gb/s.
    let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(2));
    sc.sim.warmup = Time::from_us(500);
    sc.flows.push(flow(0, 1, None, Time::ZERO));
    let r = run(sc);
    let expect = 1024.0 / 1106.0 * 100.0;
    let got = r.flows[0].goodput_gbps;
    assert!(
        (got / expect - 1.0).abs() < 0.005,
        "goodput {got} vs {expect}"
    );
    assert_eq!(r.drops_lossless + r.drops_lossy, 0);
}

#[test]
fn byte_conservation_per_flow() {
    let mut sc = scenario(
        star(9, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(300),
    );
    for s in 1..9 {
        sc.flows.push(flow(s, 0, Some(3_000_000), Time::ZERO));
    }
    let r = run(sc);
    for f in &r.flows {
        assert_eq!(
            f.tx_bytes,
            f.bytes_delivered + f.discarded_bytes + f.dropped_bytes + f.inflight_bytes,
            "flow {}",
            f.name
        );
    }
}

#[test]
fn go_back_n_recovers_and_go_back_0_livelocks() {
    // VALIDATION.md §2.1 (Guo et al. 2016 §4.1): the switch drops 1 of every 256 data packets
    // of a 4 MB WRITE (4000 packets of 1 KB) at 40G.
    use crate::faults::{FaultKind, FaultSpec};
    let mk = |t, size| {
        let mut sc = scenario(star(2, Rate::gbps(40), Time::from_us(1)), Time::from_ms(20));
        // A 1 ms timeout: the 4 MB message ends with a tail loss that only the RTO recovers.
        sc.nics.iter_mut().for_each(|n| {
            n.transport = t;
            n.rto = Time::from_ms(1);
        });
        sc.flows.push(flow(0, 1, size, Time::ZERO));
        // Link 1 is sw0–h1: drop on the switch's side toward h1.
        sc.faults.push(FaultSpec {
            kind: FaultKind::Loss {
                link: 1,
                from_a: Some(false),
                every: Some(256),
                probability: None,
                all_frames: false,
            },
            at: Time::ZERO,
            until: None,
        });
        sc
    };
    let gbn = run(mk(TransportKind::Gbn, Some(4_096_000)));
    assert!(
        gbn.flows[0].end_ns.is_some(),
        "go-back-N completes the 4 MB message"
    );
    // Steady state on a long-lived flow: goodput = (255 − W)/256 of the line goodput, where
    // W is the number of packets the sender puts out after a dropped one before the NAK
    // rewinds it (the receiver discards all of them). From the timeline at 40G with 1 us
    // links: data frames take S = 1106 B × 8 / 40G = 221.2 ns, the NAK s = 86 B → 17.2 ns.
    // Packet k leaves h0 at 0 and is dropped on sw→h1; k+1 (sent at S) reaches h1 at
    // 3S + 2D, whose NAK is back at h0 at 3S + 4D + 2s. Packets started at jS before that
    // (j ≥ 1) are discarded: W = ⌈(3S + 4D + 2s) / S⌉ − 1 = 21.
    let (s_data, s_nak, d): (f64, f64, f64) = (221.2, 17.2, 1000.0);
    let w_expect = ((3.0 * s_data + 4.0 * d + 2.0 * s_nak) / s_data).ceil() - 1.0;
    assert_eq!(w_expect, 21.0);
    let mut sc = mk(TransportKind::Gbn, None);
    sc.sim.warmup = Time::from_ms(2);
    let lived = run(sc);
    let f = &lived.flows[0];
    let drops = f.dropped_bytes as f64 / 1024.0;
    let w = f.discarded_bytes as f64 / 1024.0 / drops;
    assert!(drops >= 100.0, "drops {drops}");
    assert!((w - w_expect).abs() <= 1.0, "W {w} vs {w_expect}");
    let line_goodput = 40.0 * 1024.0 / 1106.0;
    let expect = (255.0 - w_expect) / 256.0 * line_goodput;
    let got = f.goodput_gbps;
    assert!(
        (got / expect - 1.0).abs() <= 0.02,
        "goodput {got} vs (255-W)/256 = {expect}, W = {w_expect}"
    );

    let gb0 = run(mk(TransportKind::Gb0, Some(4_096_000)));
    let f0 = &gb0.flows[0];
    assert!(
        f0.end_ns.is_none(),
        "go-back-0 never completes a 4000-packet message"
    );
    // ... while the sender keeps the link busy (> 95 % of the run).
    let tx = gb0
        .ports
        .iter()
        .filter(|p| p.node == "h0")
        .map(|p| p.tx_bytes)
        .sum::<u64>();
    let util = tx as f64 * 8.0 / 40e9 / (gb0.sim_time_ns as f64 * 1e-9);
    assert!(util > 0.95, "link utilisation {util}");
}

#[test]
fn parking_lot_pfc_only_shares_per_ingress_port() {
    // VALIDATION.md §1 (Liu et al. 2015 Table II): D gets 1/2 of the bottleneck, A, B, C 1/6.
    let mut sc = scenario(
        parking_lot(Rate::gbps(40), Time::from_us(1)),
        Time::from_ms(60),
    );
    sc.sim.warmup = Time::from_ms(10);
    sc.nics.iter_mut().for_each(|n| n.mtu = 2048);
    for s in 0..4 {
        sc.flows.push(flow(s, 4, None, Time::ZERO));
    }
    let r = run(sc);
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_gbps).collect();
    let abc = (g[0] + g[1] + g[2]) / 3.0;
    let ratio = g[3] / abc;
    assert!(
        (ratio - 3.0).abs() <= 0.15,
        "D/mean(A,B,C) = {ratio} ({g:?})"
    );
    let (mx, mn) = (
        g[..3].iter().cloned().fold(0.0, f64::max),
        g[..3].iter().cloned().fold(f64::MAX, f64::min),
    );
    assert!(mx / mn <= 1.05, "A, B, C spread {g:?}");
    let total: f64 = g.iter().sum();
    let ideal = 2048.0 / 2130.0 * 40.0;
    assert!(
        total >= 0.93 * ideal && total <= ideal * 1.001,
        "total {total} of {ideal}"
    );
    assert_eq!(r.drops_lossless + r.drops_lossy, 0);
    assert!(
        r.ports.iter().any(|p| p.node == "S1" && p.pause_rx > 0),
        "S1 is paused by S2"
    );
}

#[test]
fn parking_lot_shares_follow_the_frame_overhead() {
    // nic.frame_overhead = 48 (ns-3's count): the PFC-only lot gives C/6, C/6, C/6, C/2 with
    // C = 40G × 2048/(2048 + 48), each to 0.5 %.
    let mut sc = scenario(
        parking_lot(Rate::gbps(40), Time::from_us(1)),
        Time::from_ms(60),
    );
    sc.sim.warmup = Time::from_ms(10);
    sc.nics.iter_mut().for_each(|n| {
        n.mtu = 2048;
        n.frame_overhead = crate::packet::FrameOverhead(48);
    });
    for s in 0..4 {
        sc.flows.push(flow(s, 4, None, Time::ZERO));
    }
    let r = run(sc);
    let c = 40.0 * 2048.0 / (2048.0 + 48.0);
    for (f, share) in r.flows.iter().zip([6.0, 6.0, 6.0, 2.0]) {
        let want = c / share;
        assert!(
            (f.goodput_gbps / want - 1.0).abs() <= 0.005,
            "{}: {} vs {want}",
            f.name,
            f.goodput_gbps
        );
    }
}

#[test]
fn chained_flows_start_when_their_predecessor_completes() {
    // Three 100 KB reads in a chain (queue depth 1): each starts 1 us after the previous one
    // completes, so the last completes three FCTs plus two gaps after the first starts.
    let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(5));
    sc.flows.push(flow(0, 1, Some(100_000), Time::ZERO));
    for i in 0..2 {
        let mut f = flow(0, 1, Some(100_000), Time::from_us(1));
        f.after = Some(i);
        sc.flows.push(f);
    }
    let r = run(sc);
    let one = r.flows[0].fct_ns.unwrap();
    for i in 1..3 {
        assert_eq!(r.flows[i].start_ns, r.flows[i - 1].end_ns.unwrap() + 1_000);
        assert_eq!(
            r.flows[i].fct_ns.unwrap(),
            one,
            "an idle path gives the same FCT"
        );
    }
}

#[test]
fn link_down_drops_until_routing_reconverges() {
    // Leaf-spine with 2 spines; 16 flows from leaf0 to leaf1 spread over both spines by ECMP.
    // The leaf0–spine0 link dies at 1 ms and routing reconverges 0.5 ms later: packets hashed to
    // spine0 are lost in between, none after, and go-back-N recovers every flow.
    use crate::faults::{FaultKind, FaultSpec};
    use crate::topology::{LinkSpec, NodeRef, Topology};
    let r40 = Rate::gbps(40);
    let d = Time::from_us(1);
    let mut links = Vec::new();
    for h in 0..4 {
        links.push(LinkSpec {
            a: NodeRef::Host(h),
            b: NodeRef::Switch(h / 2),
            rate: r40,
            delay: d,
        });
    }
    for l in 0..2 {
        for s in 0..2 {
            links.push(LinkSpec {
                a: NodeRef::Switch(l),
                b: NodeRef::Switch(2 + s),
                rate: r40,
                delay: d,
            });
        }
    }
    let topo = Topology {
        hosts: hosts(4),
        switches: named_switches(["leaf0", "leaf1", "spine0", "spine1"]),
        links,
    };
    let mk = |duration| {
        let mut sc = scenario(topo.clone(), duration);
        sc.nics.iter_mut().for_each(|n| n.rto = Time::from_us(500));
        for i in 0..16u32 {
            let mut f = flow(i % 2, 2 + i % 2, Some(2_000_000), Time::ZERO);
            f.sport = 50_000 + i as u16 * 37;
            sc.flows.push(f);
        }
        sc.faults.push(FaultSpec {
            kind: FaultKind::LinkDown {
                link: 4,
                reconverge: Time::from_us(500),
            },
            at: Time::from_ms(1),
            until: None,
        });
        run(sc)
    };
    let early = mk(Time::from_us(1600));
    let full = mk(Time::from_ms(20));
    assert!(
        early.drops_fault > 0,
        "packets die on the dead link before reconvergence"
    );
    assert_eq!(
        full.drops_fault, early.drops_fault,
        "no drops after routing reconverged"
    );
    assert!(
        full.flows.iter().all(|f| f.end_ns.is_some()),
        "every flow completes"
    );
}

#[test]
fn int_tx_bytes_counts_every_frame_the_port_sent() {
    // HPCC's INT txBytes is the egress port's cumulative transmitted wire bytes. On an 8:1
    // incast (with pauses toward the senders) the switch port toward the receiver sends only
    // the data frames of the 8 flows, so once they complete its total must equal the sum of
    // their frame sizes: payload per packet plus the RoCEv2 overhead, RETH on each first packet.
    let size = 2_000_000u64;
    let mut sc = scenario(star(9, Rate::gbps(100), Time::from_us(1)), Time::from_ms(2));
    for s in 1..9 {
        sc.flows.push(flow(s, 0, Some(size), Time::ZERO));
    }
    let mtu = sc.nics[0].mtu as u64;
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    let r = sim.results(0.0);
    assert!(r.flows.iter().all(|f| f.end_ns.is_some()), "all complete");
    assert!(
        r.ports.iter().any(|p| p.pause_tx > 0),
        "the incast should pause"
    );
    let frames_per_flow: u64 = (0..size.div_ceil(mtu))
        .map(|i| (size - i * mtu).min(mtu) + 82 + if i == 0 { 16 } else { 0 })
        .sum();
    let ports = sim.ports();
    let (_, to_h0) = ports
        .iter()
        .find(|(_, p)| p.node == crate::topology::NodeRef::Switch(0) && p.local == 0)
        .unwrap();
    assert_eq!(to_h0.tx_bytes, 8 * frames_per_flow);
}

#[test]
fn per_queue_counters_follow_tc_to_queue() {
    // SONiC's TC_TO_QUEUE_MAP puts TC 3 in queue 5, and ECN marks queue 5. A 2:1 incast on TC 3
    // builds the queue toward h0: the marks and the peak depth belong to (sw0, port 0, queue 5),
    // the transmit counters to priority 3, and nothing is recorded for queue 3.
    use crate::fabric::params::{EcnParams, MarkOn};
    use crate::units::Bytes;
    let mut sc = scenario(star(3, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
    let sw = &mut sc.switches[0];
    sw.tc_to_queue[3] = 5;
    sw.ecn = Some(EcnParams {
        queues: 1 << 5,
        kmin: Bytes(5_000),
        kmax: Bytes(20_000),
        pmax: 1.0,
        mark_on: MarkOn::Enqueue,
    });
    for s in 1..3 {
        sc.flows.push(flow(s, 0, Some(500_000), Time::ZERO));
    }
    let r = run(sc);
    let toward_h0 = |q: u8| {
        r.port_queues
            .iter()
            .find(|x| x.node == "sw0" && x.peer == "h0" && x.queue == q)
    };
    let q5 = toward_h0(5).expect("queue 5 has a row");
    assert!(q5.ecn_marked > 0 && q5.max_queue_bytes > 20_000, "{q5:?}");
    assert!(toward_h0(3).is_none(), "queue 3 carries nothing");
    let prio3 = r
        .ports
        .iter()
        .find(|p| p.node == "sw0" && p.peer == "h0" && p.prio == 3)
        .expect("priority 3 row");
    assert!(prio3.tx_packets >= 2 * 489, "{prio3:?}");
    assert_eq!(
        r.flows.iter().map(|f| f.ecn_marked).sum::<u64>(),
        q5.ecn_marked,
        "every mark at queue 5 reaches a receiver"
    );
}

#[test]
fn late_flows_and_zero_rto_are_warned_about() {
    let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
    sc.flows.push(flow(0, 1, Some(10_000), Time::ZERO));
    sc.flows.push(flow(1, 0, Some(10_000), Time::from_ms(2)));
    sc.nics[1].rto = Time::ZERO;
    let r = run(sc);
    let has = |s: &str| r.warnings.iter().any(|w| w.contains(s));
    assert!(
        has("1 flow(s) start at or after sim.duration"),
        "{:?}",
        r.warnings
    );
    assert!(
        has("nic.rto is 0 on 1 host(s) (first h1)"),
        "{:?}",
        r.warnings
    );
    let mut quiet = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
    quiet.flows.push(flow(0, 1, Some(10_000), Time::ZERO));
    assert!(run(quiet).warnings.is_empty());
}

#[test]
fn queue_samples_report_a_queue_after_it_empties() {
    // A 2:1 incast fills the queue toward h0; after the flows end it is empty. The samples
    // must show it draining to 0 and staying there, not stop at the last non-empty depth.
    let mut sc = scenario(
        star(3, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(300),
    );
    sc.sim.stop_when_done = false;
    sc.output.queue_sample_interval = Some(Time::from_us(5));
    for s in 1..3 {
        sc.flows.push(flow(s, 0, Some(300_000), Time::ZERO));
    }
    let r = run(sc);
    let toward_h0: Vec<_> = r
        .queues
        .iter()
        .filter(|q| q.node == "sw0" && q.port == 0 && q.queue == 3)
        .collect();
    assert!(
        toward_h0.iter().any(|q| q.bytes > 100_000),
        "the incast builds a queue"
    );
    let last = toward_h0.last().expect("sampled");
    assert_eq!(last.time_ns, 300_000, "sampled until the end");
    assert_eq!(last.bytes, 0, "and shown empty");
    let times: Vec<u64> = toward_h0.iter().map(|q| q.time_ns).collect();
    let first = times[0];
    assert_eq!(
        times.len() as u64,
        (300_000 - first) / 5_000 + 1,
        "one row per sample"
    );
}

#[test]
fn active_goodput_is_over_the_time_a_flow_was_active() {
    // One 1 MB flow in a 1 ms run at 100G: it finishes in about 0.1 ms, so its goodput over
    // the whole window is about a tenth of its rate, while its active goodput is close to the
    // line goodput 100 × 1024/1106 (minus the first packet's latency and RETH).
    let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
    sc.sim.stop_when_done = false;
    sc.flows.push(flow(0, 1, Some(1_024_000), Time::ZERO));
    let r = run(sc);
    let f = &r.flows[0];
    let line = 100.0 * 1024.0 / 1106.0;
    assert!(
        f.goodput_active_gbps > 0.9 * line && f.goodput_active_gbps < line,
        "{f:?}"
    );
    let fct_s = f.fct_ns.unwrap() as f64 * 1e-9;
    let expect_window = 1_024_000.0 * 8.0 / 1e-3 * 1e-9;
    assert!((f.goodput_gbps - expect_window).abs() < 1e-9, "{f:?}");
    let expect_active = 1_024_000.0 * 8.0 / fct_s * 1e-9;
    assert!(
        (f.goodput_active_gbps - expect_active).abs() / expect_active < 1e-5,
        "{f:?}"
    );
}

#[test]
fn delivered_precedes_acked_by_the_ack_return_path() {
    // A 10 KB message on a 2-host star at 100G with 1 us links: the last byte is delivered at
    // the receiver, and its ACK (86 B on the wire) reaches the sender after two serializations
    // of 6.88 ns and two propagation delays: 2013.76 ns later.
    let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
    sc.flows.push(flow(0, 1, Some(10_240), Time::ZERO));
    let r = run(sc);
    let f = &r.flows[0];
    let (acked, delivered) = (f.acked_ns.unwrap(), f.delivered_ns.unwrap());
    assert_eq!(f.end_ns, Some(acked), "end_ns is the ACK-based completion");
    let gap = acked - delivered;
    assert!((2013..=2014).contains(&gap), "ack return path {gap} ns");
}

#[test]
fn polarized_hashing_leaves_cores_idle() {
    // A k = 4 fat-tree: an edge switch picks one of 2 aggregations, an aggregation one of 2
    // cores. With the same hash and seed on every switch a flow's index at the aggregation
    // equals its index at the edge, so only cores (0, 0) and (1, 1) of the 2 × 2 ever carry
    // inter-pod traffic; with per-switch salts all 4 do.
    use crate::fabric::params::EcmpHash;
    use crate::topology::LinkClass;
    let link = LinkClass {
        rate: Rate::gbps(100),
        delay: Time::from_us(1),
    };
    let busy_cores = |hash: EcmpHash| {
        let topo = crate::topology::build::clos::fat_tree(4, 1, link, link).expect("builds");
        let mut sc = scenario(topo, Time::from_us(200));
        sc.switches.iter_mut().for_each(|s| s.ecmp_hash = hash);
        // 64 flows from pod 0 to pod 3, each with its own UDP source port (5-tuple).
        for i in 0..64u32 {
            let mut f = flow(i % 4, 12 + i % 4, Some(10_000), Time::ZERO);
            f.sport = 49152 + i as u16 * 97;
            sc.flows.push(f);
        }
        let r = run(sc);
        let mut cores: Vec<&str> = r
            .ports
            .iter()
            .filter(|p| p.node.starts_with("agg") && p.peer.starts_with("core") && p.tx_packets > 0)
            .map(|p| p.peer.as_str())
            .collect();
        cores.sort();
        cores.dedup();
        cores.len()
    };
    assert_eq!(busy_cores(EcmpHash::Salted), 4);
    assert_eq!(busy_cores(EcmpHash::Polarized), 2);
}

#[test]
fn switch_latency_adds_to_every_switch_crossing() {
    // Two hosts on one 100G switch, 1 us links, a 1000-byte message: store-and-forward gives
    // data (1098 B = 87.84 ns) twice, the ACK (86 B = 6.88 ns) twice, four propagation delays;
    // a forwarding latency of 500 ns adds itself to the data's and to the ACK's crossing.
    let fct = |latency: Time| {
        let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(1));
        sc.switches[0].latency = latency;
        sc.flows.push(flow(0, 1, Some(1000), Time::ZERO));
        let r = run(sc);
        assert_eq!(r.flows[0].bytes_delivered, 1000);
        r.flows[0].fct_ns.unwrap()
    };
    let base_ps: u64 = 2 * 87_840 + 2 * 6_880 + 4 * 1_000_000;
    assert_eq!(fct(Time::ZERO), base_ps / 1000);
    assert_eq!(fct(Time::from_ns(500)), (base_ps + 2 * 500_000) / 1000);
}

#[test]
fn a_petabyte_flow_costs_nothing_to_set_up() {
    // 10^15 bytes (10^12 packets of 1 KB): building the run and computing its ideal FCT must
    // not walk the packets. At 100G the message alone needs (10^15 + 82 × ⌈10^15/1024⌉) × 8 /
    // 10^11 s, about 80,640 s.
    let size = 1_000_000_000_000_000u64;
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(10),
    );
    sc.flows.push(flow(0, 1, Some(size), Time::ZERO));
    let r = run(sc);
    let ideal_s = r.flows[0].ideal_fct_ns.unwrap() as f64 * 1e-9;
    let wire = size as f64 + 82.0 * (size as f64 / 1024.0).ceil();
    assert!(
        (ideal_s / (wire * 8.0 / 1e11) - 1.0).abs() < 1e-6,
        "{ideal_s}"
    );
}

#[test]
fn hpcc_int_header_bytes_cost_goodput() {
    // One HPCC flow on an idle 100G link holds the wire at η of its capacity whatever its
    // frames carry, so with ns-3's 42-byte INT header its payload goodput falls by the frame
    // ratio 1106/1148 (1024 B payload + 82 B of headers, + 42 B of INT).
    let goodput = |int_header: u32| {
        let mut sc = scenario(star(2, Rate::gbps(100), Time::from_us(1)), Time::from_ms(2));
        sc.sim.warmup = Time::from_ms(1);
        sc.nics.iter_mut().for_each(|n| {
            n.cc = crate::nic::params::CcKind::Hpcc;
            n.cc_params.hpcc.int_header = int_header;
        });
        sc.flows.push(flow(0, 1, None, Time::ZERO));
        run(sc).flows[0].goodput_gbps
    };
    let ratio = goodput(42) / goodput(0);
    assert!(
        (ratio / (1106.0 / 1148.0) - 1.0).abs() < 0.01,
        "ratio {ratio}"
    );
}
