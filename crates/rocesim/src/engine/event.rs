//! The events of the simulation. Each is small (≤ 16 bytes) and names the component that
//! owns it by index; the world dispatches on the variant.

/// Something that happens at a point in simulated time.
///
/// The variants are declared in the order of their class in [`Event::key`], so that a
/// variant's discriminant is its class, and with `repr(u8)` each is laid out as a C struct
/// that starts with that byte: fields are declared so that the component a variant names
/// (port, NIC, queue pair, flow) is the `u32` at byte 4 wherever it has one, and the event
/// stays 12 bytes. [`Event::key`] reads it there without a branch on the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    /// A fault from the scenario's list starts (`start` = true) or is cleared.
    Fault {
        /// Start or clear.
        start: bool,
        /// Index into the fault list.
        index: u32,
    },
    /// Routing reconverges: shortest paths are recomputed over the links that are up.
    Reroute,
    /// A PFC frame takes effect on this (egress) port after the peer's response delay.
    PauseArrive {
        /// Priority.
        prio: u8,
        /// Quanta; 0 resumes.
        quanta: u16,
        /// The port being paused or resumed.
        port: u32,
    },
    /// The pause timer of an egress priority may have run out.
    PauseExpire {
        /// Priority.
        prio: u8,
        /// Port.
        port: u32,
    },
    /// Refresh an XOFF this (ingress) port is holding, if it still holds it.
    PfcRefresh {
        /// Priority.
        prio: u8,
        /// The port whose ingress priority group is in XOFF.
        port: u32,
    },
    /// A frame reaches the far end of the link leaving a port (its last bit arrives at the
    /// peer). Each frame on a wire has its own event: at most one per port and picosecond,
    /// so (time, port) names it and its key leaves the packet out.
    LinkArrive {
        /// The local egress port the receiving switch will forward it to, looked up one hop
        /// ahead by the sending switch (`fabric::route_ahead`), or `NO_OUT`. Left out of
        /// the key: a hint that saves the receiver its lookup and lets the loop prefetch
        /// that port, never a different decision.
        out: u16,
        /// The port that sent the frame.
        port: u32,
        /// The frame's packet handle.
        pkt: u32,
    },
    /// The frame at the head of a switch ingress port's forwarding pipeline (`switch.latency`)
    /// is ready to be forwarded.
    Forward(u32),
    /// A port finished serializing its current frame and may start the next.
    TxDone(u32),
    /// A host NIC's receive pipeline finished processing the packet at its head.
    RxDone(u32),
    /// A host NIC's payload DMA (`rx.pcie_latency`) completed for the oldest packet in flight.
    RxPlaced(u32),
    /// SRNIC: reads of host bitmaps complete at this host's NIC; waiting replies leave.
    BitmapRead(u32),
    /// A host NIC's rate limiter may allow a queue pair to send again.
    NicWake(u32),
    /// The next flow in start order starts.
    FlowStart,
    /// A chained flow starts (its predecessor completed).
    StartChained(u32),
    /// A queue pair's retransmission timer.
    QpTimer(u32),
    /// A queue pair's congestion-control timer.
    CcTimer(u32),
    /// A host NIC's pause-storm watchdog checks its stalled RX pipeline.
    NicWatchdog(u32),
    /// A switch re-sends the CIPs of this port not yet confirmed (congestion isolation).
    CipRetry(u32),
    /// A switch's PFC watchdog polls its queues.
    WatchdogPoll(u32),
    /// The deadlock detector looks for cycles in the wait-for graph.
    DeadlockCheck,
    /// Periodic sampling of throughput and queue depths.
    Sample,
}

/// Classes whose key below the class is the `u32` at byte 4 of the event (a bit each):
/// `LinkArrive` (5) to `NicWake` (11), and `StartChained` (13) to `WatchdogPoll` (18).
const ID_AT_4: u32 = 0b111_1110_1111_1110_0000;

/// Bits of an event's [`Event::key`] below its class.
const CLASS_SHIFT: u32 = 58;
/// Low 56 bits of a key.
const LOW56: u64 = (1 << 56) - 1;

impl Event {
    /// The packet of a frame's arrival, 0 for any other event: a prefetch hint only
    /// (selected without a branch, so packet 0 stands in for "none").
    #[inline(always)]
    pub fn arrival_packet(self) -> u32 {
        match self {
            Event::LinkArrive { pkt, .. } => pkt,
            _ => 0,
        }
    }

