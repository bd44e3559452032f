//! Releasing the QPs of completed flows. A flow's requester and responder are freed once
//! nothing can touch them any more: the flow is complete, no packet of it (data, ACK, NAK,
//! CNP) is left anywhere in the network, its congestion-control timer is not pending, and
//! the throughput sampler has sampled past its completion (it reads the flow's CC rate).
//! Until then the flow waits in a retiring list, swept when the list has doubled, so that
//! the cost per flow stays constant and memory follows the flows alive.

use super::Sim;
use crate::ids::FlowId;
use crate::units::Time;

/// Completed flows whose QPs are still held.
#[derive(Debug, Default)]
pub(crate) struct Retiring {
    /// The flows, in completion order.
    flows: Vec<u32>,
    /// Sweep when the list reaches this length.
    sweep_at: usize,
    /// Tests: hold every flow to the end (nothing goes to the spill).
    #[cfg(test)]
    pub hold_all: bool,
}

impl Sim {
    /// Flow `f` completed: release its QPs when that can no longer change anything.
    pub(crate) fn retire(&mut self, f: u32) {
        self.retiring.flows.push(f);
        if self.retiring.flows.len() >= self.retiring.sweep_at {
            self.sweep_retiring();
            self.retiring.sweep_at = (2 * self.retiring.flows.len()).max(64);
            self.release_front();
        }
    }

    /// Stop holding the oldest flows that are over (complete, QPs released), up to the first
    /// that is not: their records go to the spill, for the results (`sim/spill.rs`).
    fn release_front(&mut self) {
        #[cfg(test)]
        if self.retiring.hold_all {
            return;
        }
        let m = &self.ctx.monitor;
        let (first, end) = (m.flows.base(), m.flows.end());
        let mut f = first;
        while f < end && self.is_over(f) {
            let m = &self.ctx.monitor;
            let rec = m.flows[f];
            let before_window = match m.window_open {
                true => m.delivered_before_window(f),
                // It can deliver nothing more: all of it comes before the window.
                false => rec.c.delivered,
            };
            self.spill
                .push(super::spill::Spilled { rec, before_window });
            f += 1;
        }
        if f > first {
            self.ctx.monitor.release_below(f);
            self.ctx.packets.by_flow.release_below(f);
            self.ctx.conns.conns.release_below(f);
        }
    }

    /// Flow `f` completed and its QPs were released.
    fn is_over(&self, f: u32) -> bool {
        let c = self.ctx.conns.get(FlowId(f));
        let released = c.src != u32::MAX && c.send == crate::ids::QpId::NONE;
        released && self.ctx.monitor.flows[f].done_at().is_some()
    }

    /// Release every retiring flow that nothing can touch any more.
    fn sweep_retiring(&mut self) {
        let mut flows = std::mem::take(&mut self.retiring.flows);
        flows.retain(|&f| {
            if !self.quiescent(f) {
                return true;
            }
            let c = *self.ctx.conns.get(FlowId(f));
            self.nics[c.src as usize].release_requester(c.send.0, f);
            self.nics[c.dst as usize].close_responder(c.recv.0, f);
            self.ctx.conns.disconnect(FlowId(f));
            false
        });
        self.retiring.flows = flows;
    }

    /// Can nothing touch completed flow `f`'s QPs any more?
    fn quiescent(&self, f: u32) -> bool {
        if self.ctx.packets.live_of(f) != 0 {
            return false;
        }
        let rec = &self.ctx.monitor.flows[f];
        let sampled = self.sampler.throughput_interval.is_none()
            || rec.done_at().is_some_and(|d| d <= self.sampler.last);
        let c = self.ctx.conns.get(FlowId(f));
        let now = self.now();
        let timer_idle = self.nics[c.src as usize]
            .senders
            .get(c.send.0)
            .filter(|r| r.flow == f)
            .is_none_or(|r| r.cc_timer_at == Time::NEVER || r.cc_timer_at < now);
        sampled && timer_idle
    }
}
