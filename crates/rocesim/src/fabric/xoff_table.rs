//! Which priorities every switch ingress port holds paused (IEEE 802.1Qbb XOFF sent, XON
//! not yet), for the whole fabric in one array.
//!
//! A frame's admission and its release each test its ingress port's XOFF state (`Switch::
//! passes`, `Switch::release`). Kept per switch, each switch's few bytes were a heap block of
//! their own, a cache line per switch that the next frame through that switch found cold (a
//! first-level miss in about two hops of three on S1 without congestion control). One byte per
//! port in one array puts a k = 8 fat-tree's 640 switch ports in ten lines that stay in the
//! first-level cache. Like the monitor's counters, the table sits in the context every
//! component is lent, and each switch reads and writes only its own row.

use super::pfc::XoffState;
use crate::engine::handle;

/// The XOFF state of each (switch, local port): row `switch`, `stride` ports a row.
#[derive(Clone, Debug, Default)]
pub struct XoffTable {
    masks: Box<[XoffState]>,
    stride: usize,
}

impl XoffTable {
    /// A table for switches with `ports[s]` ports each, nothing held.
    pub fn new(ports: impl IntoIterator<Item = usize>) -> Self {
        let ports: Vec<usize> = ports.into_iter().collect();
        let stride = ports.iter().copied().max().unwrap_or(0);
        XoffTable {
            masks: vec![XoffState::default(); ports.len() * stride].into_boxed_slice(),
            stride,
        }
    }

    /// The state of local port `local` of switch `switch`.
    #[inline(always)]
    pub fn get(&self, switch: u32, local: usize) -> XoffState {
        debug_assert!(local < self.stride, "port {local} beyond the row");
        *handle::at(&self.masks, switch as usize * self.stride + local)
    }

    /// The state of local port `local` of switch `switch`, to change.
    #[inline(always)]
    pub fn get_mut(&mut self, switch: u32, local: usize) -> &mut XoffState {
        debug_assert!(local < self.stride, "port {local} beyond the row");
        handle::at_mut(&mut self.masks, switch as usize * self.stride + local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Priority;

    /// Rows of different lengths share one stride: every (switch, port) has its own byte.
    #[test]
    fn every_switch_port_has_its_own_state() {
        let mut t = XoffTable::new([2, 5, 3]);
        let ports = [(0u32, 0usize), (0, 1), (1, 0), (1, 4), (2, 0), (2, 2)];
        for (k, &(s, l)) in ports.iter().enumerate() {
            t.get_mut(s, l).set(Priority((k % 8) as u8));
        }
        for (k, &(s, l)) in ports.iter().enumerate() {
            assert_eq!(t.get(s, l).mask, 1 << (k % 8), "switch {s} port {l}");
        }
        assert_eq!(t.get(1, 1).mask, 0, "untouched");
        t.get_mut(1, 4).clear(Priority(3));
        assert_eq!(t.get(1, 4).mask, 0);
        assert_eq!(t.get(2, 0).mask, 1 << 4, "its neighbour kept");
    }
}
