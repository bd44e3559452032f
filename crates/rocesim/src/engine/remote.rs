//! What crosses a cut between the threads of a partitioned run (`sim.threads`): a frame put
//! on a link whose far end another thread simulates, or a PFC frame taking effect there.
//!
//! Only two events ever name a component of another node: a frame's `LinkArrive` (keyed by
//! the sending port) and a PFC frame's `PauseArrive` (keyed by the paused egress port at the
//! peer). Both are due at least one propagation delay after they are sent, so the sender
//! puts them in its outbox instead of its event queue, and the threads exchange outboxes at
//! the end of each lookahead window (the shortest delay of a link across a cut). The
//! receiving thread copies the frame into its own arena and schedules the event with the
//! same key it would have had on one thread, so the order of events does not change.

use super::{Ctx, Event};
use crate::nic::cc::IntRecord;
use crate::packet::{flags, Packet};
use crate::units::Time;

/// One event handed to the thread that simulates its component.
#[derive(Clone, Debug)]
pub struct Remote {
    /// When the event is due (picoseconds).
    pub at: Time,
    /// The event, with the packet handle of a `LinkArrive` to be replaced by the receiver's.
    pub ev: Event,
    /// The frame of a `LinkArrive`, with its INT record if it carries one.
    pub frame: Option<(Packet, Option<IntRecord>)>,
}

impl Ctx {
    /// Frame `pkt`, sent by `port`, is due at the peer at `at`, which another thread
    /// simulates: move it out of this thread's arena into the outbox.
    #[cold]
    pub fn send_remote(&mut self, at: Time, port: u32, pkt: u32) {
        let p = *self.packets.get(pkt);
        let int = (p.flags & (flags::INT | flags::INT_ECHO) != 0).then(|| {
            let r = *self.ints.get(p.aux);
            self.ints.free(p.aux);
            r
        });
        self.packets.free(pkt);
        // The receiving part routes the frame itself.
        let out = crate::fabric::route_ahead::NO_OUT;
        let ev = Event::LinkArrive { port, pkt: 0, out };
        self.outbox.push(Remote {
            at,
            ev,
            frame: Some((p, int)),
        });
    }

    /// Schedule an event another thread sent here, its frame (if any) copied into this
    /// thread's arena; returns the frame's arrival time and handle.
    pub fn receive_remote(&mut self, m: Remote) -> Option<(Time, u32)> {
        let ev = match (m.ev, m.frame) {
            (Event::LinkArrive { port, out, .. }, Some((mut p, int))) => {
                if let Some(r) = int {
                    p.aux = self.ints.insert(r);
                }
                let pkt = self.packets.alloc(p);
                Event::LinkArrive { port, pkt, out }
            }
            (ev, _) => ev,
        };
        self.events.schedule(m.at, ev);
        match ev {
            Event::LinkArrive { pkt, .. } => Some((m.at, pkt)),
            _ => None,
        }
    }
}
