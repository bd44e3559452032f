//! The NIC receive pipeline: an RX buffer in front of a packet processor of finite rate.
//!
//! Packets wait in the RX buffer while the pipeline is busy (or stalled by a fault). When the
//! buffer crosses its XOFF the NIC pauses its switch port for every lossless priority; below
//! XON it resumes it. This is how a slow or stuck receiver turns into PFC pauses (Guo et al.
//! 2016 §4.3–4.4).

use std::collections::VecDeque;

use super::params::RxParams;
use crate::units::Time;

/// State of one NIC's receive pipeline.
#[derive(Clone, Debug)]
pub struct RxPipeline {
    /// Parameters.
    pub params: RxParams,
    /// Packets waiting, with their buffer bytes.
    pub queue: VecDeque<(u32, u32)>,
    /// Bytes in the RX buffer.
    pub bytes: u64,
    /// A packet is being processed (an RxDone event is pending).
    pub busy: bool,
    /// Processing stopped by a fault.
    pub stalled: bool,
    /// When the current stall began.
    pub stalled_since: Time,
    /// The NIC's PFC watchdog has disabled pause generation for good.
    pub pause_disabled: bool,
}

impl RxPipeline {
    /// An idle pipeline.
    pub fn new(params: RxParams) -> Self {
        RxPipeline {
            params,
            queue: VecDeque::new(),
            bytes: 0,
            busy: false,
            stalled: false,
            stalled_since: Time::ZERO,
            pause_disabled: false,
        }
    }
    /// Can a packet arriving now skip the buffer (line-rate pipeline, nothing queued)?
    #[inline]
    pub fn bypass(&self) -> bool {
        self.params.rate.is_none() && !self.stalled && self.queue.is_empty()
    }
    /// Is there room for `size` more bytes?
    #[inline]
    pub fn has_room(&self, size: u64) -> bool {
        self.bytes + size <= self.params.buffer.0
    }
    /// Buffer a packet.
    pub fn push(&mut self, pkt: u32, size: u32) {
        self.queue.push_back((pkt, size));
        self.bytes += size as u64;
    }
    /// Take the head packet out of the buffer.
    pub fn pop(&mut self) -> Option<u32> {
        let (p, s) = self.queue.pop_front()?;
        self.bytes -= s as u64;
        Some(p)
    }
    /// Time to process a packet of `size` bytes (zero at line rate).
    pub fn service_time(&self, size: u32) -> Time {
        match self.params.rate {
            Some(r) => r.tx_time(size as u64),
            None => Time::ZERO,
        }
    }
    /// Over XOFF: the NIC should pause its switch.
    #[inline]
    pub fn over_xoff(&self) -> bool {
        !self.pause_disabled && self.bytes >= self.params.xoff.0
    }
    /// Under XON: the NIC may resume its switch.
    #[inline]
    pub fn under_xon(&self) -> bool {
        self.bytes <= self.params.xon.0
    }
}
