//! The simulated world and its loop. The world owns the components (switches, NICs), the
//! shared tables (routes, connections, INT records), the packet arena, the event queue and
//! the monitor. The loop owns nothing but time: it pops the earliest event and hands it to
//! the component the event names, through a [`Ctx`]. What is global (flow starts and
//! completions, faults, routing reconvergence, sampling, deadlock checks) is handled here.
//!
//! Event order: events run in (time, class, component) order, whatever order they were
//! scheduled in (`Event::key`); see `docs/architecture.md`, "Event order".

mod build;
mod chains;
mod describe;
mod faults;
mod flow_rows;
mod isolation;
mod merge;
mod nic_results;
mod partition;
mod paths;
mod qp_groups;
mod results;
mod retire;
mod spill;
mod threads;
mod traffic;
mod warnings;

#[cfg(test)]
mod counter_tests;
#[cfg(test)]
mod headroom_tests;
#[cfg(test)]
mod invariant_tests;
#[cfg(test)]
mod irn_tests;
#[cfg(test)]
mod partition_tests;
#[cfg(test)]
mod pfc_tests;
#[cfg(test)]
mod pg_tests;
#[cfg(test)]
mod plain_tests;
#[cfg(test)]
mod stream_tests;
pub mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;

use crate::config::Scenario;
use crate::engine::{handle, Ctx, Event};
use crate::fabric::port::Port;
use crate::fabric::route_ahead::NO_OUT;
use crate::fabric::switch::Switch;
use crate::ids::{FlowId, PortId, Priority};
use crate::monitor::deadlock::Detector;
use crate::monitor::sampler::{Role, Sampler};
use crate::monitor::view::PortView;
use crate::nic::conn::ConnTable;
use crate::nic::device::Nic;
use crate::topology::{NodeRef, PortLocs};
use crate::units::Time;

pub use build::BuildError;
use retire::Retiring;
use traffic::FlowStarts;

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

/// The simulator: the world and its loop.
pub struct Sim {
    /// The shared parts every component handles its events through.
    pub(crate) ctx: Ctx,
    pub(crate) switches: Vec<Switch>,
    pub(crate) nics: Vec<Nic>,
    /// Owner and local index of every port, by network-wide id.
    pub(crate) port_loc: PortLocs,
    pub(crate) starts: FlowStarts,
    pub(crate) retiring: Retiring,
    pub(crate) sampler: Sampler,
    pub(crate) detector: Detector,
    pub(crate) scenario: Scenario,
    pub(crate) events: u64,
    pub(crate) end: Time,
    pub(crate) interrupted: bool,
    pub(crate) warmup_done: bool,
    pub(crate) stop_requested: bool,
    /// Wires keep their frames in a FIFO as well (a `link_down` or `link_up` fault can take a
    /// link down).
    pub(crate) wires_tracked: bool,
    /// Events the loop handles before it next calls `check_stop`: the distance to the next
    /// multiple of 65,536 events (a progress report), or 1 when something that may stop
    /// the run happened in the event being handled (see `Sim::run_until`). One
    /// countdown per event instead of two tests.
    pub(crate) check_in: u32,
    /// The last event was a sampler pass (the progress callback hears of it).
    pub(crate) sampled: bool,
    /// Final records of the flows no longer held.
    pub(crate) spill: spill::Spill,
    /// The QPs of flows with `qps > 1` (`None` when every flow is one QP).
    pub(crate) groups: Option<qp_groups::QpGroups>,
    /// The nodes this world simulates, when it is one part of a partitioned run
    /// (`sim.threads`; `None`: all of them).
    pub(crate) part: Option<Box<partition::Part>>,
    /// What the parts of a partitioned run counted of packets they held, once merged.
    pub(crate) merged: Option<Box<threads::Merged>>,
    /// How the parts of a merged partitioned run went (for the results).
    pub(crate) thread_stats: Option<Box<crate::monitor::ThreadStats>>,
    /// Events every part of a partitioned run handles (`FlowStart`, `StartChained`, `Fault`,
    /// `Reroute`, `Sample`).
    pub(crate) global_events: u64,
}

/// The progress callback of a run (`Sim::run`), called now and then from the event loop.
pub(crate) struct ProgressFn<'a>(pub &'a mut dyn FnMut(Progress) -> bool);

