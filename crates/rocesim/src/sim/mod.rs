//! The simulated world: every port, channel, switch, host and flow, and the run loop that
//! dispatches events to them. A packet's life is spread over the files of this module in the
//! order it happens: `host` (a NIC builds it), `tx` (a port serializes it onto a channel),
//! `switch` (ingress, MMU, PFC, forwarding), back to `tx`, and `host` again (receive, ACK).

mod build;
mod cc;
mod deadlock;
mod ecn;
mod faults;
mod host;
mod pfc;
mod results;
mod sample;
mod switch;
mod tx;
mod watchdog;

pub mod testkit;
#[cfg(test)]
mod tests;

use crate::config::Scenario;
use crate::engine::{Event, EventQueue, PacketArena};
use crate::fabric::link::Channel;
use crate::fabric::mmu::Mmu;
use crate::fabric::port::Port;
use crate::fabric::routing::RoutingTable;
use crate::monitor::{FlowCounters, PfcDir, PortPrioCounters};
use crate::nic::host::Host;
use crate::nic::qp::{RecvQp, SendQp};
use crate::units::Time;

pub use build::BuildError;

/// A switch's forwarding state, laid out with the fields every packet reads first.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct SwitchState {
    /// ECMP salt.
    pub salt: u32,
    /// Quanta of its pause frames.
    pub pfc_quanta: u16,
    /// Lossless TCs.
    pub pfc_enable: u8,
    /// Queues that mark ECN (0 = none: the marking code is skipped).
    pub ecn_queues: u8,
    /// How congestion is detected.
    pub detection: crate::fabric::params::Detection,
    /// TC → queue.
    pub tc_to_queue: [u8; 8],
    /// DSCP → TC.
    pub dscp_to_tc: [u8; 64],
    /// Global port ids, by local index.
    pub ports: Vec<u32>,
    /// Shared buffer.
    pub mmu: Mmu,
    /// ECN marking, if configured.
    pub ecn: Option<crate::fabric::params::EcnParams>,
    /// The switch's random stream (RED marking).
    pub rng: crate::engine::rng::SimRng,
    /// Forwarding faults are active (static routes or aged MACs): check them per packet.
    pub fwd_fault: bool,
    /// Static routes: (destination host, local port).
    pub route_overrides: Vec<(u32, u16)>,
    /// Hosts whose MAC this switch has forgotten.
    pub aged: Vec<u32>,
    /// Drop lossless packets to aged MACs instead of flooding.
    pub drop_on_incomplete_arp: bool,
}

/// A flow: both ends of its queue pair and its counters.
#[derive(Debug)]
pub(crate) struct FlowState {
    pub src: u32,
    pub dst: u32,
    pub dscp: u8,
    pub hash: u32,
    pub start: Time,
    pub sq: SendQp,
    pub rq: RecvQp,
    pub c: FlowCounters,
    pub ack_every: u32,
    pub rto: Time,
    pub ttl: u8,
    /// When the pending congestion-control timer fires (`NEVER` = none pending).
    pub cc_timer_at: Time,
    /// The sender's data packets collect INT.
    pub wants_int: bool,
    /// The sender runs a congestion-control algorithm (not `none`).
    pub has_cc: bool,
    /// Notification point: the end of the current CNP window (one CNP per window).
    pub cnp_window_end: Time,
    /// Notification point: DSCP and TC of CNPs, minimum gap between them.
    pub cnp_dscp: u8,
    pub cnp_tc: u8,
    pub cnp_gap: Time,
    /// The last congestion points this flow was recorded at (congestion statistics).
    pub last_cps: [u32; 4],
}

/// One entry of the pause log (names are resolved when results are made).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PfcLogEntry {
    pub time: Time,
    pub port: u32,
    pub prio: u8,
    pub dir: PfcDir,
    pub quanta: u16,
}

/// Network-wide drop and event totals.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Totals {
    pub drops_lossless: u64,
    pub drops_lossy: u64,
    pub drops_ttl: u64,
    pub drops_fault: u64,
    pub ecn_marked: u64,
    pub cnp_tx: u64,
    pub packet_hops: u64,
    pub pfc_log_truncated: u64,
}

/// What the run loop reports to a progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Time,
    /// The run's end time.
    pub end: Time,
    /// Events so far.
    pub events: u64,
}

