//! The time series of a run split across threads (`sim.threads`), joined. Each part samples
//! what it simulates, at the same instants as one thread would (a sample is the last event of
//! its picosecond, and every part has run all events up to it): the queues and counters of
//! its switches, the rates of the flows it sends, and the delivered counts of the flows it
//! receives. Joining puts the rows in one thread's order and makes the throughput rows, which
//! need both ends of a flow: its delivered bytes (receiver) and whether it was still running
//! (its completion, seen by the sender; known to all once the run is over).

use super::counter_sampler::CounterSnapshot;
use super::recorder::FlowRecord;
use super::sampler::gbps;
use crate::engine::FlowWindow;
use crate::ids::{PortId, QueueId};
use crate::topology::{NodeRef, PortLocs};
use crate::units::Time;

/// What one part saw of the flows' throughput.
#[derive(Clone, Debug, Default)]
pub struct SplitSamples {
    /// The throughput sampling instants, in order.
    pub times: Vec<Time>,
    /// (instant, flow, delivered bytes) of each flow this part receives, at the instants
    /// its count had changed since the previous one.
    pub delivered: Vec<(Time, u32, u64)>,
}

impl SplitSamples {
    /// The throughput rows one thread would have taken: at each instant, every flow started
    /// before it and not complete by the previous one, with the bytes it delivered in
    /// between. `parts` are every part's samples, `flows` the merged records.
    pub fn throughput(
        parts: &[SplitSamples],
        flows: &FlowWindow<FlowRecord>,
    ) -> Vec<(Time, u32, f64)> {
        let Some(first) = parts.first() else {
            return Vec::new();
        };
        let mut delivered: Vec<(Time, u32, u64)> = parts
            .iter()
            .flat_map(|p| p.delivered.iter().copied())
            .collect();
        delivered.sort_by_key(|&(t, f, _)| (t, f));
        let (base, end) = (flows.base(), flows.end());
        let mut now_count = vec![0u64; (end - base) as usize];
        let mut seen = now_count.clone();
        let mut next = delivered.iter().peekable();
        let mut rows = Vec::new();
        let mut last = Time::ZERO;
        for &t in &first.times {
            while let Some(&&(_, f, d)) = next.peek().filter(|r| r.0 <= t) {
                if (base..end).contains(&f) {
                    now_count[(f - base) as usize] = d;
                }
                next.next();
            }
            let dt = t.saturating_sub(last);
            for (i, f) in flows.iter() {
                let k = (i - base) as usize;
                if f.start < t && f.done_at().is_none_or(|d| d > last) {
                    let bytes = now_count[k].saturating_sub(seen[k]);
                    rows.push((t, i, gbps(bytes, dt)));
                }
                seen[k] = now_count[k];
            }
            last = t;
        }
        rows
    }
}

/// (switch, local port) of port `p`, for putting rows in one thread's order (switch by
/// switch, port by port).
fn switch_order(loc: &PortLocs, p: PortId) -> (u32, u16) {
    match loc.get(p) {
        (NodeRef::Switch(s), l) => (s, l),
        (NodeRef::Host(h), _) => (u32::MAX, h as u16),
    }
}

/// Put queue samples in one thread's order: by time, switch, port and queue.
pub fn sort_queue_rows(rows: &mut [(Time, PortId, QueueId, u64)], loc: &PortLocs) {
    rows.sort_by_key(|&(t, p, q, _)| (t, switch_order(loc, p), q.0));
}

/// Put counter samples in one thread's order: by time, switch, port and priority.
pub fn sort_counter_rows(rows: &mut [CounterSnapshot], loc: &PortLocs) {
    rows.sort_by_key(|r| (r.time, switch_order(loc, r.port), r.prio.0));
}

/// Put rate samples in one thread's order: by time and flow.
pub fn sort_rate_rows(rows: &mut [(Time, u32, f64, u64)]) {
    rows.sort_by_key(|&(t, f, _, _)| (t, f));
}
