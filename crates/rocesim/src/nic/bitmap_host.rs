//! SRNIC's bitmap onloading (Wang et al., NSDI 2023 §2 "Bitmap onloading"): the receiver
//! tracks in-order reception on chip and keeps the per-QP bitmap of out-of-order packets in
//! host memory. The model:
//!
//! - an out-of-order packet costs one host access (the bit is written over PCIe); its NACK
//!   leaves at once, since the packet header carries all the NACK needs (SRNIC's header
//!   extensions);
//! - a packet that fills the hole at the cumulative point costs one host access that reads
//!   the bitmap back to find the new cumulative point: its ACK, and every later reply of the
//!   same QP until that read completes, waits one `bitmap_latency` (a PCIe round trip);
//! - accesses are pipelined: the delayed replies wait in a fixed-latency FIFO while the
//!   receive pipeline goes on (no per-packet stall); in-order packets with no hole pending
//!   never touch host memory.

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

/// The NIC's pipeline of bitmap reads: replies in the order they were delayed (all wait the
/// same latency, so that is also the order they leave in).
#[derive(Debug, Default)]
pub struct BitmapHost {
    /// Replies waiting, oldest first.
    pub fifo: VecDeque<Delayed>,
}

impl BitmapHost {
    /// Queue `d`; returns true if it is the only one (schedule its event).
    pub fn push(&mut self, d: Delayed) -> bool {
        self.fifo.push_back(d);
        self.fifo.len() == 1
    }
    /// The next reply due by `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<Delayed> {
        if self.fifo.front().is_some_and(|d| d.at <= now) {
            self.fifo.pop_front()
        } else {
            None
        }
    }
    /// When the oldest waiting reply is due.
    pub fn next_at(&self) -> Option<Time> {
        self.fifo.front().map(|d| d.at)
    }
}
