//! The TCP sender's state machine: slow start and congestion avoidance (RFC 5681 §3.1), fast
//! retransmit and NewReno fast recovery with partial ACKs (RFC 6582 §3.2), and the
//! retransmission timeout (RFC 6298 §5; RFC 5681 §3.1 on the window after it). The window
//! algorithm (`newreno.rs`, `cubic.rs`, `dctcp.rs`) decides how the window grows and how far
//! a loss or a CE echo cuts it. Sequence numbers count segments.

use super::cubic::Cubic;
use super::dctcp::Dctcp;
use super::newreno::NewReno;
use super::rack::Rack;
use super::rtt::RttEstimator;
use super::tlp::Tlp;
use super::{TcpCc, TcpParams, INITIAL_WINDOW, RWND_SEGMENTS};
use crate::nic::cc::CongestionControl;
use crate::units::Time;

const SACK_WORDS: usize = RWND_SEGMENTS as usize / 64;

/// The window algorithm and its state.
#[derive(Clone, Debug)]
pub enum Algo {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
    /// DCTCP.
    Dctcp(Dctcp),
}

/// The sequence state of the connection, as the QP keeps it (segment numbers).
pub struct Seq<'a> {
    /// SND.UNA: the oldest unacknowledged segment.
    pub una: &'a mut u32,
    /// The next segment the NIC sends (rewound by one segment for a retransmission).
    pub nxt: &'a mut u32,
    /// Highest segment ever sent + 1 (SND.NXT outside retransmissions).
    pub max_sent: u32,
}

/// What an ACK did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// It acknowledged new data.
    New,
    /// A partial acknowledgment in fast recovery (RFC 6582): the next hole was
    /// retransmitted; `true` for the episode's first, which alone restarts the timer (the
    /// "Impatient" variant of §4: a long recovery ends by timeout).
    Partial(bool),
    /// A duplicate ACK.
    Duplicate,
    /// The third duplicate ACK: the first missing segment was fast-retransmitted.
    FastRetransmit,
    /// An old ACK (below SND.UNA), ignored.
    Old,
}

/// One connection's sender state (windows in segments).
#[derive(Clone, Debug)]
pub struct TcpSender {
    algo: Algo,
    mss: u32,
    /// Congestion window.
    pub cwnd: f64,
    /// Slow-start threshold.
    pub ssthresh: f64,
    dupacks: u32,
    in_recovery: bool,
    /// A partial ACK has come in the current recovery episode.
    partial_seen: bool,
    /// Highest segment sent when the last loss episode began (RFC 6582 `recover`; −1 first).
    recover: i64,
    /// During a retransmission: the next new segment to send once it has gone.
    resume: Option<u32>,
    /// The SACK scoreboard: segments above SND.UNA the receiver reported (bit per segment
    /// modulo the receive window), and the highest reported + 1.
    sacked: [u64; SACK_WORDS],
    high_sacked: u32,
    /// In recovery: holes below this were retransmitted in the current episode.
    rtx_next: u32,
    /// In recovery: ACKs that signalled a departure while a retransmission was pending; each
    /// lets one more hole go (RFC 6675's pipe, one segment per departure).
    credits: u32,
    /// RTT estimate and retransmission timeout.
    pub rtt: RttEstimator,
    /// RACK time-based loss detection (`[tcp] rack`), if on.
    rack: Option<Box<Rack>>,
    /// Tail loss probe (`[tcp] tlp`, with RACK), if on.
    tlp: Option<Tlp>,
    /// SND.UNA and the highest segment sent + 1 as of the last ACK (RACK's search range).
    una: u32,
    max_sent: u32,
}

impl TcpSender {
    /// A connection with algorithm `cc`, open with the RTT sample `base_rtt` of its
    /// handshake: initial window 10 segments, ssthresh the receive window.
    pub fn new(cc: TcpCc, p: &TcpParams, base_rtt: Time) -> Self {
        let algo = match cc {
            TcpCc::NewReno => Algo::NewReno(NewReno),
            TcpCc::Cubic => Algo::Cubic(Cubic::default()),
            TcpCc::Dctcp => Algo::Dctcp(Dctcp::new(p.dctcp_g)),
        };
        TcpSender {
            algo,
            mss: p.mss,
            cwnd: INITIAL_WINDOW,
            ssthresh: RWND_SEGMENTS as f64,
            dupacks: 0,
            in_recovery: false,
            partial_seen: false,
            recover: -1,
            resume: None,
            sacked: [0; SACK_WORDS],
            high_sacked: 0,
            rtx_next: 0,
            credits: 0,
            rtt: RttEstimator::new(base_rtt, p.rto_min),
            rack: p.rack.then(|| Box::new(Rack::new(base_rtt))),
            tlp: (p.rack && p.tlp).then(Tlp::default),
            una: 0,
            max_sent: 0,
        }
    }

