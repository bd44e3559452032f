//! Packets as they travel: RoCEv2 data, ACK, NAK and CNP frames.
//!
//! Frame sizes on the wire follow SCENARIO.md: a data frame adds 82 bytes to its payload
//! (preamble+SFD 8, inter-frame gap 12, Ethernet 14, FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4),
//! plus RETH 16 on the first packet of a WRITE. PFC frames are 64 bytes + 20 of preamble and gap.
//! A packet is 32 bytes in memory: deep lossless queues hold hundreds of thousands of them, so
//! every byte is cache.

/// Preamble + SFD and inter-frame gap: on the wire but never buffered.
pub const WIRE_GAP: u32 = 20;
/// Bytes a RoCEv2 data frame adds to its payload on the wire.
pub const DATA_OVERHEAD: u32 = 82;
/// RDMA Extended Transport Header on the first packet of a WRITE.
pub const RETH: u32 = 16;
/// An ACK or NAK on the wire: headers + AETH 4 (66-byte frame + 20).
pub const ACK_WIRE: u32 = 86;
/// A CNP on the wire: headers + 16 reserved bytes (78-byte frame + 20).
pub const CNP_WIRE: u32 = 98;
/// A PFC frame on the wire: minimum frame 64 + 20.
pub const PFC_WIRE: u32 = 84;
/// Bytes a TCP/IPv4 data frame adds to its payload on the wire: preamble+SFD 8, inter-frame
/// gap 12, Ethernet 14, FCS 4, IPv4 20, TCP 20 (no options).
pub const TCP_OVERHEAD: u32 = 78;
/// A pure TCP ACK on the wire: its 58 bytes of headers are padded to the 64-byte minimum
/// frame, plus 20 of preamble and gap.
pub const TCP_ACK_WIRE: u32 = 84;
/// The RoCEv2 UDP destination port.
pub const ROCEV2_UDP_PORT: u16 = 4791;

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// RDMA data (a WRITE segment).
    Data,
    /// Positive acknowledgement of every PSN up to `psn`.
    Ack,
    /// Negative acknowledgement: `psn` is the first PSN the receiver is missing.
    Nak,
    /// Congestion Notification Packet (RoCEv2 Annex A17).
    Cnp,
    /// Congestion Isolation Packet (IEEE 802.1Qcz): a switch asks its upstream neighbour to
    /// isolate `flow`; `psn` 0 is the request, 1 its acknowledgement. Never reaches a host.
    Cip,
}

/// ECN codepoint bits of the IP header.
pub mod ecn {
    /// Not ECN-capable.
    pub const NOT_ECT: u8 = 0;
    /// ECN-capable transport.
    pub const ECT0: u8 = 2;
    /// Congestion experienced.
    pub const CE: u8 = 3;
}

/// A packet in the arena. Aligned to its 32 bytes so that no packet straddles two cache
/// lines (the arena's buffer is only 16-byte aligned otherwise, and a switch reads both ends
/// of the record on every hop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(32))]
pub struct Packet {
    /// Data, ACK, NAK or CNP.
    pub kind: PacketKind,
    /// DSCP (6 bits); switches map it to a traffic class each hop.
    pub dscp: u8,
    /// ECN codepoint.
    pub ecn: u8,
    /// IP TTL; decremented at every switch, dropped at zero.
    pub ttl: u8,
    /// Destination host id. (The source is the flow's: a data packet's sender is its flow's
    /// source, a control packet's is the flow's destination.)
    pub dst: u32,
    /// Flow (queue pair) id.
    pub flow: u32,
    /// Packet sequence number (data), or the acknowledged PSN (ACK/NAK).
    pub psn: u32,
    /// Payload bytes (0 for control packets).
    pub payload: u16,
    /// Bytes on the wire including preamble and inter-frame gap.
    pub wire: u16,
    /// Of `wire`, the bytes never buffered (preamble, SFD, inter-frame gap): [`WIRE_GAP`],
    /// or the sending NIC's `nic.frame_gap`.
    pub gap: u8,
    /// 5-tuple hash for ECMP.
    pub hash: u32,
    /// Traffic class the last sender (NIC or switch) gave it: its priority on the wire.
    pub tc: u8,
    /// [`flags`] bits.
    pub flags: u8,
    /// Hops recorded in the packet's INT record so far: the hop count of HPCC's INT header,
    /// carried in the packet so a switch can write its hop without reading the record.
    pub int_hops: u8,
    /// With [`flags::INT`] or [`flags::INT_ECHO`]: the handle of the packet's INT record.
    /// Otherwise: the data packet's send time in units of 1024 ps (wrapping; see
    /// [`stamp`]), echoed by its ACK for RTT samples.
    pub aux: u32,
}

/// A send-time stamp for [`Packet::aux`]: picoseconds / 1024 (≈ 1 ns), wrapping every ~4.4 s.
#[inline]
pub fn stamp(t: crate::units::Time) -> u32 {
    (t.ps() >> 10) as u32
}

/// The time elapsed since `stamp` was taken, as of `now` (exact to 1024 ps).
#[inline]
pub fn since_stamp(now: crate::units::Time, stamp_value: u32) -> crate::units::Time {
    crate::units::Time((stamp(now).wrapping_sub(stamp_value) as u64) << 10)
}

