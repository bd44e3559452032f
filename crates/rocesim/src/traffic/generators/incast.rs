//! Incast: many senders to one receiver, in rounds.

use super::flow;
use crate::traffic::flow::FlowSpec;
use crate::units::Time;

/// Incast rounds.
#[derive(Clone, Debug)]
pub struct Incast<'a> {
    /// The senders (the receiver, if among them, is left out).
    pub senders: &'a [u32],
    /// The receiving host.
    pub receiver: u32,
    /// Bytes each sender sends per round; `None` = long-lived.
    pub size: Option<u64>,
    /// Start of the first round.
    pub at: Time,
    /// Period between rounds (used when `rounds` > 1).
    pub repeat: Time,
    /// Number of rounds.
    pub rounds: u64,
}

/// Every sender sends `size` to the receiver at `at + k × repeat` for k in 0..rounds; flows are
/// ordered round by round, senders in the given order.
pub fn incast(p: &Incast<'_>, dscp: &dyn Fn(u32) -> u8) -> Vec<FlowSpec> {
    let mut flows = Vec::new();
    for k in 0..p.rounds {
        let start = Time::from_ps(p.at.ps() + k * p.repeat.ps());
        for &s in p.senders.iter().filter(|&&s| s != p.receiver) {
            flows.push(flow(s, p.receiver, p.size, start, dscp(s)));
        }
    }
    flows
}
