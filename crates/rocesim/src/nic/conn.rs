//! The connection table: which QP slot of which NIC serves each flow, at both ends. It plays
//! the part of RDMA connection setup (the out-of-band exchange that tells each side the
//! other's QP number): the world fills it when a flow starts, and NICs read it to find the
//! QP a packet is for (a packet carries its flow id, as a BTH carries a destination QP).

use crate::engine::FlowWindow;
use crate::ids::{FlowId, QpId};

/// Both ends of one flow: the hosts and the QP slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conn {
    /// The requester slot in the sender's NIC (`NONE` before the flow starts and once its
    /// QPs are released).
    pub send: QpId,
    /// The responder slot in the receiver's NIC.
    pub recv: QpId,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
}

/// The connection of a flow not started, or released.
const NONE: Conn = Conn {
    send: QpId::NONE,
    recv: QpId::NONE,
    src: u32::MAX,
    dst: u32::MAX,
};

/// The connection of every flow the run holds, by flow id.
#[derive(Clone, Debug)]
pub struct ConnTable {
    pub(crate) conns: FlowWindow<Conn>,
}

impl ConnTable {
    /// A table for flows `0 .. n`, none started.
    pub fn new(n: usize) -> Self {
        ConnTable {
            conns: FlowWindow::new(n, NONE),
        }
    }
    /// The connection of flow `f` (not connected when the run does not hold it).
    #[inline]
    pub fn get(&self, f: FlowId) -> &Conn {
        self.conns.get(f.0).unwrap_or(&NONE)
    }
    /// Record the hosts and QP slots serving flow `f`, holding it if it was not.
    pub fn connect(&mut self, f: FlowId, ends: [u32; 2], send: QpId, recv: QpId) {
        self.conns.extend_to(f.0 + 1, NONE);
        self.conns[f.0] = Conn {
            send,
            recv,
            src: ends[0],
            dst: ends[1],
        };
    }
    /// Flow `f`'s QPs are released: nothing may find them by its id any more.
    pub fn disconnect(&mut self, f: FlowId) {
        if let Some(c) = self.conns.get_mut(f.0) {
            (c.send, c.recv) = (QpId::NONE, QpId::NONE);
        }
    }
    /// Number of flows held.
    pub fn len(&self) -> usize {
        self.conns.len()
    }
    /// No flows held.
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }
}

impl Default for ConnTable {
    fn default() -> Self {
        ConnTable::new(0)
    }
}
