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
    /// Fixed processing time of every packet (header parsing, QP lookup). The pipeline's
    /// stages overlap: a packet occupies it for the largest of this, its wire bytes at
    /// `rate` and its payload at the PCIe rate, plus any cache-miss stall.
    pub per_packet: Time,
    /// PCIe DMA rate of received payload into host memory; `None` = not a bottleneck.
    pub pcie_rate: Option<Rate>,
    /// Delay from the pipeline finishing a data packet to its payload being in host memory (a
    /// posted PCIe write): the responder acts on the packet then.
    pub pcie_latency: Time,
}

/// A coherent set of NIC resources (`nic.profile`); explicit keys override it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NicProfile {
    /// Unlimited on-chip memory, line-rate pipeline: caches off.
    #[default]
    Ideal,
    /// A ConnectX-5 class NIC: estimated cache sizes (`docs/nic.md`), go-back-N.
    Commodity,
    /// SRNIC (Wang et al. 2023): its 10K-QP QPC and 1.2 MB MTT on chip, no WQE cache,
    /// a 0.6 MB RX buffer.
    Srnic,
}

/// The NIC's on-chip caches (`nic.cache`). A cache that is `None` never misses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheParams {
    /// QP contexts, one entry per QP; looked up by the sender for every data packet.
    pub qpc_entries: Option<u32>,
    /// Memory translation (MTT), one entry per page of registered memory; looked up by the
    /// receiver of data for every page a packet's payload touches.
    pub mtt_entries: Option<u32>,
    /// Work-queue elements, one per QP's current message; looked up by the sender.
    pub wqe_entries: Option<u32>,
    /// Page size of registered memory (a power of two), bytes.
    pub page_size: u64,
    /// Cost of one miss: a PCIe round trip to host memory that stalls the pipeline needing
    /// the entry.
    pub miss_latency: Time,
}

impl CacheParams {
    /// Caches sized like a ConnectX-5 class NIC (estimates; vendors do not publish them):
    /// MTT 2048 entries (Guo et al. 2016 §4.4), QPC 1024, WQE 4096 entries, 4 KiB pages.
    pub const COMMODITY: CacheParams = CacheParams {
        qpc_entries: Some(1024),
        mtt_entries: Some(2048),
        wqe_entries: Some(4096),
        page_size: 4096,
        miss_latency: Time::from_us(1),
    };
    /// SRNIC's on-chip budget (Wang et al. 2023): 2.3 MB of QPC for 10K QPs (230 B each:
    /// 10,000 entries); 1.2 MB of MTT in 8-byte entries (150,000); no WQE cache (its QP
    /// scheduler is cache-free); 4 KiB pages.
    pub const SRNIC: CacheParams = CacheParams {
        qpc_entries: Some(10_000),
        mtt_entries: Some(150_000),
        wqe_entries: None,
        page_size: 4096,
        miss_latency: Time::from_us(1),
    };
    /// Every cache absent (a table that names only some caches starts from this).
    pub const NONE: CacheParams = CacheParams {
        qpc_entries: None,
        mtt_entries: None,
        wqe_entries: None,
        page_size: 4096,
        miss_latency: Time::from_us(1),
    };
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
    /// default is timeout = 14, 67.108864 ms: perftest's `DEF_QP_TIME` (ib_write_bw and
    /// friends). It is not rdma_cm's: Linux rdma_cm gives RoCE QPs packet lifetime
    /// `CMA_IBOE_PACKET_LIFETIME` (18, 16 in newer kernels) + 1, i.e. 2.1 s (537 ms), and
    /// ConnectX-5 and later retransmit sooner by firmware adaptive retransmission (on by
    /// default; its profile is not published), so no single value is "ConnectX's". It must
    /// exceed the worst queueing delay of a PFC-backed path, or go-back-N retransmits what is
    /// merely queued.
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
    /// Bytes of `frame_overhead` on the wire only, never buffered (`nic.frame_gap`): preamble,
    /// SFD and inter-frame gap.
    pub frame_gap: u8,
    /// The resource profile it was built from.
    pub profile: NicProfile,
    /// On-chip caches; `None` = off (ideal NIC).
    pub cache: Option<CacheParams>,
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
                per_packet: Time::ZERO,
                pcie_rate: None,
                pcie_latency: Time::ZERO,
            },
            pfc_prevention_tout: Some(Time::from_ms(100)),
            frame_overhead: Default::default(),
            frame_gap: crate::packet::WIRE_GAP as u8,
            profile: NicProfile::Ideal,
            cache: None,
            irn: IrnParams::default(),
        }
    }
}
