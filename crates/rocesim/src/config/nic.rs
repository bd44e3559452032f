//! `[nic]`: defaults for every host's NIC, and `[nic.host.<name>]` tables that change only
//! the keys they name for one host.

use std::collections::HashMap;

use toml::Value;

use super::cc::{Dcqcn, Dctcp, Hpcc, Rcm, Timely};
use super::check::Ctx;
use super::declare::V;
use super::irn::Irn;
use super::leaf::{
    choice, Dscp, FrameOverheadV, Int, Pos32, RateLine, Size, TcList, TimeAuto, TimeOff, TimeV,
};
use super::lists::DscpMap;
use super::nic_cache::{self, CacheV, ProfileV};
use super::overlay::{self, Layered, Named, Origins};
use crate::fabric::params::SwitchParams;
use crate::nic::params::{CcKind, NicParams, RxParams, TransportKind};
use crate::table;
use crate::topology::Topology;
use crate::units::Time;

choice!(/// Reliable transport.
    TransportV -> TransportKind { "gb0" => TransportKind::Gb0, "gbn" => TransportKind::Gbn,
        "irn" => TransportKind::Irn, "srnic" => TransportKind::Srnic });
choice!(/// Congestion control at the sender.
    CcV -> CcKind { "none" => CcKind::None, "rcm" => CcKind::Rcm, "dcqcn" => CcKind::Dcqcn,
        "hpcc" => CcKind::Hpcc, "timely" => CcKind::Timely, "dctcp" => CcKind::Dctcp });

table! {
    /// `[nic]`: defaults for every host's NIC; `[nic.host.<host>]` overrides any subset of
    /// the same keys for one host (inside `rx` and the algorithm tables, only the keys named).
    pub struct Nic => NicParams {
        /// Payload bytes per packet. Default: `1024`.
        mtu: Int<64, 9000> => mtu,
        /// Loss recovery: go-back-0 (restart the message on NAK), go-back-N, `"irn"`
        /// (selective repeat with BDP-FC, Mittal et al. 2018) or `"srnic"` (IRN's recovery
        /// with the receiver bitmap in host memory, Wang et al. 2023); see `[nic.irn]`.
        /// Default: `"gbn"`.
        transport: TransportV => transport,
        /// Congestion control at the sender (reaction point); each algorithm's parameters are
        /// in its own table. Default: `"none"`.
        cc: CcV => cc,
        /// DSCP of data packets and their ACKs; the default DSCP of flows from this host.
        /// Default: `26`.
        dscp: Dscp => dscp,
        /// DSCP of CNPs. Default: `48`.
        cnp_dscp: Dscp => cnp_dscp,
        /// DSCP of the ACKs and NAKs the NIC sends as a receiver; a strict-priority class keeps
        /// them out of the data queue (ns-3 sends ACKs in a strict high-priority queue).
        /// Default: the data's DSCP.
        ack_dscp: Dscp => ack_dscp,
        /// The receiver ACKs every N in-order packets (and the last of a message).
        /// Default: `1`.
        ack_every: Pos32 => ack_every,
        /// Retransmission timeout: the IB local ACK timeout 4.096 us × 2^14 (perftest's
        /// default; rdma_cm's for RoCE is 2^19, 2.1 s, and ConnectX-5+ shorten the first
        /// timeouts by adaptive retransmission); keep it above the worst queueing delay of a
        /// PFC-backed path.
        /// Default: `"67.108864ms"`.
        rto: TimeV => rto,
        /// IP TTL of packets sent. Default: `64`.
        ttl: Int<1, 255> => ttl,
        /// Bytes the NIC's header stack adds to each data frame on the wire: `"rocev2"` (82:
        /// preamble 8, IFG 12, Ethernet 14, FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4) or a count
        /// (ns-3 counts 48, htsim 64). Its ACKs are this plus AETH 4, its CNPs plus 16; PFC
        /// frames and the RETH of a WRITE's first packet do not change. `frame_gap` of the
        /// bytes are preamble and gap: on the wire, never in a buffer. Default: `"rocev2"`.
        frame_overhead: FrameOverheadV => frame_overhead,
        /// Bytes of `frame_overhead` a frame occupies on the wire but not in a switch or NIC
        /// buffer: preamble + SFD 8 and inter-frame gap 12 (IEEE 802.3). ns-3's HPCC code
        /// counts neither, so all of its 48 B are buffered: set `0` (with `frame_overhead =
        /// 48`) to buffer what ns-3 buffers. Applies to the NIC's RoCE data, ACK, NAK and CNP
        /// frames; TCP frames and PFC frames keep 20. Default: `20`.
        frame_gap: Int<0, 20> => frame_gap,
        /// PFC priority of the NIC's traffic. Default: `[switch]`'s.
        dscp_to_tc: DscpMap => dscp_to_tc,
        /// PFC-enabled priorities at the NIC. Default: `[switch]`'s.
        pfc_enable: TcList => pfc_enable,
        /// Quanta in the NIC's pause frames. Default: `65535`.
        pfc_quanta: Int<1, 65535> => pfc_quanta,
        /// Delay from receiving a pause frame to honouring it; `"auto"` = the 802.3 Annex 31B
        /// maximum for the link speed (e.g. 394 quanta = 2.02 us at 100G). Default: `"auto"`.
        pfc_response: TimeAuto => pfc_response,
        /// Receive pipeline. Default: see `rx` keys.
        rx: Rx => rx,
        /// NIC PFC watchdog: stop sending pauses for good after the RX pipeline was stalled
        /// this long. Default: `"100ms"`.
        pfc_prevention_tout: TimeOff => pfc_prevention_tout,
        /// Notification point: at most one CNP per QP per window of this length (mlx5 name);
        /// a `[nic.dcqcn]` profile sets it too. Default: `"50us"`.
        min_time_between_cnps: TimeV,
        /// Base RTT given to congestion control (HPCC's T, TIMELY's minimum RTT): auto = each
        /// QP's own path. Default: `"auto"`.
        base_rtt: TimeAuto => base_rtt,
        /// DCQCN parameters. Default: see `[nic.dcqcn]`.
        dcqcn: Dcqcn,
        /// RCM parameters. Default: see `[nic.rcm]`.
        rcm: Rcm => cc_params.rcm,
        /// HPCC parameters. Default: see `[nic.hpcc]`.
        hpcc: Hpcc => cc_params.hpcc,
        /// TIMELY parameters. Default: see `[nic.timely]`.
        timely: Timely => cc_params.timely,
        /// DCTCP parameters. Default: see `[nic.dctcp]`.
        dctcp: Dctcp => cc_params.dctcp,
        /// A coherent set of NIC resources: `"ideal"` (no caches, line-rate pipeline),
        /// `"commodity"` (caches estimated for a ConnectX-5 class NIC, go-back-N) or
        /// `"srnic"` (SRNIC's on-chip budget, Wang et al. 2023: 10,000 QPC and 150,000 MTT
        /// entries, no WQE cache, a 600 KB RX buffer, `transport = "srnic"`). Explicit keys
        /// override it.
        /// Default: `"ideal"`.
        profile: ProfileV,
        /// On-chip caches: `"off"` (the ideal NIC) or a table of caches. Default: the
        /// profile's (`"off"` for `"ideal"`).
        cache: CacheV,
        /// IRN / SRNIC loss recovery. Default: see `[nic.irn]`.
        irn: Irn => irn,
        /// `[nic.host.<host>]`: per-host tables of the same keys (not inside another one).
        /// Default: none.
        host: Named<Nic>,
    }
}

