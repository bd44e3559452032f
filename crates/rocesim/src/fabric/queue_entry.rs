//! One entry of an egress queue: a queued packet packed in two words with what its switch
//! needs when it leaves (`fabric/port.rs` holds the queues).

use crate::ids::Priority;

/// A queued packet with what its switch needs when it leaves, so that scheduling and MMU
/// release do not touch the (cold) packet itself.
///
/// Two 8-byte words. `lo`: the packet handle (bits 0-31), the buffer bytes (32-47), the wire
/// bytes beyond them (48-55), the traffic class (56-63); `hi`: the ingress port's local index
/// (bits 0-15, `u16::MAX` for packets a host made), three flags (16 lossless, 17 INT, 18
/// replica) and the egress port at the next switch, looked up ahead (32-47). An entry is
/// built by shifts in registers and stored as two 8-byte words, and every field lies within
/// one of them, so that reading a field just after the entry was stored is forwarded from the
/// store. As a struct of narrow fields it was built on the stack
/// by narrow stores and copied by one 16-byte load, which the core cannot forward from those
/// stores: the copy waited until every older store had reached the cache
/// (docs/performance.md, "Store forwarding").
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct QEntry {
    lo: u64,
    hi: u64,
}

/// [`QEntry::lossless`]'s bit in the entry's `hi` word.
const LOSSLESS: u64 = 1 << 16;
/// [`QEntry::int`]'s bit in `hi`.
const INT: u64 = 1 << 17;
/// [`QEntry::replica`]'s bit in `hi`.
const REPLICA: u64 = 1 << 18;
/// [`QEntry::ahead`]'s place in `hi` (bits 32-47), stored plus one so that an entry built
/// without it reads [`NO_OUT`](super::route_ahead::NO_OUT).
const AHEAD_SHIFT: u32 = 32;

impl QEntry {
    /// An entry for packet `pkt` that arrived on local port `in_local`: `bytes` buffer bytes
    /// and `gap` more on the wire, traffic class `tc`; charged as `lossless` to its ingress
    /// PG, collecting `int` (stamp a hop record when it leaves), a flooded `replica`
    /// (admitted without the risk of a drop; see `Mmu::admit_replica`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        pkt: u32,
        in_local: u16,
        bytes: u16,
        gap: u8,
        tc: Priority,
        lossless: bool,
        int: bool,
        replica: bool,
    ) -> Self {
        QEntry {
            lo: u64::from(pkt)
                | u64::from(bytes) << 32
                | u64::from(gap) << 48
                | u64::from(tc.0) << 56,
            hi: u64::from(in_local)
                | if lossless { LOSSLESS } else { 0 }
                | if int { INT } else { 0 }
                | if replica { REPLICA } else { 0 },
        }
    }
    /// An entry for a packet a host NIC made (no ingress port), `wire` bytes of which `gap`
    /// are never buffered.
    #[inline]
    pub fn local(pkt: u32, wire: u32, gap: u8, tc: Priority) -> Self {
        let bytes = (wire - u32::from(gap)) as u16;
        QEntry::new(pkt, u16::MAX, bytes, gap, tc, false, false, false)
    }
    /// Packet handle.
    #[inline(always)]
    pub fn pkt(self) -> u32 {
        self.lo as u32
    }
    /// Index on this switch of the port it arrived on (`u16::MAX` for packets a host made).
    #[inline(always)]
    pub fn in_local(self) -> u16 {
        self.hi as u16
    }
    /// Buffer bytes (the frame without preamble and gap).
    #[inline(always)]
    pub fn bytes(self) -> u16 {
        (self.lo >> 32) as u16
    }
    /// Bytes on the wire beyond `bytes` (preamble and gap, [`crate::packet::Packet::gap`]).
    #[inline(always)]
    pub fn gap(self) -> u8 {
        (self.lo >> 48) as u8
    }
    /// Traffic class (= priority group = PFC priority).
    #[inline(always)]
    pub fn tc(self) -> Priority {
        Priority((self.lo >> 56) as u8)
    }
    /// Charged to its ingress PG as lossless.
    #[inline(always)]
    pub fn lossless(self) -> bool {
        self.hi & LOSSLESS != 0
    }
    /// A data packet collecting INT (stamp a hop record when it leaves).
    #[inline(always)]
    pub fn int(self) -> bool {
        self.hi & INT != 0
    }
    /// A flooded copy (admitted without the risk of a drop; see `Mmu::admit_replica`).
    #[inline(always)]
    pub fn replica(self) -> bool {
        self.hi & REPLICA != 0
    }
    /// The egress port the next switch will forward this packet to, routed one hop ahead
    /// (`fabric::route_ahead`), or [`NO_OUT`](super::route_ahead::NO_OUT).
    #[inline(always)]
    pub fn ahead(self) -> u16 {
        ((self.hi >> AHEAD_SHIFT) as u16).wrapping_sub(1)
    }
    /// This entry, carrying `out` as its [`QEntry::ahead`] port (built without one, it has
    /// none).
    #[inline(always)]
    pub fn with_ahead(self, out: u16) -> Self {
        let stored = u64::from(out.wrapping_add(1)) << AHEAD_SHIFT;
        QEntry {
            lo: self.lo,
            hi: self.hi & !(0xFFFF << AHEAD_SHIFT) | stored,
        }
    }
    /// Bytes on the wire.
    #[inline(always)]
    pub fn wire(self) -> u32 {
        self.bytes() as u32 + u32::from(self.gap())
    }
}

