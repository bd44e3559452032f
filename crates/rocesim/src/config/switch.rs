//! `[switch]`: defaults for every switch, and `[switch.role.<role>]` and
//! `[switch.name.<name>]` tables that change only the keys they name.

use std::collections::HashMap;

use serde_json::json;
use toml::Value;

use super::check::Ctx;
use super::declare::{Leaf, SubTable, Table, TypeDoc};
use super::leaf::{
    choice, Bool, HeadroomV, Int, Length, Paths, Prob, Size, TcList, TimeAuto, TimeV,
};
use super::lists::{DscpMap, Scheduler, TcMap};
use super::overlay::{Layered, Named, Origins};
use crate::fabric::params::{
    BufferMode, Detection, EcnParams, MarkOn, SwitchParams, WatchdogAction, WatchdogParams,
};
use crate::table;
use crate::topology::Topology;
use crate::units::{Bytes, Time};

choice!(/// How buffer thresholds are set.
    BufferModeV -> BufferMode { "dynamic" => BufferMode::Dynamic, "static" => BufferMode::Static });
choice!(/// How a congested egress queue is detected for marking.
    DetectionV -> Detection { "wred" => Detection::Wred, "rcm_1a_root" => Detection::RcmRoot,
        "rcm_1a_root_victim" => Detection::RcmRootVictim, "rcm_1b" => Detection::Rcm1b });
choice!(/// When a packet is marked.
    MarkOnV -> MarkOn { "enqueue" => MarkOn::Enqueue, "dequeue" => MarkOn::Dequeue });
choice!(/// What a stormed queue does.
    ActionV -> WatchdogAction { "drop" => WatchdogAction::Drop,
        "forward" => WatchdogAction::Forward, "alert" => WatchdogAction::Alert });
choice!(/// Which ports the watchdog watches (→ server-facing only).
    PortsV -> bool { "all" => false, "server_facing" => true });

table! {
    /// `[switch]`: defaults for every switch. A switch takes `[switch]`, then its role's
    /// table, then its name's table; inside `lossless`, `lossy`, `ecn` and `scheduler` a
    /// layer changes only the keys it names, the other keys are replaced as a whole.
    pub struct Switch {
        /// SONiC `config_db.json` file(s), relative to the scenario, read before this table's
        /// other keys (which must not set what the file sets): QoS maps, PFC, buffer
        /// profiles, WRED/ECN, schedulers, cable lengths, PFC watchdog (docs/sonic.md).
        /// A list is merged in order (e.g. SONiC's `qos.json` and `buffers.json`).
        /// Default: none.
        config_db: Paths,
        /// Total shared buffer of the switch; above zero. Default: `"12MB"`.
        buffer_size: Size,
        /// Traffic class of each DSCP (SONiC `DSCP_TO_TC_MAP`); unmapped DSCPs → TC 0.
        /// Default: `{ 26 = 3, 48 = 6 }`.
        dscp_to_tc: DscpMap,
        /// Egress queue of each TC; unmapped TCs keep their own number. The ingress priority
        /// group of a TC is the TC. Default: identity.
        tc_to_queue: TcMap,
        /// Lossless (PFC-enabled) traffic classes. Default: `[3]`.
        pfc_enable: TcList,
        /// Dynamic (α = 2^dynamic_th of the free shared buffer) or static (byte) thresholds.
        /// Default: `"dynamic"`.
        buffer_mode: BufferModeV,
        /// Lossless priority-group thresholds. Default: see `lossless` keys.
        lossless: Lossless,
        /// Lossy egress queue limits. Default: see `lossy` keys.
        lossy: Lossy,
        /// RED/WRED ECN marking: a table turns it on (missing keys take their defaults).
        /// Default: off.
        ecn: EcnV,
        /// How a congested egress queue is detected for marking (needs an `ecn` table).
        /// Default: `"wred"`.
        congestion_detection: DetectionV,
        /// Egress scheduling; strict queues go first (higher index wins), then DWRR.
        /// Default: queues 6, 7 strict; others DWRR weight 1.
        scheduler: Scheduler,
        /// Used by `headroom = "auto"`. Default: `"5m"`.
        cable_length: Length,
        /// Quanta in the XOFF pause frames the switch sends (1 quantum = 512 bit times).
        /// Default: `65535`.
        pfc_quanta: Int<1, 65535>,
        /// Delay between a pause frame's arrival and its effect; auto = the 802.3 Annex 31B
        /// maximum for the link speed. Default: `"auto"`.
        pfc_response: TimeAuto,
        /// Forwarding latency added at ingress. Default: `"0us"`.
        latency: TimeV,
        /// The switch PFC watchdog (SONiC `PFC_WD`). Default: disabled.
        pfc_watchdog: Watchdog,
        /// Drop lossless packets to a host whose MAC the switch has forgotten instead of
        /// flooding them (Guo et al. 2016 §4.2's fix). Default: `false`.
        drop_lossless_on_incomplete_arp: Bool,
        /// `[switch.role.<role>]` tables (roles: tor, leaf, spine, edge, agg, core, switch;
        /// the role must exist in the topology). Default: none.
        role: Named<Switch>,
        /// `[switch.name.<switch>]` tables. Default: none.
        name: Named<Switch>,
    }
}

