//! SRNIC's bitmap onloading (Wang et al., NSDI 2023 §2 "Bitmap onloading"): the receiver
//! tracks in-order reception on chip and keeps the per-QP bitmap of out-of-order packets in
//! host memory. The model:
//!
//! - an out-of-order packet costs one host access (the bit is written over PCIe); its NACK
//!   leaves at once, since the packet header carries all the NACK needs (SRNIC's header
//!   extensions);
//! - a packet that fills the hole at the cumulative point costs one host access that reads
//!   the bitmap back to find the new cumulative point: its ACK, and every later reply of the
//!   same QP until that read completes, waits until `bitmap_latency` (a PCIe round trip)
//!   after the hole was filled, so the QP's replies keep their order;
//! - accesses are pipelined: the delayed replies wait in a queue ordered by release time
//!   while the receive pipeline goes on (no per-packet stall); in-order packets with no hole
//!   pending never touch host memory.

use std::collections::VecDeque;

use crate::units::Time;

/// A reply of responder `slot` (of flow `flow`) waiting for a bitmap read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delayed {
    /// When it may leave.
    pub at: Time,
    /// Responder slot.
    pub slot: u32,
    /// Its flow (the slot may have been reused when it leaves).
    pub flow: u32,
    /// ACK or NACK.
    pub kind: crate::packet::PacketKind,
    /// The PSN it carries.
    pub psn: u32,
    /// Its `aux` word.
    pub aux: u32,
    /// Its flag bits.
    pub flags: u8,
}

/// The NIC's pipeline of bitmap reads: replies waiting, in order of release time (ties in
/// the order they were delayed).
#[derive(Debug)]
pub struct BitmapHost {
    /// Replies waiting, earliest first.
    pub fifo: VecDeque<Delayed>,
    /// When the pending `BitmapRead` event fires (`NEVER` = none).
    pub event_at: Time,
}

impl Default for BitmapHost {
    fn default() -> Self {
        BitmapHost {
            fifo: VecDeque::new(),
            event_at: Time::NEVER,
        }
    }
}

impl BitmapHost {
    /// Queue `d`; returns the time to schedule a `BitmapRead` event at, if one is needed.
    pub fn push(&mut self, d: Delayed) -> Option<Time> {
        // Usually the latest: scan from the back.
        let i = self
            .fifo
            .iter()
            .rposition(|e| e.at <= d.at)
            .map_or(0, |i| i + 1);
        self.fifo.insert(i, d);
        self.arm()
    }
    /// The time of a `BitmapRead` event needed for the earliest reply, if none is pending
    /// early enough (recorded as pending).
    pub fn arm(&mut self) -> Option<Time> {
        let head = self.fifo.front()?.at;
        (head < self.event_at).then(|| {
            self.event_at = head;
            head
        })
    }
    /// The next reply due by `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<Delayed> {
        if self.fifo.front().is_some_and(|d| d.at <= now) {
            self.fifo.pop_front()
        } else {
            None
        }
    }
}
