//! TC → priority group in the switch MMU (SONiC `TC_TO_PRIORITY_GROUP_MAP`): two lossless
//! TCs mapped to one PG share that PG's thresholds, and its XOFF pauses both priorities.

use super::testkit::*;
use super::Sim;
use crate::fabric::params::{BufferMode, Headroom};
use crate::ids::{Priority, QueueId};
use crate::monitor::PfcDir;
use crate::units::{Bytes, Rate, Time};

const XOFF: u64 = 100_000;
/// Above what arrives after XOFF: 2 × 1 us × 100G (25 KB) + 2 frames + the 802.3 response
/// at 100G (394 quanta, 25.2 KB).
const HEADROOM: u64 = 80_000;

/// h0 sends TC 3 (DSCP 26) and TC 4 (DSCP 34) to h1 while the switch port toward h1 is held
/// paused for both priorities: everything h0 sends stays in port 0's ingress PG(s).
/// Returns the bytes buffered in the egress queues 3 and 4 toward h1 and the simulator.
fn held(tc_to_pg: [u8; 8]) -> (u64, Sim) {
    let mut sc = scenario(
        star(2, Rate::gbps(100), Time::from_us(1)),
        Time::from_us(200),
    );
    sc.sim.stop_when_done = false;
    let s = &mut sc.switches[0];
    s.dscp_to_tc[34] = 4;
    s.pfc_enable = 0b1_1000;
    s.tc_to_pg = tc_to_pg;
    s.buffer_mode = BufferMode::Static;
    s.lossless.xoff = Bytes(XOFF);
    s.lossless.xon = Bytes(XOFF / 2);
    s.lossless.headroom = Headroom::Fixed(Bytes(HEADROOM));
    for n in &mut sc.nics {
        n.dscp_to_tc[34] = 4;
        n.pfc_enable = 0b1_1000;
    }
    let mut f4 = flow(0, 1, None, Time::ZERO);
    f4.dscp = 34;
    f4.sport += 1;
    sc.flows.push(flow(0, 1, None, Time::ZERO));
    sc.flows.push(f4);
    let mut sim = Sim::new(sc).unwrap();
    let (port, _) = sim
        .ports()
        .iter()
        .find(|(_, p)| p.node == crate::topology::NodeRef::Switch(0) && p.local == 1)
        .unwrap();
    let port = port.0;
    for prio in [3, 4] {
        // 65535 quanta at 100G hold the port for 335.5 us, past the end of the run.
        let quanta = 65535;
        let ev = crate::engine::Event::PauseArrive { port, prio, quanta };
        sim.ctx.events.schedule(Time::ZERO, ev);
    }
    sim.run(|_| true);
    let m = &sim.switches[0].mmu;
    let bytes = m.queue_bytes(1, QueueId(3)) + m.queue_bytes(1, QueueId(4));
    (bytes, sim)
}

#[test]
fn two_tcs_in_one_pg_share_its_xoff_and_pause_both_priorities() {
    // Shared PG 3: the switch holds XOFF (100 KB) plus at most the headroom (80 KB) of both
    // classes together, and pauses priorities 3 and 4 toward h0 at the same instant.
    let (shared, sim) = held([0, 1, 2, 3, 3, 5, 6, 7]);
    assert!(
        (XOFF..=XOFF + HEADROOM).contains(&shared),
        "one PG holds {shared} B"
    );
    let m = &sim.switches[0].mmu;
    assert_eq!(m.pg_bytes(0, Priority(3)), shared);
    assert_eq!(m.pg_bytes(0, Priority(4)), 0);
    assert_eq!(sim.ctx.monitor.totals.drops_lossless, 0);
    let r = sim.results(0.0);
    let tx = |prio: u8| {
        r.pfc_log
            .iter()
            .find(|e| {
                e.node == "sw0" && e.direction == PfcDir::Tx && e.prio == prio && e.quanta > 0
            })
            .map(|e| e.time_ns)
    };
    let (t3, t4) = (tx(3).expect("pauses 3"), tx(4).expect("pauses 4"));
    // Back-to-back 64 B pause frames: 84 wire bytes at 100G = 6.72 ns apart.
    assert!(t4.abs_diff(t3) <= 7, "{t3} vs {t4}");
    // The identity map: each TC fills its own PG to XOFF, twice the bytes.
    let (separate, _) = held([0, 1, 2, 3, 4, 5, 6, 7]);
    assert!(
        (2 * XOFF..=2 * (XOFF + HEADROOM)).contains(&separate),
        "two PGs hold {separate} B"
    );
}
