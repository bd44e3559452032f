//! IRN and SRNIC in the simulated world (VALIDATION.md §5; Mittal et al. 2018): BDP-FC,
//! selective retransmission, the two timeouts, goodput under random loss. Expected values
//! come from serialization and propagation arithmetic and from the papers' claims.

use super::testkit::*;
use super::Sim;
use crate::config::Scenario;
use crate::faults::{FaultKind, FaultSpec};
use crate::monitor::RunResults;
use crate::nic::params::TransportKind;
use crate::nic::recovery_stats::RecoveryCounters;
use crate::packet::PacketKind;
use crate::units::{Bytes, Rate, Time};

/// A 100G path of three 1 us links, `transport` at both NICs, PFC off everywhere.
fn lossy_path(transport: TransportKind, duration: Time) -> Scenario {
    let mut sc = scenario(chain3(Rate::gbps(100), Time::from_us(1)), duration);
    for n in &mut sc.nics {
        n.transport = transport;
        n.pfc_enable = 0;
    }
    for s in &mut sc.switches {
        s.pfc_enable = 0;
    }
    sc
}

/// Loss on link 1 (sw0 → sw1), data packets only.
fn loss(every: Option<u64>, probability: Option<f64>) -> FaultSpec {
    FaultSpec {
        kind: FaultKind::Loss {
            link: 1,
            from_a: Some(true),
            every,
            probability,
            all_frames: false,
        },
        at: Time::ZERO,
        until: None,
    }
}

fn run(sc: Scenario) -> (RunResults, [RecoveryCounters; 2]) {
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    let c = [sim.nics[0].recovery, sim.nics[1].recovery];
    (sim.results(0.0), c)
}

/// Data packets of flow 0 in the network (queues, wires, pipelines, RX buffers).
fn data_in_network(sim: &Sim) -> u64 {
    let mut n = 0;
    let mut count = |id: u32| {
        let p = sim.ctx.packets.get(id);
        n += u64::from(p.kind == PacketKind::Data && p.flow == 0);
    };
    sim.frames_on_wires().iter().for_each(|&(_, id)| count(id));
    for (_, port) in sim.ports().iter() {
        port.queues
            .iter()
            .for_each(|q| q.iter().for_each(|e| count(e.pkt())));
        port.pipeline
            .in_flight
            .iter()
            .for_each(|&(_, id)| count(id));
    }
    sim.nics
        .iter()
        .for_each(|h| h.rx.queue.iter().for_each(|&(id, _)| count(id)));
    n
}

/// Run event by event; the most data packets of flow 0 ever in the network at once.
fn peak_in_flight(sc: Scenario) -> (u64, Sim) {
    let mut sim = Sim::new(sc).expect("builds");
    let mut peak = 0;
    while let Some((_, ev)) = sim.ctx.events.pop_until(sim.end) {
        sim.dispatch::<false, false>(ev);
        peak = peak.max(data_in_network(&sim));
        if sim.starts.all_done() {
            break;
        }
    }
    // Events driven by hand: settle the ports' transmit accounts as `Sim::run` does.
    sim.settle_tx();
    (peak, sim)
}

// One data frame of 1024 B is 1106 B on the wire (88.48 ns at 100G), an ACK 86 B (6.88 ns).
// Base RTT of the path: 3 × (2 × 1 us + 88.48 ns + 6.88 ns) = 6286.08 ns.
const RTT_PS: u64 = 3 * (2_000_000 + 88_480 + 6_880);
const FRAME_PS: u64 = 88_480;

