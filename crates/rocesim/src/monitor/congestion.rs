//! Congestion statistics (Liu et al. 2015 §IV.6): where congestion happened, for how long, and
//! which flows passed through each congestion point while it was congested.
//!
//! A congestion point is an egress queue that marks ECN. It is *congested* while its depth is
//! at or above the marking threshold (Kmin). Flows are recorded when one of their packets is
//! marked there.

use serde::Serialize;

use crate::units::Time;

/// Running statistics of one egress queue.
#[derive(Clone, Debug, Default)]
pub struct CongestionPoint {
    /// First time the queue became congested.
    pub first: Option<Time>,
    /// Last time the queue was congested (updated when it stops being congested).
    pub last: Time,
    /// Since when it is congested, if it is now.
    pub since: Option<Time>,
    /// Total time congested, ps.
    pub congested_ps: u64,
    /// Packets marked here.
    pub marked: u64,
    /// (sender, receiver) hosts of the flows marked here: may repeat, deduplicated whenever
    /// the list doubles, so it stays as long as the distinct pairs, not the flows.
    pub pairs: Vec<(u32, u32)>,
    /// Length of `pairs` after its last deduplication.
    distinct: usize,
    /// RCM-1b: the output is in the congestion state and marks every exiting packet.
    pub rcm1b_state: bool,
}

impl CongestionPoint {
    /// A flow from host `src` to host `dst` was marked here.
    #[inline]
    pub fn add_pair(&mut self, src: u32, dst: u32) {
        self.pairs.push((src, dst));
        if self.pairs.len() >= 2 * self.distinct.max(32) {
            self.pairs.sort_unstable();
            self.pairs.dedup();
            self.distinct = self.pairs.len();
        }
    }
    /// The queue's depth changed at `now`; `congested` says whether it is at or above Kmin.
    #[inline]
    pub fn update(&mut self, congested: bool, now: Time) {
        match (congested, self.since) {
            (true, None) => {
                self.since = Some(now);
                self.first.get_or_insert(now);
            }
            (false, Some(s)) => {
                self.congested_ps += (now - s).ps();
                self.last = now;
                self.since = None;
            }
            _ => {}
        }
    }
    /// Close an open congested interval at the end of the run (without changing state).
    pub fn congested_until(&self, end: Time) -> (u64, Time) {
        match self.since {
            Some(s) => (self.congested_ps + end.saturating_sub(s).ps(), end),
            None => (self.congested_ps, self.last),
        }
    }
}

/// One congestion point in the results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CongestionRecord {
    /// Switch name.
    pub node: String,
    /// Port index on the switch.
    pub port: u32,
    /// Name of the node the port faces.
    pub peer: String,
    /// Queue.
    pub queue: u8,
    /// First time congested, ns.
    pub first_ns: u64,
    /// Last time congested, ns.
    pub last_ns: u64,
    /// Total time congested, ns.
    pub congested_ns: u64,
    /// Packets marked.
    pub marked: u64,
    /// Sources (host names) of the flows marked here.
    pub sources: Vec<String>,
    /// Destinations (host names) of the flows marked here.
    pub destinations: Vec<String>,
}
