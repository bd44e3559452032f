//! A partitioned run (`sim.threads = N`, issue 17): the fabric split into N parts
//! (`sim/partition.rs`), each a world of its own on its own thread, run in windows of one
//! lookahead with conservative synchronisation, then merged into one world for the results.
//!
//! Every part builds the whole world from the scenario but simulates only its own nodes:
//! its event queue holds their events only. Flow starts are the one event every part
//! handles: each opens both ends of every flow (the bookkeeping is the same everywhere), but
//! only the sender's part lets the NIC send. A frame or PFC frame for another part's node
//! goes to the outbox (`engine/remote.rs`). At the end of each window the parts swap
//! outboxes at a barrier; since an event's key names its component, not who scheduled it,
//! each part runs its events in the order one thread would, and the results are
//! byte-identical to one thread's.
//!
//! What needs the whole fabric at one instant happens between windows. The deadlock
//! detector: windows end at its checks, each part reports its stuck queues and part 0 looks
//! for cycles among them. Faults: windows end before each, and every part applies it. The
//! samplers: every part samples what it simulates at the same instants, and the rows are
//! joined (`monitor/split_samples.rs`). A chained flow: the part that sees its predecessor
//! complete tells the others (its sender's part must be that one, or the gap at least the
//! lookahead: [`chained_too_soon`]).
//!
//! A run that would stop early because every flow is done (`sim.stop_when_done`) is
//! noticed at the window where that happens and run again on one thread, since one thread
//! stops at the very event that completes the last flow and the parts have run past it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::partition::{self, Owners, Part};
use super::{BuildError, Progress, Sim};
use crate::config::Scenario;
use crate::engine::barrier::{PoisonOnPanic, SpinBarrier};
use crate::engine::{Event, FlowWindow, Remote};
use crate::ids::PortId;
use crate::monitor::deadlock::Waits;
use crate::monitor::view::PortView;
use crate::packet::Packet;
use crate::units::Time;

/// What the parts of a partitioned run held of packets at its end, added up before their
/// components were gathered into one world (a component's packet handles name its own
/// part's arena).
#[derive(Debug)]
pub(crate) struct Merged {
    /// Payload bytes of each flow's data packets inside the network.
    pub inflight: FlowWindow<u64>,
    /// The frames on the wires, with the port that sent each.
    pub on_wires: Vec<(PortId, Packet)>,
}

/// A flow chained (`after`) to one whose sender another part simulates must start at least
/// one lookahead after it completes: that part learns of the completion at the end of the
/// window. The message names the first such flow and counts them.
pub(super) fn chained_too_soon(
    sc: &Scenario,
    owners: &Owners,
    lookahead: Option<Time>,
) -> Option<String> {
    let l = lookahead?;
    let part = |h: u32| owners.hosts.get(h as usize).copied();
    let bad: Vec<(usize, u32)> = (sc.flows.iter().enumerate())
        .filter_map(|(d, f)| f.after.map(|a| (d, a)))
        .filter(|&(d, a)| {
            let (f, prev) = (&sc.flows[d], sc.flows.get(a as usize));
            prev.is_some_and(|p| part(p.src) != part(f.src) && f.start < l)
        })
        .collect();
    let &(d, a) = bad.first()?;
    let host = |f: usize| &sc.topology.hosts[sc.flows[f].src as usize].name;
    Some(format!(
        "after (of a [[flow]], or a [[workload]]'s queue_depth): flow {d} (from host `{}`) starts {} after flow {a} (from host `{}`) \
         completes, and the two senders are in different parts of the fabric (sim.threads = \
         {}), which must be at least the lookahead ({l}) apart ({} such flows); start the \
         chained flows from the same host, or set sim.threads = 1",
        host(d),
        sc.flows[d].start,
        host(a as usize),
        sc.sim.threads,
        bad.len()
    ))
}

impl Sim {
    /// Make this world part `index` of a partitioned run: check that the scenario can be
    /// split, split it, and mark the wires that cross a cut.
    pub(super) fn become_part(&mut self, index: u16) -> Result<(), BuildError> {
        let owners = partition::split(self, self.scenario.sim.threads);
        let lookahead = partition::lookahead(self, &owners);
        if lookahead == Some(Time::ZERO) {
            return Err(BuildError(vec![format!(
                "sim.threads: a link with no propagation delay joins two parts of the fabric \
                 (sim.threads = {}), so the parts could not run ahead of each other; give \
                 the links a delay, or set sim.threads = 1",
                self.scenario.sim.threads
            )]));
        }
        if let Some(e) = chained_too_soon(&self.scenario, &owners, lookahead) {
            return Err(BuildError(vec![e]));
        }
        partition::cut_wires(self, &owners);
        self.part = Some(Box::new(Part { index, owners }));
        self.sampler.split = Some(Box::default());
        Ok(())
    }

