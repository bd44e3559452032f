//! Chart axes: a data range rounded outwards to 1-2-5 ticks (linear) or decades (log), tick
//! labels, and the display units of times and byte counts, for the SVG charts of report.html.

use super::fmt::{human_count, trim_zeros};
use super::svg::Scale;

/// A resolved axis: data range after rounding to ticks, and the ticks.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    lo: f64,
    hi: f64,
    scale: Scale,
    /// Tick positions (data values) and their labels.
    pub ticks: Vec<(f64, String)>,
}

impl Axis {
    /// An axis covering `values` (empty or degenerate ranges get a unit span).
    pub(crate) fn fit(values: impl Iterator<Item = f64>, scale: Scale) -> Axis {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values.filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        match scale {
            Scale::Linear => {
                if !lo.is_finite() {
                    lo = 0.0;
                    hi = 1.0;
                }
                if lo > 0.0 {
                    lo = 0.0;
                }
                if hi <= lo {
                    hi = lo + 1.0;
                }
                let (lo, hi, step) = nice_range(lo, hi, 6);
                let decimals = if step >= 1.0 {
                    0
                } else {
                    (-step.log10().floor()) as usize
                };
                let n = ((hi - lo) / step).round() as i64;
                let ticks = (0..=n)
                    .map(|k| {
                        let v = lo + k as f64 * step;
                        (v, tick_label(v, decimals))
                    })
                    .collect();
                Axis {
                    lo,
                    hi,
                    scale,
                    ticks,
                }
            }
            Scale::Log => {
                if !lo.is_finite() {
                    lo = 1.0;
                    hi = 10.0;
                }
                let lo_e = lo.log10().floor() as i32;
                let mut hi_e = hi.log10().ceil() as i32;
                if hi_e <= lo_e {
                    hi_e = lo_e + 1;
                }
                let decades = (hi_e - lo_e) as usize;
                let every = decades.div_ceil(8).max(1);
                // With few decades, 2× and 5× ticks too, so the axis is readable.
                let mults: &[f64] = if decades <= 3 {
                    &[1.0, 2.0, 5.0]
                } else {
                    &[1.0]
                };
                let ticks = (lo_e..=hi_e)
                    .step_by(every)
                    .flat_map(|e| {
                        mults
                            .iter()
                            .map(move |m| m * 10f64.powi(e))
                            .filter(move |v| e < hi_e || *v <= 10f64.powi(hi_e))
                    })
                    .map(|v| (v, human_count(v)))
                    .collect();
                Axis {
                    lo: 10f64.powi(lo_e),
                    hi: 10f64.powi(hi_e),
                    scale,
                    ticks,
                }
            }
        }
    }

    /// Position of `v` in [0, 1] along the axis; `None` for values a log axis cannot show.
    pub(crate) fn frac(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self.scale {
            Scale::Linear => Some((v - self.lo) / (self.hi - self.lo)),
            Scale::Log => {
                if v <= 0.0 {
                    None
                } else {
                    Some((v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()))
                }
            }
        }
    }
}

/// Rounds [lo, hi] outwards to multiples of a 1-2-5 step giving about `target` intervals.
pub(crate) fn nice_range(lo: f64, hi: f64, target: usize) -> (f64, f64, f64) {
    let raw = (hi - lo) / target as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let step = mag
        * if norm < 1.5 {
            1.0
        } else if norm < 3.0 {
            2.0
        } else if norm < 7.0 {
            5.0
        } else {
            10.0
        };
    let lo2 = (lo / step).floor() * step;
    let hi2 = (hi / step - 1e-9).ceil() * step;
    (lo2, hi2.max(lo2 + step), step)
}

fn tick_label(v: f64, decimals: usize) -> String {
    trim_zeros(format!("{v:.decimals$}"))
}

/// Formats a pixel coordinate.
pub(crate) fn px(v: f64) -> String {
    trim_zeros(format!("{v:.1}"))
}

/// Picks a display unit for nanosecond times: (divisor, unit label).
pub(crate) fn time_unit(max_ns: f64) -> (f64, &'static str) {
    if max_ns >= 1e9 {
        (1e9, "s")
    } else if max_ns >= 1e6 {
        (1e6, "ms")
    } else if max_ns >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// Picks a display unit for byte counts (decimal): (divisor, unit label).
pub(crate) fn byte_unit(max_bytes: f64) -> (f64, &'static str) {
    if max_bytes >= 1e6 {
        (1e6, "MB")
    } else if max_bytes >= 1e3 {
        (1e3, "KB")
    } else {
        (1.0, "B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        let a = Axis::fit([0.0, 37.0].into_iter(), Scale::Linear);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "5", "10", "15", "20", "25", "30", "35", "40"]);
        let l = Axis::fit([3.0, 2_000_000.0].into_iter(), Scale::Log);
        assert_eq!(l.ticks.first().unwrap().1, "1");
        assert_eq!(l.ticks.last().unwrap().1, "10M");
        let few = Axis::fit([150.0, 9000.0].into_iter(), Scale::Log);
        let labels: Vec<&str> = few.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["100", "200", "500", "1K", "2K", "5K", "10K"]);
        let small = Axis::fit([0.0, 0.3].into_iter(), Scale::Linear);
        assert_eq!(small.ticks[1].1, "0.05");
    }
}
