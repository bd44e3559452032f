//! The live recorder every component writes into while a run goes: flat counter tables
//! indexed by typed ids (no maps, no allocation per packet), the pause log, the watchdog
//! log, and network-wide totals. Results are assembled from it when the run ends.

use super::congestion::CongestionPoint;
use super::counters::{FlowCounters, PortPrioCounters, QueueCounters, TxCounters};
use super::PfcDir;
use crate::engine::FlowWindow;
use crate::ids::{FlowId, PerPrio, PerQueue, PortId, Priority, QueueId};
use crate::units::Time;

/// Network-wide drop and event totals.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    /// Lossless packets dropped (headroom or a NIC RX buffer exhausted).
    pub drops_lossless: u64,
    /// Lossy packets dropped at a full queue or RX buffer.
    pub drops_lossy: u64,
    /// Packets dropped when their TTL ran out.
    pub drops_ttl: u64,
    /// Packets dropped by faults (downed links, injected loss, watchdog, no route).
    pub drops_fault: u64,
    /// ECN marks (CE set) at every switch.
    pub ecn_marked: u64,
    /// CNPs sent by notification points.
    pub cnp_tx: u64,
    /// Frames delivered over a link (one per hop).
    pub packet_hops: u64,
    /// Pause-log rows not kept (over `output.max_pfc_log`).
    pub pfc_log_truncated: u64,
}

/// One entry of the pause log (names are resolved when results are made).
#[derive(Clone, Copy, Debug)]
pub struct PfcLogEntry {
    /// When the frame left (tx) or took effect (rx).
    pub time: Time,
    /// The port that sent or honoured it.
    pub port: PortId,
    /// Priority.
    pub prio: Priority,
    /// Sent or received.
    pub dir: PfcDir,
    /// Quanta (0 = resume).
    pub quanta: u16,
}

/// One watchdog action (switch PFC_WD or a NIC's pause-storm guard).
#[derive(Clone, Copy, Debug)]
pub struct WatchdogLogEntry {
    /// When.
    pub time: Time,
    /// The port concerned.
    pub port: PortId,
    /// Priority.
    pub prio: Priority,
    /// SONiC / mlx5 event name.
    pub event: &'static str,
    /// The action taken.
    pub action: &'static str,
}

/// Per-flow record: its counters and when it started and ended (acknowledged in full).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowRecord {
    /// Counters.
    pub c: FlowCounters,
    /// When it started (its configured start until it does).
    pub start: Time,
    /// When its last ACK arrived at the sender (`NEVER` while it runs).
    pub done: Time,
    /// When its last byte was delivered in order at the receiver (`NEVER` until then).
    pub delivered_at: Time,
}

impl FlowRecord {
    /// When its last ACK arrived, if it did.
    #[inline]
    pub fn done_at(&self) -> Option<Time> {
        (self.done != Time::NEVER).then_some(self.done)
    }
}

impl Default for FlowRecord {
    fn default() -> Self {
        FlowRecord {
            c: FlowCounters::default(),
            start: Time::ZERO,
            done: Time::NEVER,
            delivered_at: Time::NEVER,
        }
    }
}

