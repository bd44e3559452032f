//! Switch counters over time (timeseries/counters.csv): values from arithmetic — a known
//! number of frames through a port, one pause frame and the time it held the port.

use super::testkit::*;
use super::Sim;
use crate::monitor::{CounterSample, RunResults};
use crate::units::{Bytes, Rate, Time};

fn run(sc: crate::config::Scenario) -> RunResults {
    let mut sim = Sim::new(sc).expect("builds");
    sim.run(|_| true);
    sim.results(0.0)
}

fn series<'a>(r: &'a RunResults, peer: &str, prio: u8) -> Vec<&'a CounterSample> {
    (r.counters.iter())
        .filter(|c| c.node == "sw0" && c.peer == peer && c.prio == prio)
        .collect()
}

#[test]
fn counters_are_off_by_default() {
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(50),
    );
    sc.flows.push(flow(0, 1, Some(10 * 1024), Time::ZERO));
    assert!(run(sc).counters.is_empty());
}

#[test]
fn queue_counters_count_the_frames_of_a_known_message() {
    // 10 × 1024 B over a 1024-byte MTU: 10 data frames of 1024 + 82 B on the wire, the first
    // with a 16-byte RETH: 11,076 B through the switch port toward h1 at priority 3.
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(50),
    );
    sc.sim.stop_when_done = false;
    sc.output.counters_interval = Some(Time::from_us(1));
    sc.flows.push(flow(0, 1, Some(10 * 1024), Time::ZERO));
    let r = run(sc);
    let s = series(&r, "h1", 3);
    let last = s.last().expect("sampled");
    assert_eq!(last.time_ns, 50_000, "a last sample at the end of the run");
    assert_eq!(last.queue_packets, 10);
    assert_eq!(last.queue_bytes, 10 * (1024 + 82) + 16);
    assert_eq!(
        (last.pfc_rx_pkts, last.pfc_tx_pkts, last.pg_dropped_packets),
        (0, 0, 0)
    );
    assert_eq!(last.queue_curr_occupancy_bytes, 0, "drained");
    // The first frame leaves h0 after its 1122 B serialize (89.76 ns), propagates 1 us,
    // crosses sw0: the port has sent nothing at the 1 us sample and all 10 frames by 3 us
    // (10 × 88.5 ns on the wire after ~1.1 us).
    let at = |t: u64| {
        s.iter()
            .find(|c| c.time_ns == t)
            .map_or(0, |c| c.queue_packets)
    };
    assert_eq!(at(1_000), 0);
    assert_eq!(at(3_000), 10);
    // Cumulative: never decreasing, one row per sample once the port is active.
    assert!(s
        .windows(2)
        .all(|w| w[1].queue_packets >= w[0].queue_packets));
    assert!(s.windows(2).all(|w| w[1].time_ns - w[0].time_ns == 1_000));
}

#[test]
fn pfc_counters_count_one_pause_and_the_time_it_held_the_port() {
    // h1's receive pipeline stalls from 0 to 100 us with a 4 KB XOFF: its NIC sends one pause
    // of 65535 quanta (335.5 us at 100G, refreshed only after half of it) and an XON at 100 us.
    // The switch port toward h1 must show exactly one pause frame received and about 100 us
    // of pause, growing by the 20 us sample interval while paused and not after.
    use crate::faults::{FaultKind, FaultSpec};
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(400),
    );
    sc.sim.stop_when_done = false;
    sc.output.counters_interval = Some(Time::from_us(20));
    sc.nics[1].rx.xoff = Bytes(4_000);
    sc.nics[1].rx.xon = Bytes(0);
    sc.flows.push(flow(0, 1, None, Time::ZERO));
    sc.faults.push(FaultSpec {
        kind: FaultKind::NicRxStall { host: 1 },
        at: Time::ZERO,
        until: Some(Time::from_us(100)),
    });
    let r = run(sc);
    let s = series(&r, "h1", 3);
    let last = s.last().unwrap();
    assert_eq!(last.pfc_rx_pkts, 1, "one XOFF; XONs are not counted");
    let port = (r.ports.iter())
        .find(|p| p.node == "sw0" && p.peer == "h1" && p.prio == 3)
        .unwrap();
    assert_eq!(last.pfc_rx_pause_duration_us, port.paused_ns / 1000);
    assert!(
        (90..100).contains(&last.pfc_rx_pause_duration_us),
        "{last:?}"
    );
    let dur = |t: u64| {
        (s.iter().find(|c| c.time_ns == t))
            .expect("sampled")
            .pfc_rx_pause_duration_us
    };
    for t in [20_000, 40_000, 60_000, 80_000] {
        let d = dur(t + 20_000) - dur(t);
        assert!(
            (19..=21).contains(&d),
            "paused the whole interval after {t} ns: {d} us"
        );
    }
    assert_eq!(dur(120_000), dur(400_000), "no pause after the XON");
    // Meanwhile the queue toward h1 filled and sw0 paused h0 in turn: its PFC TX counter on
    // the port toward h0 equals the pause frames (quanta > 0) it logged there.
    let q = s.iter().map(|c| c.queue_watermark_bytes).max().unwrap();
    assert!(
        q > 10_000,
        "the queue toward h1 held the paused traffic: {q}"
    );
    assert!(s
        .iter()
        .all(|c| c.queue_curr_occupancy_bytes <= c.queue_watermark_bytes));
    let logged = (r.pfc_log.iter())
        .filter(|e| e.node == "sw0" && e.port == 0 && e.quanta > 0)
        .filter(|e| e.direction == crate::monitor::PfcDir::Tx)
        .count() as u64;
    let to_h0 = series(&r, "h0", 3);
    assert!(logged > 0);
    assert_eq!(to_h0.last().unwrap().pfc_tx_pkts, logged);
    assert!(to_h0.iter().any(|c| c.pg_curr_occupancy_bytes > 0));
}
