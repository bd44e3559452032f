//! A port: 8 egress queues, a scheduler, PFC pause state, and the PFC frames it owes its peer.
//! Switch ports and host NIC ports share this model; a host port's queues hold control
//! packets (ACK, NAK, CNP) and the NIC supplies data frames when the port is free.

use std::collections::VecDeque;

use super::params::QueueSched;
use super::pfc::EgressPause;
use super::scheduler::Scheduler;
use crate::topology::NodeRef;
use crate::units::{Rate, Time};

/// A queued packet with what its switch needs when it leaves, so that scheduling and MMU
/// release do not touch the (cold) packet itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QEntry {
    /// Packet handle.
    pub pkt: u32,
    /// Global id of the port it arrived on (`u32::MAX` for packets a host made).
    pub in_port: u32,
    /// That port's index on this switch.
    pub in_local: u16,
    /// Buffer bytes (the frame without preamble and gap).
    pub bytes: u16,
    /// Traffic class (= priority group).
    pub tc: u8,
    /// Charged to its ingress PG as lossless.
    pub lossless: bool,
    /// A data packet collecting INT (stamp a hop record when it leaves).
    pub int: bool,
    /// A flooded copy (admitted without the risk of a drop; see `Mmu::admit_replica`).
    pub replica: bool,
}

impl QEntry {
    /// An entry for a packet a host NIC made (no ingress port).
    #[inline]
    pub fn local(pkt: u32, wire: u32, tc: u8) -> Self {
        QEntry {
            pkt,
            in_port: u32::MAX,
            in_local: 0,
            bytes: (wire - crate::packet::WIRE_GAP) as u16,
            tc,
            lossless: false,
            int: false,
            replica: false,
        }
    }
    /// Bytes on the wire.
    #[inline]
    pub fn wire(&self) -> u32 {
        self.bytes as u32 + crate::packet::WIRE_GAP
    }
}

/// One port of a switch or host. The layout is fixed (`repr(C)`, cache-line aligned) so that
/// the fields every transmit reads share the first cache line.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    // Line 0: what every enqueue, transmit and arrival reads.
    /// The port serializes until this time.
    pub busy_until: Time,
    /// Picoseconds per byte at the line rate when whole (else 0): serialization by multiply.
    pub ps_per_byte: u64,
    /// Propagation delay to the peer.
    pub delay: Time,
    /// Line rate.
    pub rate: Rate,
    /// The node it belongs to.
    pub node: NodeRef,
    /// Global id of the port at the other end of the link.
    pub peer: u32,
    /// Its index on that node.
    pub local: u16,
    /// Bitmask of non-empty queues.
    pub nonempty: u8,
    /// A TxDone event is pending.
    pub txdone_pending: bool,
    /// PFC frames waiting to go out ahead of data: bitmask of priorities.
    pub pfc_pending: u8,
    /// Priorities whose pauses the PFC watchdog ignores (a stormed queue).
    pub pause_ignore: u8,
    /// Queues whose lossless packets the PFC watchdog discards (action `drop`).
    pub wd_drop: u8,
    /// Queues served by strict priority (the others share by DWRR).
    pub strict: u8,
    /// Pause timers of the egress priorities (set by the peer's PFC frames); its `mask` is
    /// the last byte of line 0.
    pub pause: EgressPause,
    // Colder.
    /// Scheduler over the egress queues.
    pub sched: Scheduler,
    /// Egress queues.
    pub queues: [VecDeque<QEntry>; 8],
    /// The egress queue that carries each priority (the switch's TC → queue map).
    pub queue_of_prio: [u8; 8],
    /// Delay from receiving a pause frame to honouring it.
    pub pfc_response: Time,
    /// Index of the link in the topology.
    pub link: u32,
    /// When the refresh of each held XOFF is due (stale refresh events are ignored).
    pub refresh_at: [Time; 8],
    /// Quanta of each pending PFC frame.
    pub pfc_quanta: [u16; 8],
}

impl Port {
    /// A port of `node` at local index `local`, linked to global port `peer`.
    pub fn new(
        node: NodeRef,
        local: u16,
        peer: u32,
        link: u32,
        rate: Rate,
        delay: Time,
        kinds: &[QueueSched; 8],
    ) -> Self {
        Port {
            node,
            local,
            peer,
            link,
            rate,
            ps_per_byte: rate.ps_per_byte().unwrap_or(0),
            delay,
            pfc_response: Time::ZERO,
            queues: Default::default(),
            nonempty: 0,
            busy_until: Time::ZERO,
            txdone_pending: false,
            pause: EgressPause::default(),
            refresh_at: [Time::NEVER; 8],
            pfc_pending: 0,
            pause_ignore: 0,
            wd_drop: 0,
            pfc_quanta: [0; 8],
            sched: Scheduler::new(kinds),
            strict: Scheduler::strict_mask(kinds),
            queue_of_prio: [0, 1, 2, 3, 4, 5, 6, 7],
        }
    }
    /// Append a packet to egress queue `q`.
    #[inline]
    pub fn enqueue(&mut self, q: u8, e: QEntry) {
        self.queues[q as usize].push_back(e);
        self.nonempty |= 1 << q;
    }
    /// Take the head of queue `q`.
    #[inline]
    pub fn dequeue(&mut self, q: u8) -> Option<QEntry> {
        let p = self.queues[q as usize].pop_front();
        if self.queues[q as usize].is_empty() {
            self.nonempty &= !(1 << q);
        }
        p
    }
    /// Time to serialize `bytes` on this port.
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            Time(bytes * self.ps_per_byte)
        } else {
            self.rate.tx_time(bytes)
        }
    }
    /// Queues that hold packets and whose priority is not paused.
    #[inline]
    pub fn eligible(&self) -> u8 {
        let mut paused = 0u8;
        let mut m = self.pause.mask & !self.pause_ignore;
        while m != 0 {
            let prio = m.trailing_zeros() as usize;
            paused |= 1 << self.queue_of_prio[prio];
            m &= m - 1;
        }
        self.nonempty & !paused
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn transmit_fields_share_the_first_cache_line() {
        for end in [
            offset_of!(Port, busy_until) + 8,
            offset_of!(Port, ps_per_byte) + 8,
            offset_of!(Port, node) + std::mem::size_of::<NodeRef>(),
            offset_of!(Port, peer) + 4,
            offset_of!(Port, wd_drop) + 1,
            offset_of!(Port, strict) + 1,
            offset_of!(Port, pause) + offset_of!(EgressPause, mask) + 1,
        ] {
            assert!(end <= 64, "field ends at byte {end}");
        }
    }
}
