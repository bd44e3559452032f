//! Flows of several queue pairs (`qps = Q`): the world runs each QP as a flow of its own (its
//! own PSN space, UDP source port and congestion control, a Q-th of the bytes) and merges
//! them back into one row per scenario flow for the results.

use super::Sim;
use crate::monitor::{FlowResult, RateSample, ThroughputSample};
use crate::traffic::FlowSpec;
use crate::units::Time;

/// Region of a long-lived flow that names none, bytes.
pub const DEFAULT_INF_REGION: u64 = 1 << 20;

/// The registered region of flow `f`, bytes: `region`, else its message size (long-lived:
/// [`DEFAULT_INF_REGION`]).
pub fn region_of(f: &FlowSpec) -> u64 {
    f.mem()
        .region
        .unwrap_or_else(|| f.size.unwrap_or(DEFAULT_INF_REGION))
        .max(1)
}

/// Which QP flows make up each scenario flow.
#[derive(Debug)]
pub(crate) struct QpGroups {
    /// First QP flow of each scenario flow, and the total at the end.
    pub first: Vec<u32>,
    /// Scenario flow of each QP flow.
    pub owner: Vec<u32>,
    /// The scenario flows as written.
    pub specs: Vec<FlowSpec>,
}

/// The UDP source port of QP `j` of a flow whose first QP uses `sport`: the next ports in
/// the dynamic range 49152–65535 (wrapping).
fn qp_sport(sport: u16, j: u32) -> u16 {
    let base = u32::from(sport.max(49152)) - 49152;
    (49152 + (base + j) % 16384) as u16
}

/// Replace each flow of `qps > 1` by its QPs, each QP flow keeping its scenario flow's
/// index as its memory region id (a flow left alone has region id `u32::MAX`: its own index,
/// which is then its scenario index). `None` when no flow has more than one QP (the flow
/// list is unchanged).
pub(crate) fn expand(flows: &mut Vec<FlowSpec>) -> Option<QpGroups> {
    if flows.iter().all(|f| f.mem().qps <= 1) {
        return None;
    }
    let specs = std::mem::take(flows);
    let mut first = Vec::with_capacity(specs.len() + 1);
    let mut owner = Vec::new();
    for (i, u) in specs.iter().enumerate() {
        first.push(flows.len() as u32);
        let q = u.mem().qps.max(1);
        let region = region_of(u);
        for j in 0..q {
            let mut f = u.clone();
            f.set_name(None);
            f.size = u
                .size
                .map(|s| s / u64::from(q) + u64::from(u64::from(j) < s % u64::from(q)));
            f.sport = if j == 0 {
                u.sport
            } else {
                qp_sport(u.sport, j)
            };
            f.set_mem(crate::traffic::flow::FlowMem {
                qps: 1,
                region: Some(region),
                base: region / u64::from(q) * u64::from(j),
                region_id: i as u32,
                ..u.mem()
            });
            flows.push(f);
            owner.push(i as u32);
        }
    }
    first.push(flows.len() as u32);
    for f in flows.iter_mut() {
        // A chained flow waits for the first QP of the flow it follows.
        f.after = f.after.map(|a| first[a as usize]);
    }
    Some(QpGroups {
        first,
        owner,
        specs,
    })
}

fn all<T: Copy>(v: impl Iterator<Item = Option<T>>) -> Option<Vec<T>> {
    v.collect()
}

