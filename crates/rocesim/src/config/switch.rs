//! `[switch]`: defaults for every switch, `[switch.role.<role>]` and `[switch.name.<name>]`
//! partial overrides, resolved into one [`SwitchParams`] per switch.

use std::collections::{BTreeMap, HashMap, HashSet};

use toml::{Table, Value};

use super::check::{at, fmt_bytes, Ctx};
use super::suggest;
use crate::fabric::params::{
    BufferMode, EcnParams, Headroom, MarkOn, QueueSched, SwitchParams, WatchdogAction,
    WatchdogParams,
};
use crate::topology::Topology;
use crate::units::{Bytes, Time};

const P: &str = "switch";

/// Keys of `[switch]` and of its role/name override tables.
pub const KEYS: &[&str] = &[
    "buffer_size",
    "dscp_to_tc",
    "tc_to_queue",
    "pfc_enable",
    "buffer_mode",
    "lossless",
    "lossy",
    "ecn",
    "congestion_detection",
    "scheduler",
    "cable_length",
    "pfc_quanta",
    "pfc_response",
    "latency",
    "pfc_watchdog",
    "drop_lossless_on_incomplete_arp",
];

/// Switch roles that generated topologies use.
pub const ROLES: &[&str] = &["tor", "leaf", "spine", "edge", "agg", "core", "switch"];

/// Bytes a frame adds to its payload on the wire (SCENARIO.md "Frame overhead").
pub const FRAME_OVERHEAD: u64 = 82;

/// Which table last set each key (relative key like `lossless.xon` → prefix like
/// `switch.role.tor`), so that a cross-key error names the key the user wrote.
#[derive(Clone, Debug, Default)]
pub struct Origins(HashMap<String, String>);

impl Origins {
    /// Record that `prefix` set `rel`.
    pub fn set(&mut self, rel: &str, prefix: &str) {
        self.0.insert(rel.to_string(), prefix.to_string());
    }
    /// Full key of `rel`: under the table that set it, or under `dflt` if none did.
    pub fn key(&self, rel: &str, dflt: &str) -> String {
        at(self.0.get(rel).map_or(dflt, |s| s.as_str()), rel)
    }
    /// The full key of whichever of two related keys was set by the more specific table
    /// (`a` on a tie): the one the user most likely got wrong.
    pub fn key2(&self, a: &str, b: &str, dflt: &str) -> String {
        let depth = |rel: &str| self.0.get(rel).map_or(0, |s| s.len());
        if depth(b) > depth(a) {
            self.key(b, dflt)
        } else {
            self.key(a, dflt)
        }
    }
}

fn dynamic_th(c: &mut Ctx, v: &Value, k: &str) -> Option<i8> {
    c.int(v, k, -8, 8).map(|x| x as i8)
}

fn headroom(c: &mut Ctx, v: &Value, k: &str) -> Option<Headroom> {
    match v {
        Value::String(s) if s == "auto" => Some(Headroom::Auto),
        Value::String(_) | Value::Integer(_) => c.size(v, k).map(Headroom::Fixed),
        Value::Float(f) if f.is_finite() && *f > 0.0 => Some(Headroom::AutoScaled(*f)),
        Value::Float(f) => {
            c.err(
                k,
                format!("a headroom multiple must be positive, found {f}"),
            );
            None
        }
        _ => {
            c.expected(
                k,
                "\"auto\", a size like \"40KB\", or a multiple of auto like 0.5",
                v,
            );
            None
        }
    }
}

fn cable_length(c: &mut Ctx, v: &Value, k: &str) -> Option<f64> {
    let m = match v {
        Value::Integer(_) | Value::Float(_) => c.number(v, k)?,
        Value::String(s) => {
            let s = s.trim();
            let (num, scale) = if let Some(n) = s.strip_suffix("km") {
                (n, 1000.0)
            } else if let Some(n) = s.strip_suffix("cm") {
                (n, 0.01)
            } else if let Some(n) = s.strip_suffix('m') {
                (n, 1.0)
            } else {
                c.err(
                    k,
                    format!("invalid length `{s}`: write e.g. \"5m\" (m, km, cm)"),
                );
                return None;
            };
            match num.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => x * scale,
                _ => {
                    c.err(k, format!("invalid length `{s}`: write e.g. \"5m\""));
                    return None;
                }
            }
        }
        _ => {
            c.expected(k, "a length like \"5m\"", v);
            return None;
        }
    };
    if !(0.0..=1e7).contains(&m) {
        c.err(k, format!("cable length {m} m is out of range"));
        return None;
    }
    Some(m)
}

