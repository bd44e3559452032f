//! Unit tests of DCQCN (`dcqcn.rs`): rate cuts, recovery stages and timers against
//! hand-computed values.

use super::*;

fn ctx(gbps: u64) -> CcContext {
    CcContext {
        line_rate: Rate::gbps(gbps),
        mtu: 1024,
        base_rtt: Time::from_us(5),
        start: Time::ZERO,
        frame_overhead: 82,
    }
}

fn gbps(c: &Dcqcn) -> f64 {
    c.rate().unwrap().bps() as f64 / 1e9
}

fn close(a: f64, b: f64) -> bool {
    ((a - b) / b).abs() < 1e-3
}

/// VALIDATION.md §3.2 tests 1 and 2: one CNP at 0 from 40 G, then timer events only.
#[test]
fn single_cnp_fast_recovery_then_additive() {
    let mut c = Dcqcn::new(&DcqcnParams::paper(), &ctx(40));
    assert_eq!(c.rate(), None);
    assert_eq!(c.next_timer(), None);
    c.on_cnp(Time::ZERO);
    assert_eq!(c.rate(), Some(Rate::gbps(20)));
    assert_eq!(c.target_rate(), 40e9);
    assert!((c.alpha_at(Time::ZERO) - 1.0).abs() < 1e-12, "α stays 1");
    let want = [30.0, 35.0, 37.5, 38.75, 39.375, 39.6875, 39.84375];
    for (k, w) in want.iter().enumerate() {
        let t = c.next_timer().unwrap();
        assert_eq!(t, Time::from_us(55 * (k as u64 + 1)), "event {k} time");
        c.on_timer(t);
        assert!(close(gbps(&c), *w), "event {k}: {} G, want {w}", gbps(&c));
        assert!(c.target_rate() <= 40e9, "R_T clamped at line rate");
    }
    // α after 5 idle K periods: (255/256)^5 = 0.980621 (VALIDATION.md §3.2 prints 0.98057,
    // a rounding slip: 1 − 5/256 + 10/256² − … = 0.9806207).
    let a5 = c.alpha_at(Time::from_us(275));
    assert!((a5 - 0.980_620_7).abs() < 1e-6, "{a5}");
}

#[test]
fn byte_counter_triggers_an_increase() {
    let mut c = Dcqcn::new(&DcqcnParams::paper(), &ctx(40));
    c.on_cnp(Time::ZERO);
    // 10 MB in 1000-byte frames well before the 55 us timer.
    for _ in 0..9_999 {
        c.on_send(Time::from_us(1), 1000);
    }
    assert_eq!(c.rate(), Some(Rate::gbps(20)));
    c.on_send(Time::from_us(1), 1000);
    assert_eq!(c.rate(), Some(Rate::gbps(30)), "one fast-recovery step");
    c.on_send(Time::from_us(1), 1000);
    assert_eq!(c.rate(), Some(Rate::gbps(30)));
}

#[test]
fn never_below_min_rate() {
    let p = DcqcnParams {
        rate_reduce_monitor_period: Time::ZERO,
        ..DcqcnParams::paper()
    };
    let mut c = Dcqcn::new(&p, &ctx(40));
    for i in 0..100 {
        c.on_cnp(Time::from_ns(i));
    }
    assert_eq!(c.rate(), Some(p.rpg_min_rate));
}

#[test]
fn min_dec_fac_bounds_a_cut() {
    let p = DcqcnParams {
        rpg_min_dec_fac: 80,
        ..DcqcnParams::paper()
    };
    let mut c = Dcqcn::new(&p, &ctx(40));
    c.on_cnp(Time::ZERO);
    assert_eq!(c.rate(), Some(Rate::gbps(32)));
}

