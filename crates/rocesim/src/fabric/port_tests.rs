//! Unit tests of `fabric::port`: the queue entry's packing and the port's cache layout.
use super::*;
use std::mem::offset_of;

#[test]
fn a_queue_entry_gives_back_every_field_as_built() {
    let cases = [
        (0, 0, 0, 0, 0, false, false, false),
        (u32::MAX, u16::MAX, u16::MAX, u8::MAX, 7, true, true, true),
        (7, 3, 1082, 20, 3, true, false, true),
        (0x8000_0001, 4095, 86, 0, 5, false, true, false),
    ];
    for (pkt, inl, bytes, gap, tc, lossless, int, replica) in cases {
        let e = QEntry::new(pkt, inl, bytes, gap, Priority(tc), lossless, int, replica);
        assert_eq!(e.pkt(), pkt);
        assert_eq!(e.in_local(), inl);
        assert_eq!(e.bytes(), bytes);
        assert_eq!(e.gap(), gap);
        assert_eq!(e.tc(), Priority(tc));
        assert_eq!(
            (e.lossless(), e.int(), e.replica()),
            (lossless, int, replica)
        );
        assert_eq!(e.wire(), u32::from(bytes) + u32::from(gap));
    }
    // Each field alone at its maximum leaves every other field zero: no two overlap.
    let alone = [
        QEntry::new(u32::MAX, 0, 0, 0, Priority(0), false, false, false),
        QEntry::new(0, u16::MAX, 0, 0, Priority(0), false, false, false),
        QEntry::new(0, 0, u16::MAX, 0, Priority(0), false, false, false),
        QEntry::new(0, 0, 0, u8::MAX, Priority(0), false, false, false),
        QEntry::new(0, 0, 0, 0, Priority(7), false, false, false),
        QEntry::new(0, 0, 0, 0, Priority(0), true, false, false),
        QEntry::new(0, 0, 0, 0, Priority(0), false, true, false),
        QEntry::new(0, 0, 0, 0, Priority(0), false, false, true),
    ];
    for (i, e) in alone.iter().enumerate() {
        let set = [
            e.pkt() != 0,
            e.in_local() != 0,
            e.bytes() != 0,
            e.gap() != 0,
            e.tc() != Priority(0),
            e.lossless(),
            e.int(),
            e.replica(),
        ];
        let want: Vec<bool> = (0..8).map(|j| j == i).collect();
        assert_eq!(set.to_vec(), want, "field {i} alone");
    }
    let l = QEntry::local(9, 1102, 20, Priority(1));
    assert_eq!((l.in_local(), l.bytes(), l.wire()), (u16::MAX, 1082, 1102));
    assert!(!l.lossless() && !l.int() && !l.replica());
}

#[test]
fn the_port_ahead_rides_beside_the_other_fields() {
    let full = QEntry::new(
        u32::MAX,
        u16::MAX,
        u16::MAX,
        u8::MAX,
        Priority(7),
        true,
        true,
        true,
    );
    let zero = QEntry::new(0, 0, 0, 0, Priority(0), false, false, false);
    for e in [full, zero, QEntry::local(9, 1102, 20, Priority(1))] {
        assert_eq!(
            e.ahead(),
            NO_OUT,
            "an entry built without a port ahead has none"
        );
        for out in [0, 1, 17, 4095, NO_OUT - 1, NO_OUT] {
            let a = e.with_ahead(out);
            assert_eq!(a.ahead(), out);
            assert_eq!(a.with_ahead(NO_OUT), e, "the port ahead alone changed");
            assert_eq!(
                (a.pkt(), a.in_local(), a.bytes(), a.gap(), a.tc()),
                (e.pkt(), e.in_local(), e.bytes(), e.gap(), e.tc())
            );
            assert_eq!(
                (a.lossless(), a.int(), a.replica()),
                (e.lossless(), e.int(), e.replica())
            );
        }
    }
    assert_eq!(
        full.with_ahead(3).with_ahead(12).ahead(),
        12,
        "a second port replaces the first"
    );
}

#[test]
fn transmit_fields_share_the_first_cache_line() {
    for end in [
        offset_of!(Port, busy_until) + 8,
        offset_of!(Port, ps_per_byte) + 4,
        offset_of!(Port, tx_frames) + 4,
        offset_of!(Port, tx_bytes) + 8,
        offset_of!(Port, id) + 4,
        offset_of!(Port, wd_drop) + 1,
        offset_of!(Port, strict) + 1,
        offset_of!(Port, ecn_queues) + 1,
        offset_of!(Port, wire_plain) + 1,
        offset_of!(Port, paused_q) + 1,
        offset_of!(Port, tx_prio) + 1,
        offset_of!(Port, pause) + offset_of!(EgressPause, mask) + 1,
    ] {
        assert!(end <= 64, "field ends at byte {end}");
    }
}

