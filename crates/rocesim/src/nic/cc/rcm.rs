//! Linear RoCEv2 Congestion Management (RCM) at the reaction point, as configured by Liu et al.,
//! "Implementation of PFC and RCM for RoCEv2 Simulation in OMNeT++" (OMNeT++ Summit 2015, §IV.4–5).
//!
//! Let T be the time to send one MTU-sized packet at line rate (payload `mtu` plus 82 bytes of
//! RoCEv2 framing: Ethernet with preamble and IFG, IPv4, UDP, BTH, ICRC). After n CNPs the next
//! packet waits (n + 1)·T after the previous one, i.e. the QP is paced at line_rate/(n + 1).
//! Recovery steps back one level (n → n − 1) after `recovery_time` and/or after
//! `recovery_bytes` sent at the current level, whichever comes first; both clocks restart when
//! the level changes (a CNP or a recovery step).
//!
//! Modelling decision: the pacing is expressed as a rate ([`CongestionControl::rate`] =
//! line_rate/(n + 1)) rather than as a fixed gap between packet starts. For MTU-sized packets
//! the two are identical; for shorter packets the rate form gives proportionally shorter gaps
//! (the paper's form would limit packets per second instead of bytes per second).

use super::{CcContext, CongestionControl};
use crate::units::{Rate, Time};

/// How one reduction level is sized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RcmStep {
    /// One level adds T, the time to send one MTU-sized frame at line rate (Liu et al.): after
    /// n CNPs the rate is line_rate/(n + 1). The only step Liu et al. describe, and the only
    /// one supported.
    #[default]
    MtuTime,
}

/// RCM parameters (`[nic.rcm]`). Liu et al. do not give recovery values; the defaults are the
/// ones VALIDATION.md §1 suggests (55 us, 64 KB).
#[derive(Clone, Debug, PartialEq)]
pub struct RcmParams {
    /// Size of one reduction level (config `step`, only `"mtu_time"`).
    pub step: RcmStep,
    /// Step back one level after this long at the current level without a CNP; `None` = no
    /// time-based recovery. Default 55 us.
    pub recovery_time: Option<Time>,
    /// Step back one level after this many wire bytes sent at the current level; `None` = no
    /// byte-based recovery (the default, as Liu et al.'s Table II recovers by time only:
    /// byte-based recovery lets fast QPs climb back faster and keeps the parking-lot unfairness).
    pub recovery_bytes: Option<u64>,
    /// Highest level n (rate never below line_rate/(max_level + 1)). Default 63.
    pub max_level: u32,
}

impl Default for RcmParams {
    fn default() -> Self {
        RcmParams {
            step: RcmStep::MtuTime,
            recovery_time: Some(Time::from_us(55)),
            recovery_bytes: None,
            max_level: 63,
        }
    }
}

/// Per-QP RCM state.
#[derive(Clone, Debug)]
pub struct Rcm {
    p: RcmParams,
    line: Rate,
    /// T: one MTU-sized frame at line rate.
    t_mtu: Time,
    /// Current level n (CNPs not yet recovered).
    level: u32,
    /// When the current level began (CNP or recovery step).
    since: Time,
    /// Wire bytes sent at the current level.
    bytes: u64,
}

impl Rcm {
    /// A new QP's state (level 0: line rate).
    pub fn new(p: &RcmParams, ctx: &CcContext) -> Self {
        Rcm {
            p: p.clone(),
            line: ctx.line_rate,
            t_mtu: ctx.line_rate.tx_time((ctx.mtu + ctx.frame_overhead) as u64),
            level: 0,
            since: Time::ZERO,
            bytes: 0,
        }
    }

    /// The current level n.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// The paper's inter-packet spacing at the current level, (n + 1)·T.
    pub fn gap(&self) -> Time {
        Time(self.t_mtu.ps() * (self.level as u64 + 1))
    }

    fn step_down(&mut self, now: Time) {
        self.level -= 1;
        self.since = now;
        self.bytes = 0;
    }
}

impl CongestionControl for Rcm {
    fn on_send(&mut self, now: Time, wire: u32) {
        if self.level == 0 {
            return;
        }
        self.bytes += wire as u64;
        if let Some(b) = self.p.recovery_bytes {
            if self.bytes >= b {
                self.step_down(now);
            }
        }
    }