    /// It runs RACK or TLP timers (`next_timer`, `on_loss_timer`).
    pub fn has_loss_timers(&self) -> bool {
        self.rack.is_some()
    }

    /// Its data is ECN-capable (DCTCP only; Linux negotiates ECN for no other by default).
    pub fn ecn_capable(&self) -> bool {
        matches!(self.algo, Algo::Dctcp(_))
    }

    /// The algorithm's state.
    pub fn algo(&self) -> &Algo {
        &self.algo
    }

    /// In fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The slow-start threshold after a loss with `flight` segments outstanding.
    fn loss_threshold(&mut self, flight: u32) -> f64 {
        match &mut self.algo {
            Algo::Cubic(c) => c.on_loss(self.cwnd),
            Algo::NewReno(_) | Algo::Dctcp(_) => NewReno::ssthresh(flight),
        }
    }

    /// Send segment `psn` next, then resume with new data.
    fn retransmit(&mut self, psn: u32, s: &mut Seq<'_>) {
        if self.resume.is_none() {
            self.resume = Some(*s.nxt);
        }
        *s.nxt = psn;
    }

    /// Segment `psn` has just been handed to the wire at `now`: after a retransmission, new
    /// data resumes where it stopped.
    #[inline]
    pub fn after_send(&mut self, psn: u32, now: Time, nxt: &mut u32) {
        if let Some(r) = &mut self.rack {
            r.on_transmit(psn, now);
        }
        let Some(r) = self.resume else { return };
        if self.in_recovery && self.credits > 0 {
            if let Some(h) = self.next_hole(*nxt) {
                self.credits -= 1;
                *nxt = h;
                return;
            }
        }
        self.resume = None;
        *nxt = (*nxt).max(r);
    }