#[test]
fn hyper_increase_after_f_events_of_both_kinds() {
    let p = DcqcnParams {
        rpg_byte_reset: 1000,
        ..DcqcnParams::paper()
    };
    let mut c = Dcqcn::new(&p, &ctx(40));
    c.on_cnp(Time::ZERO);
    c.on_cnp(Time::ZERO);
    c.on_cnp(Time::ZERO); // R_C = 5 G, R_T = 10 G
    assert_eq!(c.rate(), Some(Rate::gbps(5)));
    assert_eq!(c.target_rate(), 10e9);
    // F = 5 timer events: fast recovery (R_T stays 10 G).
    for _ in 0..5 {
        let t = c.next_timer().unwrap();
        c.on_timer(t);
    }
    assert_eq!(c.target_rate(), 10e9);
    // 5 byte events: T = 5 and BC ≤ 5, still fast recovery.
    for _ in 0..5 {
        c.on_send(Time::from_us(300), 1000);
    }
    assert_eq!(c.target_rate(), 10e9);
    // 6th byte event: BC = 6 > F but T = 5 = F: additive increase.
    c.on_send(Time::from_us(300), 1000);
    assert!(close(c.target_rate(), 10.04e9), "{}", c.target_rate());
    // 6th timer event: min(T, BC) = 6 > F: hyper increase by 1 × R_HAI.
    let t = c.next_timer().unwrap();
    c.on_timer(t);
    assert!(close(c.target_rate(), 10.44e9), "{}", c.target_rate());
    // 7th byte event: min = 6 still: + 1 × R_HAI; then 7th timer: min = 7: + 2 × R_HAI.
    c.on_send(Time::from_us(400), 1000);
    assert!(close(c.target_rate(), 10.84e9), "{}", c.target_rate());
    let t = c.next_timer().unwrap();
    c.on_timer(t);
    assert!(close(c.target_rate(), 11.64e9), "{}", c.target_rate());
}

#[test]
fn alpha_decays_per_k_without_cnps() {
    let mut c = Dcqcn::new(&DcqcnParams::paper(), &ctx(40));
    c.on_cnp(Time::ZERO);
    let g: f64 = 1.0 / 256.0;
    for k in 0..20u64 {
        let a = c.alpha_at(Time::from_us(55 * k));
        assert!((a - (1.0 - g).powi(k as i32)).abs() < 1e-12, "k={k}: {a}");
    }
    // Just before a period ends, no decay yet.
    let a = c.alpha_at(Time::from_us(55) - Time::from_ps(1));
    assert_eq!(a, 1.0);
    // A CNP after 10 periods: the cut uses the decayed α, then α ← (1−g)α + g.
    c.on_timer(Time::from_us(550));
    let r = c.current_rate();
    let a10 = (1.0 - g).powi(10);
    c.on_cnp(Time::from_us(550));
    assert!(close(c.current_rate(), r * (1.0 - a10 / 2.0)));
    assert!((c.alpha_at(Time::from_us(550)) - ((1.0 - g) * a10 + g)).abs() < 1e-12);
}

#[test]
fn nvidia_ignores_a_second_cnp_within_the_monitor_period() {
    let p = DcqcnParams::nvidia();
    let mut c = Dcqcn::new(&p, &ctx(100));
    c.on_cnp(Time::ZERO);
    let r1 = c.rate().unwrap();
    // α = 1023/1024: cut to 100 × (1 − 1023/2048) G.
    assert!(close(r1.bps() as f64, 100e9 * (1.0 - 1023.0 / 2048.0)));
    assert_eq!(c.target_rate(), 100e9, "no clamp on the first CNP");
    c.on_cnp(Time::from_us(3));
    assert_eq!(c.rate(), Some(r1));
    assert_eq!(c.cnp_counts(), (2, 1));
    c.on_cnp(Time::from_us(4));
    assert!(c.rate().unwrap() < r1);
    assert_eq!(c.cnp_counts(), (3, 1));
    // No increase event between the cuts: the target stays at line rate.
    assert_eq!(c.target_rate(), 100e9);
    // rpg_min_dec_fac = 50: never below half the previous rate.
    assert!(c.rate().unwrap().bps() as f64 >= r1.bps() as f64 * 0.5 - 1.0);
}

#[test]
fn nvidia_clamps_the_target_after_an_increase_event() {
    let mut c = Dcqcn::new(&DcqcnParams::nvidia(), &ctx(100));
    c.on_cnp(Time::ZERO);
    let t = c.next_timer().unwrap();
    assert_eq!(t, Time::from_us(300));
    c.on_timer(t);
    let rc = c.current_rate();
    c.on_cnp(t);
    assert_eq!(c.target_rate(), rc);
}

#[test]
fn timers_stop_once_back_at_line_rate() {
    let mut c = Dcqcn::new(&DcqcnParams::paper(), &ctx(40));
    c.on_cnp(Time::ZERO);
    let mut n = 0;
    while let Some(t) = c.next_timer() {
        c.on_timer(t);
        n += 1;
        assert!(n < 200, "the increase timer never stops");
    }
    assert_eq!(c.rate(), Some(Rate::gbps(40)));
    // Sending more does nothing.
    c.on_send(Time::from_ms(20), 20_000_000);
    assert_eq!(c.rate(), Some(Rate::gbps(40)));
}