    /// Run this part (0) and the others, each on a thread, to the end; return the merged
    /// world (or the world run again on one thread, see the module doc).
    pub(crate) fn run_parts(self, progress: &mut dyn FnMut(Progress) -> bool) -> Sim {
        let sc = self.scenario.clone();
        let n = sc.sim.threads as usize;
        let Some(part) = self.part.as_deref() else {
            return self;
        };
        let owners = part.owners.clone();
        let window = partition::lookahead(&self, &owners).unwrap_or(Time::NEVER);
        let sync = Sync::new(n, self.starts.finite_left, owners);
        let rest: Vec<Sim> = std::thread::scope(|s| {
            let sc = &sc;
            let built: Vec<_> = (1..n as u16)
                .map(|i| s.spawn(move || build_part(sc.clone(), i)))
                .collect();
            built
                .into_iter()
                .filter_map(|h| h.join().ok().flatten())
                .collect()
        });
        if rest.len() + 1 != n {
            return self.on_one_thread(progress);
        }
        let parts = std::thread::scope(|s| {
            let sync = &sync;
            let handles: Vec<_> = (rest.into_iter())
                .map(|p| s.spawn(move || p.run_part(sync, window, &mut |_| true)))
                .collect();
            let mut parts = vec![self.run_part(sync, window, progress)];
            parts.extend(handles.into_iter().filter_map(|h| h.join().ok()));
            parts
        });
        if parts.len() != n {
            return one_thread(sc, progress);
        }
        if sync.all_done.load(Ordering::Relaxed) {
            let mut sim = one_thread(sc, progress);
            sim.thread_stats = Some(Box::new(crate::monitor::ThreadStats {
                repeated: true,
                ..Default::default()
            }));
            return sim;
        }
        let stats = crate::monitor::ThreadStats {
            windows: sync.windows.load(Ordering::Relaxed),
            cut_frames: sync.cut_frames.load(Ordering::Relaxed),
            lookahead_ns: (window != Time::NEVER).then(|| window.ns()),
            ..Default::default()
        };
        super::merge::merge(parts, sync.finite, stats)
    }

    /// This world, built again without parts and run on one thread.
    fn on_one_thread(self, progress: &mut dyn FnMut(Progress) -> bool) -> Sim {
        one_thread(self.scenario, progress)
    }

