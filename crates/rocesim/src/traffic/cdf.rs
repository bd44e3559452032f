//! Flow-size distributions given as a CDF, with explicit sampling semantics.
//!
//! Two semantics are in use in the literature (VALIDATION.md §9), and they change the mean by
//! up to 2×:
//! - [`Sampling::Interpolated`]: linear interpolation between points. This is what the HPCC
//!   simulator's `traffic_gen` and ns-2's `EmpiricalRandomVariable` (pFabric, pHost) do.
//! - [`Sampling::Step`]: each point is a discrete size with the probability mass of its CDF
//!   step. This is what HomaSim does.
//!
//! The built-in distributions are in [`super::cdf_data`]; files in the HPCC, Homa and pFabric
//! formats are read by [`super::cdf_file`].

use super::cdf_data;

/// How sizes are drawn from a CDF's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Linear interpolation between consecutive points (HPCC `traffic_gen`, ns-2
    /// `EmpiricalRandomVariable`).
    Interpolated,
    /// Each point is a discrete size carrying the mass of its CDF step (HomaSim).
    Step,
}

impl Sampling {
    /// The scenario-file name: `"interpolated"` or `"step"`.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Interpolated => "interpolated",
            Sampling::Step => "step",
        }
    }
}

/// A CDF as (size in bytes, cumulative percent) points, sizes and percents non-decreasing,
/// the last at 100 %, and the semantics used to sample it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    /// The points: (size in bytes, cumulative percent in [0, 100]).
    pub points: Vec<(f64, f64)>,
    /// How [`Cdf::sample`] and [`Cdf::mean`] treat the points.
    pub sampling: Sampling,
}

impl Cdf {
    /// The WebSearch distribution (Alizadeh et al., DCTCP, SIGCOMM 2010) in the form the HPCC
    /// simulator ships (`WebSearch_distribution.txt`): pFabric's 11-point CDF with sizes in
    /// bytes. Mean with interpolated sampling: 1,711,250 B.
    pub fn websearch() -> Cdf {
        Cdf {
            points: vec![
                (0.0, 0.0),
                (10_000.0, 15.0),
                (20_000.0, 20.0),
                (30_000.0, 30.0),
                (50_000.0, 40.0),
                (80_000.0, 53.0),
                (200_000.0, 60.0),
                (1_000_000.0, 70.0),
                (2_000_000.0, 80.0),
                (5_000_000.0, 90.0),
                (10_000_000.0, 97.0),
                (30_000_000.0, 100.0),
            ],
            sampling: Sampling::Interpolated,
        }
    }

    /// A built-in distribution by name (see [`Cdf::BUILTINS`]), with its source's sampling
    /// semantics.
    pub fn builtin(name: &str) -> Option<Cdf> {
        if name == "websearch" {
            return Some(Cdf::websearch());
        }
        let (points, sampling) = match name {
            "datamining" => (cdf_data::DATAMINING, Sampling::Interpolated),
            "fb_hadoop" => (cdf_data::FB_HADOOP, Sampling::Interpolated),
            "fb_webserver" => (cdf_data::FB_WEBSERVER, Sampling::Step),
            "fb_cachefollower" => (cdf_data::FB_CACHEFOLLOWER, Sampling::Step),
            "alistorage" => (cdf_data::ALISTORAGE, Sampling::Interpolated),
            "googlerpc" => (cdf_data::GOOGLERPC, Sampling::Interpolated),
            _ => return None,
        };
        Some(Cdf {
            points: points.to_vec(),
            sampling,
        })
    }