/// A table whose keys are small integers (`"26" = 3`): the (index, value, key) pairs with a
/// valid index (bad indices are recorded as errors); `None` when it is not a table.
fn int_keyed<'v>(
    c: &mut Ctx,
    v: &'v Value,
    k: &str,
    max_key: u8,
    what: &str,
) -> Option<Vec<(u8, &'v Value, String)>> {
    let t = match v {
        Value::Table(t) => t,
        _ => {
            c.expected(k, &format!("a table like {{ {what} }}"), v);
            return None;
        }
    };
    let mut out = Vec::new();
    for (key, val) in t {
        let full = at(k, key);
        match key.trim().parse::<u8>() {
            Ok(i) if i <= max_key => out.push((i, val, full)),
            _ => c.err(full, format!("`{key}` is not a number in 0..={max_key}")),
        }
    }
    Some(out)
}

fn scheduler_entry(c: &mut Ctx, v: &Value, k: &str) -> Option<QueueSched> {
    match v {
        Value::String(s) if s == "strict" => Some(QueueSched::Strict),
        Value::Table(t) => {
            c.keys(t, k, &["dwrr"]);
            c.req(t, k, "dwrr", "a weight", |c, v, k| {
                c.uint(v, k, 1, u32::MAX as u64)
            })
            .map(|w| QueueSched::Dwrr(w as u32))
        }
        _ => {
            c.expected(k, "\"strict\" or { dwrr = weight }", v);
            None
        }
    }
}

fn watchdog(
    c: &mut Ctx,
    v: &Value,
    k: &str,
    cur: Option<WatchdogParams>,
) -> Option<Option<WatchdogParams>> {
    let t = c.table(v, k)?;
    c.keys(
        t,
        k,
        &[
            "enabled",
            "detection_time",
            "restoration_time",
            "action",
            "poll_interval",
            "ports",
        ],
    );
    let base = cur.unwrap_or(WatchdogParams {
        detection_time: Time::from_ms(200),
        restoration_time: Time::from_ms(200),
        action: WatchdogAction::Drop,
        poll_interval: Time::from_ms(100),
        server_facing_only: false,
    });
    let enabled = c.or(t, k, "enabled", cur.is_some(), Ctx::boolean);
    let detection_time = c.or(t, k, "detection_time", base.detection_time, Ctx::time);
    let restoration_time = c.or(t, k, "restoration_time", base.restoration_time, Ctx::time);
    let poll_interval = c.or(t, k, "poll_interval", base.poll_interval, Ctx::time);
    let action = match t.get("action") {
        None => Some(base.action),
        Some(a) => c
            .choice(a, &at(k, "action"), &["drop", "forward", "alert"])
            .map(|x| match x {
                "drop" => WatchdogAction::Drop,
                "forward" => WatchdogAction::Forward,
                _ => WatchdogAction::Alert,
            }),
    };
    let server_facing_only = match t.get("ports") {
        None => Some(base.server_facing_only),
        Some(x) => c
            .choice(x, &at(k, "ports"), &["all", "server_facing"])
            .map(|v| v == "server_facing"),
    };
    if poll_interval == Some(Time::ZERO) {
        c.err(at(k, "poll_interval"), "the poll interval must be positive");
        return None;
    }
    let p = WatchdogParams {
        detection_time: detection_time?,
        restoration_time: restoration_time?,
        action: action?,
        poll_interval: poll_interval?,
        server_facing_only: server_facing_only?,
    };
    Some(enabled?.then_some(p))
}

