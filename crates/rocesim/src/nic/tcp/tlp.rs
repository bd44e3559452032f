//! Tail loss probe (RFC 8985 §7), on by default in Linux (`net.ipv4.tcp_early_retrans = 3`):
//! when no ACK has come for a probe timeout (PTO = 2 × SRTT, at most the time left to the
//! RTO) the sender retransmits its highest segment, so that the ACK of the probe lets RACK
//! find the losses before it instead of waiting for the RTO. At most one probe is in flight
//! at a time; a new one can go once new data is acknowledged.
//!
//! Simplifications: the probe is always the highest segment sent (RFC 8985 prefers new data,
//! sent regardless of the congestion window), PTO adds no delayed-ACK allowance (rocesim's
//! receivers acknowledge every segment at once), and a probe that repairs a single loss does
//! not reduce the window (RFC 8985 §7.4's detection is not modelled).

use crate::units::Time;

/// TLP state of one connection.
#[derive(Clone, Copy, Debug)]
pub struct Tlp {
    /// When the probe timer fires (`Time::NEVER`: not armed).
    pub pto_at: Time,
    /// A probe is in flight (no new data acknowledged since it was sent).
    pub probe_out: bool,
}

impl Default for Tlp {
    fn default() -> Self {
        Tlp {
            pto_at: Time::NEVER,
            probe_out: false,
        }
    }
}

impl Tlp {
    /// Start or restart the probe timer at `now` (after new data was sent or acknowledged)
    /// with the smoothed RTT `srtt`, unless the RTO at `rto_at` comes first or a probe is out.
    pub fn arm(&mut self, now: Time, srtt: Time, rto_at: Time) {
        let pto = now + Time(2 * srtt.0);
        self.pto_at = if self.probe_out || pto >= rto_at {
            Time::NEVER
        } else {
            pto
        };
    }

    /// The timer fired at `now`: is a probe due?
    pub fn due(&self, now: Time) -> bool {
        !self.probe_out && self.pto_at <= now
    }

    /// A probe was sent.
    pub fn sent(&mut self) {
        self.probe_out = true;
        self.pto_at = Time::NEVER;
    }

    /// New data was acknowledged: a new probe may go.
    pub fn on_new_ack(&mut self) {
        self.probe_out = false;
    }

    /// Stop the timer (recovery, RTO, nothing in flight).
    pub fn disarm(&mut self) {
        self.pto_at = Time::NEVER;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pto_is_two_srtt_unless_the_rto_comes_first_and_one_probe_at_a_time() {
        let us = Time::from_us;
        let mut t = Tlp::default();
        t.arm(us(100), us(20), us(1_000));
        assert_eq!(t.pto_at, us(140));
        assert!(!t.due(us(139)) && t.due(us(140)));
        t.sent();
        t.arm(us(150), us(20), us(1_000));
        assert_eq!(t.pto_at, Time::NEVER, "one probe in flight");
        t.on_new_ack();
        t.arm(us(150), us(20), us(180));
        assert_eq!(t.pto_at, Time::NEVER, "the RTO comes first");
        t.arm(us(150), us(20), us(200));
        assert_eq!(t.pto_at, us(190));
    }
}
