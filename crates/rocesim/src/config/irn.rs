//! `[nic.irn]`: IRN's loss recovery (Mittal et al., SIGCOMM 2018), the parameters of the
//! `irn` and `srnic` transports.

use super::check::Ctx;
use super::leaf::{Pos32, PosTime, SizeAuto, TimeV};
use super::overlay::Origins;
use crate::nic::bitmap::PsnBitmap;
use crate::nic::params::{IrnParams, NicParams};
use crate::table;
use crate::units::Bytes;

table! {
    /// `[nic.irn]`: loss recovery of `nic.transport = "irn"` and `"srnic"` (selective repeat,
    /// BDP-FC, two timeouts); `nic.rto` stays go-back-N's timer.
    pub struct Irn => IrnParams {
        /// Retransmission timeout while fewer than `rto_low_threshold` packets are in flight
        /// (tail losses). Default: `"100us"` (IRN).
        rto_low: PosTime => rto_low,
        /// Retransmission timeout otherwise; not below `rto_low`. Default: `"320us"` (IRN).
        rto_high: PosTime => rto_high,
        /// N: fewer packets than this in flight (sent, neither acknowledged nor selectively
        /// acknowledged) use `rto_low`. Default: `3` (IRN).
        rto_low_threshold: Pos32 => rto_low_threshold,
        /// BDP-FC: a QP keeps at most ⌈bdp_cap / MTU⌉ packets beyond its cumulative
        /// acknowledgement (at most 1024); `"auto"` = its path's base RTT × slowest link.
        /// Default: `"auto"`.
        bdp_cap: SizeAuto => bdp_cap,
        /// `srnic`: latency of a read of a QP's out-of-order bitmap in host memory (a PCIe
        /// round trip); the ACK after a hole is filled waits for it. Default: `"1us"`.
        bitmap_latency: TimeV => bitmap_latency,
    }
}

/// Cross-key rules of a resolved NIC: `rto_high` not below `rto_low`, and the BDP-FC window
/// `bdp_cap` allows must fit the QP's PSN bitmap.
pub fn validate(ctx: &mut Ctx, p: &NicParams, o: &Origins) {
    let irn = &p.irn;
    if irn.rto_high < irn.rto_low {
        let msg = format!(
            "rto_high ({}) is below rto_low ({})",
            irn.rto_high, irn.rto_low
        );
        ctx.err(o.key2("irn.rto_high", "irn.rto_low"), msg);
    }
    if let Some(Bytes(b)) = irn.bdp_cap {
        let pkts = b.div_ceil(p.mtu as u64);
        if pkts > PsnBitmap::SPAN as u64 {
            let msg = format!(
                "{b} bytes allow {pkts} packets of {} B in flight; at most {} fit a QP's bitmap",
                p.mtu,
                PsnBitmap::SPAN
            );
            ctx.err(o.key("irn.bdp_cap"), msg);
        }
    }
}
