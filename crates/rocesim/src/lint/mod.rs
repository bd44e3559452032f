//! Configuration lint: the mistakes that pass every syntax and range check but break a RoCE
//! fabric (Guo et al. 2016 §5.1: most incidents start as a configuration mismatch). Each rule
//! group reads the checked [`Scenario`] and reports [`Finding`]s naming the switch or NIC, the
//! scenario key (and the SONiC table it corresponds to) and the fix. `rocesim lint` lists them
//! (exit code 1); `rocesim run` prints them as warnings and runs anyway.

mod buffers;
mod classes;
mod collapse;
mod ecn;
mod watchdog;

use std::collections::BTreeSet;
use std::fmt;

pub use collapse::collapse;

use crate::config::Scenario;
use crate::nic::params::NicParams;
use crate::topology::NodeRef;
use crate::traffic::flow::FlowKind;

/// One configuration problem.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// Short rule name (`classes`, `cnp`, `tcp`, `pfc`, `headroom`, `ecn`, `cc`, `watchdog`).
    pub rule: &'static str,
    /// The device: ``switch `sw0` `` or ``NIC `h0` ``.
    pub node: String,
    /// The scenario key, with the SONiC table in parentheses where there is one.
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}: {}: {}; fix: {}",
            self.rule, self.node, self.key, self.message, self.fix
        )
    }
}

/// Findings of one lint pass, deduplicated and in a stable order.
#[derive(Default)]
struct Findings(BTreeSet<(String, Finding)>);

impl Findings {
    /// Record a finding (the same device, key and message once).
    fn add(&mut self, rule: &'static str, node: String, key: &str, message: String, fix: String) {
        let f = Finding {
            rule,
            node,
            key: key.to_string(),
            message,
            fix,
        };
        let order = format!("{}{}{}", f.node, f.key, f.message);
        self.0.insert((order, f));
    }
}

/// ``switch `name` ``.
fn switch_name(sc: &Scenario, s: usize) -> String {
    format!("switch `{}`", sc.topology.switches[s].name)
}

/// Port `port` (local index, in link order) of switch `s`: its SONiC name (`port_names`
/// or the imported config_db's) with the index, or ``port N``.
fn port_label(sc: &Scenario, s: usize, port: usize) -> String {
    match sc.switches[s].config_ports.get(port) {
        Some(n) => format!("{n} (port {port})"),
        None => format!("port {port}"),
    }
}

/// ``NIC `name` ``.
fn nic_name(sc: &Scenario, h: usize) -> String {
    format!("NIC `{}`", sc.topology.hosts[h].name)
}

/// One class of traffic a flow puts on the network: who sends it with which DSCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Traffic {
    /// Sending host.
    src: u32,
    /// Receiving host.
    dst: u32,
    /// DSCP of its data packets.
    dscp: u8,
    /// TCP (lossy by design) rather than RDMA.
    tcp: bool,
}

/// Distinct (sender, receiver, DSCP, kind) of every flow; RDMA READ data flows from the
/// responder, which the flow list names as `src`.
fn traffic(sc: &Scenario) -> Vec<Traffic> {
    // Inserted one by one: collecting a set gathers every item first, and a streamed
    // workload's flows are not to be held.
    let mut set = std::collections::BTreeSet::new();
    for f in sc.each_flow() {
        set.insert(Traffic {
            src: f.src,
            dst: f.dst,
            dscp: f.dscp,
            tcp: matches!(f.kind, FlowKind::Tcp(_)),
        });
    }
    set.into_iter().collect()
}

/// The PFC priority (TC) a NIC gives `dscp`, and whether it is lossless there.
fn nic_class(n: &NicParams, dscp: u8) -> (u8, bool) {
    let tc = n.dscp_to_tc[dscp as usize & 63];
    (tc, n.pfc_enable & (1 << tc) != 0)
}

/// The hosts attached to each switch by a direct link, sorted, indexed by switch: one pass
/// over the links (not one per switch: a ring of 65,535 switches has as many links).
fn hosts_by_switch(sc: &Scenario) -> Vec<Vec<usize>> {
    let mut v = vec![Vec::new(); sc.topology.switches.len()];
    for l in &sc.topology.links {
        if let (NodeRef::Host(h), NodeRef::Switch(s)) | (NodeRef::Switch(s), NodeRef::Host(h)) =
            (l.a, l.b)
        {
            v[s as usize].push(h as usize);
        }
    }
    for hs in &mut v {
        hs.sort_unstable();
        hs.dedup();
    }
    v
}

/// Number of ports of each switch (one per link end), indexed by switch.
fn port_counts(sc: &Scenario) -> Vec<usize> {
    let mut n = vec![0; sc.topology.switches.len()];
    for l in &sc.topology.links {
        for end in [l.a, l.b] {
            if let NodeRef::Switch(s) = end {
                n[s as usize] += 1;
            }
        }
    }
    n
}

/// Every configuration finding of a checked scenario, in a stable order.
pub fn lint(sc: &Scenario) -> Vec<Finding> {
    let mut out = Findings::default();
    let t = traffic(sc);
    classes::check(sc, &t, &mut out);
    buffers::check(sc, &mut out);
    ecn::check(sc, &t, &mut out);
    watchdog::check(sc, &mut out);
    out.0.into_iter().map(|(_, f)| f).collect()
}

/// The warnings of `switch.config_db` imports (rule `config_db`): fields rocesim does not
/// model or approximates, per-port settings that differ from the first port's, ports the
/// topology lacks. They are not configuration mistakes: `lint` prints them and still exits 0.
pub fn import_warnings(sc: &Scenario) -> Vec<Finding> {
    let mut out = Findings::default();
    let counts = port_counts(sc);
    for (s, p) in sc.switches.iter().enumerate() {
        let ports = counts[s];
        if p.config_ports.len() > ports {
            let extra = &p.config_ports[ports..];
            let msg = format!("the file or switch.port_names names {} ports, the switch has {ports}: {} to {} are not in the topology (ignored)", p.config_ports.len(), extra[0], extra[extra.len() - 1]);
            out.add(
                "config_db",
                switch_name(sc, s),
                "switch.config_db",
                msg,
                "give the switch as many links as the file has ports, or ignore".into(),
            );
        }
        for w in &p.config_warnings {
            let fix = "rocesim ignores or approximates it (see docs/sonic.md); remove it or accept the approximation";
            out.add(
                "config_db",
                switch_name(sc, s),
                "switch.config_db",
                w.clone(),
                fix.into(),
            );
        }
    }
    out.0.into_iter().map(|(_, f)| f).collect()
}

#[cfg(test)]
pub(crate) mod tests;
