//! `[nic]`: defaults for every host's NIC, and `[nic.host.<name>]` tables that change only
//! the keys they name for one host.

use std::collections::HashMap;

use super::cc::{self, Dcqcn, Dctcp, Hpcc, Rcm, Timely};
use super::check::Ctx;
use super::declare::Leaf;
use super::irn::Irn;
use super::leaf::{
    choice, AnyTable, Dscp, FrameOverheadV, Int, Pos32, RateLine, Size, TcList, TimeAuto, TimeOff,
    TimeV,
};
use super::lists::DscpMap;
use super::overlay::{Layered, Named, Origins};
use super::suggest;
use crate::fabric::params::SwitchParams;
use crate::nic::params::{CcKind, NicParams, TransportKind};
use crate::table;
use crate::topology::Topology;

choice!(/// Reliable transport.
    TransportV -> TransportKind { "gb0" => TransportKind::Gb0, "gbn" => TransportKind::Gbn,
        "irn" => TransportKind::Irn, "srnic" => TransportKind::Srnic });
choice!(/// Congestion control at the sender.
    CcV -> CcKind { "none" => CcKind::None, "rcm" => CcKind::Rcm, "dcqcn" => CcKind::Dcqcn,
        "hpcc" => CcKind::Hpcc, "timely" => CcKind::Timely, "dctcp" => CcKind::Dctcp });

table! {
    /// `[nic]`: defaults for every host's NIC; `[nic.host.<host>]` overrides any subset of
    /// the same keys for one host (inside `rx` and the algorithm tables, only the keys named).
    pub struct Nic {
        /// Payload bytes per packet. Default: `1024`.
        mtu: Int<64, 9000>,
        /// Loss recovery: go-back-0 (restart the message on NAK), go-back-N, `"irn"`
        /// (selective repeat with BDP-FC, Mittal et al. 2018) or `"srnic"` (IRN's recovery
        /// with the receiver bitmap in host memory, Wang et al. 2023); see `[nic.irn]`.
        /// Default: `"gbn"`.
        transport: TransportV,
        /// Congestion control at the sender (reaction point); each algorithm's parameters are
        /// in its own table. Default: `"none"`.
        cc: CcV,
        /// DSCP of data packets and their ACKs; the default DSCP of flows from this host.
        /// Default: `26`.
        dscp: Dscp,
        /// DSCP of CNPs. Default: `48`.
        cnp_dscp: Dscp,
        /// DSCP of the ACKs and NAKs the NIC sends as a receiver; a strict-priority class keeps
        /// them out of the data queue (ns-3 sends ACKs in a strict high-priority queue).
        /// Default: the data's DSCP.
        ack_dscp: Dscp,
        /// The receiver ACKs every N in-order packets (and the last of a message).
        /// Default: `1`.
        ack_every: Pos32,
        /// Retransmission timeout: the IB local ACK timeout 4.096 us × 2^14 (rdma_cm
        /// default); keep it above the worst queueing delay of a PFC-backed path.
        /// Default: `"67.108864ms"`.
        rto: TimeV,
        /// IP TTL of packets sent. Default: `64`.
        ttl: Int<1, 255>,
        /// Bytes the NIC's header stack adds to each data frame on the wire: `"rocev2"` (82:
        /// preamble 8, IFG 12, Ethernet 14, FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4) or a count
        /// (ns-3 counts 48, htsim 64). Its ACKs are this plus AETH 4, its CNPs plus 16; PFC
        /// frames and the RETH of a WRITE's first packet do not change. 20 of the bytes are
        /// taken as preamble and gap: on the wire, never in a buffer. Default: `"rocev2"`.
        frame_overhead: FrameOverheadV,
        /// PFC priority of the NIC's traffic. Default: `[switch]`'s.
        dscp_to_tc: DscpMap,
        /// PFC-enabled priorities at the NIC. Default: `[switch]`'s.
        pfc_enable: TcList,
        /// Quanta in the NIC's pause frames. Default: `65535`.
        pfc_quanta: Int<1, 65535>,
        /// Delay from receiving a pause frame to honouring it; `"auto"` = the 802.3 Annex 31B
        /// maximum for the link speed (e.g. 394 quanta = 2.02 us at 100G). Default: `"auto"`.
        pfc_response: TimeAuto,
        /// Receive pipeline. Default: see `rx` keys.
        rx: Rx,
        /// NIC PFC watchdog: stop sending pauses for good after the RX pipeline was stalled
        /// this long. Default: `"100ms"`.
        pfc_prevention_tout: TimeOff,
        /// Notification point: at most one CNP per QP per window of this length (mlx5 name);
        /// a `[nic.dcqcn]` profile sets it too. Default: `"50us"`.
        min_time_between_cnps: TimeV,
        /// Base RTT given to congestion control (HPCC's T, TIMELY's minimum RTT): auto = each
        /// QP's own path. Default: `"auto"`.
        base_rtt: TimeAuto,
        /// DCQCN parameters. Default: see `[nic.dcqcn]`.
        dcqcn: Dcqcn,
        /// RCM parameters. Default: see `[nic.rcm]`.
        rcm: Rcm,
        /// HPCC parameters. Default: see `[nic.hpcc]`.
        hpcc: Hpcc,
        /// TIMELY parameters. Default: see `[nic.timely]`.
        timely: Timely,
        /// DCTCP parameters. Default: see `[nic.dctcp]`.
        dctcp: Dctcp,
        /// IRN / SRNIC loss recovery. Default: see `[nic.irn]`.
        irn: Irn,
        /// Accepted (must be a table) and ignored until the NIC cache model exists.
        /// Default: none.
        cache: AnyTable,
        /// `[nic.host.<host>]`: per-host tables of the same keys (not inside another one).
        /// Default: none.
        host: Named<Nic>,
    }
}