table! {
    /// `lossless`: priority-group thresholds of the lossless traffic classes.
    pub struct Lossless {
        /// Dynamic mode: log2 α of the XOFF threshold. Default: `-4`.
        dynamic_th: Int<-8, 8>,
        /// Dynamic mode: XON is sent when the shared occupancy falls this far below XOFF.
        /// Default: `"2KB"`.
        xon_offset: Size,
        /// Static mode: XOFF threshold of the PG occupancy. Default: `"180KB"`.
        xoff: Size,
        /// Static mode: XON threshold; must not be above `xoff`. Default: `"160KB"`.
        xon: Size,
        /// Bytes absorbed after XOFF. `"auto"` computes 2 × (delay × rate) + 2 MTU frames +
        /// peer response per port; a size is fixed (at least one frame of the largest NIC
        /// MTU, MTU + 82 bytes); a **float** such as `0.5` means that multiple of auto (an
        /// integer is bytes: `2` is 2 bytes, `2.0` is twice auto). Default: `"auto"`.
        headroom: HeadroomV,
        /// Guaranteed bytes per ingress PG before the shared pool is used. Default: `1248`.
        reserved: Size,
    }
}

table! {
    /// `lossy`: egress queue limits of the lossy traffic classes.
    pub struct Lossy {
        /// Dynamic mode: log2 α of the queue limit. Default: `3`.
        dynamic_th: Int<-8, 8>,
        /// Static mode: queue limit. Default: `"1MB"`.
        limit: Size,
        /// Guaranteed bytes per queue. Default: `0`.
        reserved: Size,
    }
}

table! {
    /// `ecn`: RED/WRED marking. Probability 0 below kmin, pmax × (q − kmin)/(kmax − kmin) in
    /// between, 1 at or above kmax.
    pub struct Ecn {
        /// Queues that mark. Default: `[3]`.
        queues: TcList,
        /// Marking starts here (the congestion threshold of `congestion_detection`).
        /// Default: `"5KB"`.
        kmin: Size,
        /// Marking probability reaches 1 here; not below `kmin`. Default: `"200KB"`.
        kmax: Size,
        /// Marking probability at kmax. Default: `0.01`.
        pmax: Prob,
        /// Depth seen on enqueue (without the packet) or on dequeue (behind it).
        /// Default: `"enqueue"`.
        mark_on: MarkOnV,
    }
}

table! {
    /// `pfc_watchdog` (SONiC `PFC_WD` semantics): a lossless queue paused, non-empty and not
    /// transmitting for `detection_time` is stormed until no pause came for
    /// `restoration_time`.
    pub struct Watchdog {
        /// A table turns the watchdog on unless `enabled = false`. Default: `true` in a table.
        enabled: Bool,
        /// Storm detection time. Default: `"200ms"`.
        detection_time: TimeV,
        /// Restoration time. Default: `"200ms"`.
        restoration_time: TimeV,
        /// Check period; above zero. Default: `"100ms"`.
        poll_interval: TimeV,
        /// `drop` discards queued and arriving lossless packets and ignores pauses, `forward`
        /// only ignores pauses, `alert` only records. Default: `"drop"`.
        action: ActionV,
        /// Watched ports. Default: `"all"`.
        ports: PortsV,
    }
}

/// `ecn`: a table, or `"off"` (→ `None`).
pub struct EcnV;
impl SubTable for EcnV {
    const TABLE: Option<fn() -> &'static [super::declare::KeyDoc]> = Some(|| Ecn::KEYS);
}
impl Leaf for EcnV {
    type Out = Option<Ecn>;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Option<Ecn>> {
        match v {
            Value::String(s) if s == "off" => Some(None),
            Value::Boolean(false) => Some(None),
            Value::Table(_) => Ecn::read(c, v, k).map(Some),
            _ => {
                c.expected(
                    k,
                    "a table { queues, kmin, kmax, pmax, mark_on } or \"off\"",
                    v,
                );
                None
            }
        }
    }
    fn doc() -> TypeDoc {
        TypeDoc {
            name: "table \\| `\"off\"`".into(),
            schema: json!({ "anyOf": [ { "const": "off" }, Ecn::doc().schema ] }),
        }
    }
}

