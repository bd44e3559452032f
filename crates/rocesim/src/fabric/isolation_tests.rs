//! The flow table of congestion isolation: flows whose hashes share a home slot.

use super::*;
use crate::units::Time;

/// A switch's isolation state with a table of `size` entries and 4 ports.
fn table(size: u32) -> Isolation {
    let params = IsolationParams {
        table_size: size,
        ..IsolationParams::default()
    };
    Isolation::new(params, [0, 1, 2, 3, 4, 5, 6, 7], vec![true; 4])
}

#[test]
fn flows_sharing_a_home_slot_both_get_an_entry() {
    // Two congesting flows whose hashes fall on the same slot of a 1024-entry table (5 and
    // 5 + 1024) with 1022 slots free: a table of 1024 entries holds both.
    let mut t = table(1024);
    let now = Time::from_us(1);
    let a = t.claim(7, 5, now).expect("first flow");
    let b = t
        .claim(9, 5 + 1024, now)
        .expect("second flow, same home slot");
    assert_ne!(a, b);
    assert_eq!(t.find(7, 5), Some(a));
    assert_eq!(t.find(9, 5 + 1024), Some(b));
    assert_eq!(
        t.claim(7, 5, now),
        Some(a),
        "claiming again finds the entry"
    );
}

#[test]
fn a_full_neighbourhood_refuses_a_live_flow_and_an_aged_slot_is_reused() {
    // NEIGHBOURHOOD live flows on one home slot fill its neighbourhood: one more is refused
    // until one of them has been unused for table_age (1 ms) and holds no packet.
    let mut t = table(64);
    let now = Time::from_us(10);
    for f in 0..NEIGHBOURHOOD as u32 {
        assert!(t.claim(f, 3 + 64 * f, now).is_some(), "flow {f}");
    }
    let extra = NEIGHBOURHOOD as u32;
    assert_eq!(t.claim(extra, 3, now), None);
    let later = now + t.params.table_age;
    let i = t.claim(extra, 3, later).expect("aged slot reused");
    assert_eq!(t.find(extra, 3), Some(i));
    assert_eq!(t.find(0, 3), None, "the aged flow lost its entry");
}

#[test]
fn a_table_smaller_than_a_neighbourhood_holds_table_size_flows() {
    let mut t = table(2);
    let now = Time::from_us(1);
    assert!(t.claim(1, 0, now).is_some());
    assert!(t.claim(2, 0, now).is_some());
    assert_eq!(t.claim(3, 0, now), None);
}
