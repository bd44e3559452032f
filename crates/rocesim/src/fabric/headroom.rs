//! Headroom sizing for a lossless priority group.
//!
//! After a switch decides to pause, bytes keep arriving: what the peer had already sent when
//! the pause left (one propagation delay of data), what it sends while the pause travels (a
//! second propagation delay), the frame the PFC frame waited behind, the frame the peer was
//! in the middle of, and whatever the peer sends during its response time (802.3 Annex
//! 31B.3.7 gives the maximum per speed). `headroom = "auto"` reserves exactly that, as
//! SONiC's buffer calculator does from cable length and speed.

use super::params::{pause_response_quanta, quanta_time, Headroom};
use crate::packet::PFC_WIRE;
use crate::units::{Rate, Time};

/// Propagation delay of a copper/fibre cable: about 5 ns per metre.
pub const NS_PER_METRE: f64 = 5.0;

/// The automatic headroom for a port of `rate` whose link has propagation delay `delay`
/// (or `cable_m` metres of cable, whichever is longer), carrying frames of up to
/// `max_frame` bytes on the wire, when the peer honours pauses within `response`.
pub fn auto_headroom(rate: Rate, delay: Time, cable_m: f64, max_frame: u32, response: Time) -> u64 {
    let cable = Time((cable_m * NS_PER_METRE * 1000.0) as u64);
    let d = delay.max(cable);
    2 * rate.bytes_in(d) + 2 * max_frame as u64 + rate.bytes_in(response) + PFC_WIRE as u64
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
        // 2 × 12,500 B in flight + 2 × 1122 B frames + 394 quanta × 64 B + 84 B.
        let resp = response_delay(None, Rate::gbps(100));
        assert_eq!(resp, Time(394 * 5_120));
        let h = auto_headroom(Rate::gbps(100), Time::from_us(1), 5.0, 1122, resp);
        assert_eq!(h, 25_000 + 2_244 + 25_216 + 84);
    }
}
