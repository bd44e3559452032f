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
        /// Routing reconverges this long after the change: until then packets follow the
        /// stale routes (and die on the dead link); after it, shortest paths over the links
        /// still up, bounce paths included.
        reconverge: Time,
    },
    /// A link that was down comes back (routing reconverges after `reconverge`).
    LinkUp {
        /// Index into `Topology::links`.
        link: u32,
        /// See [`FaultKind::LinkDown`].
        reconverge: Time,
    },
    /// A static route: switch `switch` sends packets for host `dst` out of its port on link
    /// `link`, whatever the shortest paths say (a misconfiguration; makes routing loops).
    RouteOverride {
        /// Switch id.
        switch: u32,
        /// Destination host id.
        dst: u32,
        /// Index of the link (of `switch`) to forward on.
        link: u32,
    },
    /// Switch `switch` forgets host `host`'s MAC address while its ARP entry lives (Guo et al.
    /// 2016 §4.2): packets to the host are flooded on every port but the one they came in on,
    /// or, with the switch's `drop_lossless_on_incomplete_arp`, lossless ones are dropped.
    MacAgeOut {
        /// Switch id.
        switch: u32,
        /// Host id.
        host: u32,
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
        /// Control frames (ACK, NAK, CNP, PFC) are dropped too, not only data packets.
        all_frames: bool,
    },
}

impl FaultKind {
    /// Can this fault take a link down (a `link_down` while it lasts, a `link_up` before it
    /// starts or after it clears)? Then the link's wires must be able to drop what they carry.
    pub fn downs_a_link(&self) -> bool {
        matches!(self, FaultKind::LinkDown { .. } | FaultKind::LinkUp { .. })
    }
}

/// Routing and forwarding faults (kept apart so the common kinds stay small).
impl FaultKind {
    /// Is this a forwarding-table fault?
    pub fn is_forwarding(&self) -> bool {
        matches!(
            self,
            FaultKind::RouteOverride { .. } | FaultKind::MacAgeOut { .. }
        )
    }
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
