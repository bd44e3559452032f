//! Typed NIC parameters, as resolved from `[nic]` (SCENARIO.md) for one host.

use crate::units::{Bytes, Rate, Time};

/// Reliable-connection loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// Go-back-0: a NAK restarts the whole message from its first packet.
    Gb0,
    /// Go-back-N: a NAK restarts at the first missing PSN; the receiver drops out-of-order packets.
    Gbn,
    /// IRN (Mittal et al., SIGCOMM 2018): selective repeat with a receiver bitmap, SACK-carrying
    /// NACKs, BDP flow control and two retransmission timeouts (`nic/irn.rs`).
    Irn,
    /// SRNIC (Wang et al., NSDI 2023): IRN's recovery with the receiver's bitmap in host
    /// memory, touched only for out-of-order packets (`nic/irn.rs`, `nic/bitmap_host.rs`).
    Srnic,
}

impl TransportKind {
    /// Selective repeat (IRN or SRNIC) rather than go-back-N or go-back-0.
    #[inline]
    pub fn is_selective(self) -> bool {
        matches!(self, TransportKind::Irn | TransportKind::Srnic)
    }
}

/// Parameters of IRN's loss recovery (`[nic.irn]`; Mittal et al., SIGCOMM 2018 §3), used by
/// the `irn` and `srnic` transports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IrnParams {
    /// Retransmission timeout while fewer than `rto_low_threshold` packets are in flight
    /// (fast recovery of tail losses). IRN: 100 us.
    pub rto_low: Time,
    /// Retransmission timeout otherwise. IRN: 320 us.
    pub rto_high: Time,
    /// N: below this many packets in flight the QP uses `rto_low`. IRN: 3.
    pub rto_low_threshold: u32,
    /// BDP-FC: the bandwidth-delay product that caps a QP's packets in flight at
    /// ⌈bdp_cap / MTU⌉; `None` = the QP's own path (base RTT × its slowest link).
    pub bdp_cap: Option<Bytes>,
    /// SRNIC: latency of one access to a bitmap kept in host memory (a PCIe round trip).
    pub bitmap_latency: Time,
}

impl Default for IrnParams {
    fn default() -> Self {
        IrnParams {
            rto_low: Time::from_us(100),
            rto_high: Time::from_us(320),
            rto_low_threshold: 3,
            bdp_cap: None,
            bitmap_latency: Time::from_us(1),
        }
    }
}

/// Congestion-control algorithm at the reaction point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    /// Line rate; only PFC limits the sender.
    None,
    /// Liu et al. 2015 linear RCM scheme.
    Rcm,
    /// DCQCN (Zhu et al. 2015).
    Dcqcn,
    /// HPCC (Li et al. 2019).
    Hpcc,
    /// TIMELY (Mittal et al. 2015).
    Timely,
    /// Rate-based DCTCP.
    Dctcp,
}

/// The NIC receive pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RxParams {
    /// Processing rate; `None` = line rate (packets are consumed as they arrive).
    pub rate: Option<Rate>,
    /// RX buffer size; a data packet arriving to a full buffer is dropped (counted lossless).
    pub buffer: Bytes,
    /// Occupancy at which the NIC sends PFC XOFF to its switch.
    pub xoff: Bytes,
    /// Occupancy at which the NIC sends PFC XON (quanta 0).
    pub xon: Bytes,
}

/// Parameters of one host NIC.
#[derive(Clone, Debug, PartialEq)]
pub struct NicParams {
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Loss recovery.
    pub transport: TransportKind,
    /// Congestion control.
    pub cc: CcKind,
    /// DSCP of data packets (and their ACKs).
    pub dscp: u8,
    /// DSCP of CNPs.
    pub cnp_dscp: u8,
    /// DSCP of the ACKs and NAKs this NIC sends as a receiver; `None` = the data's DSCP (ACKs
    /// share the data class and its queue).
    pub ack_dscp: Option<u8>,
    /// The receiver ACKs every `ack_every` in-order packets (and always the last of a message).
    pub ack_every: u32,
    /// Retransmission timeout (the InfiniBand local ACK timeout, 4.096 us × 2^timeout). The
    /// default is timeout = 14, rdma_cm's default: 67.108864 ms. It must exceed the worst
    /// queueing delay of a PFC-backed path, or go-back-N retransmits what is merely queued.
    pub rto: Time,
    /// IP TTL of packets the NIC sends.
    pub ttl: u8,
    /// DSCP → TC map of the NIC (selects the PFC priority of its traffic).
    pub dscp_to_tc: [u8; 64],
    /// Bitmask of PFC-enabled priorities at the NIC.
    pub pfc_enable: u8,
    /// Quanta the NIC puts in its pause frames.
    pub pfc_quanta: u16,
    /// Delay from receiving a pause frame to honouring it; `None` = the 802.3 Annex 31B
    /// maximum for the link speed (conservative; real NICs are usually faster).
    pub pfc_response: Option<Time>,
    /// Receive pipeline.
    pub rx: RxParams,
    /// Notification point: at most one CNP per QP per this interval (mlx5
    /// `min_time_between_cnps`).
    pub min_time_between_cnps: Time,
    /// Parameters of every congestion-control algorithm (`cc` picks one).
    pub cc_params: crate::nic::cc::CcParams,
    /// Base RTT given to congestion control (HPCC's T, TIMELY's minimum RTT); `None` = the
    /// QP's own path, computed from the topology.
    pub base_rtt: Option<Time>,
    /// NIC PFC watchdog timeout (`pfc_prevention_tout`); `None` = off. Used by the failures issue.
    pub pfc_prevention_tout: Option<Time>,
    /// Bytes its header stack adds to each data frame on the wire (`nic.frame_overhead`).
    pub frame_overhead: crate::packet::FrameOverhead,
    /// IRN / SRNIC loss recovery (`[nic.irn]`).
    pub irn: IrnParams,
}

impl Default for NicParams {
    fn default() -> Self {
        let mut dscp_to_tc = [0u8; 64];
        dscp_to_tc[26] = 3;
        dscp_to_tc[48] = 6;
        NicParams {
            mtu: 1024,
            transport: TransportKind::Gbn,
            cc: CcKind::None,
            dscp: 26,
            cnp_dscp: 48,
            ack_dscp: None,
            ack_every: 1,
            rto: Time::from_ps(4_096_000 << 14),
            ttl: 64,
            dscp_to_tc,
            pfc_enable: 1 << 3,
            pfc_quanta: 65535,
            pfc_response: None,
            min_time_between_cnps: Time::from_us(50),
            cc_params: Default::default(),
            base_rtt: None,
            rx: RxParams {
                rate: None,
                buffer: Bytes(256_000),
                xoff: Bytes(128_000),
                xon: Bytes(96_000),
            },
            pfc_prevention_tout: Some(Time::from_ms(100)),
            frame_overhead: Default::default(),
            irn: IrnParams::default(),
        }
    }
}
