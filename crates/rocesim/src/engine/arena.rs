//! The packet arena: packets live in one vector and are named by `u32` handles, so sending a
//! packet allocates nothing once the arena has grown to the number in flight.

use super::FlowWindow;
use crate::packet::Packet;

/// Packet storage with a free list.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u32,
    /// Packets allocated per flow (data and control), so that the world knows when nothing
    /// of a completed flow is left in the network; for the flows the run holds.
    pub(crate) by_flow: FlowWindow<u32>,
}

impl PacketArena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty arena for the packets of `nflows` flows.
    pub fn with_flows(nflows: usize) -> Self {
        PacketArena {
            by_flow: FlowWindow::new(nflows, 0),
            ..Self::default()
        }
    }
    /// Store `p` and return its handle.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if let Some(n) = self.by_flow.get_mut(p.flow) {
            *n += 1;
        }
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    /// Release a handle; the slot is reused by the next `alloc`.
    #[inline]
    pub fn free(&mut self, id: u32) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        let f = self.slots[id as usize].flow;
        if let Some(n) = self.by_flow.get_mut(f) {
            *n -= 1;
        }
        self.free.push(id);
    }
    /// Packets of flow `f` allocated now.
    pub fn live_of(&self, f: u32) -> u32 {
        self.by_flow.get(f).copied().unwrap_or(0)
    }
    /// The packet behind a handle.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> &Packet {
        super::handle::at(&self.slots, id as usize)
    }
    /// The packet behind a handle, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut Packet {
        super::handle::at_mut(&mut self.slots, id as usize)
    }
    /// Hint the CPU to bring packet `id` into cache: the loop calls this for the packet of
    /// the next event when that is an arrival, while it handles the current one. No effect
    /// on results.
    #[inline]
    pub fn prefetch(&self, id: u32) {
        // No bounds check (and no branch): the address is only a hint, and a prefetch never
        // faults, whatever it points at.
        super::prefetch::prefetch(self.slots.as_ptr().wrapping_add(id as usize));
    }
    /// Packets currently allocated.
    pub fn live(&self) -> u32 {
        self.live
    }
    /// Slots ever allocated (the arena's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