    /// Run this part window by window to the end, exchanging outboxes with the other parts
    /// at a barrier after each window.
    fn run_part(
        mut self,
        sync: &Sync,
        window: Time,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Sim {
        let me = self.part.as_ref().map_or(0, |p| p.index) as usize;
        // A panic here must not leave the other parts waiting at the barrier.
        let _poison = PoisonOnPanic(&sync.barrier);
        // The parts stop together, at a window's end.
        let stop_when_done = std::mem::replace(&mut self.scenario.sim.stop_when_done, false);
        let mut keep = |p: Progress| {
            if !progress(p) {
                sync.stop.store(true, Ordering::Relaxed);
            }
            true
        };
        let mut marks = Marks::of(&self);
        let mut from = Time::ZERO;
        loop {
            // The statistics window opens before the first event at or after the warm-up,
            // when every part has run every event before it.
            if !self.warmup_done && from >= marks.warmup {
                self.open_stats_window();
            }
            let to = marks.window_end(from, window);
            self.run_until(Time(to.0 - 1), &mut super::ProgressFn(&mut keep));
            if me == 0 {
                sync.windows.fetch_add(1, Ordering::Relaxed);
            }
            self.post(sync, me);
            sync.barrier.wait();
            self.collect(sync, me, to);
            let stop = sync.stop.load(Ordering::Relaxed);
            let done = stop_when_done && sync.all_flows_done(&self);
            sync.next[me].store(self.ctx.events.next_bound().0, Ordering::Relaxed);
            sync.barrier.wait();
            let idle_until = (sync.next.iter()).map(|t| t.load(Ordering::Relaxed)).min();
            if to.0 - 1 == marks.check_at.0 {
                let deadlock = self.check_deadlocks(sync, me, marks.check_at);
                marks.check_at += marks.interval;
                if deadlock {
                    self.ctx.events.advance_to(Time(to.0 - 1));
                    self.stop_requested = true;
                    break;
                }
            }
            if stop || done || to > marks.end {
                self.interrupted = stop;
                sync.all_done.store(done && !stop, Ordering::Relaxed);
                break;
            }
            let idle_until = Time(idle_until.unwrap_or(u64::MAX));
            from = marks.next_start(to, idle_until, self.warmup_done);
        }
        if !self.interrupted && !self.stop_requested {
            self.ctx.events.advance_to(marks.end);
        }
        if !self.warmup_done {
            self.open_stats_window();
        }
        self.sample_final();
        self.scenario.sim.stop_when_done = stop_when_done;
        self
    }

    /// The deadlock check due at `now`, which every part has run up to: each part finds
    /// its stuck nodes and their waits, and part 0 (which keeps the detector's cycles) looks
    /// for cycles among them all. True when the run stops on a deadlock found now
    /// (`sim.stop_on_deadlock`).
    fn check_deadlocks(&mut self, sync: &Sync, me: usize, now: Time) -> bool {
        self.settle_tx();
        if me == 0 {
            // One event on one thread.
            self.events += 1;
            (sync.watching).store(!self.detector.idle(0), Ordering::Relaxed);
        }
        let paused = self.ctx.monitor.paused_count as usize;
        sync.paused[me].store(paused, Ordering::Relaxed);
        sync.barrier.wait();
        let paused: usize = sync.paused.iter().map(|p| p.load(Ordering::Relaxed)).sum();
        if paused == 0 && !sync.watching.load(Ordering::Relaxed) {
            sync.barrier.wait();
            return false;
        }
        let ports = PortView {
            switches: &self.switches,
            nics: &self.nics,
            loc: &self.port_loc,
        };
        let mine = (self.detector).local(ports, &self.ctx.monitor, Some(&self.ctx.packets));
        if let Ok(mut w) = sync.waits.lock() {
            w[me] = mine;
        }
        sync.barrier.wait();
        if me == 0 {
            let parts = sync.waits.lock().map(|mut w| std::mem::take(&mut *w));
            let w = Waits::join(parts.unwrap_or_default());
            let found = self.detector.conclude(now, &w, |c| w.flows_of(c));
            let stop = found && self.scenario.sim.stop_on_deadlock;
            sync.deadlock.store(stop, Ordering::Relaxed);
            if let Ok(mut w) = sync.waits.lock() {
                w.resize_with(sync.paused.len(), Waits::default);
            }
        }
        sync.barrier.wait();
        sync.deadlock.load(Ordering::Relaxed)
    }

    /// Hand this window's outbox to the parts it names; report the flows completed here.
    fn post(&mut self, sync: &Sync, me: usize) {
        let n = sync.left.len();
        let mut out = std::mem::take(&mut self.ctx.outbox);
        let frames = (out.iter())
            .filter(|m| !matches!(m.ev, Event::StartChained(_)))
            .count();
        sync.cut_frames.fetch_add(frames as u64, Ordering::Relaxed);
        for m in out.drain(..) {
            let to = match m.ev {
                Event::LinkArrive { port, .. } => PortId(port).peer(),
                Event::PauseArrive { port, .. } => PortId(port),
                _ => {
                    // A chained flow's start: every other part.
                    for to in (0..n).filter(|&to| to != me) {
                        if let Ok(mut b) = sync.boxes[to * n + me].lock() {
                            b.push(m.clone());
                        }
                    }
                    continue;
                }
            };
            let to = sync.owners.of_port(&self.port_loc, to) as usize;
            if let Ok(mut b) = sync.boxes[to * n + me].lock() {
                b.push(m);
            }
        }
        self.ctx.outbox = out;
        sync.left[me].store(self.starts.finite_left, Ordering::Relaxed);
    }

    /// Schedule what the other parts sent here, in the order of the parts. A chained flow
    /// that started before this window's end (`to`) is started now as of its start.
    fn collect(&mut self, sync: &Sync, me: usize, to: Time) {
        let n = sync.left.len();
        for from in 0..n {
            let Ok(mut b) = sync.boxes[me * n + from].lock() else {
                continue;
            };
            for m in b.drain(..) {
                if let (Event::StartChained(d), true) = (m.ev, m.at < to) {
                    self.events += 1;
                    self.global_events += 1;
                    self.activate_flow_at(d, None, m.at);
                    continue;
                }
                let sender = match m.ev {
                    Event::LinkArrive { port, .. } => Some(PortId(port)),
                    _ => None,
                };
                let frame = self.ctx.receive_remote(m);
                // With links that can go down, the receiving part keeps the frames on a cut
                // wire (see `Sim::set_link`).
                if let (Some(p), Some((at, pkt)), true) = (sender, frame, self.wires_tracked) {
                    self.port_mut(p).wire.push(at, pkt);
                }
            }
        }
    }

    /// When the scenario's faults start and clear, ascending.
    fn fault_times(&self) -> Vec<Time> {
        let f = self.scenario.faults.iter();
        let mut t: Vec<Time> = f.flat_map(|f| [Some(f.at), f.until]).flatten().collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// The packets this part holds, as the merged world counts them.
    pub(super) fn held(&self) -> Merged {
        let on_wires = self.wire_frames();
        Merged {
            inflight: self.inflight_by_flow(),
            on_wires,
        }
    }
}

/// Build part `index` of the run of `sc` (`None` if it cannot be built, which the first
/// part's build rules out).
fn build_part(sc: Scenario, index: u16) -> Option<Sim> {
    Sim::build(sc, index).ok()
}

/// `sc` built without parts and run on one thread.
fn one_thread(mut sc: Scenario, progress: &mut dyn FnMut(Progress) -> bool) -> Sim {
    sc.sim.threads = 1;
    match Sim::new(sc) {
        Ok(mut sim) => {
            sim.run(progress);
            sim
        }
        Err(e) => unreachable!("a scenario built once builds again: {e:?}"),
    }
}

/// The instants a window must end before: the run's end, the warm-up, the faults (every
/// part applies a fault at once), and the deadlock checks (windows end just after them).
struct Marks {
    end: Time,
    warmup: Time,
    /// Fault starts and ends, ascending.
    faults: Vec<Time>,
    /// The next deadlock check (`NEVER`: off).
    check_at: Time,
    /// Between deadlock checks.
    interval: Time,
}

impl Marks {
    fn of(sim: &Sim) -> Marks {
        let interval = sim.detector.interval;
        Marks {
            end: sim.end,
            warmup: sim.scenario.sim.warmup,
            faults: sim.fault_times(),
            check_at: if interval > Time::ZERO {
                interval
            } else {
                Time::NEVER
            },
            interval,
        }
    }

    /// The end (exclusive) of the window that starts at `from`, at most `window` long.
    fn window_end(&self, from: Time, window: Time) -> Time {
        let mut to = Time(
            from.0
                .saturating_add(window.0)
                .min(self.end.0.saturating_add(1)),
        );
        if from < self.warmup {
            to = to.min(self.warmup);
        }
        if self.check_at <= self.end {
            to = to.min(Time(self.check_at.0 + 1));
        }
        if let Some(&t) = self.faults.iter().find(|&&t| t > from) {
            to = to.min(t);
        }
        to
    }

    /// Where the next window starts after one that ended at `to`: no part has an event
    /// before `idle_until`, but a window must start at each mark.
    fn next_start(&self, to: Time, idle_until: Time, warmup_done: bool) -> Time {
        let mut must = self.check_at.min(Time(self.end.0 + 1));
        let fault = self.faults.iter().copied().find(|&t| t > to);
        must = must.min(fault.unwrap_or(Time::NEVER));
        if !warmup_done && self.warmup > to {
            must = must.min(self.warmup);
        }
        to.max(idle_until.min(must))
    }
}

/// What the parts share: the outboxes (part `to` × parts + part `from`), a barrier, the
/// finite flows each part has left, and whether to stop.
struct Sync {
    boxes: Vec<Mutex<Vec<Remote>>>,
    barrier: SpinBarrier,
    left: Vec<AtomicUsize>,
    /// Finite flows at the start (each part counts down those its senders complete).
    finite: usize,
    owners: Owners,
    stop: AtomicBool,
    all_done: AtomicBool,
    /// No event of each part is due before this time (ps), after a window's exchange.
    next: Vec<AtomicU64>,
    /// Egress priorities paused in each part (at a deadlock check).
    paused: Vec<AtomicUsize>,
    /// Part 0's detector watches a cycle.
    watching: AtomicBool,
    /// Each part's stuck nodes and waits (at a deadlock check).
    waits: Mutex<Vec<Waits>>,
    /// A deadlock was found and the run stops on it.
    deadlock: AtomicBool,
    /// Windows run (counted by part 0).
    windows: AtomicU64,
    /// Frames handed from one part to another.
    cut_frames: AtomicU64,
}

impl Sync {
    fn new(n: usize, finite: usize, owners: Owners) -> Sync {
        Sync {
            boxes: (0..n * n).map(|_| Mutex::new(Vec::new())).collect(),
            barrier: SpinBarrier::new(n),
            left: (0..n).map(|_| AtomicUsize::new(finite)).collect(),
            finite,
            owners,
            stop: AtomicBool::new(false),
            all_done: AtomicBool::new(false),
            paused: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            next: (0..n).map(|_| AtomicU64::new(0)).collect(),
            watching: AtomicBool::new(false),
            waits: Mutex::new(vec![Waits::default(); n]),
            deadlock: AtomicBool::new(false),
            windows: AtomicU64::new(0),
            cut_frames: AtomicU64::new(0),
        }
    }

    /// Every finite flow has completed in some part, and none is long-lived or still to
    /// start (what `FlowStarts::all_done` says on one thread).
    fn all_flows_done(&self, sim: &Sim) -> bool {
        let completed: usize = (self.left.iter())
            .map(|l| self.finite - l.load(Ordering::Relaxed))
            .sum();
        let mut starts_left = sim.starts.next < sim.starts.order.len();
        starts_left |= sim.starts.streams.iter().any(|s| s.head.is_some());
        completed >= self.finite && !sim.starts.has_infinite && !starts_left
    }
}