fn apply_lossless(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams, o: &mut Origins) {
    let Some(l) = ctx.get(&t.lossless) else {
        return;
    };
    let q = &mut p.lossless;
    ctx.set(&l.dynamic_th, |x| q.dynamic_th = x as i8);
    ctx.set(&l.xon_offset, |x| q.xon_offset = x);
    ctx.set(&l.xoff, |x| q.xoff = x);
    ctx.set(&l.xon, |x| q.xon = x);
    ctx.set(&l.headroom, |x| q.headroom = x);
    ctx.set(&l.reserved, |x| q.reserved = x);
    o.given(&[&l.xoff, &l.xon]);
    o.given(&[&l.headroom]);
}

fn apply_lossy(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams) {
    let Some(l) = ctx.get(&t.lossy) else { return };
    let q = &mut p.lossy;
    ctx.set(&l.dynamic_th, |x| q.dynamic_th = x as i8);
    ctx.set(&l.limit, |x| q.limit = x);
    ctx.set(&l.reserved, |x| q.reserved = x);
}

fn apply_ecn(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams, o: &mut Origins) {
    let Some(ecn) = ctx.get(&t.ecn) else { return };
    let Some(et) = ecn else {
        p.ecn = None;
        return;
    };
    let mut e = p.ecn.unwrap_or(EcnParams {
        queues: 1 << 3,
        kmin: Bytes(5_000),
        kmax: Bytes(200_000),
        pmax: 0.01,
        mark_on: MarkOn::Enqueue,
    });
    ctx.set(&et.queues, |x| e.queues = x);
    ctx.set(&et.kmin, |x| e.kmin = x);
    ctx.set(&et.kmax, |x| e.kmax = x);
    ctx.set(&et.pmax, |x| e.pmax = x);
    ctx.set(&et.mark_on, |x| e.mark_on = x);
    o.given(&[&et.kmin, &et.kmax]);
    p.ecn = Some(e);
}

fn apply_watchdog(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams) {
    let Some(w) = ctx.get(&t.pfc_watchdog) else {
        return;
    };
    let mut q = p.pfc_watchdog.unwrap_or(WatchdogParams {
        detection_time: Time::from_ms(200),
        restoration_time: Time::from_ms(200),
        action: WatchdogAction::Drop,
        poll_interval: Time::from_ms(100),
        server_facing_only: false,
    });
    // A table turns the watchdog on unless it says `enabled = false`.
    let enabled = ctx.or(&w.enabled, true);
    ctx.set(&w.detection_time, |x| q.detection_time = x);
    ctx.set(&w.restoration_time, |x| q.restoration_time = x);
    ctx.set(&w.poll_interval, |x| q.poll_interval = x);
    ctx.set(&w.action, |x| q.action = x);
    ctx.set(&w.ports, |x| q.server_facing_only = x);
    if q.poll_interval == Time::ZERO {
        ctx.err(&w.poll_interval.key, "the poll interval must be positive");
    }
    if let Some(on) = enabled {
        p.pfc_watchdog = on.then_some(q);
    }
}

/// Read the `config_db` files of `t` onto `p`; errors name the file, the JSON path and the
/// key. Returns the scenario keys the files set.
fn apply_config_db(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams) -> Vec<&'static str> {
    let Some(paths) = ctx.get(&t.config_db) else {
        return Vec::new();
    };
    let key = t.config_db.key.clone();
    let mut files = Vec::new();
    for f in &paths {
        let path = ctx.base_dir.join(f);
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|s| serde_json::from_str(&s).map_err(|e| format!("not JSON: {e}")));
        match parsed {
            Ok(v) => files.push((f.clone(), v)),
            Err(e) => ctx.err(&key, format!("{f}: {e}")),
        }
    }
    if files.len() < paths.len() {
        return Vec::new();
    }
    let name = paths.join(" + ");
    let db = super::config_db::import(&files, p);
    for e in &db.errors {
        ctx.err(&key, format!("{name}: {e}"));
    }
    let warnings = db.warnings.iter().map(|w| format!("{name}: {w}"));
    p.config_warnings.extend(warnings);
    p.config_ports.clone_from(&db.ports);
    db.keys
}