    /// The order among events due at picosecond `time_ps`: [`Event::key`] exclusive-or
    /// [`tie_mask`] of the time. The one comparison every structure of the queue makes
    /// between two events due at the same picosecond.
    #[inline(always)]
    pub fn tie_key(self, time_ps: u64) -> u64 {
        self.key() ^ tie_mask(time_ps)
    }

    /// The event's place among events due at the same picosecond: its class in the top 6
    /// bits, then the component it names (port, NIC, QP, flow, fault) and any further field
    /// (priority, quanta, start). The queue orders events by (time, class, component and
    /// detail exclusive-or [`tie_mask`] of the time), a total order that does not depend on
    /// when or by whom an event was scheduled. Two events due at the same picosecond with
    /// equal keys are the same event (an arrival's key leaves its packet out: one port's
    /// frames arrive at different picoseconds, each after its whole serialization).
    ///
    /// The classes, in order: what changes the fabric (`Fault`, `Reroute`); what gates a
    /// port's transmission (`PauseArrive`, `PauseExpire`, `PfcRefresh`); frames arriving and
    /// forwarded (`LinkArrive`, `Forward`); transmission decisions (`TxDone`); the NIC's
    /// receive side (`RxDone`, `RxPlaced`, `BitmapRead`) and send side (`NicWake`); flows
    /// starting (`FlowStart`, `StartChained`); timers (`QpTimer`, `CcTimer`, `NicWatchdog`,
    /// `CipRetry`, `WatchdogPoll`); and last what observes the state the others left at that
    /// picosecond (`DeadlockCheck`, `Sample`).
    #[inline(always)]
    pub fn key(self) -> u64 {
        let class = self.class();
        if ID_AT_4 >> class & 1 != 0 {
            // SAFETY: `repr(u8)` lays each variant out as a C struct that starts with its
            // one-byte tag; the variants of `ID_AT_4` hold a `u32` at byte 4 (the first field
            // of a tuple variant, `out: u16` then `port: u32` for `LinkArrive`), within the
            // 12 bytes of `self`.
            let id = unsafe {
                std::ptr::from_ref(&self)
                    .cast::<u8>()
                    .add(4)
                    .cast::<u32>()
                    .read()
            };
            return u64::from(class) << CLASS_SHIFT | u64::from(id);
        }
        self.key_by_variant()
    }

    /// The class of [`Event::key`] (its top bits) alone: the variant's discriminant.
    #[inline(always)]
    pub fn class(self) -> u8 {
        // SAFETY: a `repr(u8)` enum starts with its discriminant byte.
        unsafe { std::ptr::from_ref(&self).cast::<u8>().read() }
    }

    /// [`Event::key`] by a match on the variant: for the variants whose key is not the
    /// `u32` at byte 4, and the reference the tests check that reading against.
    #[inline(never)]
    fn key_by_variant(self) -> u64 {
        let (class, low): (u64, u64) = match self {
            Event::Fault { index, start } => (0, u64::from(index) << 1 | u64::from(start)),
            Event::Reroute => (1, 0),
            Event::PauseArrive { port, prio, quanta } => (
                2,
                u64::from(port) << 24 | u64::from(prio) << 16 | u64::from(quanta),
            ),
            Event::PauseExpire { port, prio } => (3, u64::from(port) << 8 | u64::from(prio)),
            Event::PfcRefresh { port, prio } => (4, u64::from(port) << 8 | u64::from(prio)),
            Event::LinkArrive { port, .. } => (5, port.into()),
            Event::Forward(p) => (6, p.into()),
            Event::TxDone(p) => (7, p.into()),
            Event::RxDone(n) => (8, n.into()),
            Event::RxPlaced(n) => (9, n.into()),
            Event::BitmapRead(n) => (10, n.into()),
            Event::NicWake(n) => (11, n.into()),
            Event::FlowStart => (12, 0),
            Event::StartChained(f) => (13, f.into()),
            Event::QpTimer(q) => (14, q.into()),
            Event::CcTimer(q) => (15, q.into()),
            Event::NicWatchdog(n) => (16, n.into()),
            Event::CipRetry(p) => (17, p.into()),
            Event::WatchdogPoll(s) => (18, s.into()),
            Event::DeadlockCheck => (19, 0),
            Event::Sample => (20, 0),
        };
        class << CLASS_SHIFT | low
    }
}

