//! `[switch.isolation]`: congestion isolation (IEEE 802.1Qcz), and its checks against the
//! switch's class maps.

use serde_json::json;
use toml::Value;

use super::check::{at, Ctx};
use super::declare::{Leaf, Store, SubTable, TypeDoc};
use super::leaf::{choice, Bool, Int, Prob, Size, Tc, TimeV};
use super::overlay::Origins;
use crate::fabric::isolation_params::{Cfq, CipReliability, Identify, IsolationParams};
use crate::fabric::params::SwitchParams;
use crate::table;

choice!(/// How congesting flows are identified.
    IdentifyV ["ecn", "share"] later []);
choice!(/// How CIPs are made reliable.
    CipV -> CipReliability { "repeat" => CipReliability::Repeat, "ack" => CipReliability::Ack,
        "mark" => CipReliability::Mark });

table! {
    /// `isolation`: congestion isolation (IEEE 802.1Qcz, Congdon et al. 2017). Flows that
    /// congest a lossless class queue move to the class's congested-flow queue (CFQ), which
    /// has its own priority, ingress priority group and PFC, and is served strictly below the
    /// class queue; a Congestion Isolation Packet (CIP) asks the upstream switch to isolate
    /// the flow too.
    pub struct Isolation {
        /// Turn isolation on. Default: `true` in a table.
        enabled: Bool,
        /// `"ecn"`: flows whose packets the class queue marks CE (needs `ecn` on the class's
        /// queue); `"share"`: flows holding more than `share_threshold` of a class queue
        /// deeper than `queue_threshold`. Default: `"ecn"`.
        identify: IdentifyV,
        /// `share`: the fraction of the queue a congesting flow holds. Default: `0.2`.
        share_threshold: Prob,
        /// `share`: queue depth above which flows are examined. Default: `"100KB"`.
        queue_threshold: Size,
        /// Entries of the flow table (indexed by the 5-tuple hash); above zero.
        /// Default: `1024`.
        table_size: Int<0, 1048576>,
        /// An entry unused this long (holding no packet) may be taken by another flow.
        /// Default: `"1ms"`.
        table_age: TimeV,
        /// The CFQ of each isolating lossless class: `{ 3 = { priority = 2, queue = 2 } }`.
        /// No DSCP may map to the CFQ's priority or to a class whose queue is the CFQ's
        /// queue. Default: none (an error when isolation is on).
        cfq: CfqMap,
        /// `"repeat"`: 3 CIPs in a row; `"ack"`: a CIP every 10 µs until acknowledged;
        /// `"mark"`: a CIP every 10 µs until a packet of the flow arrives on the CFQ's
        /// priority. Default: `"repeat"`.
        cip_reliability: CipV,
        /// A flow is released when its bytes in the CFQ stay at or below this for
        /// `release_time` (and none are left). Default: `"10KB"`.
        release_threshold: Size,
        /// See `release_threshold`. Default: `"100us"`.
        release_time: TimeV,
        /// CI-aware end stations (802.1Qcz 5.32): a switch that isolates a flow arriving
        /// from a host sends the CIP to the host too; the host's NIC then sends the flow's QP
        /// on the CFQ's priority (same DSCP), so the switch charges those packets to the CFQ's
        /// ingress PG and a pause on the CFQ's priority stops only isolated QPs. When the
        /// switch releases the flow it tells the NIC, which returns the QP to the class's
        /// priority. Default: `false` (hosts ignore CIPs and are paused on the class).
        end_station: Bool,
    }
}