/// The simulator.
pub struct Sim {
    pub(crate) q: EventQueue,
    pub(crate) arena: PacketArena,
    pub(crate) ports: Vec<Port>,
    /// Ingress XOFF held per port (priorities for which the port holds its peer paused): a
    /// flat array so the egress path checks it without touching the ingress port.
    pub(crate) xoff: Vec<crate::fabric::pfc::XoffState>,
    pub(crate) chans: Vec<Channel>,
    pub(crate) switches: Vec<SwitchState>,
    pub(crate) hosts: Vec<Host>,
    pub(crate) flows: Vec<FlowState>,
    pub(crate) start_order: Vec<u32>,
    /// Flows chained to each flow: started when it completes.
    pub(crate) dependents: Vec<Vec<u32>>,
    pub(crate) next_start: usize,
    pub(crate) routes: RoutingTable,
    pub(crate) counters: Vec<PortPrioCounters>,
    /// Transmit counters per (port, priority), priority-major: see `tx_index`.
    pub(crate) tx: Vec<crate::monitor::TxCounters>,
    /// Wire bytes transmitted per port, all priorities (the INT `txBytes` of HPCC): the sum of
    /// `tx` over a port's priorities, kept apart so the per-hop INT stamp reads one word.
    pub(crate) tx_port_bytes: Vec<u64>,
    /// Transmitted bytes per (port, priority) when the statistics window opened.
    pub(crate) tx_at_warmup: Vec<u64>,
    /// Frames lost per channel and priority: (frames, wire bytes).
    pub(crate) lost: Vec<[(u64, u64); 8]>,
    pub(crate) pfc_log: Vec<PfcLogEntry>,
    pub(crate) totals: Totals,
    pub(crate) scenario: Scenario,
    pub(crate) throughput: Vec<(Time, u32, f64)>,
    pub(crate) queue_samples: Vec<(Time, u32, u8, u64)>,
    pub(crate) last_sample: Time,
    pub(crate) next_tput_sample: Time,
    pub(crate) next_queue_sample: Time,
    pub(crate) events: u64,
    pub(crate) end: Time,
    pub(crate) finite_left: usize,
    pub(crate) has_infinite: bool,
    pub(crate) interrupted: bool,
    pub(crate) warmup_done: bool,
    pub(crate) loss_rng: crate::engine::rng::SimRng,
    /// INT records of packets in flight (HPCC), by handle.
    pub(crate) ints: Vec<crate::nic::cc::IntRecord>,
    pub(crate) int_free: Vec<u32>,
    /// Congestion statistics per (port, queue), when any switch marks.
    pub(crate) cps: Vec<crate::monitor::congestion::CongestionPoint>,
    /// Whether each (port, queue) is congested now: a compact copy of the congestion points'
    /// state, so that the per-packet check touches one byte and the record only on a change.
    pub(crate) cp_state: Vec<bool>,
    /// Rate samples (time, flow, rate, window).
    pub(crate) rate_samples: Vec<(Time, u32, f64, u64)>,
    /// Egress priorities currently paused, network-wide (the deadlock detector idles at 0).
    pub(crate) paused_count: u32,
    /// Switch PFC watchdog state per (port, priority), when any switch has one.
    pub(crate) wd: Vec<watchdog::WdQueue>,
    /// Watchdog actions: (time, port, priority, event, action).
    pub(crate) wd_log: Vec<(Time, u32, u8, &'static str, &'static str)>,
    /// NIC pause-storm counters per host: (warning events, error events).
    pub(crate) nic_storm: Vec<(u64, u64)>,
    /// Deadlock detector state.
    pub(crate) dl: deadlock::Detector,
    /// A component asked the run to stop (stop_on_deadlock).
    pub(crate) stop_requested: bool,
}

impl Sim {
    /// Index of (port, priority) in `tx`: priority-major, so that the counters of the one or
    /// two busy priorities of all ports share few cache lines.
    #[inline]
    pub(crate) fn tx_index(&self, port: usize, prio: usize) -> usize {
        prio * self.ports.len() + port
    }

    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// Run until `sim.duration`, until every finite flow is done (if `stop_when_done` and no
    /// flow is long-lived), or until `progress` returns false (an interrupt). `progress` is
    /// called about every 65,536 events.
    pub fn run(&mut self, mut progress: impl FnMut(Progress) -> bool) {
        let end = self.end;
        let mut all_done = false;
        let warmup = self.scenario.sim.warmup;
        let stop_when_done = self.scenario.sim.stop_when_done;
        while let Some((t, ev)) = self.q.pop_until(end) {
            if !self.warmup_done && t >= warmup {
                self.open_stats_window();
            }
            self.events += 1;
            self.dispatch(ev);
            if self.events & 0xFFFF == 0
                && !progress(Progress {
                    now: self.q.now(),
                    end,
                    events: self.events,
                })
            {
                self.interrupted = true;
                break;
            }
            if self.stop_requested {
                all_done = true;
                break;
            }
            if self.finite_left == 0 && stop_when_done && self.all_flows_done() {
                all_done = true;
                break;
            }
        }
        if !self.interrupted && !all_done {
            // Nothing left to do before the end: the clock still reaches it.
            self.q.advance_to(end);
        }
        if !self.warmup_done {
            self.open_stats_window();
        }
        self.sample_final();
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(p) => self.on_tx_done(p),
            Event::LinkArrive(p) => self.on_link_arrive(p),
            Event::PauseArrive { port, prio, quanta } => self.on_pause_arrive(port, prio, quanta),
            Event::PauseExpire { port, prio } => self.on_pause_expire(port, prio),
            Event::PfcRefresh { port, prio } => self.on_pfc_refresh(port, prio),
            Event::NicWake(h) => self.on_nic_wake(h),
            Event::RxDone(h) => self.on_rx_done(h),
            Event::QpTimer(f) => self.on_qp_timer(f),
            Event::CcTimer(f) => self.on_cc_timer(f),
            Event::FlowStart => self.on_flow_start(),
            Event::StartChained(f) => self.activate_flow(f),
            Event::NicWatchdog(h) => self.on_nic_watchdog(h),
            Event::WatchdogPoll(s) => self.on_watchdog_poll(s),
            Event::DeadlockCheck => self.on_deadlock_check(),
            Event::Reroute => self.reroute(),
            Event::Sample => self.on_sample(),
            Event::Fault { index, start } => self.on_fault(index, start),
        }
    }

    fn all_flows_done(&self) -> bool {
        self.finite_left == 0 && !self.has_infinite && self.next_start >= self.start_order.len()
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    fn open_stats_window(&mut self) {
        self.warmup_done = true;
        self.tx_at_warmup = self.tx.iter().map(|c| c.bytes).collect();
        for f in &mut self.flows {
            f.c.delivered_at_warmup = f.c.delivered;
        }
    }
}