/// Packet flag bits.
pub mod flags {
    /// A data packet collecting INT: switches stamp a hop record at egress (HPCC).
    pub const INT: u8 = 1;
    /// An ACK carrying its data packet's INT record back to the sender.
    pub const INT_ECHO: u8 = 2;
    /// An ACK echoing a CE mark on the data packet it acknowledges (DCTCP).
    pub const ECN_ECHO: u8 = 4;
    /// A data packet whose bytes a switch counts toward its flow's share of a class queue
    /// (congestion isolation's `share` identification).
    pub const ISO_COUNTED: u8 = 8;
    /// A data packet sent for the first time (not a retransmission): receivers count such a
    /// packet arriving below a PSN already received as delivered out of order.
    pub const FIRST_TX: u8 = 16;
    /// A TCP duplicate ACK carrying a SACK block (RFC 2018): `aux` is the out-of-order
    /// segment that triggered it, instead of a timestamp echo.
    pub const SACK: u8 = 32;
}

impl Packet {
    /// Bytes the packet occupies in a buffer: its frame without preamble and gap.
    #[inline]
    pub fn buf_bytes(&self) -> u64 {
        (self.wire - u16::from(self.gap)) as u64
    }
    /// The fields a switch's admission reads ([`Header`]).
    #[inline(always)]
    pub fn header(&self) -> Header {
        Header {
            dscp: self.dscp,
            flags: self.flags,
            gap: self.gap,
            // At most `wire`, a u16.
            buf: self.buf_bytes() as u16,
        }
    }
}

/// What a switch reads of a frame to place and admit it (the DSCP, the [`flags`], the gap
/// and the buffered bytes), copied out of the packet once when the frame arrives, so that
/// classification, admission and the transmit decision do not each look the packet up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// DSCP (6 bits).
    pub dscp: u8,
    /// [`flags`] bits.
    pub flags: u8,
    /// Bytes of the wire size never buffered ([`Packet::gap`]).
    pub gap: u8,
    /// Bytes the frame occupies in a buffer ([`Packet::buf_bytes`]).
    pub buf: u16,
}

/// Wire size of a RoCEv2 data frame with `payload` bytes; `first` adds the RETH of a WRITE.
#[inline]
pub fn data_wire(payload: u32, first: bool) -> u32 {
    FrameOverhead::ROCEV2.data(payload, first)
}

/// AETH: the acknowledgement extended transport header an ACK or NAK carries.
pub const AETH: u32 = 4;
/// The 16 reserved bytes of a RoCEv2 CNP.
pub const CNP_PAYLOAD: u32 = 16;

/// Bytes a NIC's header stack adds to every data frame on the wire (`nic.frame_overhead`),
/// preamble and inter-frame gap included. RoCEv2 counts 82; ns-3's HPCC code counts 48 and
/// htsim 64. ACK and CNP frames are this overhead plus their AETH or CNP bytes; PFC frames and
/// the RETH of a WRITE's first packet do not depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameOverhead(pub u32);

impl FrameOverhead {
    /// RoCEv2 over IPv4 as SCENARIO.md counts it: 82 bytes.
    pub const ROCEV2: FrameOverhead = FrameOverhead(DATA_OVERHEAD);
    /// TCP over IPv4 without options: 78 bytes ([`TCP_OVERHEAD`]).
    pub const TCP: FrameOverhead = FrameOverhead(TCP_OVERHEAD);

    /// Wire size of a data frame with `payload` bytes; `first` adds the RETH of a WRITE.
    #[inline]
    pub fn data(self, payload: u32, first: bool) -> u32 {
        payload + self.0 + if first { RETH } else { 0 }
    }
    /// Wire size of an ACK or NAK.
    #[inline]
    pub fn ack(self) -> u32 {
        self.0 + AETH
    }
    /// Wire size of a CNP.
    #[inline]
    pub fn cnp(self) -> u32 {
        self.0 + CNP_PAYLOAD
    }
}

impl Default for FrameOverhead {
    fn default() -> Self {
        FrameOverhead::ROCEV2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overheads_match_the_contract() {
        // 2048 B payload: 2130 B on the wire (SCENARIO.md).
        assert_eq!(data_wire(2048, false), 2130);
        assert_eq!(data_wire(1024, false), 1106);
        assert_eq!(data_wire(1000, false), 1082);
        assert_eq!(data_wire(1024, true), 1122);
        let rocev2 = FrameOverhead::ROCEV2;
        assert_eq!((rocev2.ack(), rocev2.cnp()), (ACK_WIRE, CNP_WIRE));
        let ns3 = FrameOverhead(48);
        assert_eq!((ns3.data(1000, false), ns3.data(1000, true)), (1048, 1064));
        assert_eq!((ns3.ack(), ns3.cnp()), (52, 64));
        assert_eq!(std::mem::size_of::<Packet>(), 32);
        assert_eq!(std::mem::align_of::<Packet>(), 32);
        // A full TCP segment: 1460 + 20 + 20 + 14 + 4 + 8 + 12 = 1538 bytes on the wire.
        assert_eq!(FrameOverhead::TCP.data(1460, false), 1538);
        assert_eq!(TCP_ACK_WIRE, 64 + WIRE_GAP);
    }
}
