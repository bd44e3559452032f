//! Congestion control at the reaction point (the sender NIC), one file per algorithm.
//!
//! Every algorithm implements [`CongestionControl`], whose methods default to doing nothing;
//! [`CcState`] dispatches by enum (no trait objects on the per-packet path). The world calls
//! the hooks and honours what the algorithm asks for:
//! - [`CongestionControl::rate`]: the QP's pacing rate (on-wire bits per second; `None` = line rate);
//! - [`CongestionControl::window`]: a cap on payload bytes in flight (`None` = no window);
//! - [`CongestionControl::next_timer`]: when the world must call [`CongestionControl::on_timer`]
//!   (one pending timer per QP; re-read after every hook call).

pub mod dcqcn;
pub mod dcqcn_alpha;
pub mod dctcp;
pub mod hpcc;
pub mod none;
pub mod params;
pub mod rcm;
pub mod timely;

pub use params::CcParams;

use crate::nic::params::CcKind;
use crate::units::{Rate, Time};

/// Most switch hops an INT record keeps (HPCC: 5 covers a 3-tier Clos up and down).
pub const MAX_INT_HOPS: usize = 5;

/// In-band network telemetry one egress port stamps on a packet (HPCC, Li et al. 2019 §3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// Egress queue depth when the packet left, bytes.
    pub qlen: u64,
    /// Bytes the port has transmitted so far (cumulative, wire bytes).
    pub tx_bytes: u64,
    /// When the packet left the port.
    pub ts: Time,
    /// The port's line rate.
    pub rate: Rate,
}

/// The telemetry a packet collected on its way, echoed back in its ACK. `repr(C)` and aligned
/// to 32 bytes, the hops first: each 32-byte hop a switch stamps lies in one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct IntRecord {
    /// The hops, in path order.
    pub hops: [IntHop; MAX_INT_HOPS],
    /// Hops recorded (at most [`MAX_INT_HOPS`]).
    pub nhop: u8,
}

/// What an ACK tells the reaction point.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    /// Arrival time of the ACK.
    pub now: Time,
    /// Payload bytes newly acknowledged by this ACK (0 for a duplicate).
    pub acked_bytes: u64,
    /// Every PSN below `ack_psn + 1` is acknowledged.
    pub ack_psn: u32,
    /// The next PSN the sender will transmit (snd_nxt), for once-per-RTT updates.
    pub snd_nxt: u32,
    /// The acknowledged data packet arrived CE-marked (ECN echo, as DCTCP uses).
    pub ecn_echo: bool,
    /// RTT sample: now minus the send time of the acknowledged packet (TIMELY).
    pub rtt: Option<Time>,
    /// Telemetry of the acknowledged packet's path (HPCC), if it carried INT.
    pub int: Option<&'a IntRecord>,
}

/// Facts about the QP's path that algorithms size themselves by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcContext {
    /// The NIC's line rate.
    pub line_rate: Rate,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Base RTT of the QP's path (propagation both ways plus one data frame and one ACK
    /// serialization per hop), or the configured one.
    pub base_rtt: Time,
    /// When the QP starts.
    pub start: Time,
    /// Bytes the NIC adds to each data frame on the wire.
    pub frame_overhead: u32,
}

