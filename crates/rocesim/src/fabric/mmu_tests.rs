//! Tests of the MMU's admission, release and thresholds.
#![allow(clippy::field_reassign_with_default)]

use super::*;

const P3: Priority = Priority(3);
const Q3: QueueId = QueueId(3);
use crate::fabric::params::{BufferMode, SwitchParams};
use crate::units::Bytes;
use proptest::prelude::*;

fn static_params() -> SwitchParams {
    let mut p = SwitchParams::default();
    p.buffer_mode = BufferMode::Static;
    p.buffer_size = Bytes(1_000_000);
    p.lossless.xoff = Bytes(10_000);
    p.lossless.xon = Bytes(5_000);
    p.lossless.reserved = Bytes(0);
    p
}

#[test]
fn static_xoff_then_headroom_then_lossless_drop() {
    let mut m = Mmu::new(&static_params(), vec![3_000, 3_000]).unwrap();
    // 10 packets of 1000 B reach XOFF exactly.
    for _ in 0..10 {
        assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::Shared);
    }
    assert!(m.over_xoff(0, P3));
    for _ in 0..3 {
        assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::Headroom);
    }
    assert_eq!(m.admit(0, P3, 1, Q3, 1000, true).0, Admit::DropLossless);
    // Drain to XON: headroom first, then down to 5000 B.
    for _ in 0..8 {
        assert!(!m.under_xon(0, P3));
        m.release(0, P3, 1, Q3, 1000);
    }
    assert!(m.under_xon(0, P3));
    assert_eq!(m.pg_bytes(0, P3), 5_000);
}

#[test]
fn a_packet_passes_an_empty_pg_but_not_one_at_xoff_or_in_headroom() {
    let mut m = Mmu::new(&static_params(), vec![3_000, 3_000]).unwrap();
    assert!(m.pass(0, P3, 1, Q3, 1000, true));
    assert_eq!((m.pg_bytes(0, P3), m.queue_bytes(1, Q3)), (0, 0));
    assert_eq!(m.queue_max(1, Q3), 1000);
    // 9000 B held: one more packet reaches XOFF (10,000 B), so it does not pass.
    for _ in 0..9 {
        m.admit(0, P3, 1, Q3, 1000, true);
    }
    assert!(!m.pass(0, P3, 1, Q3, 1000, true));
    assert!(m.pass(0, P3, 1, Q3, 999, true));
    // In headroom: a release would free headroom first, so nothing passes.
    m.admit(0, P3, 1, Q3, 1000, true);
    m.admit(0, P3, 1, Q3, 1000, true);
    assert!(m.pg_headroom(0, P3) > 0);
    assert!(!m.pass(0, P3, 1, Q3, 64, true));
    assert_eq!(m.pg_bytes(0, P3), 11_000);
}

#[test]
fn a_packet_larger_than_the_free_pool_does_not_pass() {
    // Dynamic thresholds, 100 B of the shared pool free: a 9000 B packet beyond its PG's
    // reserve does not fit, so it takes the full path (headroom), and the check computes
    // no threshold from a negative free pool on the way.
    let mut p = SwitchParams::default();
    p.buffer_size = Bytes(1_000_000);
    p.lossless.reserved = Bytes(1_000);
    let mut m = Mmu::new(&p, vec![20_000; 2]).unwrap();
    m.shared_used = m.shared_pool - 100;
    assert!(!m.pass(0, P3, 1, Q3, 9_000, true));
    assert!(m.pass(0, P3, 1, Q3, 1_000, true), "within the reserve");
}

#[test]
fn lossless_pgs_follow_tc_to_pg() {
    // TCs 3 and 4 lossless, both in PG 3: one lossless PG, so one headroom and one
    // reserved size per port are set aside (1 MB - 2 × (3000 + 1000)), and PG 4 is lossy.
    let mut p = static_params();
    p.pfc_enable = 0b1_1000;
    p.tc_to_pg = [0, 1, 2, 3, 3, 5, 6, 7];
    p.lossless.reserved = Bytes(1_000);
    let m = Mmu::new(&p, vec![3_000, 3_000]).unwrap();
    assert_eq!(m.shared_pool, 1_000_000 - 2 * 4_000);
    assert_eq!(m.reserved_of(P3), 1_000);
    assert_eq!(m.reserved_of(Priority(4)), 0);
}

#[test]
fn dynamic_threshold_is_alpha_times_free() {
    let mut p = SwitchParams::default();
    p.buffer_size = Bytes(1_000_000);
    p.lossless.reserved = Bytes(0);
    p.lossless.dynamic_th = -3; // α = 1/8
    let m = Mmu::new(&p, vec![0; 4]).unwrap();
    assert_eq!(m.lossless_threshold(), 1_000_000 / 8);
}

#[test]
fn absurd_headroom_is_an_error_not_an_overflow() {
    // u64::MAX per PG over 64 ports would overflow a plain sum.
    let mut p = static_params();
    p.lossy.reserved = Bytes(u64::MAX);
    assert!(Mmu::new(&p, vec![u64::MAX; 64]).is_err());
}

