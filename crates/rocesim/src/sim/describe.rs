//! A text description of the built network, as `rocesim topo` prints it: nodes, links, and
//! the headroom each lossless priority group of each switch port reserves.

use std::fmt::Write as _;

use super::Sim;

impl Sim {
    /// The network as text: a count line, one line per link (`a -- b  rate delay`), then the
    /// headroom per lossless PG of every switch port (`sw0 port 0 (→h0): 41234 B`).
    pub fn describe(&self) -> String {
        let t = &self.scenario.topology;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} hosts, {} switches, {} links",
            t.hosts.len(),
            t.switches.len(),
            t.links.len()
        );
        for l in &t.links {
            let (a, b) = (self.node_name(l.a), self.node_name(l.b));
            let _ = writeln!(out, "  {a} -- {b}  {} {}", l.rate, l.delay);
        }
        self.describe_headroom(&mut out);
        out
    }

    /// Headroom per lossless priority group of each switch port (from its speed, cable and
    /// the peer's response time, or as configured).
    fn describe_headroom(&self, out: &mut String) {
        let lossless = self.switches.iter().any(|s| s.pfc_enable != 0);
        if !lossless {
            return;
        }
        let _ = writeln!(out, "headroom per lossless priority group:");
        for sw in self.switches.iter().filter(|s| s.pfc_enable != 0) {
            for (l, port) in sw.ports.iter().enumerate() {
                let peer = self.node_name(self.port_owner(port.id.peer()).0);
                let name = self.node_name(port.node);
                let bytes = sw.mmu.headroom[l];
                let _ = writeln!(out, "  {name} port {l} (→{peer}): {bytes} B");
            }
        }
    }
}
