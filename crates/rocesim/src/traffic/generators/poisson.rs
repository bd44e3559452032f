//! Poisson flow arrivals with sizes from a CDF, one seeded stream per host, produced lazily:
//! [`PoissonArrivals`] holds one pending arrival per host and yields the next flow of the
//! workload on demand, so a long run need not hold every flow of the workload at once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::RngExt;

use super::{flow, workload_stream};
use crate::engine::rng::SimRng;
use crate::traffic::cdf::Cdf;
use crate::traffic::flow::FlowSpec;
use crate::units::Time;

/// Poisson arrivals (the generic generator).
#[derive(Clone, Debug)]
pub struct Poisson<'a> {
    /// The sending and receiving hosts.
    pub hosts: &'a [u32],
    /// Each host's link rate in bits/s, in the order of `hosts`.
    pub rates_bps: &'a [f64],
    /// Offered load, a fraction of each host's link rate, in (0, 1].
    pub load: f64,
    /// Arrivals are generated in [0, until).
    pub until: Time,
    /// Flow sizes, drawn with the CDF's sampling semantics.
    pub cdf: &'a Cdf,
}

/// One flow of a Poisson workload: sender and receiver (host ids), size in bytes, start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoissonArrival {
    /// Sending host id.
    pub src: u32,
    /// Receiving host id.
    pub dst: u32,
    /// Message size, bytes (at least 1).
    pub size: u64,
    /// When the flow starts.
    pub start: Time,
}

/// One host's arrival stream: its random stream, mean inter-arrival time (ps) and the time of
/// its last arrival (ps).
#[derive(Clone, Debug)]
struct HostStream {
    rng: SimRng,
    mean_ps: f64,
    t: u64,
}

/// The arrivals of one Poisson workload in (start, src) order, generated one at a time: one
/// pending arrival per host (a heap keyed by (start, src, host index)), its successor drawn
/// when it is taken. Memory is O(hosts), whatever the number of flows. The draws of each
/// host's stream are those of the eager generator, in the same order, so the sequence equals
/// [`poisson`]'s list flow for flow.
#[derive(Clone, Debug)]
pub struct PoissonArrivals {
    hosts: Vec<u32>,
    streams: Vec<HostStream>,
    /// Pending arrival of each host, by index: (destination index, size).
    pending: Vec<(usize, u64)>,
    /// (start ps, src host id, host index) of every host with a pending arrival.
    heap: BinaryHeap<Reverse<(u64, u32, usize)>>,
    until_ps: u64,
    cdf: Cdf,
}

impl PoissonArrivals {
    /// The arrival process of `p` with master seed `seed`, for workload index `id`.
    /// Fewer than two hosts give no flows.
    pub fn new(p: &Poisson<'_>, seed: u64, id: u64) -> PoissonArrivals {
        let mean_bits = p.cdf.mean() * 8.0;
        let n = if p.hosts.len() < 2 { 0 } else { p.hosts.len() };
        let streams = (0..n)
            .map(|i| HostStream {
                rng: workload_stream(seed, id, i as u64),
                mean_ps: mean_bits / (p.rates_bps[i] * p.load) * 1e12,
                t: 0,
            })
            .collect();
        let mut a = PoissonArrivals {
            hosts: p.hosts[..n].to_vec(),
            streams,
            pending: vec![(0, 0); n],
            heap: BinaryHeap::with_capacity(n),
            until_ps: p.until.ps(),
            cdf: p.cdf.clone(),
        };
        (0..n).for_each(|i| a.draw(i));
        a
    }

    /// Draws host `i`'s next arrival (inter-arrival time, destination other than itself,
    /// size) and queues it, unless it falls at or after `until`.
    fn draw(&mut self, i: usize) {
        let n = self.hosts.len();
        let s = &mut self.streams[i];
        let u: f64 = s.rng.random();
        s.t = s.t.saturating_add((-(1.0 - u).ln() * s.mean_ps) as u64);
        if s.t >= self.until_ps {
            return;
        }
        let mut d = s.rng.random_range(0..n - 1);
        if d >= i {
            d += 1;
        }
        let size = (self.cdf.sample(s.rng.random::<f64>()) as u64).max(1);
        self.pending[i] = (d, size);
        self.heap.push(Reverse((s.t, self.hosts[i], i)));
    }

    /// When the next arrival starts, if there is one.
    pub fn peek_start(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse((t, _, _))| Time::from_ps(*t))
    }
}

impl Iterator for PoissonArrivals {
    type Item = PoissonArrival;

    fn next(&mut self) -> Option<PoissonArrival> {
        let Reverse((t, src, i)) = self.heap.pop()?;
        let (d, size) = self.pending[i];
        self.draw(i);
        Some(PoissonArrival {
            src,
            dst: self.hosts[d],
            size,
            start: Time::from_ps(t),
        })
    }
}

/// Poisson flow arrivals at `load` per host: for each host its own stream, exponential
/// inter-arrivals with mean = mean_size × 8 / (rate × load), a uniform destination other than
/// itself among `hosts`, and a size from the CDF (truncated to whole bytes, at least 1). Flows
/// are sorted by (start, src), a host's flows with equal start in the order drawn. Fewer than
/// two hosts give no flows. The list is [`PoissonArrivals`] collected.
pub fn poisson(p: &Poisson<'_>, seed: u64, id: u64, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    PoissonArrivals::new(p, seed, id)
        .map(|a| flow(a.src, a.dst, Some(a.size), a.start, dscp(a.src)))
        .collect()
}
