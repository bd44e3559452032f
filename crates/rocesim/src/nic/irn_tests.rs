//! Unit tests of IRN's two state machines, with expected values from the protocol as Mittal
//! et al. 2018 §3.1 describe it.

use super::*;
use crate::nic::cc::{none::NoCc, CcState};
use crate::nic::params::{IrnParams, TransportKind};

fn sq(npkts: u32) -> SendQp {
    SendQp {
        npkts,
        size: npkts as u64 * 1024,
        mtu: 1024,
        next_psn: 0,
        snd_una: 0,
        max_sent: 0,
        transport: TransportKind::Irn,
        tc: 3,
        next_send: Time::ZERO,
        rate_limit: None,
        cc: CcState::None(NoCc),
        last_progress: Time::ZERO,
        timer_pending: false,
        done: false,
        done_at: None,
        retx_cause: RetxCause::Timeout,
    }
}

/// Send whatever `pick` chose, `n` times; returns (psn, cause) of each send.
fn send(t: &mut IrnTx, q: &mut SendQp, n: usize) -> Vec<(u32, Option<RetxCause>)> {
    (0..n)
        .map(|_| {
            let psn = q.next_psn;
            assert_ne!(psn, NOTHING, "nothing to send");
            let retx = psn < q.max_sent;
            q.max_sent = q.max_sent.max(psn + 1);
            (psn, t.on_sent(q, psn, retx))
        })
        .collect()
}

#[test]
fn one_loss_among_many_retransmits_only_that_packet() {
    let (mut t, mut q) = (IrnTx::default(), sq(100));
    t.reset(50);
    t.pick(&mut q);
    send(&mut t, &mut q, 20);
    let now = Time::from_us(1);
    // PSN 3 lost: 0..3 acknowledged, then every later arrival NACKs (3, psn).
    t.on_ack(&mut q, 2, now);
    t.on_nack(&mut q, 3, 4, now);
    assert_eq!(q.next_psn, 3, "the hole goes first");
    assert_eq!(send(&mut t, &mut q, 1), vec![(3, Some(RetxCause::Nack))]);
    for psn in 5..20 {
        t.on_nack(&mut q, 3, psn, now);
    }
    // Only new packets follow: 4..19 arrived, 3 is already on its way again.
    let sent = send(&mut t, &mut q, 10);
    assert!(
        sent.iter().all(|&(p, c)| p >= 20 && c.is_none()),
        "{sent:?}"
    );
    t.on_ack(&mut q, 19, now);
    assert_eq!((q.snd_una, t.sacked_n), (20, 0));
}

#[test]
fn holes_below_the_highest_sack_are_retransmitted_selectively_once() {
    let (mut t, mut q) = (IrnTx::default(), sq(100));
    t.reset(50);
    t.pick(&mut q);
    send(&mut t, &mut q, 10);
    let now = Time::from_us(1);
    // 2, 5 and 6 lost.
    t.on_ack(&mut q, 1, now);
    t.on_nack(&mut q, 2, 3, now);
    t.on_nack(&mut q, 2, 4, now);
    t.on_nack(&mut q, 2, 7, now);
    let sent = send(&mut t, &mut q, 4);
    let want = vec![
        (2, Some(RetxCause::Nack)),
        (5, Some(RetxCause::Selective)),
        (6, Some(RetxCause::Selective)),
        (10, None),
    ];
    assert_eq!(sent, want);
    t.on_nack(&mut q, 2, 8, now);
    assert_eq!(q.next_psn, 11, "no second retransmission of 2, 5, 6");
}

#[test]
fn bdp_fc_caps_psns_above_the_cumulative_point() {
    let (mut t, mut q) = (IrnTx::default(), sq(100));
    t.reset(4);
    t.pick(&mut q);
    send(&mut t, &mut q, 4);
    assert_eq!(q.next_psn, NOTHING, "4 in flight: the window is closed");
    // A selective ACK does not open it (the cumulative point stays)...
    t.on_nack(&mut q, 0, 1, Time::ZERO);
    assert_eq!(q.next_psn, 0, "only the hole may go");
    send(&mut t, &mut q, 1);
    assert_eq!(q.next_psn, NOTHING);
    // ...the cumulative ACK does.
    t.on_ack(&mut q, 3, Time::ZERO);
    assert_eq!(q.next_psn, 4);
}

#[test]
fn timeout_low_below_n_in_flight_high_otherwise_and_resends_all_unsacked() {
    let p = IrnParams::default();
    let (mut t, mut q) = (IrnTx::default(), sq(100));
    t.reset(50);
    t.pick(&mut q);
    send(&mut t, &mut q, 2);
    assert_eq!(t.rto(&q, &p), Time::from_us(100), "2 < N = 3 in flight");
    send(&mut t, &mut q, 4);
    assert_eq!(t.rto(&q, &p), Time::from_us(320), "6 in flight");
    // 0 and 2 lost; 1, 3, 4 selectively acknowledged: 3 in flight (0, 2, 5).
    for s in [1, 3, 4] {
        t.on_nack(&mut q, 0, s, Time::ZERO);
    }
    send(&mut t, &mut q, 2); // retransmits 0 and 2
    t.on_timeout(&mut q, Time::from_us(320));
    let sent = send(&mut t, &mut q, 3);
    let to = Some(RetxCause::Timeout);
    assert_eq!(sent, vec![(0, to), (2, to), (5, to)]);
}

#[test]
fn receiver_holds_out_of_order_packets_and_naks_each() {
    let (mut r, mut exp) = (IrnRx::default(), 0u32);
    let v = r.on_data(&mut exp, 0, 10, 1);
    assert_eq!(v.reply, IrnReply::Ack(1));
    // 1 lost: 2 and 3 are held, each NACKed with (cumulative 1, itself).
    let v = r.on_data(&mut exp, 2, 10, 1);
    assert!(v.placed && v.out_of_order);
    assert_eq!(v.reply, IrnReply::Nack(1, 2));
    assert_eq!(r.on_data(&mut exp, 3, 10, 1).reply, IrnReply::Nack(1, 3));
    let dup = r.on_data(&mut exp, 3, 10, 1);
    assert!(!dup.placed, "a second copy is discarded");
    // The retransmission of 1 fills the hole: the cumulative point jumps to 4.
    let v = r.on_data(&mut exp, 1, 10, 1);
    assert!(v.placed && v.filled_hole);
    assert_eq!((v.reply, exp, r.held), (IrnReply::Ack(4), 4, 0));
    let old = r.on_data(&mut exp, 2, 10, 1);
    assert_eq!((old.placed, old.reply), (false, IrnReply::Ack(4)));
}