fn ns3_like() -> DcqcnParams {
    DcqcnParams {
        alpha_update: AlphaUpdate::Timer,
        rpg_byte_reset: 0,
        initial_alpha_value: 1.0,
        ..DcqcnParams::nvidia()
    }
}

/// ns-3's rule: the first CNP (at 0.5 us) cuts nothing; the cut comes at the next 4 us
/// decrease-timer expiry, with α after the four 1 us α-timer expiries: α starts at 1 and the
/// first CNP does not count for an interval (ns-3 clears its flag), so (1 − g)⁴ at 4.5 us; α
/// gains nothing at the cut.
#[test]
fn timer_rule_defers_the_cut_to_the_decrease_timer() {
    let mut c = Dcqcn::new(&ns3_like(), &ctx(100));
    let t0 = Time::from_ns(500);
    c.on_cnp(t0);
    assert_eq!(c.current_rate(), 100e9, "no cut at the CNP");
    assert_eq!(c.next_timer(), Some(t0 + Time::from_us(4)));
    c.on_timer(t0 + Time::from_us(4));
    let g: f64 = 1.0 / 256.0;
    let a = (1.0 - g).powi(4);
    assert!(close(c.current_rate(), 100e9 * (1.0 - a / 2.0)));
    assert!((c.alpha_at(t0 + Time::from_us(4)) - a).abs() < 1e-12);
    assert_eq!(
        c.next_timer(),
        Some(t0 + Time::from_us(304)),
        "increase timer"
    );
    // Three CNPs in (8.5, 12.5] us: one cut at 12.5 us, α + g at the 9.5 us tick only.
    let r = c.current_rate();
    for ns in [9_000, 10_000, 12_000] {
        c.on_cnp(Time::from_ns(ns));
    }
    assert_eq!(c.current_rate(), r);
    assert_eq!(c.next_timer(), Some(t0 + Time::from_us(12)));
    c.on_timer(t0 + Time::from_us(12));
    // Ticks at 5.5..8.5 us decay (4), 9.5 adds g (CNP at 9), 10.5 adds g (CNP at 10),
    // 11.5 decays, 12.5 adds g (CNP at 12).
    let mut a2 = a * (1.0 - g).powi(4);
    for cnp in [true, true, false, true] {
        a2 = (1.0 - g) * a2 + if cnp { g } else { 0.0 };
    }
    assert!((c.alpha_at(t0 + Time::from_us(12)) - a2).abs() < 1e-12);
    assert!(close(c.current_rate(), r * (1.0 - a2 / 2.0)));
    assert_eq!(c.cnp_counts(), (4, 2));
}

/// With the byte counter off, hyper increase comes from the timer alone (as in ns-3):
/// F = 1 fast-recovery event, one additive step, then + R_HAI per timer event.
#[test]
fn hyper_increase_from_the_timer_alone() {
    let p = DcqcnParams {
        clamp_tgt_rate: true,
        ..ns3_like()
    };
    let mut c = Dcqcn::new(&p, &ctx(100));
    c.on_cnp(Time::ZERO);
    c.on_timer(Time::from_us(4)); // cut: R_T = 100 G, R_C ≈ 50.6 G
    c.on_cnp(Time::from_us(5));
    c.on_timer(Time::from_us(8)); // clamp: R_T = R_C
    let rt0 = c.target_rate();
    assert!(rt0 < 60e9);
    let mut rt = rt0;
    for (k, step) in [0.0, 20e6, 200e6, 200e6, 200e6].iter().enumerate() {
        let t = c.next_timer().unwrap();
        c.on_timer(t);
        rt += step;
        assert!(close(c.target_rate(), rt), "event {k}: {}", c.target_rate());
    }
}

#[test]
fn profiles() {
    assert_eq!(DcqcnParams::default(), DcqcnParams::paper());
    let n = DcqcnParams::nvidia();
    assert_eq!(n.rpg_time_reset, Time::from_us(300));
    assert_eq!(n.rate_reduce_monitor_period, Time::from_us(4));
    assert!(!n.clamp_tgt_rate);
}