/// Apply the keys of one `[switch]`-shaped table (`prefix` is its dotted path) onto `p`.
/// `top` allows the `role` and `name` sub-tables.
pub fn apply(
    ctx: &mut Ctx,
    t: &Table,
    prefix: &str,
    p: &mut SwitchParams,
    o: &mut Origins,
    top: bool,
) {
    if top {
        let mut keys = KEYS.to_vec();
        keys.extend(["role", "name"]);
        ctx.keys(t, prefix, &keys);
    } else {
        ctx.keys(t, prefix, KEYS);
    }
    for (key, v) in t {
        let k = at(prefix, key);
        match key.as_str() {
            "buffer_size" => {
                if let Some(b) = ctx.size(v, &k) {
                    if b == Bytes::ZERO {
                        ctx.err(k, "the buffer size must be positive");
                    } else {
                        p.buffer_size = b;
                        o.set(key, prefix);
                    }
                }
            }
            "dscp_to_tc" => {
                if let Some(entries) = int_keyed(ctx, v, &k, 63, "\"26\" = 3") {
                    let mut map = [0u8; 64];
                    for (d, val, full) in entries {
                        if let Some(tc) = ctx.tc(val, &full) {
                            map[d as usize] = tc;
                        }
                    }
                    p.dscp_to_tc = map;
                    o.set(key, prefix);
                }
            }
            "tc_to_queue" => {
                if let Some(entries) = int_keyed(ctx, v, &k, 7, "\"3\" = 3") {
                    let mut map = [0, 1, 2, 3, 4, 5, 6, 7];
                    for (tc, val, full) in entries {
                        if let Some(q) = ctx.tc(val, &full) {
                            map[tc as usize] = q;
                        }
                    }
                    p.tc_to_queue = map;
                    o.set(key, prefix);
                }
            }
            "pfc_enable" => {
                if let Some(m) = ctx.tc_mask(v, &k) {
                    p.pfc_enable = m;
                    o.set(key, prefix);
                }
            }
            "buffer_mode" => {
                if let Some(m) = ctx.choice(v, &k, &["dynamic", "static"]) {
                    p.buffer_mode = if m == "static" {
                        BufferMode::Static
                    } else {
                        BufferMode::Dynamic
                    };
                    o.set(key, prefix);
                }
            }
            "lossless" => {
                let Some(lt) = ctx.table(v, &k) else { continue };
                ctx.keys(
                    lt,
                    &k,
                    &[
                        "dynamic_th",
                        "headroom",
                        "xon_offset",
                        "reserved",
                        "xoff",
                        "xon",
                    ],
                );
                let l = &mut p.lossless;
                for (sub, sv) in lt {
                    let sk = at(&k, sub);
                    let ok = match sub.as_str() {
                        "dynamic_th" => {
                            dynamic_th(ctx, sv, &sk).map(|x| l.dynamic_th = x).is_some()
                        }
                        "headroom" => headroom(ctx, sv, &sk).map(|x| l.headroom = x).is_some(),
                        "xon_offset" => ctx.size(sv, &sk).map(|x| l.xon_offset = x).is_some(),
                        "reserved" => ctx.size(sv, &sk).map(|x| l.reserved = x).is_some(),
                        "xoff" => ctx.size(sv, &sk).map(|x| l.xoff = x).is_some(),
                        "xon" => ctx.size(sv, &sk).map(|x| l.xon = x).is_some(),
                        _ => false,
                    };
                    if ok {
                        o.set(&format!("lossless.{sub}"), prefix);
                    }
                }
            }
            "lossy" => {
                let Some(lt) = ctx.table(v, &k) else { continue };
                ctx.keys(lt, &k, &["dynamic_th", "limit", "reserved"]);
                let l = &mut p.lossy;
                for (sub, sv) in lt {
                    let sk = at(&k, sub);
                    let ok = match sub.as_str() {
                        "dynamic_th" => {
                            dynamic_th(ctx, sv, &sk).map(|x| l.dynamic_th = x).is_some()
                        }
                        "limit" => ctx.size(sv, &sk).map(|x| l.limit = x).is_some(),
                        "reserved" => ctx.size(sv, &sk).map(|x| l.reserved = x).is_some(),
                        _ => false,
                    };
                    if ok {
                        o.set(&format!("lossy.{sub}"), prefix);
                    }
                }
            }
            "ecn" => match v {
                Value::String(s) if s == "off" => {
                    p.ecn = None;
                    o.set(key, prefix);
                }
                Value::Boolean(false) => {
                    p.ecn = None;
                    o.set(key, prefix);
                }
                Value::Table(et) => {
                    ctx.keys(et, &k, &["queues", "kmin", "kmax", "pmax", "mark_on"]);
                    let mut e = p.ecn.unwrap_or(EcnParams {
                        queues: 1 << 3,
                        kmin: Bytes(5_000),
                        kmax: Bytes(200_000),
                        pmax: 0.01,
                        mark_on: MarkOn::Enqueue,
                    });
                    for (sub, sv) in et {
                        let sk = at(&k, sub);
                        let ok = match sub.as_str() {
                            "queues" => ctx.tc_mask(sv, &sk).map(|x| e.queues = x).is_some(),
                            "kmin" => ctx.size(sv, &sk).map(|x| e.kmin = x).is_some(),
                            "kmax" => ctx.size(sv, &sk).map(|x| e.kmax = x).is_some(),
                            "pmax" => ctx.probability(sv, &sk).map(|x| e.pmax = x).is_some(),
                            "mark_on" => ctx
                                .choice(sv, &sk, &["enqueue", "dequeue"])
                                .map(|m| {
                                    e.mark_on = if m == "dequeue" {
                                        MarkOn::Dequeue
                                    } else {
                                        MarkOn::Enqueue
                                    }
                                })
                                .is_some(),
                            _ => false,
                        };
                        if ok {
                            o.set(&format!("ecn.{sub}"), prefix);
                        }
                    }
                    p.ecn = Some(e);
                    o.set(key, prefix);
                }
                _ => ctx.expected(
                    &k,
                    "a table { queues, kmin, kmax, pmax, mark_on } or \"off\"",
                    v,
                ),
            },
            "congestion_detection" => {
                use crate::fabric::params::Detection;
                match ctx.supported(
                    v,
                    &k,
                    &["wred", "rcm_1a_root", "rcm_1a_root_victim", "rcm_1b"],
                    &[],
                ) {
                    Some("wred") => p.detection = Detection::Wred,
                    Some("rcm_1a_root") => p.detection = Detection::RcmRoot,
                    Some("rcm_1a_root_victim") => p.detection = Detection::RcmRootVictim,
                    Some("rcm_1b") => p.detection = Detection::Rcm1b,
                    _ => {}
                }
            }
            "scheduler" => {
                if let Some(entries) =
                    int_keyed(ctx, v, &k, 7, "\"6\" = \"strict\", \"3\" = { dwrr = 50 }")
                {
                    for (q, val, full) in entries {
                        if let Some(s) = scheduler_entry(ctx, val, &full) {
                            p.scheduler[q as usize] = s;
                        }
                    }
                    o.set(key, prefix);
                }
            }
            "cable_length" => {
                if let Some(m) = cable_length(ctx, v, &k) {
                    p.cable_length_m = m;
                    o.set(key, prefix);
                }
            }
            "pfc_quanta" => {
                if let Some(q) = ctx.uint(v, &k, 0, 65535) {
                    p.pfc_quanta = q as u16;
                    o.set(key, prefix);
                }
            }
            "pfc_response" => match v {
                Value::String(s) if s == "auto" => p.pfc_response = None,
                _ => {
                    if let Some(tm) = ctx.time(v, &k) {
                        p.pfc_response = Some(tm);
                    }
                }
            },
            "latency" => {
                if let Some(tm) = ctx.time(v, &k) {
                    p.latency = tm;
                }
            }
            "drop_lossless_on_incomplete_arp" => {
                if let Some(b) = ctx.boolean(v, &k) {
                    p.drop_lossless_on_incomplete_arp = b;
                }
            }
            "pfc_watchdog" => {
                if let Some(w) = watchdog(ctx, v, &k, p.pfc_watchdog) {
                    p.pfc_watchdog = w;
                }
            }
            _ => {}
        }
    }
}

