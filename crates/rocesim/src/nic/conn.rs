//! The connection table: which QP slot of which NIC serves each flow, at both ends. It plays
//! the part of RDMA connection setup (the out-of-band exchange that tells each side the
//! other's QP number): the world fills it when a flow starts, and NICs read it to find the
//! QP a packet is for (a packet carries its flow id, as a BTH carries a destination QP).

use crate::ids::{FlowId, QpId};

/// Both ends of one flow (which hosts they are on is the flow's `src` and `dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conn {
    /// The requester slot in the sender's NIC (`NONE` before the flow starts).
    pub send: QpId,
    /// The responder slot in the receiver's NIC.
    pub recv: QpId,
}

/// Every flow's connection, by flow id.
#[derive(Clone, Debug, Default)]
pub struct ConnTable {
    conns: Vec<Conn>,
}

impl ConnTable {
    /// A table for `n` flows, none started.
    pub fn new(n: usize) -> Self {
        let none = Conn {
            send: QpId::NONE,
            recv: QpId::NONE,
        };
        ConnTable {
            conns: vec![none; n],
        }
    }
    /// The connection of flow `f`.
    #[inline]
    pub fn get(&self, f: FlowId) -> &Conn {
        &self.conns[f.idx()]
    }
    /// Record the QP slots serving flow `f`.
    pub fn connect(&mut self, f: FlowId, send: QpId, recv: QpId) {
        let c = &mut self.conns[f.idx()];
        c.send = send;
        c.recv = recv;
    }
    /// Number of flows.
    pub fn len(&self) -> usize {
        self.conns.len()
    }
    /// No flows.
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }
}
