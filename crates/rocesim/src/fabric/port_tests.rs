//! Unit tests of `fabric::port`: the port's cache layout, its paused queues and its transmit
//! accounts.
use super::*;
use std::mem::offset_of;

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

/// An open account about to wrap its `u32` frame count is settled first, so a port that
/// sends more than 2^32 - 1 frames between two settles loses none: 2^32 - 1 frames, then
/// two more, read 2^32 + 1.
#[test]
fn an_account_about_to_wrap_is_settled_before_it_does() {
    let (mut port, mut m) = counting_port();
    port.count_tx(Priority(3), 1048, &mut m);
    // As if 2^32 - 2 more frames of that priority had been counted since.
    port.tx_frames = u32::MAX;
    #[cfg(debug_assertions)]
    {
        m.unsettled = u64::from(u32::MAX);
    }
    port.count_tx(Priority(3), 1048, &mut m);
    port.count_tx(Priority(3), 1048, &mut m);
    port.settle_tx(&mut m);
    assert_eq!(m.tx_of(PortId(1), Priority(3)).packets, (1u64 << 32) + 1);
    assert_eq!(m.tx_of(PortId(1), Priority(3)).bytes, 3 * 1048);
}