#[test]
fn headroom_that_does_not_fit_is_an_error() {
    let mut p = SwitchParams::default();
    p.buffer_size = Bytes(100_000);
    assert!(Mmu::new(&p, vec![60_000, 60_000]).is_err());
}

#[test]
fn admission_and_release_read_one_cache_line() {
    use std::mem::offset_of;
    // Every field a lossless admission in dynamic mode or a release reads ends within
    // the first 64 bytes (the switch places the MMU at a line boundary).
    let ends = [
        offset_of!(Mmu, pg) + 16,
        offset_of!(Mmu, q) + 16,
        offset_of!(Mmu, ports) + 4,
        offset_of!(Mmu, lossless_pgs) + 1,
        offset_of!(Mmu, shared_used) + 8,
        offset_of!(Mmu, reserved_lossless) + 8,
        offset_of!(Mmu, shared_pool) + 8,
    ];
    assert!(ends.iter().all(|&e| e <= Mmu::HOT_BYTES), "{ends:?}");
    assert_eq!(Mmu::HOT_BYTES, 64);
}

proptest! {
    /// Buffer accounting never goes negative, shared_used always equals the sum of the
    /// PGs' shared parts, and releasing everything returns the MMU to empty; the XOFF
    /// verdict that comes with an admission is the one read from the accounting after it.
    #[test]
    fn accounting_is_conserved(ops in proptest::collection::vec((0usize..4, 0u8..8, 0usize..4, 64u64..9000, any::<bool>()), 1..300), fixed in any::<bool>()) {
        let mut p = if fixed { static_params() } else { SwitchParams::default() };
        p.buffer_size = Bytes(400_000);
        p.pfc_enable = 0b0000_1001;
        let mut m = Mmu::new(&p, vec![20_000; 4]).unwrap();
        let mut held = Vec::new();
        for (inp, pg, out, size, release) in ops {
            if release && !held.is_empty() {
                let (i, g, o, s) = held.remove(size as usize % held.len());
                m.release(i, Priority(g), o, QueueId(g), s);
            } else {
                let lossless = p.pfc_enable & (1 << pg) != 0;
                let (verdict, over) = m.admit(inp, Priority(pg), out, QueueId(pg), size, lossless);
                if let Admit::Shared | Admit::Headroom = verdict {
                    prop_assert_eq!(over, m.over_xoff(inp, Priority(pg)));
                    held.push((inp, pg, out, size));
                }
            }
            prop_assert_eq!(m.shared_used, m.recount_shared());
            prop_assert!(m.shared_used <= m.shared_pool);
        }
        for (i, g, o, s) in held.drain(..) {
            m.release(i, Priority(g), o, QueueId(g), s);
        }
        prop_assert_eq!(m.shared_used, 0);
        prop_assert_eq!(m.hdrm_used, 0);
    }

    /// `pass` says yes exactly when admitting the packet and releasing it at once is
    /// a no-op (the PG holds no headroom, the packet is admitted to the shared buffer
    /// and does not take a lossless PG over XOFF), and then leaves the MMU as that
    /// admission and release do; otherwise it changes nothing. Both buffer modes, any
    /// state built by admissions and releases, also with the shared pool all but taken
    /// (`crowded`: packets then outgrow the free pool).
    #[test]
    fn pass_is_admit_then_release(ops in proptest::collection::vec((0usize..4, 0u8..8, 0usize..4, 64u64..9000, 0u8..3), 1..300), fixed in any::<bool>(), crowded in any::<bool>()) {
        let mut p = if fixed { static_params() } else { SwitchParams::default() };
        p.buffer_size = Bytes(400_000);
        p.pfc_enable = 0b0000_1001;
        p.lossless.reserved = Bytes(2_000);
        let mut m = Mmu::new(&p, vec![20_000; 4]).unwrap();
        if crowded {
            m.shared_used = m.shared_pool - 6_000;
        }
        let mut held = Vec::new();
        for (inp, pg, out, size, op) in ops {
            let (g, q) = (Priority(pg), QueueId(pg));
            let lossless = p.pfc_enable & (1 << pg) != 0;
            if op == 0 && !held.is_empty() {
                let (i, g, o, s) = held.remove(size as usize % held.len());
                m.release(i, Priority(g), o, QueueId(g), s);
            } else if op == 1 {
                if let (Admit::Shared | Admit::Headroom, _) = m.admit(inp, g, out, q, size, lossless) {
                    held.push((inp, pg, out, size));
                }
            } else {
                let mut through = m.clone();
                let hdrm = through.pg_headroom(inp, g);
                let (verdict, over) = through.admit(inp, g, out, q, size, lossless);
                // XOFF concerns lossless PGs only (a switch pauses for nothing else).
                let ok = hdrm == 0 && verdict == Admit::Shared && !(lossless && over);
                if verdict == Admit::Shared || verdict == Admit::Headroom {
                    through.release(inp, g, out, q, size);
                }
                let before = format!("{m:?}");
                prop_assert_eq!(m.pass(inp, g, out, q, size, lossless), ok);
                if ok {
                    prop_assert_eq!(format!("{m:?}"), format!("{through:?}"));
                } else {
                    prop_assert_eq!(format!("{m:?}"), before);
                }
            }
        }
    }
}