impl Sim {
    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Time {
        self.ctx.events.now()
    }

    /// This world is one part of a run split across threads (`sim.threads`): run it with
    /// [`crate::run::run_sim`], which runs the other parts beside it.
    pub fn partitioned(&self) -> bool {
        self.part.is_some()
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The scenario's wall-clock limit (`sim.wall_limit`), if any.
    pub fn wall_limit(&self) -> Option<std::time::Duration> {
        self.scenario.sim.wall_limit
    }

    /// Run until `sim.duration`, until every finite flow is done (if `stop_when_done` and no
    /// flow is long-lived), or until `progress` returns false (an interrupt). `progress` is
    /// called about every 65,536 events, and after every sampler pass. A world split across
    /// threads (`sim.threads`) runs all its parts and becomes their merged world
    /// ([`crate::run::run_sim`] does this without building part 0 twice).
    pub fn run(&mut self, mut progress: impl FnMut(Progress) -> bool) {
        if self.part.is_some() {
            let Ok(fresh) = Sim::new(self.scenario.clone()) else {
                unreachable!("a scenario built once builds again")
            };
            let this = std::mem::replace(self, fresh);
            *self = this.run_parts(&mut progress);
            return;
        }
        let end = self.end;
        let warmup = self.scenario.sim.warmup;
        let mut stopped = false;
        if !self.warmup_done && warmup > Time::ZERO {
            // The events before the warm-up ends; the statistics window opens before the
            // first event at or after it (no event falls in between, so its snapshot is the
            // same whenever in between it is taken).
            stopped = self.run_until(Time(warmup.0 - 1).min(end), &mut ProgressFn(&mut progress));
        }
        if !stopped {
            if !self.warmup_done {
                self.open_stats_window();
            }
            stopped = self.run_until(end, &mut ProgressFn(&mut progress));
        }
        if !stopped {
            // Nothing left to do before the end: the clock still reaches it.
            self.ctx.events.advance_to(end);
        }
        if !self.warmup_done {
            self.open_stats_window();
        }
        self.sample_final();
        self.ctx.monitor.sort_logs();
    }

    /// Handle the events due up to `limit`; true when the run stopped early (an interrupt, a
    /// deadlock with `stop_on_deadlock`, or every flow done with `stop_when_done`). What can
    /// stop a run (a sampler pass, a deadlock check, flows starting or completing) sets
    /// `check_in` to 1, so the other events pay one count down for all the checks. `progress` is
    /// reached through a thin pointer, and this loop is compiled once for every caller (one
    /// thread, or each part of a split run), in four versions: with and without routing one
    /// hop ahead (`fabric::route_ahead`), and with and without plain switches
    /// (`Switch::is_plain`), so that a run pays only for the mechanisms it uses.
    fn run_until(&mut self, limit: Time, progress: &mut ProgressFn<'_>) -> bool {
        // Every switch plain, and no forwarding fault (a static route, an aged MAC entry) to
        // change that during the run: the loop without the mechanisms plain switches lack.
        // Other faults (links, loss, a stalled NIC) act on wires, routes and NICs, which both
        // loops handle alike. Checked on every call: a part of a split run calls this once a
        // window, and a switch costs a few loads.
        let forwarding_faults = self.scenario.faults.iter().any(|f| f.kind.is_forwarding());
        let plain = !forwarding_faults && self.switches.iter().all(Switch::is_plain);
        match (self.ctx.ahead.is_on(), plain) {
            (true, true) => self.run_events::<true, true>(limit, progress),
            (true, false) => self.run_events::<true, false>(limit, progress),
            (false, true) => self.run_events::<false, true>(limit, progress),
            (false, false) => self.run_events::<false, false>(limit, progress),
        }
    }

    /// The loop of [`Sim::run_until`]; `AHEAD`: routing one hop ahead is on; `PLAIN`: every
    /// switch is plain for the whole run (`Switch::is_plain`, and no forwarding faults).
    #[inline(never)]
    fn run_events<const AHEAD: bool, const PLAIN: bool>(
        &mut self,
        limit: Time,
        progress: &mut ProgressFn<'_>,
    ) -> bool {
        // An arrival's packet was last touched a hop ago and is likely a cache miss: when a
        // wheel slot starts draining, start loading the packets of the next slot's arrivals
        // (a slot, about six events at S1's load, ahead of their use), and the first line of
        // the egress port each will take where the sending switch routed it ahead. Any other
        // event prefetches packet 0 instead of branching on its kind. In a fabric that
        // outgrows the cache (`AHEAD`), when a slot starts draining, its arrivals' packets
        // (loaded a slot ago) also name the INT record each will stamp or read and, at a
        // host, the queue pair it will update: those lines start loading too
        // (docs/performance.md, "INT records and queue pairs loaded a slot ahead").
        self.ctx.events.set_limit(limit);
        while let Some((_, ev)) = {
            let (packets, sw, loc) = (&self.ctx.packets, &self.switches, &self.port_loc);
            let ints = &self.ctx.ints;
            let ahead = |e: Event| {
                packets.prefetch(e.arrival_packet());
                if let (true, Event::LinkArrive { port, out, .. }) = (AHEAD, e) {
                    prefetch_egress(sw, loc, PortId(port), out);
                }
            };
            let (nics, conns) = (&self.nics, &self.ctx.conns);
            let draining = |e: Event| {
                if let (true, Event::LinkArrive { port, pkt, .. }) = (AHEAD, e) {
                    let p = packets.get(pkt);
                    if ints.in_use() {
                        ints.prefetch_for(p);
                    }
                    if let (NodeRef::Host(h), _) = loc.get(PortId(port).peer()) {
                        if let Some(n) = nics.get(h as usize) {
                            n.prefetch_qp(p, conns);
                        }
                    }
                }
            };
            (self.ctx.events).pop_limited_with(ahead, draining)
        } {
            self.events += 1;
            self.dispatch::<AHEAD, PLAIN>(ev);
            self.check_in -= 1;
            if self.check_in == 0 && self.check_stop(progress) {
                return true;
            }
        }
        false
    }

    /// After an event that set `check_in` to 1 (or every 65,536 events): report progress and
    /// decide whether the run stops here.
    #[cold]
    fn check_stop(&mut self, progress: &mut ProgressFn<'_>) -> bool {
        self.check_in = 0x1_0000 - (self.events & 0xFFFF) as u32;
        // A time-series sample visits every flow and link: as costly as thousands of
        // events, so the caller also hears of progress after each one (a wall limit
        // holds even with a 1 ns sampling interval).
        let sampled = std::mem::take(&mut self.sampled);
        if (self.events & 0xFFFF == 0 || sampled)
            && !(progress.0)(Progress {
                now: self.ctx.events.now(),
                end: self.end,
                events: self.events,
            })
        {
            self.interrupted = true;
            return true;
        }
        self.stop_requested || self.scenario.sim.stop_when_done && self.starts.all_done()
    }

    /// Hand one event to the component it names. One match over every event: moving the
    /// rare arms (flow starts, faults, samples) into a cold function of their own made
    /// S1-none's run loop 14 % slower on this VM (2026-11-27), though it ran as many
    /// instructions.
    #[inline(always)]
    #[allow(clippy::too_many_lines)]
    fn dispatch<const AHEAD: bool, const PLAIN: bool>(&mut self, ev: Event) {
        let ctx = &mut self.ctx;
        ctx.now = ctx.events.now();
        let (sw, nics, loc) = (&mut self.switches, &mut self.nics, &self.port_loc);
        let tracked = self.wires_tracked;
        match ev {
            // A switch's two per-frame events return at once: only a host completes flows.
            Event::TxDone(p) => match loc.get(PortId(p)) {
                (NodeRef::Switch(s), l) => {
                    return handle::at_mut(sw, s as usize).on_tx_done::<PLAIN>(l, ctx)
                }
                (NodeRef::Host(h), _) => handle::at_mut(nics, h as usize).on_tx_done(ctx),
            },
            Event::LinkArrive { port, pkt, out } => {
                let p = PortId(port);
                if !Self::on_link_arrive::<AHEAD, PLAIN>(p, pkt, out, tracked, sw, nics, loc, ctx) {
                    return;
                }
            }
            Event::PauseArrive { port, prio, quanta } => match loc.get(PortId(port)) {
                (NodeRef::Switch(s), l) => {
                    sw[s as usize].on_pause_arrive(l, Priority(prio), quanta, ctx)
                }
                (NodeRef::Host(h), _) => {
                    nics[h as usize].on_pause_arrive(Priority(prio), quanta, ctx)
                }
            },
            Event::PauseExpire { port, prio } => match loc.get(PortId(port)) {
                (NodeRef::Switch(s), l) => sw[s as usize].on_pause_expire(l, Priority(prio), ctx),
                (NodeRef::Host(h), _) => nics[h as usize].on_pause_expire(Priority(prio), ctx),
            },
            Event::PfcRefresh { port, prio } => match loc.get(PortId(port)) {
                (NodeRef::Switch(s), l) => sw[s as usize].on_pfc_refresh(l, Priority(prio), ctx),
                (NodeRef::Host(h), _) => nics[h as usize].on_pfc_refresh(Priority(prio), ctx),
            },
            Event::Forward(p) => {
                if let (NodeRef::Switch(s), l) = loc.get(PortId(p)) {
                    sw[s as usize].on_forward(l, ctx);
                }
            }
            Event::NicWake(h) => nics[h as usize].on_wake(ctx),
            Event::RxDone(h) => nics[h as usize].on_rx_done(ctx),
            Event::RxPlaced(h) => nics[h as usize].on_rx_placed(ctx),
            // A timer of a flow whose QPs are released finds no connection and no NIC.
            Event::QpTimer(f) => {
                let src = ctx.conns.get(FlowId(f)).src;
                if let Some(n) = nics.get_mut(src as usize) {
                    n.on_qp_timer(f, ctx)
                }
            }
            Event::CcTimer(f) => {
                let src = ctx.conns.get(FlowId(f)).src;
                if let Some(n) = nics.get_mut(src as usize) {
                    n.on_cc_timer(f, ctx)
                }
            }
            Event::BitmapRead(h) => nics[h as usize].on_bitmap_read(ctx),
            Event::NicWatchdog(h) => nics[h as usize].on_storm_check(ctx),
            Event::CipRetry(p) => {
                if let (NodeRef::Switch(s), l) = loc.get(PortId(p)) {
                    sw[s as usize].on_cip_retry(l, ctx);
                }
            }
            Event::WatchdogPoll(s) => sw[s as usize].on_watchdog_poll(ctx),
            Event::FlowStart => {
                self.global_events += 1;
                self.on_flow_start();
                self.check_in = 1;
            }
            Event::StartChained(f) => {
                self.global_events += 1;
                self.activate_flow(f, None);
                self.check_in = 1;
            }
            Event::DeadlockCheck => {
                self.on_deadlock_check();
                self.check_in = 1;
            }
            Event::Reroute => {
                self.global_events += 1;
                self.reroute()
            }
            Event::Sample => {
                self.global_events += 1;
                self.on_sample();
                self.check_in = 1;
                self.sampled = true;
            }
            Event::Fault { index, start } => {
                self.global_events += 1;
                self.on_fault(index, start)
            }
        }
        if !self.ctx.monitor.completed.is_empty() {
            self.on_completions();
            self.check_in = 1;
        }
    }

    /// Frame `pkt`, sent by port `p`, reaches the peer port; true if a host took it. With
    /// `tracked` wires (links can go down) the frame must still be the wire's head: a frame
    /// dropped when its link went down has no head entry any more, and its arrival does
    /// nothing.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn on_link_arrive<const AHEAD: bool, const PLAIN: bool>(
        p: PortId,
        pkt: u32,
        out: u16,
        tracked: bool,
        sw: &mut [Switch],
        nics: &mut [Nic],
        loc: &PortLocs,
        ctx: &mut Ctx,
    ) -> bool {
        if tracked {
            let port: &mut Port = match loc.get(p) {
                (NodeRef::Switch(s), l) => &mut sw[s as usize].ports[l as usize],
                (NodeRef::Host(h), _) => &mut nics[h as usize].port,
            };
            if port.wire.in_flight.front() != Some(&(ctx.now, pkt)) {
                return false;
            }
            port.wire.pop();
        }
        ctx.monitor.totals.packet_hops += 1;
        match loc.get(p.peer()) {
            (NodeRef::Switch(s), l) => {
                handle::at_mut(sw, s as usize).on_arrive::<AHEAD, PLAIN>(l, pkt, out, ctx);
                false
            }
            (NodeRef::Host(h), _) => {
                handle::at_mut(nics, h as usize).on_arrive(pkt, ctx);
                true
            }
        }
    }