/// Cross-key rules of one resolved switch configuration. `max_frame` is the largest frame
/// any NIC sends (payload MTU + 82 bytes).
pub fn validate(ctx: &mut Ctx, p: &SwitchParams, o: &Origins, max_frame: Option<(u64, u32)>) {
    let l = &p.lossless;
    if p.buffer_mode == BufferMode::Static && l.xon > l.xoff {
        ctx.err(
            o.key2("lossless.xon", "lossless.xoff", P),
            format!(
                "XON ({}) is above XOFF ({})",
                fmt_bytes(l.xon),
                fmt_bytes(l.xoff)
            ),
        );
    }
    if let (Headroom::Fixed(h), Some((frame, mtu))) = (l.headroom, max_frame) {
        if h.0 < frame {
            ctx.err(
                o.key("lossless.headroom", P),
                format!(
                    "headroom ({}) is smaller than one frame ({frame}B: MTU {mtu} + {FRAME_OVERHEAD} \
                     bytes of headers); a float like 0.5 means a multiple of \"auto\"",
                    fmt_bytes(h)
                ),
            );
        }
    }
    if let Some(e) = &p.ecn {
        if e.kmin > e.kmax {
            ctx.err(
                o.key2("ecn.kmin", "ecn.kmax", P),
                format!(
                    "kmin ({}) is above kmax ({})",
                    fmt_bytes(e.kmin),
                    fmt_bytes(e.kmax)
                ),
            );
        }
    }
}