impl Sim {
    /// One row per scenario flow from the rows of its QPs: counters summed
    /// ([`FlowResult::add_counters`]), from the first start to the last completion.
    pub(super) fn merge_flow_rows(&self, rows: Vec<FlowResult>, now: Time) -> Vec<FlowResult> {
        let Some(g) = &self.groups else { return rows };
        let warm = self.scenario.sim.warmup.min(now);
        let window = now.saturating_sub(warm).ps() as f64;
        let names = self.host_names();
        let host = |h: u32| names[h as usize].clone();
        (g.specs.iter().enumerate())
            .map(|(i, spec)| {
                let qs = &rows[g.first[i] as usize..g.first[i + 1] as usize];
                let mut row = qs[0].clone();
                qs[1..].iter().for_each(|q| row.add_counters(q));
                let start = qs.iter().map(|r| r.start_ns).min().unwrap_or(0);
                let end = all(qs.iter().map(|r| r.end_ns)).and_then(|v| v.into_iter().max());
                let size = spec.size.map(|s| s.max(1)).filter(|&s| s != u64::MAX);
                let fct = end.map(|e| e.saturating_sub(start));
                let ideal = size.map(|s| self.ideal_fct(spec.src, spec.dst, s).ns());
                let from = Time::from_ns(start).max(warm);
                let to = end.map_or(now, |e| Time::from_ns(e).min(now));
                let active = to.saturating_sub(from).ps() as f64;
                FlowResult {
                    flow_id: i as u32,
                    name: spec.name().map_or_else(|| i.to_string(), str::to_string),
                    src: host(spec.src),
                    dst: host(spec.dst),
                    size_bytes: size,
                    start_ns: start,
                    end_ns: end,
                    acked_ns: end,
                    delivered_ns: all(qs.iter().map(|r| r.delivered_ns))
                        .and_then(|v| v.into_iter().max()),
                    fct_ns: fct,
                    ideal_fct_ns: ideal,
                    slowdown: match (fct, ideal) {
                        (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
                        _ => None,
                    },
                    goodput_active_gbps: if active > 0.0 {
                        row.goodput_gbps * window / active
                    } else {
                        0.0
                    },
                    ..row
                }
            })
            .collect()
    }

    /// Throughput samples per scenario flow: the samples of its QPs at one instant summed.
    pub(super) fn merge_throughput(&self, v: Vec<ThroughputSample>) -> Vec<ThroughputSample> {
        let Some(g) = &self.groups else { return v };
        let mut out: Vec<ThroughputSample> = Vec::new();
        for mut s in v {
            s.flow_id = g.owner[s.flow_id as usize];
            match out.last_mut() {
                Some(l) if l.time_ns == s.time_ns && l.flow_id == s.flow_id => l.gbps += s.gbps,
                _ => out.push(s),
            }
        }
        out
    }

    /// Congestion-control samples per scenario flow: those of its first QP.
    pub(super) fn merge_rates(&self, v: Vec<RateSample>) -> Vec<RateSample> {
        let Some(g) = &self.groups else { return v };
        v.into_iter()
            .filter(|s| g.first[g.owner[s.flow_id as usize] as usize] == s.flow_id)
            .map(|mut s| {
                s.flow_id = g.owner[s.flow_id as usize];
                s
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::testkit::flow;

    #[test]
    fn a_flow_of_three_qps_becomes_three_flows_of_a_third_each() {
        let mut f = flow(1, 0, Some(10), Time::ZERO);
        f.set_mem(crate::traffic::flow::FlowMem {
            qps: 3,
            ..Default::default()
        });
        f.sport = 65535;
        let mut flows = vec![flow(2, 0, None, Time::ZERO), f];
        let g = expand(&mut flows).expect("a flow has 3 QPs");
        let sizes: Vec<_> = flows.iter().map(|f| f.size).collect();
        assert_eq!(sizes, [None, Some(4), Some(3), Some(3)]);
        let ports: Vec<_> = flows.iter().skip(1).map(|f| f.sport).collect();
        assert_eq!(
            ports,
            [65535, 49152, 49153],
            "next ports, wrapping in the dynamic range"
        );
        assert_eq!((g.first, g.owner), (vec![0, 1, 4], vec![0, 1, 1, 1]));
        let bases: Vec<_> = flows.iter().skip(1).map(|f| f.mem().base).collect();
        assert_eq!(bases, [0, 3, 6], "QPs start spread over the 10-byte region");
        assert!(flows.iter().skip(1).all(|f| f.mem().region_id == 1));
        assert_eq!(
            flows[0].mem().region_id,
            0,
            "an expanded list names every region"
        );
    }

    #[test]
    fn single_qp_flows_are_left_alone() {
        let mut flows = vec![flow(1, 0, Some(10), Time::ZERO)];
        assert!(expand(&mut flows).is_none());
        // Region id u32::MAX: the flow's own index (sim/traffic.rs), and no box is allocated.
        assert_eq!((flows.len(), flows[0].mem().region_id), (1, u32::MAX));
        assert_eq!(flows[0], flow(1, 0, Some(10), Time::ZERO));
    }
}
