//! The narrow context a component handles one event through (DESIGN.md §1): the time, the
//! event queue to schedule follow-ups on, the packet arena, the shared INT records, the
//! shared read-only tables (routes, connections), and the monitor it records into. A
//! component never reaches another component's state; it sends it an event.

use rand::RngExt;

use super::rng::SimRng;
use super::{Event, EventQueue, PacketArena};
use crate::fabric::int::IntPool;
use crate::fabric::routing::RoutingTable;
use crate::monitor::Monitor;
use crate::nic::conn::ConnTable;
use crate::packet::{flags, PacketKind};
use crate::units::Time;

/// What a component may touch while it handles one event.
pub struct Ctx<'a> {
    /// Current simulated time.
    pub now: Time,
    /// The event queue: schedule follow-up events.
    pub events: &'a mut EventQueue,
    /// Packets by handle.
    pub packets: &'a mut PacketArena,
    /// INT records of packets in flight (HPCC).
    pub ints: &'a mut IntPool,
    /// Counters and logs.
    pub monitor: &'a mut Monitor,
    /// Forwarding tables with their ECMP groups (read-only while events run).
    pub routes: &'a RoutingTable,
    /// Which QP of which NIC serves each flow (read-only while events run).
    pub conns: &'a ConnTable,
    /// The loss-injection stream (random loss on faulty links).
    pub loss_rng: &'a mut SimRng,
}

impl Ctx<'_> {
    /// Schedule `event` at `at`.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        self.events.schedule(at, event);
    }

    /// A uniform draw in [0, 1) from the loss stream.
    pub fn loss_coin(&mut self) -> f64 {
        self.loss_rng.random::<f64>()
    }

    /// Discard packet `pkt`: account its payload to its flow as dropped, release its INT
    /// record and its arena slot.
    pub fn drop_packet(&mut self, pkt: u32) {
        let p = *self.packets.get(pkt);
        if p.kind == PacketKind::Data {
            self.monitor.flows[p.flow as usize].c.dropped += p.payload as u64;
        }
        if p.flags & (flags::INT | flags::INT_ECHO) != 0 {
            self.ints.free(p.aux);
        }
        self.packets.free(pkt);
    }
}