/// The parsed `[switch]` section: the defaults plus the override tables by role and name.
#[derive(Debug, Default)]
pub struct Layers<'t> {
    /// Parameters from `[switch]` alone.
    pub base: SwitchParams,
    /// Where base values came from.
    pub origins: Origins,
    /// `[switch.role.<role>]` tables.
    pub roles: BTreeMap<String, &'t Table>,
    /// `[switch.name.<name>]` tables.
    pub names: BTreeMap<String, &'t Table>,
}

fn sub_tables<'t>(ctx: &mut Ctx, t: &'t Table, key: &str) -> BTreeMap<String, &'t Table> {
    let mut out = BTreeMap::new();
    let full = at(P, key);
    if let Some(v) = t.get(key) {
        if let Some(sub) = ctx.table(v, &full) {
            for (name, v) in sub {
                if let Some(st) = ctx.table(v, &at(&full, name)) {
                    out.insert(name.clone(), st);
                }
            }
        }
    }
    out
}

/// Check `[switch]` itself and collect its override tables (checked in [`resolve`]).
pub fn parse_base<'t>(ctx: &mut Ctx, root: &'t Table) -> Layers<'t> {
    let mut layers = Layers::default();
    let Some(v) = root.get(P) else { return layers };
    let Some(t) = ctx.table(v, P) else {
        return layers;
    };
    apply(ctx, t, P, &mut layers.base, &mut layers.origins, true);
    layers.roles = sub_tables(ctx, t, "role");
    layers.names = sub_tables(ctx, t, "name");
    layers
}

