//! A switch's shared DSCP → traffic-class map (SONiC `DSCP_TO_TC_MAP`), packed small enough
//! to sit in the switch's first cache line beside its ports.

/// DSCP → TC as three 64-bit planes: bit `d` of plane `b` is bit `b` of DSCP `d`'s TC (TCs
/// are below 8). 24 bytes instead of a 64-byte table, read with shifts and masks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DscpPlanes([u64; 3]);

impl DscpPlanes {
    /// The planes of `map` (`map[dscp]` is the TC of `dscp`). Panics on a TC of 8 or more,
    /// which configuration validation rejects.
    pub fn new(map: &[u8; 64]) -> Self {
        let mut planes = [0u64; 3];
        for (d, &tc) in map.iter().enumerate() {
            assert!(tc < 8, "DSCP {d} maps to TC {tc}, not below 8");
            for (b, plane) in planes.iter_mut().enumerate() {
                *plane |= u64::from((tc >> b) & 1) << d;
            }
        }
        DscpPlanes(planes)
    }

    /// The TC of DSCP `dscp` (its low 6 bits).
    #[inline(always)]
    pub fn tc(&self, dscp: u8) -> u8 {
        let d = dscp & 63;
        let bit = |b: usize| ((self.0[b] >> d) & 1) as u8;
        bit(0) | bit(1) << 1 | bit(2) << 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dscp_reads_back_its_tc() {
        // Each DSCP gets a different pattern of the three TC bits.
        let mut map = [0u8; 64];
        for (d, tc) in map.iter_mut().enumerate() {
            *tc = ((d * 5 + d / 8) % 8) as u8;
        }
        let planes = DscpPlanes::new(&map);
        for d in 0..64u8 {
            assert_eq!(planes.tc(d), map[d as usize], "DSCP {d}");
            assert_eq!(
                planes.tc(d | 0xc0),
                map[d as usize],
                "bits above the sixth ignored"
            );
        }
        assert_eq!(std::mem::size_of::<DscpPlanes>(), 24);
    }
}