table! {
    /// `rx`: the NIC's receive pipeline. The NIC pauses its switch when the RX buffer reaches
    /// `xoff` and resumes at `xon`; a packet arriving to a full buffer is dropped.
    pub struct Rx {
        /// Drain rate; `"line"`: packets are consumed as they arrive. Default: `"line"`.
        rate: RateLine,
        /// RX buffer. Default: `"256KB"`.
        buffer: Size,
        /// Pause threshold; not above `buffer`. Default: `"128KB"`.
        xoff: Size,
        /// Resume threshold; not above `xoff`. Default: `"96KB"`.
        xon: Size,
    }
}

fn apply_rx(ctx: &mut Ctx, t: &Nic, p: &mut NicParams, o: &mut Origins) {
    let Some(rx) = ctx.get(&t.rx) else { return };
    let r = &mut p.rx;
    ctx.set(&rx.rate, |x| r.rate = x);
    ctx.set(&rx.buffer, |x| r.buffer = x);
    ctx.set(&rx.xoff, |x| r.xoff = x);
    ctx.set(&rx.xon, |x| r.xon = x);
    o.given(&[&rx.buffer, &rx.xoff, &rx.xon]);
}

fn apply_cc(ctx: &mut Ctx, t: &Nic, p: &mut NicParams) {
    let c = &mut p.cc_params;
    if let Some(d) = ctx.get(&t.dcqcn) {
        if let Some(x) = cc::dcqcn(ctx, &d, &c.dcqcn) {
            // The notification point paces CNPs by the profile's interval.
            p.min_time_between_cnps = x.min_time_between_cnps;
            c.dcqcn = x;
        }
    }
    if let Some(x) = ctx
        .get(&t.rcm)
        .and_then(|r| cc::rcm(ctx, &r, &t.rcm.key, &c.rcm))
    {
        c.rcm = x;
    }
    if let Some(x) = ctx.get(&t.hpcc).and_then(|h| cc::hpcc(ctx, &h, &c.hpcc)) {
        c.hpcc = x;
    }
    if let Some(x) = ctx
        .get(&t.timely)
        .and_then(|h| cc::timely(ctx, &h, &c.timely))
    {
        c.timely = x;
    }
    if let Some(x) = ctx.get(&t.dctcp).and_then(|h| cc::dctcp(ctx, &h, &c.dctcp)) {
        c.dctcp = x;
    }
}