#[test]
fn wire_head_state_and_loss_kind_share_a_cache_line() {
    let start = offset_of!(Port, wire);
    assert_eq!(start % 64, 0, "the wire starts a cache line");
    // `Loss` is `repr(u8)`: its tag is its first byte.
    let loss_tag = offset_of!(Channel, loss) + 1;
    for end in [
        offset_of!(Channel, in_flight) + 32,
        offset_of!(Channel, up) + 1,
        loss_tag,
    ] {
        assert!(end <= 64, "wire field ends at byte {end} of its line");
    }
}

/// A port whose priorities 3 and 5 map to queues 1 and 6 (priority 0 to queue 0): what
/// `eligible` holds back follows the pause mask, the watchdog's ignored priorities and the
/// map, once `refresh_paused` has run after each change (and debug builds check the kept
/// byte against the walk on every read).
#[test]
fn paused_queues_follow_pauses_ignored_priorities_and_the_queue_map() {
    let rate = Rate::gbps(100);
    let mut port = Port::new(
        NodeRef::Switch(0),
        0,
        PortId(0),
        0,
        rate,
        Time::ZERO,
        &[QueueSched::Strict; 8],
    );
    port.queue_of_prio = [0, 2, 3, 1, 4, 6, 5, 7].map(QueueId);
    port.refresh_paused();
    port.nonempty = 0b0100_0011; // queues 0, 1 and 6 hold packets
    assert_eq!(port.eligible(), 0b0100_0011);
    port.pause.apply(3, 100, Time::ZERO, rate);
    port.refresh_paused();
    assert_eq!(port.eligible(), 0b0100_0001, "priority 3 holds queue 1");
    port.pause.apply(5, 100, Time::ZERO, rate);
    port.refresh_paused();
    assert_eq!(port.eligible(), 0b0000_0001, "and priority 5 queue 6");
    port.set_pause_ignored(Priority(3), true);
    assert_eq!(
        port.eligible(),
        0b0000_0011,
        "the watchdog ignores priority 3"
    );
    port.pause.apply(5, 0, Time::ZERO, rate);
    port.set_pause_ignored(Priority(3), false);
    assert_eq!(port.eligible(), 0b0100_0001, "5 resumed, 3 heeded again");
}

/// Port 1 of a three-port monitor, at 100 Gb/s.
fn counting_port() -> (Port, Monitor) {
    let port = Port::new(
        NodeRef::Switch(0),
        1,
        PortId(1),
        0,
        Rate::gbps(100),
        Time::ZERO,
        &[QueueSched::Strict; 8],
    );
    (port, Monitor::new(3, 0, false, 0))
}

/// Frames counted in the port's open account reach the monitor's per-(port, priority)
/// table when the priority changes and when settled; the overlay read sees them before.
/// Expected values are the sums of the frames sent, counted here by hand.
#[test]
fn transmit_accounts_add_up_per_priority_when_settled() {
    let (mut port, mut m) = counting_port();
    let sends = [(3, 1048), (3, 1048), (5, 64), (3, 1048), (3, 64), (5, 100)];
    for (k, &(prio, wire)) in sends.iter().enumerate() {
        port.count_tx(Priority(prio), wire, &mut m);
        // Before any settle, the overlay read agrees with a hand count of the prefix.
        for p in [3u8, 5] {
            let want = sends[..=k].iter().filter(|s| s.0 == p);
            let (frames, bytes) = want.fold((0, 0), |(f, b), s| (f + 1, b + u64::from(s.1)));
            let c = port.tx_counters(Priority(p), &m);
            assert_eq!(
                (c.packets, c.bytes),
                (frames, bytes),
                "priority {p} after {k}"
            );
        }
    }
    assert_eq!(port.tx_bytes, 1048 * 3 + 64 + 64 + 100);
    port.settle_tx(&mut m);
    assert_eq!(*m.tx_of(PortId(1), Priority(3)), tx(4, 1048 * 3 + 64));
    assert_eq!(*m.tx_of(PortId(1), Priority(5)), tx(2, 164));
    assert_eq!(
        *m.tx_of(PortId(0), Priority(3)),
        tx(0, 0),
        "another port's row"
    );
    // Settling again adds nothing; the account stays open for the next frame.
    port.settle_tx(&mut m);
    port.count_tx(Priority(5), 36, &mut m);
    port.settle_tx(&mut m);
    assert_eq!(*m.tx_of(PortId(1), Priority(5)), tx(3, 200));
    assert_eq!(*m.tx_of(PortId(1), Priority(3)), tx(4, 1048 * 3 + 64));
}

fn tx(packets: u64, bytes: u64) -> TxCounters {
    TxCounters { packets, bytes }
}

/// Reading the table while a port holds unsettled frames is a bug the debug build catches.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "before the ports settled them")]
fn reading_transmit_counters_before_settling_panics_in_debug_builds() {
    let (mut port, mut m) = counting_port();
    port.count_tx(Priority(3), 1048, &mut m);
    let _ = m.tx_of(PortId(1), Priority(3));
}
