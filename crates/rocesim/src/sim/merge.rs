//! Merging the parts of a run split across threads (`sim.threads`, `sim/threads.rs`) into
//! one world for the results: each switch and NIC from the part that simulated it, the
//! recorders added up (`monitor/merge.rs`), the time series joined in one thread's order
//! (`monitor/split_samples.rs`), and what the parts held of packets counted before their
//! components leave them (a component's packet handles name its own part's arena).

use super::threads::Merged;
use super::Sim;
use crate::ids::PortId;
use crate::monitor::split_samples::{self, SplitSamples};
use crate::monitor::ThreadStats;

/// Gather the parts' components and records into part 0's world.
pub(super) fn merge(parts: Vec<Sim>, finite: usize, mut stats: ThreadStats) -> Sim {
    let held: Vec<Merged> = parts.iter().map(Sim::held).collect();
    let split: Vec<SplitSamples> = (parts.iter())
        .filter_map(|p| p.sampler.split.as_deref().cloned())
        .collect();
    stats.events = (parts.iter().enumerate())
        .map(|(i, p)| p.events - if i == 0 { 0 } else { p.global_events })
        .collect();
    let mut it = parts.into_iter();
    let Some(mut world) = it.next() else {
        unreachable!("a partitioned run has parts")
    };
    let owners = world.part.take().map(|p| p.owners);
    let Some(owners) = owners else {
        return world;
    };
    let n = stats.events.len();
    let count = |of: &[u16]| {
        (0..n)
            .map(|i| of.iter().filter(|&&o| o as usize == i).count() as u32)
            .collect()
    };
    stats.hosts = count(&owners.hosts);
    stats.switches = count(&owners.switches);
    world.thread_stats = Some(Box::new(stats));
    for (i, mut p) in it.enumerate() {
        let i = (i + 1) as u16;
        for (s, _) in owners.switches.iter().enumerate().filter(|(_, &o)| o == i) {
            std::mem::swap(&mut world.switches[s], &mut p.switches[s]);
        }
        for (h, _) in owners.hosts.iter().enumerate().filter(|(_, &o)| o == i) {
            std::mem::swap(&mut world.nics[h], &mut p.nics[h]);
        }
        let loc = &world.port_loc;
        let theirs = |port: PortId| owners.of_port(loc, port) == i;
        world.ctx.monitor.merge(&p.ctx.monitor, theirs);
        world.events += p.events - p.global_events;
        world.starts.finite_left -= finite - p.starts.finite_left;
        world.interrupted |= p.interrupted;
        let (a, b) = (&mut world.sampler, &mut p.sampler);
        a.queues.append(&mut b.queues);
        a.rates.append(&mut b.rates);
        a.counters.rows.append(&mut b.counters.rows);
    }
    let s = &mut world.sampler;
    split_samples::sort_queue_rows(&mut s.queues, &world.port_loc);
    split_samples::sort_rate_rows(&mut s.rates);
    split_samples::sort_counter_rows(&mut s.counters.rows, &world.port_loc);
    if s.split.take().is_some() {
        s.throughput = SplitSamples::throughput(&split, &world.ctx.monitor.flows);
    }
    world.ctx.monitor.sort_logs();
    let mut all = held.into_iter();
    let mut m = all.next().unwrap_or_else(|| unreachable!());
    for h in all {
        for f in m.inflight.base()..m.inflight.end() {
            m.inflight[f] += h.inflight.get(f).copied().unwrap_or(0);
        }
        m.on_wires.extend(h.on_wires);
    }
    world.merged = Some(Box::new(m));
    world
}