/// The bits a key's class leaves to the component and its detail, scrambled by the time the
/// event is due: a bijection for each time (an exclusive-or with a constant), so two events
/// due at the same picosecond still have different keys, but which component goes first
/// changes from one picosecond to the next. A fixed order (the lowest port first, always)
/// would favour one of several synchronized senders at every tie: four DCTCP flows into one
/// port then share it 4.5 : 1.7 : 1.7 : 1.6 instead of evenly.
#[inline(always)]
pub fn tie_mask(time_ps: u64) -> u64 {
    // Fibonacci hashing (Knuth, TAOCP 6.4). A product's bit k depends on the time's bits
    // 0..=k only, so its high half is rotated down: the bits that order components (the
    // key's lowest) then depend on the time's lowest 32 bits, whatever power of two the time
    // is a multiple of.
    time_ps.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(32) & LOW56
}

#[cfg(test)]
mod key_tests {
    use super::{Event, CLASS_SHIFT, LOW56};

    /// The event whose [`Event::key`] is `k`: the key is one-to-one.
    fn from_key(k: u64) -> Event {
        let low = k & LOW56;
        let id = low as u32;
        let port_prio = || ((low >> 8) as u32, low as u8);
        match k >> CLASS_SHIFT {
            0 => Event::Fault {
                index: (low >> 1) as u32,
                start: low & 1 == 1,
            },
            1 => Event::Reroute,
            2 => Event::PauseArrive {
                port: (low >> 24) as u32,
                prio: (low >> 16) as u8,
                quanta: low as u16,
            },
            3 => {
                let (port, prio) = port_prio();
                Event::PauseExpire { port, prio }
            }
            4 => {
                let (port, prio) = port_prio();
                Event::PfcRefresh { port, prio }
            }
            5 => Event::LinkArrive {
                port: id,
                pkt: 0,
                out: crate::fabric::route_ahead::NO_OUT,
            },
            6 => Event::Forward(id),
            7 => Event::TxDone(id),
            8 => Event::RxDone(id),
            9 => Event::RxPlaced(id),
            10 => Event::BitmapRead(id),
            11 => Event::NicWake(id),
            12 => Event::FlowStart,
            13 => Event::StartChained(id),
            14 => Event::QpTimer(id),
            15 => Event::CcTimer(id),
            16 => Event::NicWatchdog(id),
            17 => Event::CipRetry(id),
            18 => Event::WatchdogPoll(id),
            19 => Event::DeadlockCheck,
            _ => Event::Sample,
        }
    }

    /// Every variant, with extreme field values, comes back from its key; keys of different
    /// events differ and sort by class, then component, then the other fields.
    #[test]
    fn keys_are_one_to_one_and_ordered_by_class() {
        let m = u32::MAX;
        let all = [
            Event::Fault {
                index: 0,
                start: false,
            },
            Event::Fault {
                index: m,
                start: true,
            },
            Event::Reroute,
            Event::PauseArrive {
                port: 3,
                prio: 1,
                quanta: 0,
            },
            Event::PauseArrive {
                port: m,
                prio: 255,
                quanta: u16::MAX,
            },
            Event::PauseExpire { port: m, prio: 7 },
            Event::PfcRefresh { port: 2, prio: 255 },
            Event::LinkArrive {
                port: 7,
                pkt: 0,
                out: crate::fabric::route_ahead::NO_OUT,
            },
            Event::Forward(m),
            Event::TxDone(m),
            Event::RxDone(m),
            Event::RxPlaced(5),
            Event::BitmapRead(m),
            Event::NicWake(0),
            Event::FlowStart,
            Event::StartChained(m),
            Event::QpTimer(m),
            Event::CcTimer(9),
            Event::NicWatchdog(1),
            Event::CipRetry(m),
            Event::WatchdogPoll(4),
            Event::DeadlockCheck,
            Event::Sample,
        ];
        for (i, e) in all.iter().enumerate() {
            assert_eq!(from_key(e.key()), *e, "{e:?}");
            // The key read at byte 4, and the class read from the discriminant, agree with
            // the match on the variant.
            assert_eq!(e.key(), e.key_by_variant(), "{e:?}");
            assert_eq!(u64::from(e.class()), e.key() >> CLASS_SHIFT, "{e:?}");
            for f in &all[i + 1..] {
                assert!(e.key() < f.key(), "{e:?} sorts before {f:?}");
            }
        }
        // Within a class: by component, then by the remaining fields.
        let a = Event::PauseArrive {
            port: 1,
            prio: 7,
            quanta: 9,
        };
        let b = Event::PauseArrive {
            port: 2,
            prio: 0,
            quanta: 0,
        };
        assert!(a.key() < b.key());
    }
}