    /// Names of the built-in distributions.
    pub const BUILTINS: &'static [&'static str] = &[
        "websearch",
        "datamining",
        "fb_hadoop",
        "fb_webserver",
        "fb_cachefollower",
        "alistorage",
        "googlerpc",
    ];

    /// The same points with other sampling semantics.
    pub fn with_sampling(mut self, sampling: Sampling) -> Cdf {
        self.sampling = sampling;
        self
    }

    /// Mean size in bytes under this CDF's sampling semantics.
    pub fn mean(&self) -> f64 {
        match self.sampling {
            Sampling::Interpolated => self.mean_interpolated(),
            Sampling::Step => self.mean_step(),
        }
    }

    /// Mean size under interpolated sampling: Σ (x0 + x1)/2 × (y1 − y0) / 100, summed in order
    /// (the HPCC generator's formula; bit-exact for the benchmark flow lists). Mass above the
    /// last point's percent, if any, sits at the last size.
    pub fn mean_interpolated(&self) -> f64 {
        let mut s = 0.0;
        for w in self.points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            s += (x0 + x1) / 2.0 * (y1 - y0);
        }
        if let Some(&(x, y)) = self.points.last() {
            if y < 100.0 {
                s += x * (100.0 - y);
            }
        }
        s / 100.0
    }

    /// Mean size under step sampling: Σ x_i × (y_i − y_{i−1}) / 100 (HomaSim's header mean).
    /// The first point carries its own percent.
    pub fn mean_step(&self) -> f64 {
        let mut s = 0.0;
        let mut prev = 0.0;
        for &(x, y) in &self.points {
            s += x * (y - prev);
            prev = y;
        }
        if prev < 100.0 {
            s += self.points.last().map_or(0.0, |p| p.0) * (100.0 - prev);
        }
        s / 100.0
    }

    /// The size in bytes at uniform draw `u` in [0, 1), under this CDF's sampling semantics.
    pub fn sample(&self, u: f64) -> f64 {
        match self.sampling {
            Sampling::Interpolated => self.sample_interpolated(u),
            Sampling::Step => self.sample_step(u),
        }
    }

    /// Interpolated sampling: interpolate within the first segment whose upper percent is at
    /// or above `u × 100` (the HPCC generator's rule).
    pub fn sample_interpolated(&self, u: f64) -> f64 {
        let y = u * 100.0;
        for w in self.points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if y <= y1 {
                if y1 <= y0 {
                    // A zero-mass segment reached only at its edge.
                    return x1;
                }
                return x0 + (x1 - x0) / (y1 - y0) * (y - y0);
            }
        }
        self.points.last().map_or(0.0, |p| p.0)
    }

    /// Step sampling: the first point whose percent is above `u × 100` (points without mass
    /// are never drawn).
    pub fn sample_step(&self, u: f64) -> f64 {
        let y = u * 100.0;
        let i = self.points.partition_point(|p| p.1 <= y);
        self.points
            .get(i)
            .or(self.points.last())
            .map_or(0.0, |p| p.0)
    }

    /// The fraction of draws below `size` bytes (exact, from the points).
    pub fn fraction_below(&self, size: f64) -> f64 {
        match self.sampling {
            Sampling::Step => {
                let i = self.points.partition_point(|p| p.0 < size);
                if i == 0 {
                    0.0
                } else {
                    self.points[i - 1].1 / 100.0
                }
            }
            Sampling::Interpolated => {
                let mut below = 0.0;
                for w in self.points.windows(2) {
                    let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                    if size >= x1 {
                        below = y1;
                    } else if size > x0 {
                        below = y0 + (y1 - y0) * (size - x0) / (x1 - x0);
                        break;
                    } else {
                        break;
                    }
                }
                below / 100.0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream, StreamKind};
    use rand::RngExt;

    #[test]
    fn websearch_mean_matches_the_published_value() {
        // VALIDATION.md §9: 1.71 MB with interpolation (1,711,250 B computed by hand).
        assert!((Cdf::websearch().mean() - 1_711_250.0).abs() < 1e-6);
    }

    #[test]
    fn sampling_interpolates() {
        let c = Cdf::websearch();
        assert_eq!(c.sample(0.15), 10_000.0);
        assert_eq!(c.sample(0.175), 15_000.0);
        assert_eq!(c.sample(0.0), 0.0);
    }

    #[test]
    fn step_sampling_picks_points() {
        let c = Cdf::websearch().with_sampling(Sampling::Step);
        assert_eq!(c.sample(0.0), 10_000.0);
        assert_eq!(c.sample(0.1499), 10_000.0);
        assert_eq!(c.sample(0.15), 20_000.0);
        assert_eq!(c.sample(0.9999), 30_000_000.0);
        // VALIDATION.md §9: WebSearch (HPCC version), mean (step) 2.43 MB.
        assert!((c.mean() / 2.43e6 - 1.0).abs() < 0.005, "{}", c.mean());
    }

    struct Draws {
        mean: f64,
        below_100k: f64,
        median: f64,
    }

    /// `n` draws from `cdf` with a fixed rocesim stream.
    fn draws(cdf: &Cdf, n: usize) -> Draws {
        let mut rng = stream(42, StreamKind::Workload, 0);
        let mut v: Vec<f64> = (0..n).map(|_| cdf.sample(rng.random::<f64>())).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let below_100k = v.iter().filter(|&&x| x < 100_000.0).count() as f64 / n as f64;
        v.sort_by(f64::total_cmp);
        Draws {
            mean,
            below_100k,
            median: v[n / 2],
        }
    }

    #[test]
    fn w1_websearch_interpolated_draws() {
        // VALIDATION.md §9 W1: mean 1,711,250 B ± 1 %, P(< 100 KB) = 0.542 ± 0.003,
        // median 73 KB ± 2 %.
        let d = draws(&Cdf::websearch(), 1_000_000);
        eprintln!(
            "websearch: mean {:.0}, P(<100KB) {:.4}, median {:.0}",
            d.mean, d.below_100k, d.median
        );
        assert!((d.mean / 1_711_250.0 - 1.0).abs() < 0.01, "mean {}", d.mean);
        assert!((d.below_100k - 0.542).abs() < 0.003, "P {}", d.below_100k);
        assert!(
            (d.median / 73_000.0 - 1.0).abs() < 0.02,
            "median {}",
            d.median
        );
    }

    #[test]
    fn w1_fb_hadoop_interpolated_draws() {
        // VALIDATION.md §9 W1: mean 120,421 B ± 1.5 %, P(< 100 KB) = 0.885 ± 0.003.
        let c = Cdf::builtin("fb_hadoop").unwrap();
        assert_eq!(c.sampling, Sampling::Interpolated);
        let d = draws(&c, 1_000_000);
        eprintln!(
            "fb_hadoop: mean {:.0}, P(<100KB) {:.4}",
            d.mean, d.below_100k
        );
        assert!((d.mean / 120_421.0 - 1.0).abs() < 0.015, "mean {}", d.mean);
        assert!((d.below_100k - 0.885).abs() < 0.003, "P {}", d.below_100k);
    }

    #[test]
    fn builtins_match_the_published_statistics() {
        // VALIDATION.md §9 table: (name, mean in the source's semantics, P(< 100 KB)).
        let table = [
            ("websearch", 1.71e6, 0.542),
            ("datamining", 7.47e6, 0.824),
            ("fb_hadoop", 120e3, 0.885),
            ("fb_webserver", 62_874.0, 0.815),
            ("fb_cachefollower", 692_976.0, 0.533),
            ("alistorage", 41e3, 0.954),
            ("googlerpc", 2.9e3, 0.996),
        ];
        assert_eq!(table.len(), Cdf::BUILTINS.len());
        for (name, mean, p) in table {
            let c = Cdf::builtin(name).unwrap();
            assert!(
                (c.mean() / mean - 1.0).abs() < 0.02,
                "{name}: mean {} vs {mean}",
                c.mean()
            );
            let below = c.fraction_below(100_000.0);
            assert!(
                (below - p).abs() < 0.003,
                "{name}: P(<100KB) {below} vs {p}"
            );
            let last = c.points.last().unwrap().1;
            assert_eq!(last, 100.0, "{name}");
            assert!(c
                .points
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
        }
        // The header means HomaSim ships (VALIDATION.md §9), step semantics, within 0.1 %.
        let fw = Cdf::builtin("fb_webserver").unwrap().mean();
        assert!((fw / 62_874.27 - 1.0).abs() < 1e-3, "{fw}");
        let cf = Cdf::builtin("fb_cachefollower").unwrap().mean();
        assert!((cf / 692_975.6 - 1.0).abs() < 1e-3, "{cf}");
        // Interpolated data mining: 5116.6 packets of 1460 B (hand computation).
        let dm = Cdf::builtin("datamining").unwrap().mean();
        assert!((dm / (5116.6 * 1460.0) - 1.0).abs() < 1e-4, "{dm}");
        // Step means of the interpolated ones (VALIDATION.md §9 "mean (step)").
        for (name, step) in [
            ("websearch", 2.43e6),
            ("datamining", 13.8e6),
            ("fb_hadoop", 184e3),
            ("alistorage", 67e3),
        ] {
            let m = Cdf::builtin(name).unwrap().mean_step();
            assert!((m / step - 1.0).abs() < 0.01, "{name}: step mean {m}");
        }
    }

    #[test]
    fn fraction_below_interpolates() {
        let c = Cdf::websearch();
        assert!((c.fraction_below(100_000.0) - 0.541_666_666).abs() < 1e-6);
        assert_eq!(c.fraction_below(0.0), 0.0);
        assert_eq!(c.fraction_below(1e9), 1.0);
    }
}
