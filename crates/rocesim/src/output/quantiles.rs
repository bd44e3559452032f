//! Exact nearest-rank percentiles of values read from a source that can be read again (the
//! flow rows), without holding the values when there are many. Up to a limit the values are
//! gathered and sorted; past it the percentile is found digit by digit: the values' order-
//! preserving 64-bit keys are counted by their next 8 bits in each of eight passes over the
//! source, which narrows every wanted rank to one key. Both ways give the same value, which is
//! always one of the inputs ([`super::percentile_nearest_rank`]'s rank rule).

use super::percentile_nearest_rank;

/// Values gathered and sorted up to this many (1 MiB of `f64`s, at most); more are selected
/// in passes.
pub(crate) const IN_MEMORY_VALUES: u64 = 1 << 17;

/// A source of `(group, value)` pairs: called with a sink, it gives it every pair, the same
/// ones each time it is called.
pub(crate) type Source<'a> = &'a dyn Fn(&mut dyn FnMut(usize, f64));

/// Per group: how many values it had, and its percentile for each wanted per-mille (`None`
/// for an empty group).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Percentiles {
    pub counts: Vec<u64>,
    pub values: Vec<Vec<Option<f64>>>,
}

/// The nearest-rank percentiles `per_milles` (500 = p50, 999 = p99.9) of each of `groups`
/// groups of `source`'s values, ordered as [`f64::total_cmp`] orders them; gathered in memory
/// up to `in_memory` values, selected in nine passes over the source past that.
pub(crate) fn nearest_ranks(
    groups: usize,
    per_milles: &[u32],
    in_memory: u64,
    source: Source<'_>,
) -> Percentiles {
    let mut counts = vec![0u64; groups];
    source(&mut |g, _| counts[g] += 1);
    let values = if counts.iter().sum::<u64>() <= in_memory {
        sorted(&counts, per_milles, source)
    } else {
        selected(&counts, per_milles, source)
    };
    Percentiles { counts, values }
}

/// Gathers each group's values, sorts them and reads the ranks.
fn sorted(counts: &[u64], per_milles: &[u32], source: Source<'_>) -> Vec<Vec<Option<f64>>> {
    let mut vals: Vec<Vec<f64>> = counts
        .iter()
        .map(|&n| Vec::with_capacity(n as usize))
        .collect();
    source(&mut |g, v| vals[g].push(v));
    vals.into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            let pct = |&pm: &u32| percentile_nearest_rank(&v, pm);
            per_milles.iter().map(pct).collect()
        })
        .collect()
}

/// One wanted rank: the key bits found so far (the top `bits` of `prefix`) and the rank
/// still wanted among the values that share them (1-based).
#[derive(Clone, Copy, Debug)]
struct Target {
    group: usize,
    prefix: u64,
    bits: u32,
    rank: u64,
}

impl Target {
    /// Does `key` share the bits found so far?
    fn matches(&self, key: u64) -> bool {
        self.bits == 0 || (key ^ self.prefix) >> (64 - self.bits) == 0
    }
}

/// Finds each rank digit by digit, one pass over the source per 8 bits of the key.
fn selected(counts: &[u64], per_milles: &[u32], source: Source<'_>) -> Vec<Vec<Option<f64>>> {
    let mut targets = Vec::new();
    for (group, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        for &pm in per_milles {
            let rank = (u64::from(pm) * n).div_ceil(1000).clamp(1, n);
            targets.push(Target {
                group,
                prefix: 0,
                bits: 0,
                rank,
            });
        }
    }
    let mut of_group: Vec<Vec<usize>> = vec![Vec::new(); counts.len()];
    targets
        .iter()
        .enumerate()
        .for_each(|(i, t)| of_group[t.group].push(i));
    for pass in 0..8u32 {
        let shift = 56 - 8 * pass;
        let mut hist = vec![[0u64; 256]; targets.len()];
        source(&mut |g, v| {
            let k = key(v);
            for &t in &of_group[g] {
                if targets[t].matches(k) {
                    hist[t][((k >> shift) & 0xff) as usize] += 1;
                }
            }
        });
        for (t, h) in targets.iter_mut().zip(&hist) {
            narrow(t, h, shift);
        }
    }
    let mut found = targets.iter();
    counts
        .iter()
        .map(|&n| {
            let pick = |_: &u32| (n > 0).then(|| from_key(found.next().expect("target").prefix));
            per_milles.iter().map(pick).collect()
        })
        .collect()
}

/// Fixes the next 8 bits of `t`'s key: the digit whose values hold its rank.
fn narrow(t: &mut Target, hist: &[u64; 256], shift: u32) {
    let mut below = 0;
    for (digit, &n) in hist.iter().enumerate() {
        if below + n >= t.rank {
            t.rank -= below;
            t.prefix |= (digit as u64) << shift;
            break;
        }
        below += n;
    }
    t.bits += 8;
}

/// A key whose unsigned order is [`f64::total_cmp`]'s order of the values.
fn key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The value of a [`key`].
fn from_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PM: [u32; 6] = [0, 1, 500, 950, 990, 999];

    fn both(pairs: &[(usize, f64)], groups: usize) -> (Percentiles, Percentiles) {
        let source = |sink: &mut dyn FnMut(usize, f64)| pairs.iter().for_each(|&(g, v)| sink(g, v));
        (
            nearest_ranks(groups, &PM, u64::MAX, &source),
            nearest_ranks(groups, &PM, 0, &source),
        )
    }

    fn bits(p: &Percentiles) -> Vec<Vec<Option<u64>>> {
        (p.values.iter())
            .map(|g| g.iter().map(|v| v.map(f64::to_bits)).collect())
            .collect()
    }

    /// By hand: 1..=20 in one group, nothing in the other.
    #[test]
    fn selection_by_hand() {
        let pairs: Vec<(usize, f64)> = (1..=20).map(|i| (0, f64::from(i))).collect();
        let (sorted, selected) = both(&pairs, 2);
        for p in [sorted, selected] {
            assert_eq!(p.counts, vec![20, 0]);
            let want = [1.0, 1.0, 10.0, 19.0, 20.0, 20.0].map(Some).to_vec();
            assert_eq!(p.values, vec![want, vec![None; 6]]);
        }
    }

    proptest! {
        /// Selected in passes = sorted, bit for bit, over values with many repeats, both
        /// zeros, negatives, subnormals and infinities, in up to four groups.
        #[test]
        fn selection_equals_sorting(
            raw in prop::collection::vec((0usize..4, prop::sample::select(vec![
                0.0, -0.0, 1.0, 1.0000000000000002, -3.5, 7.25, f64::INFINITY,
                f64::NEG_INFINITY, 5e-324, 1e300, 2.5, 2.5000001,
            ]), 0.5f64..4.0), 0..400),
        ) {
            let pairs: Vec<(usize, f64)> = raw.iter()
                .map(|&(g, pick, x)| (g, if g == 3 { x } else { pick }))
                .collect();
            let (sorted, selected) = both(&pairs, 4);
            prop_assert_eq!(&sorted.counts, &selected.counts);
            prop_assert_eq!(bits(&sorted), bits(&selected));
        }
    }
}
