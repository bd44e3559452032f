//! PFC (IEEE 802.1Qbb) on the receiving side of a pause: per-priority pause timers of an
//! egress port.
//!
//! A pause frame carries quanta per priority; one quantum is 512 bit times at the link rate.
//! While a priority is paused the port may finish the frame on the wire but starts no new
//! frame of that priority. Quanta 0 resumes at once. Later frames replace the timer.

use crate::units::{Rate, Time};

/// Pause state of the 8 priorities of one egress port.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct EgressPause {
    /// Bitmask of paused priorities (first: it is what the transmit path reads).
    pub mask: u8,
    /// When each priority's pause runs out.
    pub until: [Time; 8],
    /// When each priority's current pause began (valid while paused).
    pub since: [Time; 8],
}

impl Default for EgressPause {
    fn default() -> Self {
        EgressPause {
            until: [Time::ZERO; 8],
            since: [Time::ZERO; 8],
            mask: 0,
        }
    }
}

/// Outcome of applying a pause frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseChange {
    /// The priority was not paused and now is; a timer must be set for `until`.
    Paused,
    /// The pause was extended or shortened; a timer must be set for `until`.
    Refreshed,
    /// The priority resumed after being paused for this long.
    Resumed(Time),
    /// Nothing changed (a resume for a priority that was not paused).
    None,
}

impl EgressPause {
    /// Is `prio` paused?
    #[inline]
    pub fn is_paused(&self, prio: u8) -> bool {
        self.mask & (1 << prio) != 0
    }
    /// Apply a pause frame for `prio` with `quanta` at `now` on a link of `rate`.
    pub fn apply(&mut self, prio: u8, quanta: u16, now: Time, rate: Rate) -> PauseChange {
        let p = prio as usize;
        if quanta == 0 {
            return self.resume(prio, now);
        }
        self.until[p] = now + super::params::quanta_time(quanta as u64, rate);
        if self.is_paused(prio) {
            PauseChange::Refreshed
        } else {
            self.mask |= 1 << prio;
            self.since[p] = now;
            PauseChange::Paused
        }
    }
    /// A pause timer fired: resume if it really ran out (a refresh may have extended it).
    pub fn expire(&mut self, prio: u8, now: Time) -> PauseChange {
        if self.is_paused(prio) && self.until[prio as usize] <= now {
            self.resume(prio, now)
        } else {
            PauseChange::None
        }
    }
    fn resume(&mut self, prio: u8, now: Time) -> PauseChange {
        if !self.is_paused(prio) {
            return PauseChange::None;
        }
        self.mask &= !(1 << prio);
        self.until[prio as usize] = now;
        PauseChange::Resumed(now - self.since[prio as usize])
    }
}

/// Ingress-side XOFF state of one priority group: whether we hold the peer paused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XoffState {
    /// Bitmask of priorities for which XOFF was sent and XON not yet.
    pub mask: u8,
}

impl XoffState {
    /// Is XOFF held for `prio`?
    #[inline]
    pub fn held(&self, prio: u8) -> bool {
        self.mask & (1 << prio) != 0
    }
    /// Mark XOFF sent.
    #[inline]
    pub fn set(&mut self, prio: u8) {
        self.mask |= 1 << prio;
    }
    /// Mark XON sent.
    #[inline]
    pub fn clear(&mut self, prio: u8) {
        self.mask &= !(1 << prio);
    }
}

/// How long before a pause expires the holder re-sends it: half the pause time, so one lost
/// or late refresh never lets the peer resume early.
pub fn refresh_interval(quanta: u16, rate: Rate) -> Time {
    let t = super::params::quanta_time(quanta as u64, rate);
    Time((t.0 / 2).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::params::quanta_time;

    #[test]
    fn max_pause_durations_match_802_1qbb() {
        // 65535 quanta × 512 bit times = 33,553,920 bits: 838.848 us at 40G, 335.5392 us at 100G.
        assert_eq!(quanta_time(65535, Rate::gbps(40)), Time(838_848_000));
        assert_eq!(quanta_time(65535, Rate::gbps(100)), Time(335_539_200));
        assert_eq!(quanta_time(1, Rate::gbps(400)), Time(1_280));
    }

    #[test]
    fn pause_refresh_and_resume() {
        let mut e = EgressPause::default();
        let r = Rate::gbps(100);
        assert_eq!(e.apply(3, 100, Time(0), r), PauseChange::Paused);
        assert!(e.is_paused(3) && !e.is_paused(0));
        assert_eq!(e.apply(3, 100, Time(100_000), r), PauseChange::Refreshed);
        // The first timer (at 512 ns) is stale after the refresh.
        assert_eq!(e.expire(3, Time(512_000)), PauseChange::None);
        assert_eq!(
            e.expire(3, Time(612_000)),
            PauseChange::Resumed(Time(612_000))
        );
        assert_eq!(e.apply(3, 0, Time(700_000), r), PauseChange::None);
    }
}