/// Resolve one [`SwitchParams`] per switch of `topo` (role overrides first, then name
/// overrides) and check each distinct configuration. Without a topology, every override
/// table is still checked on top of the defaults.
pub fn resolve(
    ctx: &mut Ctx,
    layers: &Layers<'_>,
    topo: Option<&Topology>,
    max_frame: Option<(u64, u32)>,
) -> Option<Vec<SwitchParams>> {
    let before = ctx.count();
    let layer = |ctx: &mut Ctx, base: &(SwitchParams, Origins), t: &Table, prefix: &str| {
        let (mut p, mut o) = base.clone();
        apply(ctx, t, prefix, &mut p, &mut o, false);
        (p, o)
    };
    let base = (layers.base.clone(), layers.origins.clone());
    validate(ctx, &base.0, &base.1, max_frame);

    // Role tables: known roles only; when the topology is known, roles it has.
    let present: Vec<&str> = match topo {
        Some(t) => {
            let mut r: Vec<&str> = t.switches.iter().map(|s| s.role.as_str()).collect();
            r.sort_unstable();
            r.dedup();
            r
        }
        None => ROLES.to_vec(),
    };
    let mut by_role: HashMap<&str, (SwitchParams, Origins)> = HashMap::new();
    for (role, t) in &layers.roles {
        let key = at(&at(P, "role"), role);
        if !present.contains(&role.as_str()) {
            let hint = suggest::hint(role, present.iter().copied());
            let msg = if ROLES.contains(&role.as_str()) {
                format!(
                    "no switch has role `{role}` in this topology (roles: {})",
                    present.join(", ")
                )
            } else {
                format!(
                    "unknown switch role `{role}` (roles: {}){hint}",
                    present.join(", ")
                )
            };
            ctx.err(key.clone(), msg);
        }
        let r = layer(ctx, &base, t, &key);
        validate(ctx, &r.0, &r.1, max_frame);
        by_role.insert(role.as_str(), r);
    }

    let Some(topo) = topo else {
        for (name, t) in &layers.names {
            let r = layer(ctx, &base, t, &at(&at(P, "name"), name));
            validate(ctx, &r.0, &r.1, max_frame);
        }
        return None;
    };

    let switch_names: HashSet<&str> = topo.switches.iter().map(|s| s.name.as_str()).collect();
    for name in layers.names.keys() {
        if !switch_names.contains(name.as_str()) {
            let key = at(&at(P, "name"), name);
            if topo.hosts.iter().any(|h| &h.name == name) {
                ctx.err(
                    key,
                    format!("`{name}` is a host, not a switch (use [nic.host.{name}])"),
                );
            } else {
                let hint = suggest::hint(name, topo.switches.iter().map(|s| s.name.as_str()));
                ctx.err(key, format!("unknown switch `{name}`{hint}"));
            }
        }
    }

    let mut out = Vec::with_capacity(topo.switches.len());
    for sw in &topo.switches {
        let role = by_role.get(sw.role.as_str()).unwrap_or(&base);
        match layers.names.get(&sw.name) {
            Some(t) => {
                let r = layer(ctx, role, t, &at(&at(P, "name"), &sw.name));
                validate(ctx, &r.0, &r.1, max_frame);
                out.push(r.0);
            }
            None => out.push(role.0.clone()),
        }
    }
    (ctx.count() == before).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    fn base(s: &str) -> (SwitchParams, Ctx) {
        let root: Table = s.parse().unwrap();
        let mut ctx = Ctx::new("s.toml");
        let l = parse_base(&mut ctx, &root);
        let _ = resolve(&mut ctx, &l, None, Some((1106, 1024)));
        (l.base, ctx)
    }

    #[test]
    fn reads_every_key() {
        let (p, ctx) = base(
            r#"
            [switch]
            buffer_size = "9MB"
            dscp_to_tc = { 26 = 3, 48 = 6, 10 = 1 }
            tc_to_queue = { 1 = 2 }
            pfc_enable = [3, 4]
            buffer_mode = "static"
            lossless = { xoff = "180KB", xon = "160KB", headroom = "40KB", reserved = 0 }
            lossy = { dynamic_th = 2, limit = "500KB" }
            ecn = { queues = [3], kmin = "5KB", kmax = "200KB", pmax = 0.01, mark_on = "dequeue" }
            congestion_detection = "wred"
            scheduler = { 6 = "strict", 3 = { dwrr = 50 }, 0 = { dwrr = 50 } }
            cable_length = "300m"
            pfc_quanta = 1000
            pfc_response = "500ns"
            latency = "1us"
            pfc_watchdog = { enabled = false, detection_time = "200ms", restoration_time = "200ms", action = "drop", poll_interval = "100ms" }
            "#,
        );
        assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
        assert_eq!(p.buffer_size, Bytes(9_000_000));
        assert_eq!(
            (p.dscp_to_tc[26], p.dscp_to_tc[10], p.dscp_to_tc[0]),
            (3, 1, 0)
        );
        assert_eq!(p.tc_to_queue, [0, 2, 2, 3, 4, 5, 6, 7]);
        assert_eq!(p.pfc_enable, 0b11000);
        assert_eq!(p.buffer_mode, BufferMode::Static);
        assert_eq!(p.lossless.headroom, Headroom::Fixed(Bytes(40_000)));
        assert_eq!(p.lossless.dynamic_th, -4);
        assert_eq!(p.lossy.limit, Bytes(500_000));
        assert_eq!(p.ecn.unwrap().mark_on, MarkOn::Dequeue);
        assert_eq!(p.scheduler[3], QueueSched::Dwrr(50));
        assert_eq!(p.scheduler[6], QueueSched::Strict);
        assert_eq!(p.cable_length_m, 300.0);
        assert_eq!(p.pfc_quanta, 1000);
        assert_eq!(p.pfc_response, Some(Time::from_ns(500)));
        assert_eq!(p.latency, Time::from_us(1));
    }

    #[test]
    fn headroom_forms() {
        let (p, _) = base("[switch]\nlossless = { headroom = 0.5 }\n");
        assert_eq!(p.lossless.headroom, Headroom::AutoScaled(0.5));
        let (p, _) = base("[switch]\nlossless = { headroom = \"auto\" }\n");
        assert_eq!(p.lossless.headroom, Headroom::Auto);
        let (_, ctx) = base("[switch]\nlossless = { headroom = 1000 }\n");
        assert_eq!(ctx.errors[0].key, "switch.lossless.headroom");
        assert!(ctx.errors[0]
            .message
            .contains("smaller than one frame (1106B"));
    }

    #[test]
    fn cross_key_rules_name_the_key() {
        let (_, ctx) = base(
            "[switch]\nbuffer_mode = \"static\"\nlossless = { xoff = \"180KB\", xon = \"200KB\" }\n\
             ecn = { kmin = \"300KB\", kmax = \"200KB\", pmax = 2 }\n",
        );
        let msgs: Vec<String> = ctx
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.key, e.message))
            .collect();
        assert!(
            msgs.contains(&"switch.lossless.xon: XON (200KB) is above XOFF (180KB)".to_string()),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("switch.ecn.pmax: 2 is outside [0, 1]")),
            "{msgs:?}"
        );
        assert!(
            msgs.contains(&"switch.ecn.kmin: kmin (300KB) is above kmax (200KB)".to_string()),
            "{msgs:?}"
        );
    }

    #[test]
    fn role_overrides_are_checked_under_their_key() {
        let (_, ctx) = base(
            "[switch]\nbuffer_mode = \"static\"\n[switch.role.tor]\nlossless = { xon = \"300KB\" }\n\
             dscp_to_tc = { 64 = 1, 3 = 9 }\n[switch.role.tro]\nlatency = \"1us\"\n",
        );
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        assert!(keys.contains(&"switch.role.tor.lossless.xon"), "{keys:?}");
        assert!(keys.contains(&"switch.role.tor.dscp_to_tc.64"), "{keys:?}");
        assert!(keys.contains(&"switch.role.tor.dscp_to_tc.3"), "{keys:?}");
        let e = ctx
            .errors
            .iter()
            .find(|e| e.key == "switch.role.tro")
            .unwrap();
        assert!(e.message.contains("did you mean `tor`?"), "{}", e.message);
    }

    #[test]
    fn unsupported_and_bad_values() {
        let (_, ctx) = base(
            "[switch]\ncongestion_detection = \"rcm_2\"\nbuffer_mode = \"dynamc\"\n\
             pfc_enable = [8]\ncable_length = \"5 parsecs\"\npfc_watchdog = { action = \"dorp\", enabled = 1 }\nbufer_size = 1\n",
        );
        let keys: Vec<&str> = ctx.errors.iter().map(|e| e.key.as_str()).collect();
        for k in [
            "switch.congestion_detection",
            "switch.buffer_mode",
            "switch.pfc_enable[0]",
            "switch.cable_length",
            "switch.pfc_watchdog.action",
            "switch.pfc_watchdog.enabled",
            "switch.bufer_size",
        ] {
            assert!(keys.contains(&k), "no {k} in {keys:?}");
        }
        assert!(ctx
            .errors
            .iter()
            .any(|e| e.message.contains("did you mean")));
    }
}