/// The hooks a congestion-control algorithm may use. Defaults are no-ops: line rate, no window.
pub trait CongestionControl {
    /// A data packet of `wire` bytes left the NIC at `now`.
    fn on_send(&mut self, _now: Time, _wire: u32) {}
    /// An ACK arrived.
    fn on_ack(&mut self, _ack: &AckInfo<'_>) {}
    /// A CNP arrived.
    fn on_cnp(&mut self, _now: Time) {}
    /// The timer asked for by [`CongestionControl::next_timer`] fired.
    fn on_timer(&mut self, _now: Time) {}
    /// When `on_timer` must next run, if ever.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Current sending rate, if the algorithm paces (`None` = line rate).
    fn rate(&self) -> Option<Rate> {
        None
    }
    /// Current window in payload bytes in flight, if the algorithm has one.
    fn window(&self) -> Option<u64> {
        None
    }
}

/// Per-QP congestion-control state, one variant per algorithm. The algorithms' state is boxed
/// (allocated once when the QP is created) so that a flow stays a few cache lines long whatever
/// the algorithm; `None` needs no state at all.
#[derive(Clone, Debug)]
pub enum CcState {
    /// No congestion control.
    None(none::NoCc),
    /// Liu et al. 2015 linear RCM.
    Rcm(Box<rcm::Rcm>),
    /// DCQCN.
    Dcqcn(Box<dcqcn::Dcqcn>),
    /// HPCC.
    Hpcc(Box<hpcc::Hpcc>),
    /// TIMELY.
    Timely(Box<timely::Timely>),
    /// Rate-based DCTCP.
    Dctcp(Box<dctcp::Dctcp>),
    /// A TCP connection's sender (`nic/tcp/`): its window and loss recovery.
    Tcp(Box<crate::nic::tcp::TcpSender>),
}

macro_rules! dispatch {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            CcState::None($c) => $e,
            CcState::Rcm($c) => $e,
            CcState::Dcqcn($c) => $e,
            CcState::Hpcc($c) => $e,
            CcState::Timely($c) => $e,
            CcState::Dctcp($c) => $e,
            CcState::Tcp($c) => $e,
        }
    };
}

impl CcState {
    /// The state of algorithm `kind` for a new QP.
    pub fn new(kind: CcKind, p: &CcParams, ctx: &CcContext) -> CcState {
        match kind {
            CcKind::None => CcState::None(none::NoCc),
            CcKind::Rcm => CcState::Rcm(Box::new(rcm::Rcm::new(&p.rcm, ctx))),
            CcKind::Dcqcn => CcState::Dcqcn(Box::new(dcqcn::Dcqcn::new(&p.dcqcn, ctx))),
            CcKind::Hpcc => CcState::Hpcc(Box::new(hpcc::Hpcc::new(&p.hpcc, ctx))),
            CcKind::Timely => CcState::Timely(Box::new(timely::Timely::new(&p.timely, ctx))),
            CcKind::Dctcp => CcState::Dctcp(Box::new(dctcp::Dctcp::new(&p.dctcp, ctx))),
        }
    }
    /// See [`CongestionControl::on_send`].
    #[inline]
    pub fn on_send(&mut self, now: Time, wire: u32) {
        dispatch!(self, c => c.on_send(now, wire))
    }
    /// See [`CongestionControl::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, ack: &AckInfo<'_>) {
        dispatch!(self, c => c.on_ack(ack))
    }
    /// See [`CongestionControl::on_cnp`].
    pub fn on_cnp(&mut self, now: Time) {
        dispatch!(self, c => c.on_cnp(now))
    }
    /// See [`CongestionControl::on_timer`].
    pub fn on_timer(&mut self, now: Time) {
        dispatch!(self, c => c.on_timer(now))
    }
    /// See [`CongestionControl::next_timer`].
    #[inline]
    pub fn next_timer(&self) -> Option<Time> {
        dispatch!(self, c => c.next_timer())
    }
    /// See [`CongestionControl::rate`].
    #[inline]
    pub fn rate(&self) -> Option<Rate> {
        dispatch!(self, c => c.rate())
    }
    /// See [`CongestionControl::window`].
    #[inline]
    pub fn window(&self) -> Option<u64> {
        dispatch!(self, c => c.window())
    }
    /// Is this a TCP connection's sender?
    #[inline]
    pub fn is_tcp(&self) -> bool {
        matches!(self, CcState::Tcp(_))
    }
    /// Are its data packets ECN-capable (every RoCEv2 QP; TCP only with DCTCP)?
    #[inline]
    pub fn ect(&self) -> bool {
        match self {
            CcState::Tcp(t) => t.ecn_capable(),
            _ => true,
        }
    }
    /// Does the algorithm need INT stamped on its data packets?
    pub fn wants_int(&self) -> bool {
        matches!(self, CcState::Hpcc(_))
    }
}
