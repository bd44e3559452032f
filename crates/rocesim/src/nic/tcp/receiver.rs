//! The TCP receiver's reassembly state: the cumulative point (RCV.NXT, kept in the
//! responder's `expected`) and a fixed bitmap of the segments received above it, one bit per
//! segment of the receive window. A segment in order advances the cumulative point over every
//! buffered segment it joins; one above it is kept; every arrival is acknowledged at once
//! with the cumulative point (out-of-order ones produce the duplicate ACKs fast retransmit
//! counts, RFC 5681 §4.2).

use super::RWND_SEGMENTS;

const WORDS: usize = RWND_SEGMENTS as usize / 64;

/// What an arriving segment did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// In order: the cumulative point moved by this many segments (it and the buffered
    /// ones it joined).
    InOrder(u32),
    /// Above the cumulative point, buffered.
    OutOfOrder,
    /// Already received (below the cumulative point or already buffered), or beyond the
    /// receive window: discarded.
    Discarded,
}

/// Out-of-order segments above the cumulative point, a bitmap indexed by segment number
/// modulo the receive window.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    ooo: [u64; WORDS],
    /// Payload bytes per segment.
    pub mss: u32,
    /// Payload of the flow's last segment (the others carry one MSS).
    pub last_payload: u32,
}

impl TcpReceiver {
    /// An empty reassembly state for a flow of `mss`-byte segments whose last segment
    /// carries `last_payload`.
    pub fn new(mss: u32, last_payload: u32) -> Self {
        TcpReceiver {
            ooo: [0; WORDS],
            mss,
            last_payload,
        }
    }

    #[inline]
    fn bit(psn: u32) -> (usize, u64) {
        let i = psn % RWND_SEGMENTS;
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    /// Segment `psn` arrived; `expected` is RCV.NXT (advanced here).
    pub fn on_segment(&mut self, expected: &mut u32, psn: u32) -> Arrival {
        if psn < *expected || psn - *expected >= RWND_SEGMENTS {
            return Arrival::Discarded;
        }
        if psn > *expected {
            let (w, m) = Self::bit(psn);
            if self.ooo[w] & m != 0 {
                return Arrival::Discarded;
            }
            self.ooo[w] |= m;
            return Arrival::OutOfOrder;
        }
        let mut n = 1;
        *expected += 1;
        loop {
            let (w, m) = Self::bit(*expected);
            if self.ooo[w] & m == 0 {
                break;
            }
            self.ooo[w] &= !m;
            *expected += 1;
            n += 1;
        }
        Arrival::InOrder(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_fill_and_the_cumulative_point_jumps() {
        let mut r = TcpReceiver::new(1460, 1460);
        let mut e = 0;
        assert_eq!(r.on_segment(&mut e, 0), Arrival::InOrder(1));
        // Segment 1 lost; 2, 3, 5 arrive, 3 twice.
        assert_eq!(r.on_segment(&mut e, 2), Arrival::OutOfOrder);
        assert_eq!(r.on_segment(&mut e, 3), Arrival::OutOfOrder);
        assert_eq!(r.on_segment(&mut e, 3), Arrival::Discarded);
        assert_eq!(r.on_segment(&mut e, 5), Arrival::OutOfOrder);
        assert_eq!(e, 1);
        assert_eq!(r.on_segment(&mut e, 1), Arrival::InOrder(3));
        assert_eq!(e, 4);
        assert_eq!(r.on_segment(&mut e, 0), Arrival::Discarded);
        assert_eq!(r.on_segment(&mut e, 4), Arrival::InOrder(2));
        assert_eq!(e, 6);
        // Beyond the window: discarded; the bitmap wraps cleanly.
        assert_eq!(r.on_segment(&mut e, 6 + RWND_SEGMENTS), Arrival::Discarded);
        assert_eq!(r.on_segment(&mut e, 5 + RWND_SEGMENTS), Arrival::OutOfOrder);
        for p in 6..5 + RWND_SEGMENTS {
            r.on_segment(&mut e, p);
        }
        assert_eq!(e, 6 + RWND_SEGMENTS);
    }
}
