//! `[tcp]`: parameters of the TCP flows (`kind = "tcp"`), shared by every host.

use super::check::Ctx;
use super::leaf::{choice, Bool, Gain, Int, PosTime};
use crate::nic::tcp::{TcpCc, TcpParams};
use crate::table;

choice!(/// A TCP window algorithm.
    TcpCcV -> TcpCc { "newreno" => TcpCc::NewReno, "cubic" => TcpCc::Cubic,
        "dctcp" => TcpCc::Dctcp });

table! {
    /// `[tcp]`: TCP for the lossy traffic classes. A TCP flow sends segments of `mss` bytes
    /// in frames of 78 bytes more (preamble 8, IFG 12, Ethernet 14, FCS 4, IPv4 20, TCP 20),
    /// ACKs every segment at once (no delayed ACKs), starts with 10 segments of window and
    /// recovers from loss by fast retransmit (three duplicate ACKs) or by its
    /// retransmission timer.
    pub struct Tcp {
        /// Maximum segment size (payload bytes). Default: `1460`.
        mss: Int<64, 9000>,
        /// Lowest retransmission timeout (RFC 6298); Linux uses 200 ms, data centres often
        /// 1–5 ms. Default: `"200ms"`.
        rto_min: PosTime,
        /// Window algorithm of TCP flows that name none: `newreno` (RFC 5681/6582), `cubic`
        /// (RFC 9438) or `dctcp` (RFC 8257; ECN-capable). Default: `"cubic"`.
        cc: TcpCcV,
        /// DCTCP's gain g of the marked-fraction estimate. Default: `0.0625`.
        dctcp_g: Gain,
        /// RACK time-based loss detection (RFC 8985 §6), on by default in Linux
        /// (`net.ipv4.tcp_recovery`): lost segments, retransmissions included, are found one
        /// RTT after a later segment is delivered instead of at the RTO. Default: `true`.
        rack: Bool,
        /// Tail loss probes (RFC 8985 §7), on by default in Linux
        /// (`net.ipv4.tcp_early_retrans`): after 2 × SRTT without an ACK the highest
        /// segment is resent so that RACK can find the losses before it. Needs `rack`.
        /// Default: `true`.
        tlp: Bool,
    }
}

/// Check `[tcp]` and resolve its parameters.
pub fn resolve(ctx: &mut Ctx, t: &Tcp) -> TcpParams {
    let mut p = TcpParams::default();
    if let Some(x) = ctx.get(&t.mss) {
        p.mss = x as u32;
    }
    if let Some(x) = ctx.get(&t.rto_min) {
        p.rto_min = x;
    }
    if let Some(x) = ctx.get(&t.cc) {
        p.cc = x;
    }
    if let Some(x) = ctx.get(&t.dctcp_g) {
        p.dctcp_g = x;
    }
    if let Some(x) = ctx.get(&t.rack) {
        p.rack = x;
    }
    if let Some(x) = ctx.get(&t.tlp) {
        p.tlp = x;
    }
    if p.tlp && !p.rack && t.tlp.given() {
        ctx.err(
            &t.tlp.key,
            "tail loss probes need RACK (tcp.rack = true) to find the losses they reveal",
        );
    }
    p
}
