//! A read-only view of every port in the network, for monitors (the deadlock detector, the
//! samplers, results) that may read any port but own none.

use crate::fabric::port::Port;
use crate::fabric::switch::Switch;
use crate::ids::PortId;
use crate::nic::device::Nic;
use crate::topology::{NodeRef, PortLocs};

/// Every port, by network-wide id.
#[derive(Clone, Copy)]
pub struct PortView<'a> {
    /// The switches.
    pub switches: &'a [Switch],
    /// The NICs.
    pub nics: &'a [Nic],
    /// Which node owns each port, and at which local index.
    pub loc: &'a PortLocs,
}

impl<'a> PortView<'a> {
    /// Port `p`.
    #[inline]
    pub fn port(&self, p: PortId) -> &'a Port {
        match self.loc.get(p) {
            (NodeRef::Switch(s), l) => &self.switches[s as usize].ports[l as usize],
            (NodeRef::Host(h), _) => &self.nics[h as usize].port,
        }
    }
    /// Number of ports.
    pub fn len(&self) -> usize {
        self.loc.len()
    }
    /// No ports.
    pub fn is_empty(&self) -> bool {
        self.loc.is_empty()
    }
    /// Every port with its id, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (PortId, &'a Port)> + '_ {
        (0..self.loc.len() as u32).map(|i| (PortId(i), self.port(PortId(i))))
    }
}