    #[inline]
    fn bit(psn: u32) -> (usize, u64) {
        let i = psn % RWND_SEGMENTS;
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    /// The next segment at or above `from` (and `rtx_next`) the receiver has not reported,
    /// below the highest it has: a hole to retransmit (RFC 6675 `NextSeg` rule 1).
    fn next_hole(&mut self, from: u32) -> Option<u32> {
        if let Some(r) = &self.rack {
            // With RACK, the holes to resend are the segments it marked lost (in recovery
            // every unreported segment sent before the latest delivered one), including
            // retransmissions that were lost again.
            let p = r.first_lost(self.una, self.max_sent)?;
            self.rtx_next = self.rtx_next.max(p + 1);
            return Some(p);
        }
        let mut p = self.rtx_next.max(from);
        while p < self.high_sacked {
            let (w, m) = Self::bit(p);
            if self.sacked[w] & m == 0 {
                self.rtx_next = p + 1;
                return Some(p);
            }
            p += 1;
        }
        self.rtx_next = p;
        None
    }

    /// One departure signalled during recovery: retransmit the next hole if nothing is
    /// pending, else keep the credit; with no hole left, inflate the window for new data.
    fn on_departure(&mut self, s: &mut Seq<'_>) {
        if self.resume.is_some() {
            self.credits += 1;
            return;
        }
        match self.next_hole(*s.una) {
            Some(h) => self.retransmit(h, s),
            None => self.cwnd += 1.0,
        }
    }

    /// A duplicate ACK whose SACK block reports segment `seg` (RFC 2018), cumulative field
    /// `ackno`.
    pub fn on_sack(
        &mut self,
        ackno: u32,
        seg: u32,
        ece: bool,
        now: Time,
        s: &mut Seq<'_>,
    ) -> AckKind {
        if seg >= ackno.max(*s.una) && seg - *s.una < RWND_SEGMENTS {
            let (w, m) = Self::bit(seg);
            self.sacked[w] |= m;
            self.high_sacked = self.high_sacked.max(seg + 1);
            if let Some(r) = &mut self.rack {
                let xmit = r.sent_at(seg);
                r.on_delivered(seg, xmit, now);
            }
        }
        self.on_ack_inner(ackno, ece, now, None, s)
    }

    /// An ACK whose cumulative field is `ackno` (every segment below it received) arrived at
    /// `now`, echoing CE or not, with RTT sample `rtt`.
    pub fn on_cumulative_ack(
        &mut self,
        ackno: u32,
        ece: bool,
        now: Time,
        rtt: Time,
        s: &mut Seq<'_>,
    ) -> AckKind {
        self.on_ack_inner(ackno, ece, now, Some(rtt), s)
    }

    fn on_ack_inner(
        &mut self,
        ackno: u32,
        ece: bool,
        now: Time,
        rtt: Option<Time>,
        s: &mut Seq<'_>,
    ) -> AckKind {
        let old_una = *s.una;
        if let Some(r) = &mut self.rack {
            if ackno > old_una {
                r.acked_below(old_una, ackno);
                if let Some(rtt) = rtt {
                    r.on_delivered(ackno - 1, now.saturating_sub(rtt), now);
                }
            }
        }
        let kind = self.on_ack_core(ackno, ece, now, rtt, s);
        if ackno > old_una {
            if let Some(t) = &mut self.tlp {
                t.on_new_ack();
            }
        }
        if self.rack.is_none() || kind == AckKind::Old {
            return kind;
        }
        self.rack_step(kind, now, false, s)
    }

    /// RACK's detection after an ACK (RFC 8985 §6.2 step 5) and the retransmission of what
    /// it found lost.
    /// (`timer`: the reordering timer fired, else an ACK came; without a hole reported and
    /// outside recovery an ACK cannot reveal a loss, and the scan is skipped.)
    fn rack_step(&mut self, kind: AckKind, now: Time, timer: bool, s: &mut Seq<'_>) -> AckKind {
        (self.una, self.max_sent) = (*s.una, s.max_sent);
        let Some(r) = &mut self.rack else { return kind };
        if !timer && !self.in_recovery && self.high_sacked <= *s.una {
            r.timer = Time::NEVER;
            return kind;
        }
        let lost = r.detect(*s.una, s.max_sent, &self.sacked, self.in_recovery, now);
        if lost == 0 {
            return kind;
        }
        let entered = !self.in_recovery;
        if entered {
            self.enter_recovery(s, 0.0);
        }
        // Entering recovery resends the first hole at once; inside it, the next hole goes
        // unless a retransmission is already pending.
        if entered || self.resume.is_none() {
            if let Some(h) = self.next_hole(*s.una) {
                self.retransmit(h, s);
            }
        }
        if entered {
            AckKind::FastRetransmit
        } else {
            kind
        }
    }

    /// Enter fast recovery (RFC 6582 step 2; `inflate` duplicate ACKs already counted).
    fn enter_recovery(&mut self, s: &mut Seq<'_>, inflate: f64) {
        let flight = s.max_sent - *s.una;
        self.recover = s.max_sent as i64 - 1;
        self.ssthresh = self.loss_threshold(flight);
        self.cwnd = self.ssthresh + inflate;
        self.in_recovery = true;
        self.partial_seen = false;
        self.credits = 0;
        if let Some(t) = &mut self.tlp {
            t.disarm();
        }
    }

    fn on_ack_core(
        &mut self,
        ackno: u32,
        ece: bool,
        now: Time,
        rtt: Option<Time>,
        s: &mut Seq<'_>,
    ) -> AckKind {
        if ackno > *s.una {
            let acked = ackno - *s.una;
            for p in *s.una..ackno.min(*s.una + RWND_SEGMENTS) {
                let (w, m) = Self::bit(p);
                self.sacked[w] &= !m;
            }
            *s.una = ackno;
            *s.nxt = (*s.nxt).max(ackno);
            if let Some(r) = &mut self.resume {
                *r = (*r).max(ackno);
            }
            if let Some(r) = rtt {
                self.rtt.sample(r);
            }
            self.rtt.reset_backoff();
            self.dupacks = 0;
            let kind = self.on_new_data(ackno, acked, now, s);
            self.on_ecn(ackno, acked, ece, s.max_sent);
            return kind;
        }
        if ackno < *s.una || s.max_sent <= *s.una {
            return AckKind::Old;
        }
        self.dupacks += 1;
        self.on_ecn(ackno, 0, ece, s.max_sent);
        if self.in_recovery {
            // Each further duplicate means a segment left the network (RFC 6582 step 4):
            // a reported hole goes, else the window inflates for new data.
            self.on_departure(s);
            return AckKind::Duplicate;
        }
        if self.dupacks == 3 && ackno as i64 > self.recover {
            self.enter_recovery(s, 3.0);
            let una = *s.una;
            self.rtx_next = una + 1;
            self.retransmit(una, s);
            return AckKind::FastRetransmit;
        }
        AckKind::Duplicate
    }

    /// New data acknowledged: leave or continue fast recovery, or grow the window.
    fn on_new_data(&mut self, ackno: u32, acked: u32, now: Time, s: &mut Seq<'_>) -> AckKind {
        if self.in_recovery {
            if ackno as i64 > self.recover {
                // Full acknowledgment: deflate to ssthresh (RFC 6582 step 3, option 2).
                self.in_recovery = false;
                self.cwnd = self.ssthresh;
                return AckKind::New;
            }
            // Partial acknowledgment: the next hole is lost too (retransmitted now unless
            // the scoreboard already sent it; then the departure frees the next one).
            self.cwnd = (self.cwnd - acked as f64 + 1.0).max(1.0);
            if ackno >= self.rtx_next {
                self.rtx_next = ackno + 1;
                self.retransmit(ackno, s);
            } else if self.resume.is_some() {
                self.credits += 1;
            } else if let Some(h) = self.next_hole(ackno) {
                self.retransmit(h, s);
            }
            let first = !self.partial_seen;
            self.partial_seen = true;
            return AckKind::Partial(first);
        }
        if self.cwnd < self.ssthresh {
            self.cwnd = (self.cwnd + 1.0).min(RWND_SEGMENTS as f64);
            return AckKind::New;
        }
        let srtt = self.rtt.srtt();
        let cwnd = self.cwnd;
        self.cwnd = match &mut self.algo {
            Algo::Cubic(c) => c.grow(cwnd, acked, now, srtt),
            Algo::NewReno(_) | Algo::Dctcp(_) => NewReno::grow(cwnd, acked),
        }
        .min(RWND_SEGMENTS as f64);
        AckKind::New
    }

    /// DCTCP's α estimate and its cut on a CE echo (outside fast recovery).
    fn on_ecn(&mut self, ackno: u32, acked: u32, ece: bool, snd_nxt: u32) {
        let Algo::Dctcp(d) = &mut self.algo else {
            return;
        };
        if let Some(f) = d.on_ack(ackno, acked, ece, snd_nxt) {
            if !self.in_recovery {
                self.cwnd = (self.cwnd * f).max(2.0);
                self.ssthresh = self.cwnd;
            }
        }
    }

    /// The retransmission timer expired: one segment of window, resend from SND.UNA in slow
    /// start, back the timer off (RFC 5681 §3.1, RFC 6298 §5.5–5.7).
    pub fn on_timeout(&mut self, s: &mut Seq<'_>) {
        if !self.rtt.backing_off() {
            let flight = s.max_sent - *s.una;
            self.ssthresh = self.loss_threshold(flight);
        }
        self.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = s.max_sent as i64 - 1;
        self.resume = None;
        self.credits = 0;
        self.sacked = [0; SACK_WORDS];
        self.high_sacked = 0;
        *s.nxt = *s.una;
        self.rtt.back_off();
        if let Some(r) = &mut self.rack {
            r.clear();
        }
        if let Some(t) = &mut self.tlp {
            *t = Tlp::default();
        }
    }

    /// Start or restart the tail-loss-probe timer at `now` (new data sent or acknowledged),
    /// given the RTO deadline `rto_at`; off in recovery or with nothing in flight.
    pub fn arm_tlp(&mut self, now: Time, rto_at: Time, in_flight: bool) {
        let srtt = self.rtt.srtt();
        let recovering = self.in_recovery;
        if let Some(t) = &mut self.tlp {
            if recovering || !in_flight {
                t.disarm();
            } else {
                t.arm(now, srtt, rto_at);
            }
        }
    }

    /// The RACK reordering timer or the probe timer fired at `now` (either may be stale):
    /// run RACK's detection, or send the tail loss probe (the highest segment sent). Returns
    /// (recovery entered, probe sent); a probe restarts the RTO (RFC 8985 §7.3).
    pub fn on_loss_timer(&mut self, now: Time, s: &mut Seq<'_>) -> (bool, bool) {
        let mut entered = false;
        if self.rack.as_ref().is_some_and(|r| r.timer <= now) {
            if let Some(r) = &mut self.rack {
                r.timer = Time::NEVER;
            }
            let kind = self.rack_step(AckKind::Duplicate, now, true, s);
            entered = kind == AckKind::FastRetransmit;
        }
        let due = self.tlp.is_some_and(|t| t.due(now));
        if due && !self.in_recovery && s.max_sent > *s.una && self.resume.is_none() {
            if let Some(t) = &mut self.tlp {
                t.sent();
            }
            self.retransmit(s.max_sent - 1, s);
            return (entered, true);
        }
        (entered, false)
    }
}

impl CongestionControl for TcpSender {
    /// The earlier of RACK's reordering timer and the tail-loss-probe timer.
    fn next_timer(&self) -> Option<Time> {
        let rack = self.rack.as_ref().map_or(Time::NEVER, |r| r.timer);
        let pto = self.tlp.map_or(Time::NEVER, |t| t.pto_at);
        Some(rack.min(pto)).filter(|&t| t != Time::NEVER)
    }

    /// The send window: the congestion window (whole segments) capped by the receive window.
    /// A retransmission that departures or a probe released goes whatever the window: the
    /// QP counts everything from SND.UNA to the segment it sends as outstanding, which
    /// overstates the pipe when that segment is far above SND.UNA (RFC 6675 §5 counts only
    /// segments neither SACKed nor lost).
    fn window(&self) -> Option<u64> {
        if self.resume.is_some() {
            return Some(u64::MAX);
        }
        let w = (self.cwnd.floor() as u64).clamp(1, RWND_SEGMENTS as u64);
        Some(w * self.mss as u64)
    }
}
