//! A closed-loop storage read test: RDMA READs from several targets with a fixed number of
//! I/Os outstanding per target.

use super::flow;
use crate::traffic::flow::{FlowKind, FlowSpec};
use crate::units::Time;

/// A storage read test (LinkedIn, "Scaling storage in the datacenter with RoCE"): one client
/// reads from several targets with a fixed number of I/Os outstanding per target.
#[derive(Clone, Debug)]
pub struct StorageRead<'a> {
    /// The reading host.
    pub client: u32,
    /// The storage targets (the client, if among them, is left out).
    pub targets: &'a [u32],
    /// Bytes per I/O (the blog's test: 16 KiB).
    pub io_size: u64,
    /// I/Os outstanding per target (closed loop).
    pub queue_depth: u32,
    /// I/Os per target.
    pub count: u32,
    /// When the first I/Os are posted.
    pub at: Time,
}

/// Each I/O is an RDMA READ whose data flows from the target to the client (src = target,
/// dst = client). The first `queue_depth` I/Os per target start at `at`; I/O k ≥ queue_depth
/// starts when I/O k − queue_depth of the same target completes (`after`, gap 0). Flows are
/// ordered I/O round by round: index = k × targets + t.
pub fn storage_read(p: &StorageRead<'_>, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let targets: Vec<u32> = p
        .targets
        .iter()
        .copied()
        .filter(|&t| t != p.client)
        .collect();
    let nt = targets.len();
    let qd = p.queue_depth.max(1) as usize;
    let mut flows = Vec::with_capacity(nt * p.count as usize);
    for k in 0..p.count as usize {
        for (t, &target) in targets.iter().enumerate() {
            let mut f = flow(target, p.client, Some(p.io_size), p.at, dscp(target));
            f.kind = FlowKind::RdmaRead;
            if k >= qd {
                f.start = Time::ZERO;
                f.after = Some(((k - qd) * nt + t) as u32);
            }
            flows.push(f);
        }
    }
    flows
}
