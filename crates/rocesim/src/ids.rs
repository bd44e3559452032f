//! Typed indices. A port, a priority, an egress queue and a queue pair are different things
//! even when each is a small integer: 802.1Qbb pauses *priorities*, a switch schedules and
//! ECN-marks *queues* (SONiC's `TC_TO_QUEUE_MAP` links the two), and mixing them up is the
//! classic configuration bug. Each gets its own type, and the per-port tables ([`PerPrio`],
//! [`PerQueue`]) accept only their own index.

use std::ops::{Index, IndexMut};

/// A port, numbered across the whole network (both ends of link `l` are ports `2l` and
/// `2l + 1`). Events and counters name ports by this id; a node knows its ports by local index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortId(pub u32);

impl PortId {
    /// As a vector index.
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
    /// The port at the other end of the same link.
    #[inline]
    pub fn peer(self) -> PortId {
        PortId(self.0 ^ 1)
    }
    /// The link this port belongs to.
    #[inline]
    pub fn link(self) -> u32 {
        self.0 >> 1
    }
}

/// An 802.1p priority (PFC class, 0..=7). On a switch a priority is also a traffic class and
/// an ingress priority group (PG = TC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Priority(pub u8);

impl Priority {
    /// As a table index, below 8 (masked, so indexing a table of eight needs no bounds
    /// check; a priority of 8 or more is a bug, caught in debug builds).
    #[inline]
    pub fn idx(self) -> usize {
        debug_assert!(self.0 < 8, "priority {} out of range", self.0);
        (self.0 & 7) as usize
    }
    /// Its bit in a per-priority bitmask (pause masks, `pfc_enable`).
    #[inline]
    pub fn bit(self) -> u8 {
        1 << self.0
    }
    /// All eight priorities, lowest first.
    pub fn all() -> impl Iterator<Item = Priority> {
        (0..8).map(Priority)
    }
    /// The priorities whose bits are set in `mask`, lowest first.
    pub fn in_mask(mask: u8) -> impl Iterator<Item = Priority> {
        (0..8).filter(move |p| mask & (1 << p) != 0).map(Priority)
    }
}

/// One of the eight egress queues of a port (SONiC's queue index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueueId(pub u8);

impl QueueId {
    /// As a table index, below 8 (masked like [`Priority::idx`]).
    #[inline]
    pub fn idx(self) -> usize {
        debug_assert!(self.0 < 8, "queue {} out of range", self.0);
        (self.0 & 7) as usize
    }
    /// Its bit in a per-queue bitmask (non-empty, strict, ECN queues).
    #[inline]
    pub fn bit(self) -> u8 {
        1 << self.0
    }
    /// All eight queues, lowest first.
    pub fn all() -> impl Iterator<Item = QueueId> {
        (0..8).map(QueueId)
    }
}

/// A node of the network: a switch or a host, by its index in the topology's lists.
pub use crate::topology::NodeRef as NodeId;

/// A flow (one RDMA message or long-lived stream), by its index in the scenario's flow list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

impl FlowId {
    /// As a vector index.
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A queue pair's slot in its NIC (requester or responder side). Slots are reused once a
/// flow completes, so a QP id is meaningful only inside its NIC while the flow lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QpId(pub u32);

impl QpId {
    /// No QP (a flow not started, or released).
    pub const NONE: QpId = QpId(u32::MAX);
    /// As a vector index.
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A table with one entry per priority, indexed only by [`Priority`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerPrio<T>(pub [T; 8]);

impl<T> Index<Priority> for PerPrio<T> {
    type Output = T;
    #[inline]
    fn index(&self, p: Priority) -> &T {
        &self.0[p.idx()]
    }
}
impl<T> IndexMut<Priority> for PerPrio<T> {
    #[inline]
    fn index_mut(&mut self, p: Priority) -> &mut T {
        &mut self.0[p.idx()]
    }
}

/// A table with one entry per egress queue, indexed only by [`QueueId`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerQueue<T>(pub [T; 8]);

impl<T> Index<QueueId> for PerQueue<T> {
    type Output = T;
    #[inline]
    fn index(&self, q: QueueId) -> &T {
        &self.0[q.idx()]
    }
}
impl<T> IndexMut<QueueId> for PerQueue<T> {
    #[inline]
    fn index_mut(&mut self, q: QueueId) -> &mut T {
        &mut self.0[q.idx()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_peers() {
        assert_eq!(Priority(3).bit(), 0b1000);
        assert_eq!(
            Priority::in_mask(0b1000_1001).collect::<Vec<_>>(),
            vec![Priority(0), Priority(3), Priority(7)]
        );
        assert_eq!(PortId(6).peer(), PortId(7));
        assert_eq!(PortId(7).peer(), PortId(6));
        assert_eq!(PortId(7).link(), 3);
        let mut t: PerQueue<u32> = PerQueue::default();
        t[QueueId(5)] += 2;
        assert_eq!(t.0, [0, 0, 0, 0, 0, 2, 0, 0]);
    }
}