#[test]
fn bdp_fc_caps_packets_in_flight_at_bdp_over_mtu() {
    // The path's BDP: 100 Gb/s × 6286.08 ns = 78,576 B → ⌈78,576 / 1024⌉ = 77 packets.
    let sc = lossy_path(TransportKind::Irn, Time::from_ms(1));
    let sim = Sim::new(sc.clone()).expect("builds");
    assert_eq!(sim.bdp_fc_packets(0, 1), 77);
    let mut sc = sc;
    sc.flows.push(flow(0, 1, Some(1024 * 2000), Time::ZERO));
    let (peak, _) = peak_in_flight(sc.clone());
    assert!(peak <= 77, "peak {peak} packets in flight");
    // A 20 KB cap binds: exactly 20 in flight, and the QP sends 20 packets per RTT:
    // 20 × 1024 × 8 b / 6286.08 ns = 26.06 Gb/s.
    sc.nics[0].irn.bdp_cap = Some(Bytes(20 * 1024));
    let (peak, sim) = peak_in_flight(sc);
    assert_eq!(peak, 20);
    let r = sim.results(0.0);
    let fct = r.flows[0].fct_ns.expect("completes") as f64;
    let gbps = 2000.0 * 1024.0 * 8.0 / fct;
    let expect = 20.0 * 1024.0 * 8.0 / (RTT_PS as f64 / 1000.0);
    assert!(
        (gbps / expect - 1.0).abs() < 0.02,
        "{gbps} vs {expect} Gb/s"
    );
}

#[test]
fn one_loss_among_many_in_flight_retransmits_only_that_packet() {
    // 250 packets; the 150th data packet crossing sw0 → sw1 is dropped (PSN 149) with
    // ~77 packets in flight. IRN resends PSN 149 alone; go-back-N resends it and everything
    // sent after it until the NAK came back.
    let mk = |t| {
        let mut sc = lossy_path(t, Time::from_ms(5));
        sc.flows.push(flow(0, 1, Some(1024 * 250), Time::ZERO));
        sc.faults.push(loss(Some(150), None));
        sc
    };
    let (r, c) = run(mk(TransportKind::Irn));
    let f = &r.flows[0];
    assert!(f.end_ns.is_some(), "completes");
    assert_eq!(f.retx_packets, 1);
    assert_eq!(
        (c[0].retx_nack, c[0].retx_selective, c[0].retx_timeout),
        (1, 0, 0)
    );
    assert_eq!(f.discarded_bytes, 0, "nothing delivered twice");
    // nics.csv is written for a lossy run without caches: the sender's row has the one
    // NACK-driven retransmission, the receiver's the packets it held out of order.
    let rows: Vec<_> = r.nics.iter().map(|n| (n.node.as_str(), n.caches)).collect();
    assert_eq!(rows, [("h0", false), ("h1", false)]);
    let (tx, rx) = (&r.nics[0], &r.nics[1]);
    assert_eq!(
        (tx.retx_packets, tx.retx_nack, tx.retx_selective),
        (1, 1, 0)
    );
    assert_eq!((tx.retx_timeout, tx.ooo_rx, rx.retx_packets), (0, 0, 0));
    assert_eq!(rx.ooo_rx, c[1].ooo_rx);
    assert!(
        c[1].ooo_rx >= 50,
        "packets after the hole are held: {}",
        c[1].ooo_rx
    );
    let (g, gc) = run(mk(TransportKind::Gbn));
    assert!(
        g.flows[0].retx_packets > 50,
        "go-back-N: {}",
        g.flows[0].retx_packets
    );
    assert_eq!(gc[0].retx_nack, g.flows[0].retx_packets);
}

#[test]
fn tail_loss_is_recovered_after_rto_low() {
    // 20 packets, the last one lost. The ACK of PSN 18 arrives one frame time (88.48 ns)
    // before the lost packet's would have; then 1 packet is in flight (< N = 3), so the
    // timer fires rto_low = 100 us later and the resent packet's ACK takes one base RTT:
    // FCT grows by 100 us + 6286.08 ns − 88.48 ns = 106,197.6 ns.
    let mk = |lossy| {
        let mut sc = lossy_path(TransportKind::Irn, Time::from_ms(5));
        sc.flows.push(flow(0, 1, Some(1024 * 20), Time::ZERO));
        if lossy {
            sc.faults.push(loss(Some(20), None));
        }
        sc
    };
    let (free, _) = run(mk(false));
    let (lossy, c) = run(mk(true));
    assert_eq!((c[0].retx_timeout, lossy.flows[0].retx_packets), (1, 1));
    let delta =
        lossy.flows[0].fct_ns.expect("done") as i64 - free.flows[0].fct_ns.expect("done") as i64;
    let expect = (100_000_000 + RTT_PS - FRAME_PS) as f64 / 1000.0;
    assert!(
        (delta as f64 - expect).abs() <= 1.0,
        "{delta} ns vs {expect} ns"
    );
    // With rto_low raised to rto_high the same loss waits 320 us instead.
    let mut sc = mk(true);
    sc.nics[0].irn.rto_low = Time::from_us(320);
    let (slow, _) = run(sc);
    let d2 =
        slow.flows[0].fct_ns.expect("done") as i64 - free.flows[0].fct_ns.expect("done") as i64;
    assert!((d2 as f64 - expect - 220_000.0).abs() <= 1.0, "{d2} ns");
}

