//! The scheduling state of a requester QP: whether the QP scheduler may serve it now, and
//! if not, what holds it back. One small function derives it from the QP's PSN window, its
//! rate limiter and its congestion window; the NIC recomputes it after every event that
//! touches the QP (a send, an ACK, a NAK, a timeout, a congestion-control hook).

use super::qp::SendQp;
use crate::units::Time;

/// What a requester QP may do, as the QP scheduler sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QpState {
    /// It has data, and its rate limiter and congestion window let it send now.
    Ready,
    /// It has data, but its rate limiter holds it until `next_send` (its window may be full
    /// too: it is paced first).
    Paced,
    /// It has data and its rate limiter lets it go, but its congestion window is full.
    WindowFull,
    /// Everything is sent; it waits for ACKs (a NAK or a timeout may bring data back).
    #[default]
    Drained,
    /// Every packet is acknowledged.
    Done,
}

impl SendQp {
    /// Is its congestion window full (no new packet may go until an ACK)?
    #[inline]
    pub fn window_full(&self) -> bool {
        match self.cc.window() {
            Some(w) => self.outstanding() as u64 * self.mtu as u64 >= w,
            None => false,
        }
    }

    /// Its scheduling state at time `now` (priority pause aside: the scheduler skips paused
    /// priorities whatever their QPs' states).
    #[inline]
    pub fn state_at(&self, now: Time) -> QpState {
        if self.done {
            QpState::Done
        } else if self.next_psn >= self.npkts {
            QpState::Drained
        } else if self.next_send > now {
            QpState::Paced
        } else if self.window_full() {
            QpState::WindowFull
        } else {
            QpState::Ready
        }
    }
}
