//! The context a component handles one event through (DESIGN.md §1): the time, the event
//! queue to schedule follow-ups on, the packet arena, the shared INT records, the shared
//! read-only tables (routes, connections), and the monitor it records into.
//! A component never reaches another component's state; it sends it an event.
//!
//! The world owns one `Ctx` and lends it to the component an event names. It holds its parts
//! by value, so that a component reaches a counter or the queue with one load, as a field of
//! the world would be reached.

use super::{Event, EventQueue, PacketArena};
use crate::fabric::int::IntPool;
use crate::fabric::route_ahead::RouteAhead;
use crate::fabric::routing::RoutingTable;
use crate::fabric::xoff_table::XoffTable;
use crate::monitor::Monitor;
use crate::nic::conn::ConnTable;
use crate::packet::{flags, PacketKind};
use crate::units::Time;

/// What a component may touch while it handles one event.
pub struct Ctx {
    /// Current simulated time (set by the loop before each event).
    pub now: Time,
    /// The event queue: schedule follow-up events.
    pub events: EventQueue,
    /// Packets by handle.
    pub packets: PacketArena,
    /// INT records of packets in flight (HPCC).
    pub ints: IntPool,
    /// Counters and logs.
    pub monitor: Monitor,
    /// Forwarding tables with their ECMP groups (components only read them; the world
    /// rebuilds them when routing reconverges).
    pub routes: RoutingTable,
    /// The switch at the far end of every port, for routing one hop ahead (off when routes
    /// can change during a run).
    pub ahead: RouteAhead,
    /// Which QP of which NIC serves each flow (components only read it; the world fills it
    /// when a flow starts).
    pub conns: ConnTable,
    /// The XOFF state of every switch ingress port (each switch reads and writes only its
    /// own row; see `fabric::xoff_table`).
    pub xoff: XoffTable,
    /// Events for components another thread simulates, sent during the current window
    /// (`sim.threads`; always empty on one thread).
    pub outbox: Vec<super::Remote>,
}

impl Ctx {
    /// Schedule `event` at `at`.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: Event) {
        self.events.schedule(at, event);
    }

    /// Discard packet `pkt`: account its payload to its flow as dropped, release its INT
    /// record and its arena slot.
    pub fn drop_packet(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        if p.kind == PacketKind::Data {
            self.monitor.flows[p.flow].c.dropped += p.payload as u64;
        }
        if p.flags & (flags::INT | flags::INT_ECHO) != 0 {
            self.ints.free(p.aux);
        }
        self.packets.free(pkt);
    }
}
