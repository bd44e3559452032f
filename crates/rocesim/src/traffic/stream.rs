//! Flows generated as the run reaches them. A Poisson workload of a long run lists millions
//! of flows; a [`FlowStream`] keeps only the generator's state (one pending arrival per host)
//! and yields the workload's flows in start order, each exactly the spec the eager list would
//! hold (same draws, same DSCP, kind and source port). The run pulls a stream's flows when they
//! start; results and lint walk it again from the beginning.
//!
//! A scenario streams only its trailing generic Poisson workloads (`generator = "rocesim"`,
//! no memory region or extra QPs, and not with ns-3's ECMP hash, whose source ports count
//! flows over the whole list): their flow ids follow every listed flow's, so ids are the same
//! as if the list were built whole.

use std::sync::Arc;

use super::flow::{default_sport, FlowKind, FlowSpec};
use super::generators::PoissonArrivals;
use crate::units::Time;

/// How a stream's flows are dressed once drawn: the fields the workload sets on every flow.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamStyle {
    /// DSCP of each sending host, indexed by host id (the workload's `dscp` or the NIC's).
    pub dscp_by_host: Vec<u8>,
    /// The operation (`flow_kind`, or a TCP connection).
    pub kind: FlowKind,
    /// `small_flow_dscp`: flows smaller than `.0` bytes take DSCP `.1`.
    pub small: Option<(u64, u8)>,
    /// `sim.seed`, from which the default source port of flow `id` is drawn.
    pub sport_seed: u64,
}

/// A workload whose flows are generated on demand: ids `first .. first + count`.
#[derive(Clone, Debug)]
pub struct FlowStream {
    /// Id of its first flow.
    pub first: u32,
    /// Number of flows.
    pub count: u32,
    start: PoissonArrivals,
    style: Arc<StreamStyle>,
}

/// Two streams are equal when they number and make the same flows.
impl PartialEq for FlowStream {
    fn eq(&self, o: &Self) -> bool {
        (self.first, self.count) == (o.first, o.count) && self.iter().eq(o.iter())
    }
}

impl FlowStream {
    /// The stream of `arrivals` (in their initial state) dressed by `style`, its first flow
    /// numbered `first`. Counting walks the generator once (O(hosts) memory).
    pub fn new(arrivals: PoissonArrivals, style: StreamStyle, first: u32) -> FlowStream {
        let count = arrivals.clone().count() as u32;
        FlowStream {
            first,
            count,
            start: arrivals,
            style: Arc::new(style),
        }
    }

    /// Its flows from the first, with their ids.
    pub fn iter(&self) -> StreamIter {
        StreamIter {
            arrivals: self.start.clone(),
            style: self.style.clone(),
            next_id: self.first,
        }
    }

    /// The ids past its last flow.
    pub fn end(&self) -> u32 {
        self.first + self.count
    }
}

/// A walk over a [`FlowStream`]'s flows in start order, yielding (id, spec).
#[derive(Clone, Debug)]
pub struct StreamIter {
    arrivals: PoissonArrivals,
    style: Arc<StreamStyle>,
    next_id: u32,
}

impl StreamIter {
    /// When the next flow starts, if one is left.
    pub fn peek_start(&self) -> Option<Time> {
        self.arrivals.peek_start()
    }
}

impl Iterator for StreamIter {
    type Item = (u32, FlowSpec);

    fn next(&mut self) -> Option<(u32, FlowSpec)> {
        let a = self.arrivals.next()?;
        let s = &*self.style;
        let dscp = match s.small {
            Some((limit, d)) if a.size < limit => d,
            _ => s.dscp_by_host[a.src as usize],
        };
        let mut f = FlowSpec::new(a.src, a.dst, Some(a.size), a.start, dscp, s.kind);
        let id = self.next_id;
        f.sport = default_sport(s.sport_seed, id as usize);
        self.next_id += 1;
        Some((id, f))
    }
}
