//! Poisson flow arrivals with sizes from a CDF, one seeded stream per host.

use rand::RngExt;

use super::{flow, workload_stream};
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

/// Poisson flow arrivals at `load` per host: for each host its own stream, exponential
/// inter-arrivals with mean = mean_size × 8 / (rate × load), a uniform destination other than
/// itself among `hosts`, and a size from the CDF (truncated to whole bytes, at least 1). Flows
/// are sorted by (start, src). Fewer than two hosts give no flows.
pub fn poisson(p: &Poisson<'_>, seed: u64, id: u64, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let n = p.hosts.len();
    let mut flows = Vec::new();
    if n < 2 {
        return flows;
    }
    let mean_bits = p.cdf.mean() * 8.0;
    for (i, (&h, &rate)) in p.hosts.iter().zip(p.rates_bps).enumerate() {
        let mut rng = workload_stream(seed, id, i as u64);
        let mean_ps = mean_bits / (rate * p.load) * 1e12;
        let mut t: u64 = 0;
        loop {
            let u: f64 = rng.random();
            t = t.saturating_add((-(1.0 - u).ln() * mean_ps) as u64);
            if t >= p.until.ps() {
                break;
            }
            let mut d = rng.random_range(0..n - 1);
            if d >= i {
                d += 1;
            }
            let size = (p.cdf.sample(rng.random::<f64>()) as u64).max(1);
            flows.push(flow(h, p.hosts[d], Some(size), Time::from_ps(t), dscp(h)));
        }
    }
    flows.sort_by_key(|f| (f.start, f.src));
    flows
}