    /// A read-only view of every port.
    pub(crate) fn ports(&self) -> PortView<'_> {
        PortView {
            switches: &self.switches,
            nics: &self.nics,
            loc: &self.port_loc,
        }
    }

    /// Settle every port's open transmit account into the monitor (`Port::settle_tx`):
    /// before anything reads the per-(port, priority) transmit table.
    pub(crate) fn settle_tx(&mut self) {
        let monitor = &mut self.ctx.monitor;
        for s in &mut self.switches {
            for port in s.ports.iter_mut() {
                port.settle_tx(monitor);
            }
        }
        for n in &mut self.nics {
            n.port.settle_tx(monitor);
        }
        monitor.assert_settled();
    }

    fn on_deadlock_check(&mut self) {
        self.settle_tx();
        let now = self.now();
        let next = now + self.detector.interval;
        if next <= self.end {
            self.ctx.events.schedule(next, Event::DeadlockCheck);
        }
        let view = PortView {
            switches: &self.switches,
            nics: &self.nics,
            loc: &self.port_loc,
        };
        let found = self
            .detector
            .check(now, view, &self.ctx.monitor, &self.ctx.packets);
        if found && self.scenario.sim.stop_on_deadlock {
            self.stop_requested = true;
        }
    }

    fn on_sample(&mut self) {
        let now = self.now();
        if self.sampler.counters.is_due(now) {
            self.settle_tx();
        }
        let (nics, conns) = (&self.nics, &self.ctx.conns);
        let cc = |f: u32| flow_cc(nics, conns, f);
        let role = |f: u32| flow_role(self.part.as_deref(), conns, f);
        let flows = &mut self.ctx.monitor.flows;
        (self.sampler).sample(now, flows, cc, role, &self.switches);
        (self.sampler.counters).sample_due(now, &self.switches, &self.ctx.monitor);
        let next = self.sampler.first();
        if next <= self.end {
            self.ctx.events.schedule(next, Event::Sample);
        }
    }

    /// A last throughput sample at the end of the run, so the series covers it.
    pub(crate) fn sample_final(&mut self) {
        self.settle_tx();
        let now = self.now();
        if self.sampler.throughput_interval.is_some() && now > self.sampler.last {
            let (nics, conns) = (&self.nics, &self.ctx.conns);
            let cc = |f: u32| flow_cc(nics, conns, f);
            let role = |f: u32| flow_role(self.part.as_deref(), conns, f);
            let flows = &mut self.ctx.monitor.flows;
            (self.sampler).sample_throughput(now, flows, cc, role);
        }
        (self.sampler.counters).sample_final(now, &self.switches, &self.ctx.monitor);
    }

    fn open_stats_window(&mut self) {
        self.settle_tx();
        self.warmup_done = true;
        self.ctx.monitor.open_stats_window();
    }
}