#[test]
fn an_isolated_loss_stalls_the_window_for_the_holes_life_minus_one_bdp() {
    // BDP-FC as Mittal et al. 2018 §3.2 define it: a new packet leaves only while its PSN is
    // less than the cap above the cumulative acknowledgement, so packets selectively acked
    // above a hole still count. PSN 499 of 700 is lost (sent at t0, back to back). PSN 500
    // (sent at t0 + T) draws the NACK, back at t0 + T + RTT = t0 + 72.04 T; the frame then
    // on the wire ends at t0 + 73 T and PSN 499 is resent at once (§3.1: the first packet
    // retransmitted is the cumulative acknowledgement). Its ACK comes back one RTT later.
    // Meanwhile the window lets PSNs up to 499 + 76 leave; PSN 576 would have left at
    // t0 + 77 T. Everything after it is late by 73 T + RTT − 77 T = RTT − 4 T = 5,932.16 ns,
    // and so is the completion.
    let mk = |lossy| {
        let mut sc = lossy_path(TransportKind::Irn, Time::from_ms(5));
        sc.flows.push(flow(0, 1, Some(1024 * 700), Time::ZERO));
        if lossy {
            sc.faults.push(loss(Some(500), None));
        }
        sc
    };
    let (free, _) = run(mk(false));
    let (lossy, c) = run(mk(true));
    assert_eq!((c[0].retx_nack, lossy.flows[0].retx_packets), (1, 1));
    let fct = |r: &RunResults| r.flows[0].fct_ns.expect("done") as f64;
    let expect = (RTT_PS - 4 * FRAME_PS) as f64 / 1000.0;
    let delta = fct(&lossy) - fct(&free);
    // Within 2 ns (two FCTs truncated to whole ns); one frame later would be 88 ns off.
    assert!((delta - expect).abs() <= 2.0, "{delta} ns vs {expect} ns");
    // At 1 % random loss a loss comes every 100 packets (8,848 ns of sending) on average,
    // so each costs about 5.9 us of stall unless the next one falls inside it: a window of
    // one BDP cannot hold 80 % of the line when holes live 2 RTT (see the next test).
}

/// Goodput of a long-lived flow over 50 ms at 1 % random data loss, and its NICs' counters.
fn at_one_percent(t: TransportKind, bdp_cap: Option<u64>) -> (f64, [RecoveryCounters; 2]) {
    let mut sc = lossy_path(t, Time::from_ms(50));
    sc.flows.push(flow(0, 1, None, Time::ZERO));
    sc.faults.push(loss(None, Some(0.01)));
    sc.nics[0].irn.bdp_cap = bdp_cap.map(Bytes);
    let (r, c) = run(sc);
    (r.flows[0].goodput_gbps, c)
}

