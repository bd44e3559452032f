//! Typed switch parameters, as resolved from `[switch]` (SCENARIO.md) for one switch.

use crate::units::{Bytes, Rate, Time};

/// How the shared buffer limits a priority group or queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferMode {
    /// Dynamic threshold: a PG/queue may grow while its shared occupancy is below
    /// α × (free shared buffer), α = 2^dynamic_th (Choudhury & Hahne; SONiC `dynamic_th`).
    Dynamic,
    /// Static thresholds: fixed byte counts.
    Static,
}

/// Headroom per lossless ingress priority group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Headroom {
    /// Computed per port from its link: 2 × (propagation delay × rate) + 2 × MTU frame +
    /// the 802.3 Annex 31B.3.7 peer response time, + one PFC frame.
    Auto,
    /// An explicit number of bytes.
    Fixed(Bytes),
    /// A multiple of the automatic value (e.g. 0.5 to provoke lossless drops).
    AutoScaled(f64),
}

/// Lossless (PFC-enabled) priority-group thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LosslessParams {
    /// log2 α of the dynamic XOFF threshold (SONiC `dynamic_th`); used in dynamic mode.
    pub dynamic_th: i8,
    /// Static mode: XOFF threshold on the PG's occupancy (reserved + shared).
    pub xoff: Bytes,
    /// Static mode: XON threshold on the PG's occupancy.
    pub xon: Bytes,
    /// Dynamic mode: XON is sent when the shared occupancy has fallen this far below the
    /// XOFF threshold (SONiC `xon_offset`).
    pub xon_offset: Bytes,
    /// Headroom absorbing bytes in flight after XOFF.
    pub headroom: Headroom,
    /// Guaranteed bytes per ingress PG before the shared pool is used.
    pub reserved: Bytes,
}

/// Lossy queue limits: above the limit packets are dropped (tail drop).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossyParams {
    /// log2 α of the dynamic egress queue limit.
    pub dynamic_th: i8,
    /// Static mode: egress queue limit.
    pub limit: Bytes,
    /// Guaranteed bytes per egress queue.
    pub reserved: Bytes,
}

/// Egress scheduling discipline of one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueSched {
    /// Strict priority: served before any DWRR queue; among strict queues the higher index wins.
    Strict,
    /// Deficit weighted round robin with this weight (quantum = weight × 1024 bytes... see scheduler).
    Dwrr(u32),
}

/// Where ECN marking is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkOn {
    /// When the packet joins the egress queue.
    Enqueue,
    /// When the packet leaves the egress queue.
    Dequeue,
}

/// RED/WRED ECN marking on egress queue depth (used by the congestion-control issue).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnParams {
    /// Bitmask of queues that mark.
    pub queues: u8,
    /// Below Kmin nothing is marked.
    pub kmin: Bytes,
    /// At or above Kmax everything ECN-capable is marked.
    pub kmax: Bytes,
    /// Marking probability just below Kmax.
    pub pmax: f64,
    /// Decide at enqueue or at dequeue.
    pub mark_on: MarkOn,
}

/// How a switch decides that a packet meets congestion and marks it CE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detection {
    /// RED/WRED on the egress queue depth: 0 below Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) between,
    /// 1 at or above Kmax.
    Wred,
    /// Liu et al. 2015 RCM-1a with InfiniBand's definitions: an egress queue at or above Kmin is
    /// congested; it is a *victim* when its priority was paused within the last
    /// [`VICTIM_WINDOW`] (the congestion comes from downstream), else a *root*. Packets leaving
    /// a root are marked.
    RcmRoot,
    /// RCM-1a marking at roots and at victims.
    RcmRootVictim,
    /// Liu et al. 2015 RCM-1b: an output enters the congestion state when it is oversubscribed
    /// (frames still wait behind the one leaving) and the input buffer of a packet leaving it
    /// holds at least Kmin bytes; while in that state it marks every exiting packet. It leaves
    /// the state when its queue has drained (no frame waits).
    Rcm1b,
}

/// RCM-1a: a congested queue is a victim if its priority was paused this recently.
pub const VICTIM_WINDOW: Time = Time::from_us(10);

/// What the switch PFC watchdog does to a stormed queue (SONiC `PFC_WD` actions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchdogAction {
    /// Discard the queue's lossless packets, queued and arriving, and ignore pauses.
    Drop,
    /// Ignore pauses and forward.
    Forward,
    /// Only record the storm.
    Alert,
}

/// The switch PFC watchdog (SONiC `PFC_WD`; Guo et al. 2016 §4.3 for server-facing ports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatchdogParams {
    /// A lossless queue that has been paused, non-empty and not transmitting this long is
    /// stormed.
    pub detection_time: Time,
    /// A stormed queue is restored after this long without a pause frame on its priority.
    pub restoration_time: Time,
    /// What to do with a stormed queue.
    pub action: WatchdogAction,
    /// How often queues are checked.
    pub poll_interval: Time,
    /// Watch only ports that face servers (Guo et al. 2016's ToR watchdog), not uplinks.
    pub server_facing_only: bool,
}

