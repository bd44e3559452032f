//! TCP for the lossy traffic classes: a sender whose window follows NewReno (RFC 5681 and
//! RFC 6582), CUBIC (RFC 9438) or DCTCP (RFC 8257), beside the RoCEv2 QPs of the same NIC.
//!
//! A TCP connection reuses the NIC's requester and responder slots: the sequence space is
//! counted in segments of `mss` payload bytes (the PSN of a data packet is its segment
//! number), the sender's state machine (`sender.rs`) sits in the QP's congestion-control
//! slot, and the receiver's out-of-order bitmap (`receiver.rs`) in the responder. Frames
//! carry the TCP/IPv4 header stack ([`crate::packet::FrameOverhead::TCP`], 78 bytes on the
//! wire); there is no handshake (the connection is open when the flow starts, with the RTT
//! sample the SYN exchange would have given) and no delayed ACKs (every segment is
//! acknowledged at once, as Linux does in quick-ack mode). One file per concern:
//! `sender.rs` (slow start, fast retransmit and recovery, RTO), `rtt.rs` (RFC 6298
//! estimator), `rack.rs` and `tlp.rs` (RFC 8985 RACK-TLP, Linux's default loss detection),
//! `receiver.rs`, and one file per window algorithm.

pub mod cubic;
pub mod dctcp;
pub mod hooks;
pub mod newreno;
pub mod rack;
#[cfg(test)]
mod rack_tests;
pub mod receiver;
pub mod rtt;
pub mod sender;
#[cfg(test)]
mod tests;
pub mod tlp;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::units::Time;

/// The window algorithm of a TCP flow (`[tcp] cc`, the flow key `cc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpCc {
    /// NewReno: RFC 5681 slow start and congestion avoidance, RFC 6582 fast recovery.
    NewReno,
    /// CUBIC (RFC 9438), Linux's default and what iperf runs.
    Cubic,
    /// DCTCP (RFC 8257): ECN-capable, the window cut in proportion to the marked fraction.
    Dctcp,
}

impl TcpCc {
    /// The name as written in scenarios and results.
    pub fn name(self) -> &'static str {
        match self {
            TcpCc::NewReno => "newreno",
            TcpCc::Cubic => "cubic",
            TcpCc::Dctcp => "dctcp",
        }
    }
}

/// Receive window in segments: the receiver's out-of-order bitmap holds this many, and the
/// sender never has more in flight. 4096 × 1460 B ≈ 6 MB, Linux's largest `tcp_rmem`.
pub const RWND_SEGMENTS: u32 = 4096;

/// Initial window in segments (RFC 6928, Linux's default).
pub const INITIAL_WINDOW: f64 = 10.0;

/// Parameters of TCP (`[tcp]`), shared by every TCP flow of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// Maximum segment size: payload bytes per segment (default 1460, Ethernet MTU 1500
    /// less 20 bytes of IPv4 and 20 of TCP header).
    pub mss: u32,
    /// Lower bound of the retransmission timeout (RFC 6298 rule 2.4; Linux 200 ms, data
    /// centres 1–5 ms).
    pub rto_min: Time,
    /// Window algorithm of TCP flows that do not name one.
    pub cc: TcpCc,
    /// DCTCP's EWMA gain g of the marked fraction (RFC 8257: 1/16).
    pub dctcp_g: f64,
    /// RACK time-based loss detection (RFC 8985 §6; Linux `tcp_recovery = 1`, the default).
    pub rack: bool,
    /// Tail loss probes (RFC 8985 §7; Linux `tcp_early_retrans = 3`, the default); needs RACK.
    pub tlp: bool,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            mss: 1460,
            rto_min: Time::from_ms(200),
            cc: TcpCc::Cubic,
            dctcp_g: 1.0 / 16.0,
            rack: true,
            tlp: true,
        }
    }
}