#[test]
fn selective_repeat_keeps_goodput_at_one_percent_loss() {
    // 1 % random loss of data packets on the 100G path of three 1 us links, PFC off, default
    // nic.rto (67 ms). Loss-free goodput: 100 × 1024 / 1106 = 92.59 Gb/s. Go-back-N stalls
    // for the whole RTO once a retransmission is lost (1 % of losses, every ~1.5 ms).
    let line = 100.0 * 1024.0 / 1106.0;
    let (g, _) = at_one_percent(TransportKind::Gbn, None);
    let (i, ic) = at_one_percent(TransportKind::Irn, None);
    let (s, sc) = at_one_percent(TransportKind::Srnic, None);
    assert!(i >= 3.0 * g && s >= 3.0 * g, "gbn {g}, irn {i}, srnic {s}");
    // With the default window (77 packets = 1 BDP), a hole lives about 2 RTT (the NACK's
    // round trip, then the resent packet's) but the window lets the QP send only
    // 77 × 88.48 = 6,813 ns past it: each isolated loss stalls it RTT − 4 frames =
    // 5,932 ns (an_isolated_loss_...), after 100 frames (8,848 ns) on average; the resent
    // frame takes 88 ns more. A lost retransmission (p², every ~885 us) waits rto_low =
    // 100 us. Lower bound without overlapping stalls:
    // 92.59 × 0.99 × 8,848 / (8,848 + 5,932 + 88) × 885 / 985 = 49.0 Gb/s. Stalls of losses
    // that fall inside one window overlap, so the QP does better (about 63 Gb/s, 68 %).
    assert!(i >= 49.0 && s >= 49.0, "irn {i}, srnic {s}");
    // A window covering the hole's life (2 BDP = 156 packets, 13.8 us of sending) leaves
    // only the timeouts: 92.59 × 0.99 × 885 / 985 = 82.4 Gb/s, above 80 % of 92.59.
    let (i2, _) = at_one_percent(TransportKind::Irn, Some(2 * 78_576));
    let (s2, _) = at_one_percent(TransportKind::Srnic, Some(2 * 78_576));
    assert!(
        i2 >= 0.8 * line && s2 >= 0.8 * line,
        "irn {i2}, srnic {s2} of {line}"
    );
    assert!(ic[1].ooo_rx > 0 && ic[1].bitmap_host_accesses == 0);
    assert!(sc[1].bitmap_host_accesses >= sc[1].ooo_rx, "{:?}", sc[1]);
    assert!(ic[0].retx_selective > 0 && ic[0].retx_nack > 0 && ic[0].retx_timeout > 0);
}

#[test]
fn loss_of_all_frames_drops_acks_and_the_summary_warns_about_unprotected_go_back_n() {
    // Every 2nd frame from sw1 toward sw0 (the direction only ACKs and NAKs take) is lost.
    let mk = |t, all| {
        let mut sc = lossy_path(t, Time::from_ms(5));
        sc.flows.push(flow(0, 1, Some(1024 * 99), Time::ZERO));
        let mut f = loss(Some(2), None);
        if let FaultKind::Loss {
            from_a, all_frames, ..
        } = &mut f.kind
        {
            *from_a = Some(false);
            *all_frames = all;
        }
        sc.faults.push(f);
        sc
    };
    let (data_only, _) = run(mk(TransportKind::Irn, false));
    assert_eq!(data_only.drops_fault, 0, "no data crosses sw1 → sw0");
    let (all, _) = run(mk(TransportKind::Irn, true));
    // 99 cumulative ACKs, one per packet: the 49 even ones are lost; the odd ones, the last
    // included, still cover every PSN.
    assert_eq!(all.drops_fault, 49);
    assert!(all.flows[0].end_ns.is_some() && all.flows[0].retx_packets == 0);
    assert!(
        all.recovery.is_some(),
        "counters reported with a loss fault"
    );
    let warned = |r: &RunResults| r.warnings.iter().any(|w| w.contains("go-back-N"));
    assert!(!warned(&all), "IRN is not warned about");
    let (gbn, _) = run(mk(TransportKind::Gbn, true));
    assert!(warned(&gbn), "{:?}", gbn.warnings);
    let mut sc = mk(TransportKind::Gbn, true);
    sc.nics.iter_mut().for_each(|n| n.pfc_enable = 1 << 3);
    let (pfc, _) = run(sc);
    assert!(!warned(&pfc), "PFC protects its class");
    let mut quiet = lossy_path(TransportKind::Gbn, Time::from_ms(1));
    quiet.flows.push(flow(0, 1, Some(1024), Time::ZERO));
    let quiet = run(quiet).0;
    assert!(
        quiet.recovery.is_none() && quiet.nics.is_empty(),
        "go-back-N without loss: no counters, no nics.csv"
    );
}
