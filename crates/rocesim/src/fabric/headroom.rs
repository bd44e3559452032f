//! Headroom sizing for a lossless priority group.
//!
//! After a switch decides to pause, bytes keep arriving: what the peer had already sent when
//! the pause left (one propagation delay of data), what it sends while the pause travels (a
//! second propagation delay), the frame the PFC frame waited behind, the frame the peer was
//! in the middle of, and whatever the peer sends during its response time (802.3 Annex
//! 31B.3.7 gives the maximum per speed), and the frame that crossed XOFF. `headroom = "auto"`
//! reserves exactly that, as SONiC's buffer calculator does from cable length and speed.
//!
//! The last term is this model's: its MMU (like the HPCC ns-3 reference MMU) charges a frame
//! whole when its last bit has arrived, and the frame that does not fit below the threshold
//! is the one that lands in the headroom and triggers XOFF, so that frame is in the headroom
//! before any byte the 802.1Qbb budget counts arrives. (A cut-through, cell-based MMU
//! decides on the frame's first cells instead.)

use super::params::{pause_response_quanta, quanta_time, Headroom};
use crate::packet::PFC_WIRE;
use crate::units::{Rate, Time};

/// Propagation delay of a copper/fibre cable: about 5 ns per metre.
pub const NS_PER_METRE: f64 = 5.0;

/// The 802.1Qbb / 802.3 delay budget of one lossless priority group: every byte that can
/// reach the PG after it decided to pause, term by term (all in bytes on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadroomBudget {
    /// One-way propagation delay of the link (the longer of the link's own delay and the
    /// cable at [`NS_PER_METRE`]).
    pub propagation: Time,
    /// 2 × rate × propagation: what the peer had on the wire when the pause left, and what it
    /// sends while the pause travels.
    pub in_flight: u64,
    /// 2 × the largest frame: the frame the pause waited behind at this port, and the frame
    /// the peer had started when the pause took effect (802.1Qbb Annex N).
    pub frames: u64,
    /// rate × the peer's response time (802.3 Annex 31B.3.7 maximum unless configured).
    pub response: u64,
    /// The pause frame itself (64 B + preamble and inter-frame gap).
    pub pfc_frame: u64,
    /// The frame that crossed XOFF: admitted whole to the headroom when its last bit arrived,
    /// before the pause was decided (one largest frame).
    pub crossing: u64,
    /// The largest frame the budget assumes, bytes on the wire.
    pub max_frame: u64,
}

impl HeadroomBudget {
    /// The budget for a port of `rate` whose link has propagation delay `delay` (or
    /// `cable_m` metres of cable, whichever is longer), carrying frames of up to `max_frame`
    /// bytes on the wire, when the peer honours pauses within `response`.
    pub fn new(rate: Rate, delay: Time, cable_m: f64, max_frame: u32, response: Time) -> Self {
        let cable = Time((cable_m * NS_PER_METRE * 1000.0) as u64);
        let propagation = delay.max(cable);
        HeadroomBudget {
            propagation,
            in_flight: 2 * rate.bytes_in(propagation),
            frames: 2 * max_frame as u64,
            response: rate.bytes_in(response),
            pfc_frame: PFC_WIRE as u64,
            crossing: max_frame as u64,
            max_frame: max_frame as u64,
        }
    }

    /// SONiC's `xoff` of a lossless profile: the headroom, the sum of every term.
    pub fn xoff(&self) -> u64 {
        self.in_flight + self.frames + self.response + self.pfc_frame + self.crossing
    }

    /// SONiC's `xon`: the hysteresis between pausing and resuming, two of the largest frames
    /// (a PG resumes once it has drained that far, so that a resumed peer's first frames find
    /// room without an immediate second pause).
    pub fn xon(&self) -> u64 {
        2 * self.max_frame
    }

    /// SONiC's `size` of a lossless profile as the Mellanox buffer manager writes it: the PG's
    /// own buffer, `xoff + xon`.
    pub fn size(&self) -> u64 {
        self.xoff() + self.xon()
    }
}

/// The automatic headroom for a port (`headroom = "auto"`): the xoff of its
/// [`HeadroomBudget`].
pub fn auto_headroom(rate: Rate, delay: Time, cable_m: f64, max_frame: u32, response: Time) -> u64 {
    HeadroomBudget::new(rate, delay, cable_m, max_frame, response).xoff()
}

/// The peer response delay to model for a link of `rate`: the configured value or the 802.3
/// maximum for the speed.
pub fn response_delay(configured: Option<Time>, rate: Rate) -> Time {
    configured.unwrap_or_else(|| quanta_time(pause_response_quanta(rate), rate))
}

/// Resolve a headroom setting for one port.
pub fn resolve(h: Headroom, auto: u64) -> u64 {
    match h {
        Headroom::Auto => auto,
        Headroom::Fixed(b) => b.0,
        Headroom::AutoScaled(f) => (auto as f64 * f).round() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_headroom_at_100g_1us() {
        // 2 × 12,500 B in flight + 2 × 1122 B frames + 394 quanta × 64 B + 84 B + the
        // 1122 B frame that crossed XOFF.
        let resp = response_delay(None, Rate::gbps(100));
        assert_eq!(resp, Time(394 * 5_120));
        let h = auto_headroom(Rate::gbps(100), Time::from_us(1), 5.0, 1122, resp);
        assert_eq!(h, 25_000 + 2_244 + 25_216 + 84 + 1_122);
    }

    #[test]
    fn budget_at_100g_40m_mtu_4096() {
        // 40 m × 5 ns/m = 200 ns one way; at 100G that is 2,500 B, twice: 5,000 B.
        // Frame: 4096 + 82 + 16 (RETH) = 4194 B, twice: 8,388 B. Response: 394 quanta × 64 B.
        let resp = response_delay(None, Rate::gbps(100));
        let b = HeadroomBudget::new(Rate::gbps(100), Time::ZERO, 40.0, 4194, resp);
        assert_eq!(b.propagation, Time::from_ns(200));
        assert_eq!((b.in_flight, b.frames, b.response), (5_000, 8_388, 25_216));
        assert_eq!(b.crossing, 4_194);
        assert_eq!(b.xoff(), 5_000 + 8_388 + 25_216 + 84 + 4_194);
        assert_eq!(b.xon(), 8_388);
        assert_eq!(b.size(), b.xoff() + 8_388);
    }
}
