//! Forwarding faults (Guo et al. 2016 §4.2): static routes that override ECMP (routing
//! loops), and MAC entries that aged out while the ARP entry did not, so the switch floods
//! lossless packets for that host out of every port (or drops them with SONiC's
//! drop-on-incomplete-ARP fix).

use super::route_ahead::NO_OUT;
use super::switch::Switch;
use crate::engine::Ctx;
use crate::packet::flags;

/// A switch's forwarding faults. Whether any is active is kept in the switch's hot line
/// ([`Switch::faults_active`]), set through [`Switch::set_static_route`] and
/// [`Switch::set_mac_aged`].
#[derive(Clone, Debug, Default)]
pub struct ForwardingFaults {
    /// Static routes: (destination host, local port).
    pub route_overrides: Vec<(u32, u16)>,
    /// Hosts whose MAC this switch has forgotten.
    pub aged: Vec<u32>,
    /// Drop lossless packets to aged MACs instead of flooding.
    pub drop_on_incomplete_arp: bool,
}

impl ForwardingFaults {
    /// Route packets for host `dst` out of local port `port` (`None`: remove the override).
    fn set_route(&mut self, dst: u32, port: Option<u16>) {
        self.route_overrides.retain(|&(d, _)| d != dst);
        if let Some(p) = port {
            self.route_overrides.push((dst, p));
        }
    }

    /// Forget (`aged = true`) or relearn the MAC of host `host`.
    fn set_aged(&mut self, host: u32, aged: bool) {
        self.aged.retain(|&h| h != host);
        if aged {
            self.aged.push(host);
        }
    }

    /// Some fault is active: packets must be checked against them.
    pub fn active(&self) -> bool {
        !self.route_overrides.is_empty() || !self.aged.is_empty()
    }
}

impl Switch {
    /// Route packets for host `dst` out of local port `port`, overriding ECMP (`None`:
    /// remove the override).
    pub fn set_static_route(&mut self, dst: u32, port: Option<u16>) {
        self.forwarding.set_route(dst, port);
        self.faults_active = self.forwarding.active();
    }

    /// Forget (`aged = true`) or relearn the MAC of host `host`.
    pub fn set_mac_aged(&mut self, host: u32, aged: bool) {
        self.forwarding.set_aged(host, aged);
        self.faults_active = self.forwarding.active();
    }

    /// Forwarding with faults: a static route wins; an aged MAC floods (or drops lossless
    /// packets with `drop_lossless_on_incomplete_arp`). Returns the port to use, or `None`
    /// when the packet was consumed here.
    pub(crate) fn forward_with_faults(
        &mut self,
        in_local: u16,
        pkt_id: u32,
        dst: u32,
        ctx: &mut Ctx,
    ) -> Option<u16> {
        let fw = &self.forwarding;
        if let Some(&(_, p)) = fw.route_overrides.iter().find(|&&(d, _)| d == dst) {
            return Some(p);
        }
        if !fw.aged.contains(&dst) {
            let hops = ctx.routes.next_hops(self.id, dst);
            let pkt = ctx.packets.get(pkt_id);
            let (hash, data) = (pkt.hash, pkt.kind == crate::packet::PacketKind::Data);
            return match hops.len() {
                0 => {
                    ctx.monitor.totals.drops_fault += 1;
                    ctx.drop_packet(pkt_id);
                    None
                }
                1 => Some(hops[0]),
                n => Some(hops[self.ecmp_index(hash, dst, data, n)]),
            };
        }
        let tc = self.tc_of(in_local, ctx.packets.get(pkt_id).dscp);
        let lossless = self.pfc_enable & tc.bit() != 0;
        if lossless && fw.drop_on_incomplete_arp {
            ctx.monitor.totals.drops_fault += 1;
            ctx.drop_packet(pkt_id);
            return None;
        }
        self.flood(in_local, pkt_id, ctx);
        None
    }

    /// Flood a copy out of every port but the one it came in on.
    fn flood(&mut self, in_local: u16, pkt_id: u32, ctx: &mut Ctx) {
        let n = self.ports.len() as u16;
        let mut original = *ctx.packets.get(pkt_id);
        ctx.drop_packet(pkt_id);
        // Copies carry no INT record (it was released with the original).
        original.flags &= !(flags::INT | flags::INT_ECHO);
        let hdr = original.header();
        let mut first = true;
        for p in 0..n {
            if p != in_local {
                let copy = ctx.packets.alloc(original);
                self.enqueue::<false>(in_local, copy, hdr, p, !first, NO_OUT, ctx);
                first = false;
            }
        }
    }
}