/// What the components record into while the run goes.
#[derive(Debug)]
pub struct Monitor {
    nports: usize,
    /// Rare per-(port, priority) counters: drops, pauses.
    pub port_prio: Vec<PerPrio<PortPrioCounters>>,
    /// Per-(port, queue) counters: ECN marks.
    pub port_queue: Vec<PerQueue<QueueCounters>>,
    /// Transmit counters per (port, priority), priority-major: see [`Monitor::tx_index`].
    pub tx: Vec<TxCounters>,
    /// Frames counted by ports and not yet settled into `tx` (debug builds: the readers of
    /// `tx` check that it is zero).
    #[cfg(debug_assertions)]
    pub(crate) unsettled: u64,
    /// Transmitted bytes per (port, priority) when the statistics window opened.
    pub tx_at_warmup: Vec<u64>,
    /// Frames lost on the wire leaving each port, per priority: (frames, wire bytes).
    pub lost: Vec<PerPrio<(u64, u64)>>,
    /// Per-flow records of the flows the run holds, by flow id.
    pub flows: FlowWindow<FlowRecord>,
    /// Each held flow's `delivered` when the statistics window opened (not held: zero).
    pub delivered_at_warmup: FlowWindow<u64>,
    /// The statistics window has opened.
    pub window_open: bool,
    /// The congestion points (port × 8 + queue) each held flow was last marked at, when
    /// congestion statistics are kept.
    pub flow_cps: FlowWindow<[u32; 4]>,
    congestion: bool,
    /// Totals.
    pub totals: Totals,
    /// The pause log.
    pub pfc_log: Vec<PfcLogEntry>,
    pub(super) max_pfc_log: usize,
    /// Congestion statistics per (port, queue), when any switch marks ECN.
    pub cps: Vec<CongestionPoint>,
    /// Whether each (port, queue) is congested now (a compact copy of `cps`' state).
    pub cp_state: Vec<bool>,
    /// Watchdog actions.
    pub wd_log: Vec<WatchdogLogEntry>,
    /// Every ended pause of an egress priority: (port, priority, start, duration).
    pub pause_intervals: Vec<(PortId, Priority, Time, Time)>,
    /// Egress priorities paused now, network-wide (the deadlock detector idles at 0).
    pub paused_count: u32,
    /// Flows that completed during the current event (the world starts their dependents).
    pub completed: Vec<FlowId>,
    /// Congestion isolation counters.
    pub iso: super::IsoCounters,
    /// Congestion isolation events (capped like the pause log).
    pub iso_events: Vec<super::IsoLogEntry>,
}

impl Monitor {
    /// A recorder for `nports` ports and `nflows` flows; congestion statistics are kept when
    /// `congestion` (some switch marks ECN).
    pub fn new(nports: usize, nflows: usize, congestion: bool, max_pfc_log: usize) -> Self {
        Monitor {
            nports,
            port_prio: vec![PerPrio::default(); nports],
            port_queue: vec![PerQueue::default(); nports],
            tx: vec![TxCounters::default(); nports * 8],
            #[cfg(debug_assertions)]
            unsettled: 0,
            tx_at_warmup: Vec::new(),
            lost: vec![PerPrio::default(); nports],
            flows: FlowWindow::new(nflows, FlowRecord::default()),
            delivered_at_warmup: FlowWindow::default(),
            window_open: false,
            flow_cps: FlowWindow::new(if congestion { nflows } else { 0 }, [u32::MAX; 4]),
            congestion,
            totals: Totals::default(),
            pfc_log: Vec::new(),
            max_pfc_log,
            cps: if congestion {
                vec![CongestionPoint::default(); nports * 8]
            } else {
                Vec::new()
            },
            cp_state: vec![false; nports * 8],
            wd_log: Vec::new(),
            pause_intervals: Vec::new(),
            paused_count: 0,
            completed: Vec::new(),
            iso: Default::default(),
            iso_events: Vec::new(),
        }
    }

    /// Number of ports.
    pub fn nports(&self) -> usize {
        self.nports
    }

    /// Index of (port, priority) in `tx`: priority-major, so that the counters of the one or
    /// two busy priorities of all ports share few cache lines.
    #[inline]
    pub fn tx_index(&self, port: PortId, prio: Priority) -> usize {
        prio.idx() * self.nports + port.idx()
    }

    /// Transmit counters of (port, priority).
    #[inline]
    pub fn tx_of(&self, port: PortId, prio: Priority) -> &TxCounters {
        self.assert_settled();
        self.tx_unsettled(port, prio)
    }

    /// [`Monitor::tx_of`] without the check that the ports settled their accounts (for
    /// `Port::tx_counters`, which adds its own).
    #[inline]
    pub(crate) fn tx_unsettled(&self, port: PortId, prio: Priority) -> &TxCounters {
        &self.tx[self.tx_index(port, prio)]
    }

    /// Debug builds: every port has settled its transmit account (`Port::settle_tx`), so
    /// `tx` holds every frame sent. A reader of `tx` that finds otherwise is a bug.
    #[inline]
    pub(crate) fn assert_settled(&self) {
        #[cfg(debug_assertions)]
        assert_eq!(
            self.unsettled, 0,
            "transmit counters read before the ports settled them"
        );
    }

