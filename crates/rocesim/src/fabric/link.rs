//! One direction of a link (a channel): frames in flight, in the order they left.
//!
//! A link has a constant propagation delay, so frames arrive in the order they were sent.
//! The channel keeps them in a FIFO and the world schedules only the head's arrival: the
//! number of pending events scales with links, not with packets in flight (DESIGN.md §4).

use std::collections::VecDeque;

use rand::RngExt;

use crate::engine::rng::SimRng;
use crate::units::Time;

/// A loss process on a channel (fault injection). It applies to data packets only, or with
/// `all` to every frame (ACK, NAK, CNP and PFC frames too).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
pub enum Loss {
    /// No injected loss.
    None,
    /// Drop every Nth frame it applies to (the Nth, 2Nth, ...).
    Every {
        /// Period.
        n: u64,
        /// Frames seen so far.
        seen: u64,
        /// Control frames too.
        all: bool,
    },
    /// Drop each frame it applies to with probability `p`, drawing from the channel's own
    /// random stream (`Channel::rng`, so loss on one link does not perturb another's).
    Random {
        /// Drop probability.
        p: f64,
        /// Control frames too.
        all: bool,
    },
}

/// The channel leaving one port toward its peer. `repr(C)`: what every transmit and arrival
/// reads (the FIFO, `up`, the loss process's kind) comes first, in one cache line.
#[derive(Debug)]
#[repr(C)]
pub struct Channel {
    /// Frames in flight: (arrival time of the last bit at the peer, packet handle).
    pub in_flight: VecDeque<(crate::units::Time, u32)>,
    /// False while the link is down: frames put on it are lost.
    pub up: bool,
    /// Injected loss.
    pub loss: Loss,
    /// The random stream of `Loss::Random` (set with it).
    pub rng: Option<Box<SimRng>>,
}

impl Default for Channel {
    fn default() -> Self {
        Channel {
            in_flight: VecDeque::new(),
            up: true,
            loss: Loss::None,
            rng: None,
        }
    }
}

impl Channel {
    /// Put a frame on the channel; returns true if it became the head (schedule its arrival).
    #[inline]
    pub fn push(&mut self, arrive: Time, pkt: u32) -> bool {
        self.in_flight.push_back((arrive, pkt));
        self.in_flight.len() == 1
    }
    /// Take the head frame.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, u32)> {
        self.in_flight.pop_front()
    }
    /// Arrival time of the new head, if any.
    #[inline]
    pub fn head_time(&self) -> Option<Time> {
        self.in_flight.front().map(|&(t, _)| t)
    }
    /// Decide whether the loss process drops the next frame (`data`: a data packet; other
    /// frames only count when the process applies to all frames).
    pub fn drops_next(&mut self, data: bool) -> bool {
        match self.loss {
            Loss::None => false,
            Loss::Every {
                n,
                ref mut seen,
                all,
            } => {
                if !data && !all {
                    return false;
                }
                *seen += 1;
                *seen % n == 0
            }
            Loss::Random { p, all } => {
                (data || all) && self.rng.as_mut().is_some_and(|r| r.random::<f64>() < p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_drops_exactly_one_in_n() {
        let mut c = Channel {
            loss: Loss::Every {
                n: 256,
                seen: 0,
                all: false,
            },
            ..Default::default()
        };
        let drops = (0..256 * 10).filter(|_| c.drops_next(true)).count();
        assert_eq!(drops, 10);
        assert!(
            (0..1000).all(|_| !c.drops_next(false)),
            "control frames pass a data-only loss"
        );
    }

    #[test]
    fn fifo_reports_new_head() {
        let mut c = Channel::default();
        assert!(c.push(Time(10), 1));
        assert!(!c.push(Time(20), 2));
        assert_eq!(c.pop(), Some((Time(10), 1)));
        assert_eq!(c.head_time(), Some(Time(20)));
    }
}
