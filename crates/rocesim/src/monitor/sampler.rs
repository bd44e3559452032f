//! Periodic samplers: per-flow throughput (with each QP's congestion-control rate and
//! window) and switch egress queue depths. They run on their own timer event and cost
//! nothing when their interval is off.

use super::recorder::FlowRecord;
use crate::engine::FlowWindow;
use crate::fabric::switch::Switch;
use crate::ids::{PortId, QueueId};
use crate::units::{Rate, Time};

/// Sampler state and the samples taken.
#[derive(Debug, Default)]
pub struct Sampler {
    /// Throughput sampling interval (`None`: off).
    pub throughput_interval: Option<Time>,
    /// Queue sampling interval (`None`: off).
    pub queue_interval: Option<Time>,
    /// When the previous throughput sample was taken.
    pub last: Time,
    /// Next throughput sample (`NEVER`: off).
    pub next_tput: Time,
    /// Next queue sample (`NEVER`: off).
    pub next_queue: Time,
    /// (time, flow, Gb/s delivered over the interval).
    pub throughput: Vec<(Time, u32, f64)>,
    /// (time, port, queue, bytes) of every non-empty switch queue.
    pub queues: Vec<(Time, PortId, QueueId, u64)>,
    /// (time, flow, CC rate Gb/s or NaN, CC window bytes or 0).
    pub rates: Vec<(Time, u32, f64, u64)>,
    /// Each flow's `delivered` at the previous throughput sample.
    delivered_at_sample: FlowWindow<u64>,
    /// Switch counters over time (`output.counters_interval`).
    pub counters: super::counter_sampler::CounterSampler,
    /// Switch (port, queue)s seen non-empty at some sample: reported at every sample after,
    /// empty or not, so a plot never draws a ramp across an empty spell.
    seen: Vec<u8>,
    /// In one part of a run split across threads: what this part sees of the flows'
    /// throughput, joined with the other parts' when they are merged.
    pub split: Option<Box<super::split_samples::SplitSamples>>,
}

/// Which ends of a flow the sampling world simulates (both, unless it is one part of a run
/// split across threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// The sender: it knows the flow's completion and congestion control.
    pub send: bool,
    /// The receiver: it counts the flow's delivered bytes.
    pub recv: bool,
}

impl Role {
    /// Both ends.
    pub const WHOLE: Role = Role {
        send: true,
        recv: true,
    };
}

impl Sampler {
    /// A sampler with these intervals (switch counters off).
    pub fn new(throughput: Option<Time>, queues: Option<Time>) -> Self {
        Sampler {
            throughput_interval: throughput,
            queue_interval: queues,
            next_tput: throughput.unwrap_or(Time::NEVER),
            next_queue: queues.unwrap_or(Time::NEVER),
            counters: super::counter_sampler::CounterSampler::new(None),
            ..Default::default()
        }
    }

    /// When the next sample of any kind is due (`NEVER`: no sampling).
    pub fn first(&self) -> Time {
        self.next_tput.min(self.next_queue).min(self.counters.next)
    }

    /// Take the throughput and queue samples due at `now`; returns when the next of them is
    /// due (switch counters are sampled apart, by [`Sampler::counters`]). `cc(flow)` gives a flow's
    /// congestion-control rate and window.
    pub fn sample(
        &mut self,
        now: Time,
        flows: &mut FlowWindow<FlowRecord>,
        cc: impl Fn(u32) -> (Option<Rate>, Option<u64>),
        role: impl Fn(u32) -> Role,
        switches: &[Switch],
    ) -> Time {
        if now >= self.next_tput {
            self.sample_throughput(now, flows, cc, role);
            self.next_tput = now + self.throughput_interval.expect("scheduled");
        }
        if now >= self.next_queue {
            self.sample_queues(now, switches);
            self.next_queue = now + self.queue_interval.expect("scheduled");
        }
        self.next_tput.min(self.next_queue)
    }

    /// Delivered throughput of every flow active in (last, now]. `role(flow)` says which
    /// ends of the flow this world simulates: a part of a split run records the delivered
    /// counts of the flows it receives (`split`) and the rates of those it sends, and the
    /// throughput rows are made when the parts are merged
    /// ([`super::split_samples::SplitSamples::throughput`]).
    pub fn sample_throughput(
        &mut self,
        now: Time,
        flows: &mut FlowWindow<FlowRecord>,
        cc: impl Fn(u32) -> (Option<Rate>, Option<u64>),
        role: impl Fn(u32) -> Role,
    ) {
        let dt = now.saturating_sub(self.last);
        if dt == Time::ZERO {
            return;
        }
        let last = self.last;
        // Flows the run no longer holds were over before the last sample.
        let seen = &mut self.delivered_at_sample;
        seen.release_below(flows.base());
        seen.extend_to(flows.end(), 0);
        let mut split = self.split.take();
        for (i, f) in flows.iter_mut() {
            let active = f.start < now && f.done_at().is_none_or(|d| d > last);
            let r = role(i);
            if let Some(s) = split
                .as_mut()
                .filter(|_| r.recv && f.c.delivered != seen[i])
            {
                s.delivered.push((now, i, f.c.delivered));
            }
            if active && split.is_none() {
                let bytes = f.c.delivered.saturating_sub(seen[i]);
                self.throughput.push((now, i, gbps(bytes, dt)));
            }
            if active && r.send {
                let (rate, window) = cc(i);
                if rate.is_some() || window.is_some() {
                    let gbps = rate.map_or(f64::NAN, |r| r.gbps_f64());
                    self.rates.push((now, i, gbps, window.unwrap_or(0)));
                }
            }
            seen[i] = f.c.delivered;
        }
        if let Some(s) = split.as_mut() {
            s.times.push(now);
        }
        self.split = split;
        self.last = now;
    }

    fn sample_queues(&mut self, now: Time, switches: &[Switch]) {
        for sw in switches {
            for port in &sw.ports {
                let i = port.id.idx();
                if self.seen.len() <= i {
                    self.seen.resize(i + 1, 0);
                }
                self.seen[i] |= port.nonempty;
                let mut m = self.seen[i];
                while m != 0 {
                    let q = QueueId(m.trailing_zeros() as u8);
                    m &= m - 1;
                    let bytes = sw.mmu.queue_bytes(port.local as usize, q);
                    self.queues.push((now, port.id, q, bytes));
                }
            }
        }
    }
}

/// `bytes` delivered over `dt`, in Gb/s.
pub(super) fn gbps(bytes: u64, dt: Time) -> f64 {
    bytes as f64 * 8.0 / (dt.ps() as f64 * 1e-12) * 1e-9
}