table! {
    /// `rx`: the NIC's receive pipeline. The NIC pauses its switch when the RX buffer reaches
    /// `xoff` and resumes at `xon`; a packet arriving to a full buffer is dropped.
    pub struct Rx => RxParams {
        /// Drain rate; `"line"`: packets are consumed as they arrive. Default: `"line"`.
        rate: RateLine => rate,
        /// Fixed processing time per packet (the pipeline's stages overlap: a packet takes
        /// the largest of this, its bytes at `rate` and its payload at `pcie_rate`, plus its
        /// cache-miss stalls). Default: `"0us"`.
        per_packet: TimeV => per_packet,
        /// PCIe DMA rate of received payload into host memory; `"line"`: not a bottleneck.
        /// Default: `"line"`.
        pcie_rate: RateLine => pcie_rate,
        /// Delay of a data packet's payload DMA into host memory (a posted PCIe write) before
        /// the NIC acts on the packet (delivers, acknowledges); control packets carry no
        /// payload and are not delayed. Default: `"0us"`.
        pcie_latency: TimeV => pcie_latency,
        /// RX buffer. Default: `"256KB"`.
        buffer: Size => buffer,
        /// Pause threshold; not above `buffer`. Default: `"128KB"`.
        xoff: Size => xoff,
        /// Resume threshold; not above `xoff`. Default: `"96KB"`.
        xon: Size => xon,
    }
}

