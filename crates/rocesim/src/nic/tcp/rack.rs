//! RACK, time-based loss detection (RFC 8985 §6), as Linux runs it by default
//! (`net.ipv4.tcp_recovery = 1`): a segment is lost when a segment sent after it has been
//! delivered (cumulatively or selectively acknowledged) and it is still missing one RACK RTT
//! plus a reordering window after it was sent. Because every retransmission gets a new send
//! time, a lost retransmission is detected the same way, without waiting for the RTO.
//!
//! Simplifications: the reordering window is `min_rtt / 4` outside recovery and 0 in it (RFC
//! 8985 §6.2 step 4 with `RACK.reord` never set: rocesim's per-flow paths do not reorder), and
//! send times are kept per segment of the receive window.

use super::RWND_SEGMENTS;
use crate::units::Time;

const WORDS: usize = RWND_SEGMENTS as usize / 64;

/// RACK state of one connection (sequence numbers in segments).
#[derive(Clone, Debug)]
pub struct Rack {
    /// Send time of the latest transmission of each segment (index: segment mod window).
    sent_at: Vec<Time>,
    /// Segments marked lost and not retransmitted since.
    lost: [u64; WORDS],
    lost_count: u32,
    /// RACK.xmit_ts and RACK.end_seq: the latest-sent segment known delivered.
    xmit_ts: Time,
    end_seq: u32,
    /// RACK.rtt: the RTT of that delivery.
    rtt: Time,
    /// RACK.min_RTT.
    min_rtt: Time,
    /// When the reordering timer must run detection again (`Time::NEVER`: not armed).
    pub timer: Time,
}

#[inline]
fn bit(psn: u32) -> (usize, u64) {
    let i = psn % RWND_SEGMENTS;
    ((i / 64) as usize, 1u64 << (i % 64))
}

impl Rack {
    /// Empty state; `base_rtt` (the handshake's sample) seeds the minimum RTT.
    pub fn new(base_rtt: Time) -> Self {
        Rack {
            sent_at: vec![Time::ZERO; RWND_SEGMENTS as usize],
            lost: [0; WORDS],
            lost_count: 0,
            xmit_ts: Time::ZERO,
            end_seq: 0,
            rtt: base_rtt,
            min_rtt: base_rtt,
            timer: Time::NEVER,
        }
    }

    /// Segment `psn` was (re)transmitted at `now`: it is no longer marked lost.
    #[inline]
    pub fn on_transmit(&mut self, psn: u32, now: Time) {
        self.sent_at[(psn % RWND_SEGMENTS) as usize] = now;
        self.unmark(psn);
    }

    fn unmark(&mut self, psn: u32) {
        let (w, m) = bit(psn);
        if self.lost[w] & m != 0 {
            self.lost[w] &= !m;
            self.lost_count -= 1;
        }
    }

    /// Send time of the latest transmission of `psn`.
    pub fn sent_at(&self, psn: u32) -> Time {
        self.sent_at[(psn % RWND_SEGMENTS) as usize]
    }

    /// Segment `seg`, sent at `xmit`, was delivered (RFC 8985 §6.2 step 2; it is no longer
    /// lost): the most recently
    /// sent delivered segment defines RACK.xmit_ts and RACK.rtt. A sample shorter than the
    /// minimum RTT is ambiguous (an earlier transmission's ACK) and ignored.
    pub fn on_delivered(&mut self, seg: u32, xmit: Time, now: Time) {
        self.unmark(seg);
        let rtt = now.saturating_sub(xmit);
        if rtt < self.min_rtt && xmit < self.xmit_ts {
            return;
        }
        self.min_rtt = self.min_rtt.min(rtt);
        if xmit > self.xmit_ts || (xmit == self.xmit_ts && seg > self.end_seq) {
            self.xmit_ts = xmit;
            self.end_seq = seg;
            self.rtt = rtt;
        }
    }

    /// Segments below `ackno` are acknowledged: forget their marks.
    pub fn acked_below(&mut self, from: u32, ackno: u32) {
        if self.lost_count == 0 {
            return;
        }
        for p in from..ackno.min(from + RWND_SEGMENTS) {
            self.unmark(p);
        }
    }