/// Parameters of one switch.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchParams {
    /// Total shared buffer (the MMU's cell pool), bytes.
    pub buffer_size: Bytes,
    /// DSCP → traffic class (SONiC DSCP_TO_TC_MAP); unmapped DSCPs go to TC 0.
    pub dscp_to_tc: [u8; 64],
    /// TC → egress queue (identity unless given).
    pub tc_to_queue: [u8; 8],
    /// TC → ingress priority group (SONiC `TC_TO_PRIORITY_GROUP_MAP`; identity unless
    /// given): the MMU accounts ingress bytes, headroom and XOFF/XON per PG, and a PG in
    /// XOFF pauses every PFC-enabled priority mapped to it.
    pub tc_to_pg: [u8; 8],
    /// Bitmask of lossless (PFC-enabled) traffic classes.
    pub pfc_enable: u8,
    /// Static or dynamic thresholds.
    pub buffer_mode: BufferMode,
    /// Lossless PG thresholds.
    pub lossless: LosslessParams,
    /// Lossy queue limits.
    pub lossy: LossyParams,
    /// Per-queue scheduling discipline.
    pub scheduler: [QueueSched; 8],
    /// DSCP → TC of each ingress port by local port index, when a `config_db` binds
    /// different `PORT_QOS_MAP|<port>.dscp_to_tc_map`s to ports (SONiC classifies at the
    /// ingress port); ports beyond the list use `dscp_to_tc`. Empty = every port uses
    /// `dscp_to_tc`.
    pub port_dscp_to_tc: Vec<[u8; 64]>,
    /// Per-queue scheduling discipline of each port by local port index, when a
    /// `config_db` gives ports different `QUEUE.scheduler` entries (SONiC binds schedulers
    /// per port and queue); ports beyond the list use `scheduler`. Empty = every port uses
    /// `scheduler`. Read once when the ports are built, never per packet.
    pub port_scheduler: Vec<[QueueSched; 8]>,
    /// Queues that mark ECN (bitmask) on each port by local port index, when a `config_db`
    /// binds `QUEUE.wred_profile` to different queues on different ports; ports beyond the
    /// list use `ecn.queues`. Empty = every port marks `ecn.queues`.
    pub port_ecn_queues: Vec<u8>,
    /// Cable length in metres, for `headroom = "auto"` when it exceeds the link's delay.
    pub cable_length_m: f64,
    /// Cable length of each port by local port index (SONiC `CABLE_LENGTH`); ports beyond
    /// the list use `cable_length_m`. Empty unless imported.
    pub port_cable_m: Vec<f64>,
    /// Warnings of a `config_db` import (unmodelled fields, per-port differences), each
    /// naming its JSON path. Empty unless imported.
    pub config_warnings: Vec<String>,
    /// Port names of an imported `config_db`, in local port order. Empty unless imported.
    pub config_ports: Vec<String>,
    /// Quanta carried by an XOFF pause frame (802.1Qbb; 1 quantum = 512 bit times).
    pub pfc_quanta: u16,
    /// Peer response delay: time from a pause frame's arrival to when it takes effect.
    /// `None` = the 802.3 Annex 31B maximum for the link speed.
    pub pfc_response: Option<Time>,
    /// ECN marking, if any queue marks.
    pub ecn: Option<EcnParams>,
    /// How congestion is detected for marking (`congestion_detection`).
    pub detection: Detection,
    /// The PFC watchdog, if enabled.
    pub pfc_watchdog: Option<WatchdogParams>,
    /// Drop lossless packets whose destination MAC is unknown instead of flooding them
    /// (Guo et al. 2016 §4.2's fix for flooding deadlocks).
    pub drop_lossless_on_incomplete_arp: bool,
    /// Forwarding latency added at ingress (0 = store-and-forward only).
    pub latency: Time,
    /// How ECMP hashes differ between switches (`topology.ecmp_hash`).
    pub ecmp_hash: EcmpHash,
    /// Congestion isolation (IEEE 802.1Qcz), if enabled.
    pub isolation: Option<super::isolation_params::IsolationParams>,
}

/// ECMP hashing across switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcmpHash {
    /// Each switch salts the 5-tuple hash with its own seed, so tiers choose independently.
    #[default]
    Salted,
    /// Every switch uses the same hash function and seed: a flow's choice at one tier
    /// predicts its choice at the next (hash polarization, the failure mode real fabrics hit
    /// when every switch ships the same hash).
    Polarized,
    /// The HPCC paper's ns-3 simulator: MurmurHash3 of (source IP, destination IP, ports)
    /// seeded by the switch's node id, modulo the next-hop count, over next hops in
    /// descending node-id order, with ns-3's addresses and port numbering
    /// (`fabric::ns3_hash`).
    Ns3,
}