/// The keys of `t` that a `config_db` import also set (a conflict).
fn conflicts(ctx: &mut Ctx, t: &Switch, set: &[&'static str]) {
    let given: [(&str, bool, &str); 11] = [
        ("dscp_to_tc", t.dscp_to_tc.given(), "DSCP_TO_TC_MAP"),
        ("tc_to_queue", t.tc_to_queue.given(), "TC_TO_QUEUE_MAP"),
        (
            "pfc_enable",
            t.pfc_enable.given(),
            "PORT_QOS_MAP.pfc_enable",
        ),
        ("buffer_size", t.buffer_size.given(), "BUFFER_POOL.size"),
        (
            "buffer_mode",
            t.buffer_mode.given(),
            "BUFFER_PROFILE dynamic_th/static_th",
        ),
        ("lossless", t.lossless.given(), "BUFFER_PG / BUFFER_PROFILE"),
        ("lossy", t.lossy.given(), "BUFFER_QUEUE / BUFFER_PROFILE"),
        ("ecn", t.ecn.given(), "WRED_PROFILE / QUEUE.wred_profile"),
        (
            "scheduler",
            t.scheduler.given(),
            "SCHEDULER / QUEUE.scheduler",
        ),
        ("cable_length", t.cable_length.given(), "CABLE_LENGTH"),
        ("pfc_watchdog", t.pfc_watchdog.given(), "PFC_WD"),
    ];
    for (k, g, table) in given {
        if g && set.contains(&k) {
            let key = super::check::at(t.config_db.key.rsplit_once('.').map_or("", |x| x.0), k);
            let msg = format!("conflicts with {table} of the config_db file in the same table: set it in one place");
            ctx.err(key, msg);
        }
    }
}

/// Apply one `[switch]`-shaped table onto `p` (recording in `o` which table set what).
pub fn apply(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams, o: &mut Origins) {
    let imported = apply_config_db(ctx, t, p);
    conflicts(ctx, t, &imported);
    match ctx.get(&t.buffer_size) {
        Some(Bytes::ZERO) => ctx.err(&t.buffer_size.key, "the buffer size must be positive"),
        Some(b) => p.buffer_size = b,
        None => {}
    }
    ctx.set(&t.dscp_to_tc, |x| p.dscp_to_tc = x);
    ctx.set(&t.tc_to_queue, |x| p.tc_to_queue = x);
    ctx.set(&t.pfc_enable, |x| p.pfc_enable = x);
    ctx.set(&t.buffer_mode, |x| p.buffer_mode = x);
    apply_lossless(ctx, t, p, o);
    apply_lossy(ctx, t, p);
    apply_ecn(ctx, t, p, o);
    ctx.set(&t.congestion_detection, |x| p.detection = x);
    ctx.set(&t.scheduler, |x| {
        x.into_iter().for_each(|(q, s)| p.scheduler[q as usize] = s)
    });
    ctx.set(&t.cable_length, |x| p.cable_length_m = x);
    ctx.set(&t.pfc_quanta, |x| p.pfc_quanta = x as u16);
    ctx.set(&t.pfc_response, |x| p.pfc_response = x);
    ctx.set(&t.latency, |x| p.latency = x);
    ctx.set(&t.drop_lossless_on_incomplete_arp, |x| {
        p.drop_lossless_on_incomplete_arp = x
    });
    apply_watchdog(ctx, t, p);
}

/// Switch roles that generated topologies use.
pub const ROLES: &[&str] = &["tor", "leaf", "spine", "edge", "agg", "core", "switch"];

/// Cross-key rules of one resolved switch configuration. `max_frame` is the largest frame
/// any NIC sends and its MTU.
fn validate(ctx: &mut Ctx, p: &SwitchParams, o: &Origins, max_frame: (u64, u32)) {
    let l = &p.lossless;
    if p.buffer_mode == BufferMode::Static && l.xon > l.xoff {
        let msg = format!(
            "XON ({}) is above XOFF ({})",
            l.xon.written(),
            l.xoff.written()
        );
        ctx.err(o.key2("lossless.xon", "lossless.xoff"), msg);
    }
    let (frame, mtu) = max_frame;
    if let crate::fabric::params::Headroom::Fixed(h) = l.headroom {
        if h.0 < frame {
            let msg = format!(
                "headroom ({}) is smaller than one frame ({frame}B: MTU {mtu} + {} \
                 bytes of headers); a float like 0.5 means a multiple of \"auto\"",
                h.written(),
                frame - u64::from(mtu)
            );
            ctx.err(o.key("lossless.headroom"), msg);
        }
    }
    if let Some(e) = &p.ecn {
        if e.kmin > e.kmax {
            let msg = format!(
                "kmin ({}) is above kmax ({})",
                e.kmin.written(),
                e.kmax.written()
            );
            ctx.err(o.key2("ecn.kmin", "ecn.kmax"), msg);
        }
    }
}

/// One layer on top of `below`: the override table `v` at `key`, checked and validated.
fn layer(
    ctx: &mut Ctx,
    below: &(SwitchParams, Origins),
    key: &str,
    v: &Value,
    max_frame: (u64, u32),
) -> Option<(SwitchParams, Origins)> {
    let t = Switch::read(ctx, v, key)?;
    for f in [&t.role, &t.name].into_iter().filter(|f| f.given()) {
        ctx.unknown_key(&f.key);
    }
    let (mut p, mut o) = (below.0.clone(), below.1.with(key));
    apply(ctx, &t, &mut p, &mut o);
    validate(ctx, &p, &o, max_frame);
    Some((p, o))
}

fn check_role(ctx: &mut Ctx, role: &str, key: &str, present: &[&str]) {
    if present.contains(&role) {
        return;
    }
    let roles = present.join(", ");
    let msg = if ROLES.contains(&role) {
        format!("no switch has role `{role}` in this topology (roles: {roles})")
    } else {
        let hint = super::suggest::hint(role, present.iter().copied());
        format!("unknown switch role `{role}` (roles: {roles}){hint}")
    };
    ctx.err(key, msg);
}

fn check_name(ctx: &mut Ctx, topo: &Topology, name: &str, key: &str) {
    if topo.switches.iter().any(|s| s.name == name) {
        return;
    }
    let msg = if topo.hosts.iter().any(|h| h.name == name) {
        format!("`{name}` is a host, not a switch (use [nic.host.{name}])")
    } else {
        let hint = super::suggest::hint(name, topo.switches.iter().map(|s| s.name.as_str()));
        format!("unknown switch `{name}`{hint}")
    };
    ctx.err(key, msg);
}

/// The `[switch]` table applied onto the defaults (the NIC section defaults to some of it).
pub fn base(ctx: &mut Ctx, t: &Switch) -> (SwitchParams, Origins) {
    let mut base = (SwitchParams::default(), Origins::new("switch"));
    apply(ctx, t, &mut base.0, &mut base.1);
    base
}

/// Resolve one [`SwitchParams`] per switch of `topo` (`base`, then role tables, then name
/// tables) and check every layer. Without a topology the override tables are still checked.
pub fn resolve(
    ctx: &mut Ctx,
    t: &Switch,
    base: &(SwitchParams, Origins),
    topo: Option<&Topology>,
    max_frame: (u64, u32),
) -> Option<Vec<SwitchParams>> {
    let before = ctx.count();
    validate(ctx, &base.0, &base.1, max_frame);
    let mut present: Vec<&str> = match topo {
        Some(t) => t.switches.iter().map(|s| s.role.as_str()).collect(),
        None => ROLES.to_vec(),
    };
    present.sort_unstable();
    present.dedup();
    let mut by_role = HashMap::new();
    for (role, key, v) in ctx.get(&t.role).unwrap_or_default() {
        check_role(ctx, &role, &key, &present);
        if let Some(l) = layer(ctx, base, &key, &v, max_frame) {
            by_role.insert(role, l);
        }
    }
    let names = ctx.get(&t.name).unwrap_or_default();
    let Some(topo) = topo else {
        for (_, key, v) in &names {
            layer(ctx, base, key, v, max_frame);
        }
        return None;
    };
    let names: std::collections::BTreeMap<String, (String, Value)> =
        names.into_iter().map(|(n, k, v)| (n, (k, v))).collect();
    for (name, (key, _)) in &names {
        check_name(ctx, topo, name, key);
    }
    let mut out = Vec::with_capacity(topo.switches.len());
    for sw in &topo.switches {
        let role = by_role.get(&sw.role).unwrap_or(base);
        match names.get(&sw.name) {
            Some((key, v)) => out.extend(layer(ctx, role, key, v, max_frame).map(|l| l.0)),
            None => out.push(role.0.clone()),
        }
    }
    (ctx.count() == before).then_some(out)
}

impl Layered for Switch {
    const SCHEMA: &'static str = "#/properties/switch";
}
