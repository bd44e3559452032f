//! ECMP as the HPCC paper's ns-3 simulator hashes it (`topology.ecmp_hash = "ns3"`), so that
//! a flow takes the path it takes there and a run can be compared flow by flow.
//!
//! ns-3's switch (HPCC code family, `SwitchNode::GetOutDev`) hashes the 12 bytes
//! (source IPv4, destination IPv4, source port | destination port << 16), three 32-bit words
//! in host (little-endian) order, with MurmurHash3 x86-32 (Appleby) seeded by the switch's node
//! id, and takes the result modulo the number of next hops, an index into the switch's
//! next-hop list. `third.cc` builds that list in the order of a breadth-first search whose
//! neighbour maps are keyed by node pointer; in the reference run (`docs/validation.md`) that
//! order is descending node id: with it, S1's per-flow slowdowns correlate with ns-3's at 0.75
//! (log scale, ACKs in a strict class), against 0.63 for ascending order and 0.45 for rocesim's
//! salted hash. Addresses are
//! 11.(id / 256).(id % 256).1 (`0x0b000001 + (id / 256) << 16 + (id % 256) << 8`), node ids
//! count the hosts first and the switches after them, a flow's source port is 10000 + the
//! number of earlier flows of the same source and destination, and its destination port is
//! 100 (the flow file's, as HPCC's generator writes it). An ACK swaps addresses and ports.

/// The destination UDP port of every ns-3 flow (the HPCC flow files' fourth column).
pub const NS3_DPORT: u32 = 100;
/// The first source port ns-3 gives a (source, destination) pair.
pub const NS3_FIRST_SPORT: u16 = 10000;

/// MurmurHash3 x86-32 of `key` with `seed` (Austin Appleby's public-domain reference).
pub fn murmur3_32(key: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let mut blocks = key.chunks_exact(4);
    for b in &mut blocks {
        h ^= mix(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0u32, |k, &b| (k << 8) | u32::from(b));
        h ^= mix(k);
    }
    h ^= key.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// ns-3's IPv4 address of node `id` (`node_id_to_ip` of `third.cc`).
#[inline]
pub fn ns3_ip(id: u32) -> u32 {
    0x0b00_0001 + ((id / 256) << 16) + ((id % 256) << 8)
}

/// The 32-bit ECMP key a packet carries in ns-3 mode (`Packet::hash`): the flow's two host ids
/// XORed in the high half (so either end follows from the other) and its ns-3 source port
/// in the low half. Control packets carry it rotated by 16 bits, as they carry every key.
#[inline]
pub fn ns3_flow_key(src: u32, dst: u32, sport: u16) -> u32 {
    ((src ^ dst) & 0xffff) << 16 | u32::from(sport)
}

/// The next-hop index ns-3's switch with node id `seed` picks among `n` for a packet to host
/// `dst` carrying key `key` (`ns3_flow_key`, rotated for control packets: `data` false).
#[inline]
pub fn ns3_pick(key: u32, dst: u32, data: bool, seed: u32, n: usize) -> usize {
    let (ends, port) = if data {
        (key >> 16, key & 0xffff)
    } else {
        (key & 0xffff, key >> 16)
    };
    let src = dst ^ ends;
    // Data: sport | dport << 16; an ACK's ports are swapped.
    let ports = if data {
        port | NS3_DPORT << 16
    } else {
        NS3_DPORT | port << 16
    };
    let mut buf = [0u8; 12];
    buf[..4].copy_from_slice(&ns3_ip(src).to_le_bytes());
    buf[4..8].copy_from_slice(&ns3_ip(dst).to_le_bytes());
    buf[8..].copy_from_slice(&ports.to_le_bytes());
    (murmur3_32(&buf, seed) % n as u32) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_matches_the_published_test_vectors() {
        // Reference outputs of MurmurHash3_x86_32 (SMHasher's implementation).
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"", 0xffff_ffff), 0x81f1_6f39);
        assert_eq!(murmur3_32(&[0, 0, 0, 0], 0), 0x2362_f9de);
        assert_eq!(murmur3_32(b"test", 0), 0xba6b_d213);
        assert_eq!(murmur3_32(b"Hello, world!", 0x9747_b28c), 0x2488_4cba);
        assert_eq!(
            murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c),
            0x2fa8_26cd
        );
        assert_eq!(murmur3_32(b"abc", 0), 0xb3dd_93fa);
    }

    #[test]
    fn addresses_follow_third_cc() {
        assert_eq!(ns3_ip(0), 0x0b00_0001);
        assert_eq!(ns3_ip(13), 0x0b00_0d01);
        assert_eq!(ns3_ip(300), 0x0b01_2c01);
    }

    #[test]
    fn data_and_ack_hash_their_own_direction() {
        // h13 -> h79, the first flow of the pair: sport 10000, dport 100, at node 150.
        let key = ns3_flow_key(13, 79, NS3_FIRST_SPORT);
        let mut buf = [0u8; 12];
        buf[..4].copy_from_slice(&0x0b00_0d01u32.to_le_bytes());
        buf[4..8].copy_from_slice(&0x0b00_4f01u32.to_le_bytes());
        buf[8..].copy_from_slice(&(10000u32 | 100 << 16).to_le_bytes());
        let want = (murmur3_32(&buf, 150) % 4) as usize;
        assert_eq!(ns3_pick(key, 79, true, 150, 4), want);
        // Its ACK, h79 -> h13 with ports 100 -> 10000, carries the key rotated.
        buf[..4].copy_from_slice(&0x0b00_4f01u32.to_le_bytes());
        buf[4..8].copy_from_slice(&0x0b00_0d01u32.to_le_bytes());
        buf[8..].copy_from_slice(&(100u32 | 10000 << 16).to_le_bytes());
        let want = (murmur3_32(&buf, 150) % 4) as usize;
        assert_eq!(ns3_pick(key.rotate_left(16), 13, false, 150, 4), want);
    }
}
