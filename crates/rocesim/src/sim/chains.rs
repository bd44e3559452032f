//! Chained flows (`after`): which flows start when a given flow completes. Kept sparse,
//! as (parent, child) pairs sorted by parent, so that a run of a million unchained flows
//! pays nothing for the feature.

/// The flows chained to each flow, for the few flows that have any.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chains {
    /// (parent, child), sorted by parent; children of one parent in flow-id order.
    pairs: Vec<(u32, u32)>,
}

impl Chains {
    /// The chains of `n` flows whose `after` fields are `after` (a flow chained to itself or
    /// to a flow out of range is ignored).
    pub fn new(n: usize, after: impl Iterator<Item = Option<u32>>) -> Self {
        let mut pairs: Vec<(u32, u32)> = after
            .enumerate()
            .filter_map(|(i, a)| a.map(|a| (a, i as u32)))
            .filter(|&(a, i)| (a as usize) < n && a != i)
            .collect();
        pairs.sort_by_key(|&(a, _)| a);
        pairs.shrink_to_fit();
        Chains { pairs }
    }

    /// The flows started when flow `f` completes, in flow-id order.
    pub fn of(&self, f: u32) -> impl Iterator<Item = u32> + '_ {
        let lo = self.pairs.partition_point(|&(a, _)| a < f);
        self.pairs[lo..]
            .iter()
            .take_while(move |&&(a, _)| a == f)
            .map(|&(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::Chains;

    #[test]
    fn children_in_id_order_and_bad_links_ignored() {
        let after = [None, Some(3), Some(0), Some(3), Some(9), Some(5), Some(0)];
        let c = Chains::new(after.len(), after.into_iter());
        assert_eq!(c.of(0).collect::<Vec<_>>(), vec![2, 6]);
        assert_eq!(c.of(3).collect::<Vec<_>>(), vec![1]);
        assert_eq!(c.of(5).count(), 0, "a flow chained to itself is ignored");
        assert_eq!(c.of(9).count(), 0, "out of range");
    }
}