    /// Forget every mark (after an RTO, which resends everything from SND.UNA).
    pub fn clear(&mut self) {
        self.lost = [0; WORDS];
        self.lost_count = 0;
        self.timer = Time::NEVER;
    }

    /// RFC 8985 §6.2 step 5: mark lost every segment in `una..max_sent` not selectively
    /// acknowledged (`sacked`) that was sent before RACK.xmit_ts and is older than
    /// RACK.rtt + reo_wnd; arm the reordering timer for the youngest of the others. Returns
    /// the number newly marked.
    pub fn detect(
        &mut self,
        una: u32,
        max_sent: u32,
        sacked: &[u64],
        in_recovery: bool,
        now: Time,
    ) -> u32 {
        let reo_wnd = if in_recovery {
            Time::ZERO
        } else {
            Time(self.min_rtt.0 / 4)
        };
        let mut newly = 0;
        let mut timeout = Time::ZERO;
        for p in una..max_sent.min(una + RWND_SEGMENTS) {
            let (w, m) = bit(p);
            if sacked[w] & m != 0 || self.lost[w] & m != 0 {
                continue;
            }
            let t = self.sent_at(p);
            let before = t < self.xmit_ts || (t == self.xmit_ts && p < self.end_seq);
            if !before {
                continue;
            }
            let deadline = t + self.rtt + reo_wnd;
            if deadline <= now {
                self.lost[w] |= m;
                self.lost_count += 1;
                newly += 1;
            } else {
                timeout = timeout.max(deadline - now);
            }
        }
        self.timer = if timeout > Time::ZERO {
            now + timeout
        } else {
            Time::NEVER
        };
        newly
    }

    /// The lowest segment at or above `from` (below `max_sent`) marked lost.
    pub fn first_lost(&self, from: u32, max_sent: u32) -> Option<u32> {
        if self.lost_count == 0 {
            return None;
        }
        (from..max_sent.min(from + RWND_SEGMENTS)).find(|&p| {
            let (w, m) = bit(p);
            self.lost[w] & m != 0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_lost_once_a_later_one_is_delivered_and_an_rtt_has_passed() {
        // Segments 0..4 sent 1 us apart from t = 0; RTT 10 us. Segment 3 (sent at 3 us) is
        // SACKed at 13 us: RACK.rtt = 10 us. Outside recovery reo_wnd = 10/4 = 2.5 us, so
        // segment 0 (sent 0) is lost at 12.5 us ≤ 13 us, segment 1 (sent 1 us) at 13.5 us,
        // segment 2 at 14.5 us: one lost now, the timer armed for the youngest, 14.5 us.
        let us = Time::from_us;
        let mut r = Rack::new(us(10));
        for p in 0..5 {
            r.on_transmit(p, us(p as u64));
        }
        let mut sacked = [0u64; WORDS];
        sacked[0] |= 1 << 3;
        r.on_delivered(3, us(3), us(13));
        assert_eq!(r.detect(0, 5, &sacked, false, us(13)), 1);
        assert_eq!(r.first_lost(0, 5), Some(0));
        assert_eq!(r.timer, Time::from_ns(14_500));
        // In recovery reo_wnd = 0: 1 and 2 (sent before 3 us, older than 10 us) are lost too.
        assert_eq!(r.detect(0, 5, &sacked, true, us(13)), 2);
        // The retransmission of 0 at 13 us is lost again once 4's later retransmission,
        // sent at 14 us, is delivered at 24 us and 10 us have passed since 13 us.
        r.on_transmit(0, us(13));
        assert_eq!(r.first_lost(0, 5), Some(1));
        // 1 and 2 are SACKed (their retransmissions arrived): no longer lost.
        for p in [1, 2] {
            r.on_delivered(p, us(13), us(23));
            sacked[0] |= 1 << p;
        }
        assert_eq!(r.first_lost(0, 5), None);
        r.on_transmit(4, us(14));
        r.on_delivered(4, us(14), us(24));
        sacked[0] |= 1 << 4;
        assert_eq!(r.detect(0, 5, &sacked, true, us(24)), 1);
        assert_eq!(r.first_lost(0, 5), Some(0));
        r.acked_below(0, 5);
        assert_eq!(r.first_lost(0, 5), None);
    }
}