    fn on_cnp(&mut self, now: Time) {
        self.level = (self.level + 1).min(self.p.max_level);
        self.since = now;
        self.bytes = 0;
    }

    fn on_timer(&mut self, now: Time) {
        while let Some(t) = self.next_timer() {
            if t > now {
                break;
            }
            self.step_down(t);
        }
    }

    fn next_timer(&self) -> Option<Time> {
        match self.p.recovery_time {
            Some(d) if self.level > 0 && d > Time::ZERO => Some(self.since + d),
            _ => None,
        }
    }

    fn rate(&self) -> Option<Rate> {
        (self.level > 0).then(|| Rate(self.line.bps() / (self.level as u64 + 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> CcContext {
        CcContext {
            line_rate: Rate::gbps(40),
            mtu: 2048,
            base_rtt: Time::from_us(5),
            start: Time::ZERO,
            frame_overhead: 82,
        }
    }

    #[test]
    fn no_cnp_means_line_rate() {
        let c = Rcm::new(&RcmParams::default(), &ctx());
        assert_eq!(c.rate(), None);
        assert_eq!(c.next_timer(), None);
    }

    #[test]
    fn each_cnp_adds_one_mtu_time() {
        let mut c = Rcm::new(&RcmParams::default(), &ctx());
        let line = 40_000_000_000u64;
        for n in 1..=3u64 {
            c.on_cnp(Time::ZERO);
            assert_eq!(c.rate(), Some(Rate(line / (n + 1))));
        }
        // T = 2130 B at 40 G = 426 ns; after 3 CNPs the gap is 4T.
        assert_eq!(c.gap(), Time::from_ps(4 * 426_000));
    }

    #[test]
    fn recovery_by_time_one_level_per_period() {
        let p = RcmParams::default();
        assert_eq!(p.recovery_bytes, None, "time-only recovery is the default");
        let mut c = Rcm::new(&p, &ctx());
        c.on_cnp(Time::from_us(10));
        c.on_cnp(Time::from_us(10));
        assert_eq!(c.level(), 2);
        assert_eq!(c.next_timer(), Some(Time::from_us(65)));
        c.on_timer(Time::from_us(65));
        assert_eq!(c.level(), 1);
        assert_eq!(c.rate(), Some(Rate::gbps(20)));
        assert_eq!(c.next_timer(), Some(Time::from_us(120)));
        // A CNP restarts the clock.
        c.on_cnp(Time::from_us(100));
        assert_eq!(c.next_timer(), Some(Time::from_us(155)));
        c.on_timer(Time::from_us(155));
        c.on_timer(Time::from_us(210));
        assert_eq!(c.level(), 0);
        assert_eq!(c.rate(), None);
        assert_eq!(c.next_timer(), None);
    }

    #[test]
    fn recovery_by_bytes_one_level_per_budget() {
        let p = RcmParams {
            recovery_time: None,
            recovery_bytes: Some(64_000),
            ..RcmParams::default()
        };
        let mut c = Rcm::new(&p, &ctx());
        c.on_cnp(Time::ZERO);
        c.on_cnp(Time::ZERO);
        assert_eq!(c.next_timer(), None);
        for _ in 0..31 {
            c.on_send(Time::from_us(1), 2000);
        }
        assert_eq!(c.level(), 2, "62,000 B < 64 KB");
        c.on_send(Time::from_us(1), 2000);
        assert_eq!(c.level(), 1);
        for _ in 0..32 {
            c.on_send(Time::from_us(2), 2000);
        }
        assert_eq!(c.level(), 0);
        assert_eq!(c.rate(), None);
    }

    #[test]
    fn first_trigger_wins_and_level_is_capped() {
        let p = RcmParams {
            max_level: 3,
            recovery_bytes: Some(64_000),
            ..RcmParams::default()
        };
        let mut c = Rcm::new(&p, &ctx());
        for _ in 0..10 {
            c.on_cnp(Time::ZERO);
        }
        assert_eq!(c.level(), 3);
        assert_eq!(c.rate(), Some(Rate::gbps(10)));
        // Bytes first: 64 KB at 20 us steps down and restarts the 55 us clock.
        c.on_send(Time::from_us(20), 64_000);
        assert_eq!(c.level(), 2);
        assert_eq!(c.next_timer(), Some(Time::from_us(75)));
        c.on_timer(Time::from_us(75));
        assert_eq!(c.level(), 1);
    }
}