/// Apply one `[nic]`-shaped table onto `p` (recording in `o` which table set the RX keys).
pub fn apply(ctx: &mut Ctx, t: &Nic, p: &mut NicParams, o: &mut Origins) {
    ctx.set(&t.mtu, |x| p.mtu = x as u32);
    ctx.set(&t.transport, |x| p.transport = x);
    ctx.set(&t.cc, |x| p.cc = x);
    ctx.set(&t.dscp, |x| p.dscp = x);
    ctx.set(&t.cnp_dscp, |x| p.cnp_dscp = x);
    ctx.set(&t.ack_dscp, |x| p.ack_dscp = Some(x));
    ctx.set(&t.ack_every, |x| p.ack_every = x as u32);
    ctx.set(&t.rto, |x| p.rto = x);
    ctx.set(&t.ttl, |x| p.ttl = x as u8);
    ctx.set(&t.frame_overhead, |x| p.frame_overhead = x);
    ctx.set(&t.dscp_to_tc, |x| p.dscp_to_tc = x);
    ctx.set(&t.pfc_enable, |x| p.pfc_enable = x);
    ctx.set(&t.pfc_quanta, |x| p.pfc_quanta = x as u16);
    ctx.set(&t.pfc_response, |x| p.pfc_response = x);
    ctx.set(&t.pfc_prevention_tout, |x| p.pfc_prevention_tout = x);
    ctx.set(&t.base_rtt, |x| p.base_rtt = x);
    ctx.set(&t.cache, |()| ());
    apply_rx(ctx, t, p, o);
    if let Some(irn) = ctx.get(&t.irn) {
        super::irn::apply(ctx, &irn, &mut p.irn, o);
    }
    // After `dcqcn`, whose profile sets the CNP interval too: an explicit key wins.
    apply_cc(ctx, t, p);
    ctx.set(&t.min_time_between_cnps, |x| p.min_time_between_cnps = x);
}

/// Cross-key rules of one resolved NIC.
fn validate(ctx: &mut Ctx, p: &NicParams, o: &Origins) {
    super::irn::validate(ctx, p, o);
    let rx = &p.rx;
    if rx.xon > rx.xoff {
        let msg = format!(
            "XON ({}) is above XOFF ({})",
            rx.xon.written(),
            rx.xoff.written()
        );
        ctx.err(o.key2("rx.xon", "rx.xoff"), msg);
    }
    if rx.xoff > rx.buffer {
        let (x, b) = (rx.xoff.written(), rx.buffer.written());
        let msg = format!("XOFF ({x}) is above the RX buffer ({b})");
        ctx.err(o.key2("rx.xoff", "rx.buffer"), msg);
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

fn unknown_host(ctx: &mut Ctx, topo: &Topology, name: &str, key: &str) {
    if topo.hosts.iter().any(|h| h.name == name) {
        return;
    }
    let msg = if topo.switches.iter().any(|s| s.name == name) {
        format!("`{name}` is a switch, not a host (use [switch.name.{name}])")
    } else {
        let hint = suggest::hint(name, topo.hosts.iter().map(|h| h.name.as_str()));
        format!("unknown host `{name}`{hint}")
    };
    ctx.err(key, msg);
}

/// Check `[nic]` and resolve one [`NicParams`] per host of `topo`. The NIC's `dscp_to_tc` and
/// `pfc_enable` default to those of `[switch]` (`sw`).
pub fn resolve(ctx: &mut Ctx, t: &Nic, sw: &SwitchParams, topo: Option<&Topology>) -> Nics {
    let before = ctx.count();
    let mut base = NicParams {
        dscp_to_tc: sw.dscp_to_tc,
        pfc_enable: sw.pfc_enable,
        ..NicParams::default()
    };
    let mut origins = Origins::new("nic");
    apply(ctx, t, &mut base, &mut origins);
    validate(ctx, &base, &origins);
    let mut max_frame = frame_of(&base);
    let mut layered: HashMap<String, NicParams> = HashMap::new();
    for (name, key, h) in ctx.get(&t.host).unwrap_or_default() {
        let Some(h) = <Nic as Leaf>::read(ctx, &h, &key) else {
            continue;
        };
        if h.host.given() {
            ctx.unknown_key(&h.host.key);
        }
        let (mut p, mut o) = (base.clone(), origins.with(&key));
        apply(ctx, &h, &mut p, &mut o);
        validate(ctx, &p, &o);
        max_frame = max_frame.max(frame_of(&p));
        if let Some(topo) = topo {
            unknown_host(ctx, topo, &name, &key);
        }
        layered.insert(name, p);
    }
    let per_host = topo.and_then(|topo| {
        let v: Vec<NicParams> = topo
            .hosts
            .iter()
            .map(|h| layered.get(&h.name).unwrap_or(&base).clone())
            .collect();
        (ctx.count() == before).then_some(v)
    });
    Nics {
        per_host,
        max_frame,
    }
}

impl Layered for Nic {
    const SCHEMA: &'static str = "#/properties/nic";
}