/// `cfq`: class → `{ priority, queue }`.
pub struct CfqMap;
impl SubTable for CfqMap {}
impl Leaf for CfqMap {
    type Out = Vec<(u8, Cfq, String)>;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Self::Out> {
        let t = c.table(v, k)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (key, val) in t {
            let full = at(k, key);
            let Ok(class) = key.trim().parse::<u8>().map_err(|_| ()).and_then(|x| {
                if x <= 7 {
                    Ok(x)
                } else {
                    Err(())
                }
            }) else {
                c.err(&full, format!("`{key}` is not a traffic class 0..=7"));
                ok = false;
                continue;
            };
            let Some(e) = c.table(val, &full) else {
                ok = false;
                continue;
            };
            c.unknown(e, &full, &["priority", "queue"]);
            let mut get = |name: &str| match e.get(name) {
                Some(x) => Tc::read(c, x, &at(&full, name)),
                None => {
                    c.err(at(&full, name), format!("missing required key `{name}`"));
                    None
                }
            };
            match (get("priority"), get("queue")) {
                (Some(priority), Some(queue)) => out.push((class, Cfq { priority, queue }, full)),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }
    fn doc() -> TypeDoc {
        let tc = json!({ "type": "integer", "minimum": 0, "maximum": 7 });
        TypeDoc {
            name: "table TC → `{ priority, queue }`".into(),
            schema: json!({ "type": "object", "additionalProperties": { "type": "object",
                "properties": { "priority": tc, "queue": tc },
                "required": ["priority", "queue"], "additionalProperties": false } }),
        }
    }
}

impl Store<Option<IsolationParams>> for Isolation {
    fn store(self, ctx: &mut Ctx, to: &mut Option<IsolationParams>) {
        let t = &self;
        let enabled = ctx.or(&t.enabled, true);
        let mut q = to.unwrap_or_default();
        let share = ctx.or(&t.share_threshold, 0.2);
        if let (Some(id), Some(share)) = (ctx.get(&t.identify), share) {
            q.identify = if id == "share" {
                Identify::Share(share)
            } else {
                Identify::Ecn
            };
        } else if let (Identify::Share(_), Some(s)) = (q.identify, ctx.get(&t.share_threshold)) {
            q.identify = Identify::Share(s);
        }
        if let Some(x) = ctx.get(&t.queue_threshold) {
            q.queue_threshold = x;
        }
        match ctx.get(&t.table_size) {
            Some(0) => ctx.err(&t.table_size.key, "the flow table needs at least one entry"),
            Some(n) => q.table_size = n as u32,
            None => {}
        }
        if let Some(x) = ctx.get(&t.table_age) {
            q.table_age = x;
        }
        if let Some(map) = ctx.get(&t.cfq) {
            q.cfq = [None; 8];
            for (class, cfq, _) in map {
                q.cfq[class as usize] = Some(cfq);
            }
        }
        if let Some(x) = ctx.get(&t.cip_reliability) {
            q.cip = x;
        }
        if let Some(x) = ctx.get(&t.release_threshold) {
            q.release_threshold = x;
        }
        if let Some(x) = ctx.get(&t.release_time) {
            q.release_time = x;
        }
        if let Some(x) = ctx.get(&t.end_station) {
            q.end_station = x;
        }
        if let Some(on) = enabled {
            *to = on.then_some(q);
        }
    }
}

/// Cross-key rules of isolation on one resolved switch: every CFQ's class is lossless, and
/// no DSCP reaches the CFQ's priority or, through `tc_to_queue`, its queue.
pub fn validate(ctx: &mut Ctx, p: &SwitchParams, o: &Origins) {
    let Some(iso) = &p.isolation else { return };
    let key = o.key("isolation.cfq");
    if iso.cfq.iter().all(Option::is_none) {
        ctx.err(&key, "isolation is on but no class has a CFQ (e.g. cfq = { 3 = { priority = 2, queue = 2 } })");
    }
    if p.tc_to_pg != [0, 1, 2, 3, 4, 5, 6, 7] {
        let msg = "congestion isolation needs each TC in the priority group of its own number (the identity map)";
        ctx.err(o.key("tc_to_pg"), msg);
    }
    let mut used_tc = 0u8;
    for tc in p.dscp_to_tc {
        used_tc |= 1 << tc;
    }
    for (class, cfq) in iso.cfq.iter().enumerate() {
        let Some(cfq) = cfq else { continue };
        let k = at(&key, &class.to_string());
        if p.pfc_enable & (1 << class) == 0 {
            ctx.err(&k, format!("class {class} is not lossless (not in pfc_enable): isolation needs PFC on the class"));
        }
        if used_tc & (1 << cfq.priority) != 0 {
            let d = p
                .dscp_to_tc
                .iter()
                .position(|&t| t == cfq.priority)
                .unwrap_or(0);
            ctx.err(
                at(&k, "priority"),
                format!(
                    "priority {} is used by another class (DSCP {d} maps to TC {})",
                    cfq.priority, cfq.priority
                ),
            );
        }
        for tc in (0..8u8).filter(|t| used_tc & (1 << t) != 0) {
            if p.tc_to_queue[tc as usize] == cfq.queue {
                let how = if tc == cfq.queue {
                    " (tc_to_queue's identity default)"
                } else {
                    ""
                };
                ctx.err(
                    at(&k, "queue"),
                    format!("queue {} is used by TC {tc}{how}", cfq.queue),
                );
            }
        }
        for (c2, other) in iso.cfq.iter().enumerate().filter(|(c2, _)| *c2 != class) {
            if other.is_some_and(|o| o.priority == cfq.priority || o.queue == cfq.queue) {
                ctx.err(
                    &k,
                    format!("class {c2}'s CFQ uses the same priority or queue"),
                );
            }
        }
    }
}

/// Make each CFQ's priority lossless (its class is) and map it to the CFQ's queue, so that
/// the MMU gives its ingress PG headroom and PFC, and pauses of it stop the CFQ alone.
pub fn lossless_cfqs(p: &mut SwitchParams) {
    let Some(iso) = p.isolation else { return };
    for cfq in iso.cfq.iter().flatten() {
        p.pfc_enable |= 1 << cfq.priority;
        p.tc_to_queue[cfq.priority as usize] = cfq.queue;
    }
}

#[cfg(test)]
mod tests;