impl Layered for Nic {
    type Params = NicParams;
    type Env = ();
    const SECTION: &'static str = "nic";
    fn named(&self) -> Vec<&V<Named<Nic>>> {
        vec![&self.host]
    }
    fn onto(&self, ctx: &mut Ctx, p: &mut NicParams) {
        // First the profile: every explicit key overrides what it sets.
        if let Some(x) = ctx.get(&self.profile) {
            nic_cache::apply_profile(p, x);
        }
        self.apply(ctx, p);
        nic_cache::apply_cache(ctx, &self.cache, p);
        if let Some(d) = ctx.get(&self.dcqcn) {
            let q = &mut p.cc_params.dcqcn;
            if let Some(profile) = ctx.get(&d.profile) {
                *q = profile;
            }
            d.apply(ctx, q);
            // The notification point paces CNPs by the profile's interval.
            p.min_time_between_cnps = q.min_time_between_cnps;
        }
        // After `dcqcn`, whose profile sets the CNP interval too: an explicit key wins.
        if let Some(x) = ctx.get(&self.min_time_between_cnps) {
            p.min_time_between_cnps = x;
        }
    }
    fn validate(ctx: &mut Ctx, p: &NicParams, o: &Origins, (): &()) {
        super::irn::validate(ctx, p, o);
        let rx = &p.rx;
        if rx.xon > rx.xoff {
            let (x, y) = (rx.xon.written(), rx.xoff.written());
            let msg = format!("XON ({x}) is above XOFF ({y})");
            ctx.err(o.key2("rx.xon", "rx.xoff"), msg);
        }
        if rx.xoff > rx.buffer {
            let (x, b) = (rx.xoff.written(), rx.buffer.written());
            let msg = format!("XOFF ({x}) is above the RX buffer ({b})");
            ctx.err(o.key2("rx.xoff", "rx.buffer"), msg);
        }
        let (rcm, timely) = (&p.cc_params.rcm, &p.cc_params.timely);
        if rcm.recovery_time == Some(Time::ZERO) {
            let msg = "must be positive (or \"off\")";
            ctx.err(o.key("rcm.recovery_time"), msg);
        } else if rcm.recovery_time.is_none() && rcm.recovery_bytes.is_none() {
            let msg = "recovery_time and recovery_bytes are both off: the rate would never recover";
            ctx.err(o.key("rcm"), msg);
        }
        if timely.t_low >= timely.t_high {
            let (lo, hi) = (timely.t_low, timely.t_high);
            let msg = format!("t_low ({lo}) must be below t_high ({hi})");
            ctx.err(o.key2("timely.t_high", "timely.t_low"), msg);
        }
    }
}

/// The resolved `[nic]` section.
#[derive(Debug)]
pub struct Nics {
    /// One per host, when the topology is known and there were no errors.
    pub per_host: Option<Vec<NicParams>>,
    /// The largest data frame any NIC configuration sends (bytes without RETH) and its MTU.
    pub max_frame: (u64, u32),
}

/// A NIC's largest data frame (without RETH) and its MTU.
fn frame_of(p: &NicParams) -> (u64, u32) {
    (u64::from(p.frame_overhead.data(p.mtu, false)), p.mtu)
}

/// Check `[nic]` (written as `raw`) and resolve one [`NicParams`] per host of `topo`. The
/// NIC's `dscp_to_tc` and `pfc_enable` default to those of `[switch]` (`sw`).
pub fn resolve(
    ctx: &mut Ctx,
    t: &Nic,
    raw: Option<&Value>,
    sw: &SwitchParams,
    topo: Option<&Topology>,
) -> Nics {
    let before = ctx.count();
    let defaults = NicParams {
        dscp_to_tc: sw.dscp_to_tc,
        pfc_enable: sw.pfc_enable,
        ..NicParams::default()
    };
    let base = overlay::base(ctx, t, raw, defaults);
    Nic::validate(ctx, &base.0, &base.1, &());
    let mut max_frame = frame_of(&base.0);
    let mut layered: HashMap<String, NicParams> = HashMap::new();
    for (name, key, h) in ctx.get(&t.host).unwrap_or_default() {
        let Some((p, _)) = overlay::layer::<Nic>(ctx, &base, &key, &h, &()) else {
            continue;
        };
        max_frame = max_frame.max(frame_of(&p));
        if let Some(topo) = topo {
            overlay::check_node(ctx, topo, &name, &key, false);
        }
        layered.insert(name, p);
    }
    let per_host = topo.and_then(|topo| {
        let v: Vec<NicParams> = topo
            .hosts
            .iter()
            .map(|h| layered.get(&h.name).unwrap_or(&base.0).clone())
            .collect();
        (ctx.count() == before).then_some(v)
    });
    Nics {
        per_host,
        max_frame,
    }
}