impl Default for SwitchParams {
    fn default() -> Self {
        let mut dscp_to_tc = [0u8; 64];
        dscp_to_tc[26] = 3;
        dscp_to_tc[48] = 6;
        let mut scheduler = [QueueSched::Dwrr(1); 8];
        scheduler[6] = QueueSched::Strict;
        scheduler[7] = QueueSched::Strict;
        SwitchParams {
            buffer_size: Bytes(12_000_000),
            dscp_to_tc,
            tc_to_queue: [0, 1, 2, 3, 4, 5, 6, 7],
            tc_to_pg: [0, 1, 2, 3, 4, 5, 6, 7],
            pfc_enable: 1 << 3,
            buffer_mode: BufferMode::Dynamic,
            lossless: LosslessParams {
                dynamic_th: -4,
                xoff: Bytes(180_000),
                xon: Bytes(160_000),
                xon_offset: Bytes(2_000),
                headroom: Headroom::Auto,
                reserved: Bytes(1248),
            },
            lossy: LossyParams {
                dynamic_th: 3,
                limit: Bytes(1_000_000),
                reserved: Bytes(0),
            },
            scheduler,
            port_dscp_to_tc: Vec::new(),
            port_scheduler: Vec::new(),
            port_ecn_queues: Vec::new(),
            cable_length_m: 5.0,
            port_cable_m: Vec::new(),
            config_warnings: Vec::new(),
            config_ports: Vec::new(),
            pfc_quanta: 65535,
            pfc_response: None,
            ecn: None,
            detection: Detection::Wred,
            pfc_watchdog: None,
            drop_lossless_on_incomplete_arp: false,
            ecmp_hash: EcmpHash::Salted,
            latency: Time::ZERO,
            isolation: None,
        }
    }
}

impl SwitchParams {
    /// Bitmask of lossless ingress priority groups: the PGs that a PFC-enabled TC maps to.
    pub fn lossless_pgs(&self) -> u8 {
        (0..8)
            .filter(|&tc| self.pfc_enable & (1 << tc) != 0)
            .fold(0, |m, tc| m | 1 << (self.tc_to_pg[tc] & 7))
    }

    /// For each PG, the bitmask of PFC-enabled priorities (TCs) mapped to it: the
    /// priorities an XOFF of that PG pauses.
    pub fn pg_priorities(&self) -> [u8; 8] {
        let mut out = [0u8; 8];
        for tc in (0..8).filter(|&tc| self.pfc_enable & (1 << tc) != 0) {
            out[(self.tc_to_pg[tc] & 7) as usize] |= 1 << tc;
        }
        out
    }

    /// The DSCP → TC map of ingress port `port` (local index).
    pub fn dscp_to_tc_of(&self, port: usize) -> &[u8; 64] {
        self.port_dscp_to_tc.get(port).unwrap_or(&self.dscp_to_tc)
    }

    /// The per-queue scheduling discipline of local port `port`.
    pub fn scheduler_of(&self, port: usize) -> &[QueueSched; 8] {
        self.port_scheduler.get(port).unwrap_or(&self.scheduler)
    }

    /// The queues (bitmask) that mark ECN on local port `port`; 0 without marking.
    pub fn ecn_queues_of(&self, port: usize) -> u8 {
        match self.ecn {
            None => 0,
            Some(e) => self.port_ecn_queues.get(port).copied().unwrap_or(e.queues),
        }
    }

    /// Cable length of local port `port`, metres.
    pub fn cable_of(&self, port: usize) -> f64 {
        self.port_cable_m
            .get(port)
            .copied()
            .unwrap_or(self.cable_length_m)
    }
}

/// The 802.3 Annex 31B.3.7 maximum pause response delay, in pause quanta, for a link speed.
/// Values per speed class: 10G 67, 25G 80 (as 802.3by), 40G 118, 50G 147, 100G 394, 200G 453,
/// 400G 905 quanta. Speeds in between use the next higher class.
pub fn pause_response_quanta(rate: Rate) -> u64 {
    let g = rate.bps() / 1_000_000_000;
    match g {
        0..=10 => 67,
        11..=25 => 80,
        26..=40 => 118,
        41..=50 => 147,
        51..=100 => 394,
        101..=200 => 453,
        _ => 905,
    }
}

/// Duration of `quanta` pause quanta at `rate`: quanta × 512 bit times (802.1Qbb).
pub fn quanta_time(quanta: u64, rate: Rate) -> Time {
    rate.tx_time(quanta * 64)
}