/// Which ends of flow `f` a world simulates: both, unless it is `part` of a split run.
fn flow_role(part: Option<&partition::Part>, conns: &ConnTable, f: u32) -> Role {
    let Some(part) = part else {
        return Role::WHOLE;
    };
    let c = conns.get(crate::ids::FlowId(f));
    let here = |h: u32| (part.owners.hosts.get(h as usize)) == Some(&part.index);
    Role {
        send: here(c.src),
        recv: here(c.dst),
    }
}

/// The congestion-control rate and window of flow `f`'s requester, if it has started.
fn flow_cc(nics: &[Nic], conns: &ConnTable, f: u32) -> (Option<crate::units::Rate>, Option<u64>) {
    let c = conns.get(crate::ids::FlowId(f));
    match (nics.get(c.src as usize)).and_then(|n| n.senders.get(c.send.0)) {
        Some(r) if r.flow == f => (r.sq.cc.rate(), r.sq.cc.window()),
        _ => (None, None),
    }
}

/// Start loading the first line of egress port `out` of the switch that port `from` sends to
/// (nothing when `out` is [`NO_OUT`] or that end is a host). A hint only.
#[inline(always)]
fn prefetch_egress(sw: &[Switch], loc: &PortLocs, from: PortId, out: u16) {
    if out == NO_OUT {
        return;
    }
    if let (NodeRef::Switch(s), _) = loc.get(from.peer()) {
        if let Some(s) = sw.get(s as usize) {
            s.prefetch_port(out);
        }
    }
}
