//! Fault injection points (`[[fault]]` in SCENARIO.md).

use crate::units::Time;

/// What goes wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// The host's receive pipeline stops; its RX buffer fills and the NIC pauses its switch.
    NicRxStall {
        /// Host id.
        host: u32,
    },
    /// Both directions of a link stop carrying packets; packets sent onto it are lost.
    LinkDown {
        /// Index into `Topology::links`.
        link: u32,
    },
    /// A link that was down comes back.
    LinkUp {
        /// Index into `Topology::links`.
        link: u32,
    },
    /// Packets crossing the link from `from` are dropped: every Nth, or with a probability.
    Loss {
        /// Index into `Topology::links`.
        link: u32,
        /// Direction: drop on the channel leaving this end (`true` = from `a`, `false` = from `b`;
        /// both when `None`).
        from_a: Option<bool>,
        /// Drop every Nth data packet (deterministic), if set.
        every: Option<u64>,
        /// Drop each data packet with this probability, if set.
        probability: Option<f64>,
    },
}

/// A fault and when it applies.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultSpec {
    /// What.
    pub kind: FaultKind,
    /// When it starts.
    pub at: Time,
    /// When it is cleared, if ever.
    pub until: Option<Time>,
}