impl std::fmt::Debug for QEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QEntry")
            .field("pkt", &self.pkt())
            .field("in_local", &self.in_local())
            .field("bytes", &self.bytes())
            .field("gap", &self.gap())
            .field("tc", &self.tc())
            .field("lossless", &self.lossless())
            .field("int", &self.int())
            .field("replica", &self.replica())
            .field("ahead", &self.ahead())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::route_ahead::NO_OUT;

    #[test]
    fn a_queue_entry_gives_back_every_field_as_built() {
        let cases = [
            (0, 0, 0, 0, 0, false, false, false),
            (u32::MAX, u16::MAX, u16::MAX, u8::MAX, 7, true, true, true),
            (7, 3, 1082, 20, 3, true, false, true),
            (0x8000_0001, 4095, 86, 0, 5, false, true, false),
        ];
        for (pkt, inl, bytes, gap, tc, lossless, int, replica) in cases {
            let e = QEntry::new(pkt, inl, bytes, gap, Priority(tc), lossless, int, replica);
            assert_eq!(e.pkt(), pkt);
            assert_eq!(e.in_local(), inl);
            assert_eq!(e.bytes(), bytes);
            assert_eq!(e.gap(), gap);
            assert_eq!(e.tc(), Priority(tc));
            assert_eq!(
                (e.lossless(), e.int(), e.replica()),
                (lossless, int, replica)
            );
            assert_eq!(e.wire(), u32::from(bytes) + u32::from(gap));
        }
        // Each field alone at its maximum leaves every other field zero: no two overlap.
        let alone = [
            QEntry::new(u32::MAX, 0, 0, 0, Priority(0), false, false, false),
            QEntry::new(0, u16::MAX, 0, 0, Priority(0), false, false, false),
            QEntry::new(0, 0, u16::MAX, 0, Priority(0), false, false, false),
            QEntry::new(0, 0, 0, u8::MAX, Priority(0), false, false, false),
            QEntry::new(0, 0, 0, 0, Priority(7), false, false, false),
            QEntry::new(0, 0, 0, 0, Priority(0), true, false, false),
            QEntry::new(0, 0, 0, 0, Priority(0), false, true, false),
            QEntry::new(0, 0, 0, 0, Priority(0), false, false, true),
        ];
        for (i, e) in alone.iter().enumerate() {
            let set = [
                e.pkt() != 0,
                e.in_local() != 0,
                e.bytes() != 0,
                e.gap() != 0,
                e.tc() != Priority(0),
                e.lossless(),
                e.int(),
                e.replica(),
            ];
            let want: Vec<bool> = (0..8).map(|j| j == i).collect();
            assert_eq!(set.to_vec(), want, "field {i} alone");
        }
        let l = QEntry::local(9, 1102, 20, Priority(1));
        assert_eq!((l.in_local(), l.bytes(), l.wire()), (u16::MAX, 1082, 1102));
        assert!(!l.lossless() && !l.int() && !l.replica());
    }

    #[test]
    fn the_port_ahead_rides_beside_the_other_fields() {
        let full = QEntry::new(
            u32::MAX,
            u16::MAX,
            u16::MAX,
            u8::MAX,
            Priority(7),
            true,
            true,
            true,
        );
        let zero = QEntry::new(0, 0, 0, 0, Priority(0), false, false, false);
        for e in [full, zero, QEntry::local(9, 1102, 20, Priority(1))] {
            assert_eq!(
                e.ahead(),
                NO_OUT,
                "an entry built without a port ahead has none"
            );
            for out in [0, 1, 17, 4095, NO_OUT - 1, NO_OUT] {
                let a = e.with_ahead(out);
                assert_eq!(a.ahead(), out);
                assert_eq!(a.with_ahead(NO_OUT), e, "the port ahead alone changed");
                assert_eq!(
                    (a.pkt(), a.in_local(), a.bytes(), a.gap(), a.tc()),
                    (e.pkt(), e.in_local(), e.bytes(), e.gap(), e.tc())
                );
                assert_eq!(
                    (a.lossless(), a.int(), a.replica()),
                    (e.lossless(), e.int(), e.replica())
                );
            }
        }
        assert_eq!(
            full.with_ahead(3).with_ahead(12).ahead(),
            12,
            "a second port replaces the first"
        );
    }
}