    /// Add a port's open transmit account to `tx`: `frames` frames sent by `port` at priority
    /// `prio`, its transmitted bytes (all priorities) now `tx_bytes`, of which the account
    /// holds those since the last settle (`Port::count_tx`).
    pub(crate) fn settle_tx(&mut self, port: PortId, prio: Priority, frames: u32, tx_bytes: u64) {
        #[cfg(debug_assertions)]
        {
            self.unsettled -= u64::from(frames);
        }
        let from = self.tx_settled_bytes(port);
        let i = self.tx_index(port, prio);
        let c = &mut self.tx[i];
        c.packets += u64::from(frames);
        c.bytes += tx_bytes - from;
    }

    /// A port's transmitted bytes (all priorities) when its account was last settled: the
    /// sum of its row of `tx`, which every byte reaches through a settle.
    pub(crate) fn tx_settled_bytes(&self, port: PortId) -> u64 {
        Priority::all()
            .map(|p| self.tx_unsettled(port, p).bytes)
            .sum()
    }

    /// Count a frame lost on the wire leaving `port`.
    #[inline]
    pub fn count_lost(&mut self, port: PortId, prio: Priority, wire: u32) {
        let l = &mut self.lost[port.idx()][prio];
        l.0 += 1;
        l.1 += wire as u64;
        self.totals.drops_fault += 1;
    }

    /// Index of (port, queue) in the congestion tables.
    #[inline]
    pub fn cp_index(port: PortId, q: QueueId) -> usize {
        port.idx() * 8 + q.idx()
    }

    /// Log a pause frame (up to `output.max_pfc_log` rows; the rest are counted).
    pub fn log_pfc(&mut self, time: Time, port: PortId, prio: Priority, dir: PfcDir, quanta: u16) {
        if self.pfc_log.len() < self.max_pfc_log {
            self.pfc_log.push(PfcLogEntry {
                time,
                port,
                prio,
                dir,
                quanta,
            });
        } else {
            self.totals.pfc_log_truncated += 1;
        }
    }

    /// Log an isolation event (kept up to `output.max_pfc_log` rows).
    pub fn iso_log(&mut self, e: super::IsoLogEntry) {
        if self.iso_events.len() < self.max_pfc_log {
            self.iso_events.push(e);
        }
    }

    /// Log a watchdog action.
    pub fn log_watchdog(
        &mut self,
        time: Time,
        port: PortId,
        prio: Priority,
        event: &'static str,
        action: &'static str,
    ) {
        self.wd_log.push(WatchdogLogEntry {
            time,
            port,
            prio,
            event,
            action,
        });
    }

    /// Payload held flow `f` delivered before the statistics window opened.
    #[inline]
    pub fn delivered_before_window(&self, f: u32) -> u64 {
        self.delivered_at_warmup.get(f).copied().unwrap_or(0)
    }

    /// Open the statistics window: remember what was sent and delivered so far.
    pub fn open_stats_window(&mut self) {
        self.assert_settled();
        self.tx_at_warmup = self.tx.iter().map(|c| c.bytes).collect();
        let mut d = FlowWindow::default();
        d.release_below(self.flows.base());
        d.extend_to(self.flows.end(), 0);
        for (f, r) in self.flows.iter() {
            d[f] = r.c.delivered;
        }
        self.delivered_at_warmup = d;
        self.window_open = true;
    }

    /// Hold flow `f`, which starts at `start`, and every id below it (those not started yet
    /// hold `start = NEVER` until they do).
    pub fn admit(&mut self, f: u32, start: Time) {
        let unstarted = FlowRecord {
            start: Time::NEVER,
            ..FlowRecord::default()
        };
        self.flows.extend_to(f + 1, unstarted);
        self.flows[f].start = start;
        if self.congestion {
            self.flow_cps.extend_to(f + 1, [u32::MAX; 4]);
        }
    }

    /// Stop holding the flows below `base` (their records were handed on).
    pub fn release_below(&mut self, base: u32) {
        self.flows.release_below(base);
        self.flow_cps.release_below(base);
        self.delivered_at_warmup.release_below(base);
    }
}
