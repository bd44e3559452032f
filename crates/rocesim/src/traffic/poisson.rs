//! Poisson flow arrivals at a target load, with the exact generator of the HPCC simulator's
//! `traffic_gen` as BENCHMARKS.md defines it: one SplitMix64 stream, per host in order,
//! exponential inter-arrivals with mean = mean_size × 8 / (rate × load), a uniform destination
//! other than the source, and an interpolated CDF size. Same seed, same list, bit for bit.

use super::cdf::Cdf;

/// SplitMix64 (Steele, Lea & Flood 2014) as a stateful generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }
    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform double in [0, 1) from the top 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// One generated flow: start (ns), source and destination (indices into the host list), size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arrival {
    /// Start time, ns.
    pub start_ns: u64,
    /// Source host index.
    pub src: u32,
    /// Destination host index.
    pub dst: u32,
    /// Size, bytes.
    pub size: u64,
}

/// Flows of `hosts` hosts at `load` of `rate_bps`, arriving before `until_ns`, sorted by
/// (start, src, dst, size).
pub fn hpcc_poisson(
    hosts: u32,
    load: f64,
    rate_bps: f64,
    until_ns: u64,
    seed: u64,
    cdf: &Cdf,
) -> Vec<Arrival> {
    let mut rng = SplitMix64::new(seed);
    let mean_ns = cdf.mean() * 8.0 / (rate_bps * load) * 1e9;
    let mut flows = Vec::new();
    if hosts < 2 {
        return flows;
    }
    for h in 0..hosts {
        let mut t: u64 = 0;
        loop {
            t += (-(1.0 - rng.uniform()).ln() * mean_ns) as u64;
            if t >= until_ns {
                break;
            }
            let mut d = (rng.next_u64() % (hosts as u64 - 1)) as u32;
            if d >= h {
                d += 1;
            }
            let size = (cdf.sample(rng.uniform()) as u64).max(1);
            flows.push(Arrival {
                start_ns: t,
                src: h,
                dst: d,
                size,
            });
        }
    }
    flows.sort();
    flows
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn digest(flows: &[Arrival]) -> String {
        let mut h = Sha256::new();
        for f in flows {
            h.update(format!("{} {} {} {}\n", f.start_ns, f.src, f.dst, f.size));
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn reproduces_the_benchmark_flow_lists_bit_for_bit() {
        // BENCHMARKS.md: S1 and S4 digests, counts and byte totals.
        let s1 = hpcc_poisson(128, 0.3, 100e9, 5_000_000, 1, &Cdf::websearch());
        assert_eq!(s1.len(), 1418);
        assert_eq!(s1.iter().map(|f| f.size).sum::<u64>(), 2_237_781_528);
        assert_eq!(
            digest(&s1),
            "82e9bf7a02db035f79272f843b17cd37779e6209a7b8dd1bb605883ca2de91a7"
        );
        let s4 = hpcc_poisson(1024, 0.3, 100e9, 1_000_000, 1, &Cdf::websearch());
        assert_eq!(s4.len(), 2340);
        assert_eq!(s4.iter().map(|f| f.size).sum::<u64>(), 3_663_858_701);
        assert_eq!(
            digest(&s4),
            "9fa9a734be35f16adb7b2aa4e86837123c57149f7449001a59dbbeb6af933154"
        );
    }
}
