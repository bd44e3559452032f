//! One direction of a link (a channel): its state (up or down, injected loss) and, when its
//! link can go down, the frames in flight in the order they left.
//!
//! Each frame on the wire is one pending `LinkArrive` event carrying its packet, due when its
//! last bit reaches the peer (the arrival reads neither the sender's port nor a FIFO: at
//! k = 16 those were two cache misses a hop). A link has a constant propagation delay, so its
//! frames arrive in the order they were sent, at most a few per microsecond of delay: the
//! pending events scale with the frames in flight, bounded by the links' bandwidth-delay
//! products. Only a link that a fault can take down (`tracked`) also keeps its frames in a
//! FIFO, so that taking it down can drop them at that moment; their pending arrivals then
//! find them gone and do nothing.

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
    /// Frames in flight, when `tracked`: (arrival time of the last bit at the peer, packet
    /// handle).
    pub in_flight: VecDeque<(crate::units::Time, u32)>,
    /// The link can go down (the scenario has a `link_down` or `link_up` fault): frames in
    /// flight are kept in `in_flight` as well as in their arrival events.
    pub tracked: bool,
    /// False while the link is down: frames put on it are lost.
    pub up: bool,
    /// The peer is simulated by another thread (`sim.threads`): a frame put on the channel
    /// goes to the outbox ([`crate::engine::Ctx::send_remote`]) instead of the event queue.
    /// (Beside `up`, in what was padding: the channel keeps its size.)
    pub cut: bool,
    /// Injected loss.
    pub loss: Loss,
    /// The random stream of `Loss::Random` (set with it).
    pub rng: Option<Box<SimRng>>,
}

impl Default for Channel {
    fn default() -> Self {
        Channel {
            in_flight: VecDeque::new(),
            tracked: false,
            up: true,
            loss: Loss::None,
            rng: None,
            cut: false,
        }
    }
}

impl Channel {
    /// Up, without injected loss, without a FIFO and not cut: a frame put on it simply
    /// arrives.
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.up && self.loss == Loss::None && !self.tracked && !self.cut
    }
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
