//! `[switch]`: defaults for every switch, and `[switch.role.<role>]` and
//! `[switch.name.<name>]` tables that change only the keys they name.

use std::collections::{BTreeMap, HashMap};

use serde_json::json;
use toml::Value;

use super::check::Ctx;
use super::declare::{Leaf, Store, SubTable, Table, TypeDoc, V};
use super::leaf::{
    choice, Bool, HeadroomV, Int, Length, Paths, Prob, Size, TcList, TimeAuto, TimeV,
};
use super::lists::{DscpMap, Names, Scheduler, TcMap};
use super::overlay::{check_node, layer, Layered, Named, Origins, Resolved};
use crate::fabric::params::{
    BufferMode, Detection, EcnParams, Headroom, LosslessParams, LossyParams, MarkOn, QueueSched,
    SwitchParams, WatchdogAction, WatchdogParams,
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
    pub struct Switch => SwitchParams {
        /// SONiC `config_db.json` file(s), relative to the scenario, read before this table's
        /// other keys (which must not set what the file sets): QoS maps, PFC, buffer
        /// profiles, WRED/ECN, schedulers, cable lengths, PFC watchdog (docs/sonic.md).
        /// A list is merged in order (e.g. SONiC's `qos.json` and `buffers.json`).
        /// Default: none.
        config_db: Paths,
        /// SONiC port names of the switch's ports in local port order (the order of its
        /// links), e.g. `["Ethernet0", "Ethernet8"]`: a `config_db` file's per-port entries
        /// go to the port of that name, entries for other names are warnings, and lint
        /// names ports by them. Default: the file's `EthernetN` ports sorted by N, in order.
        port_names: Names,
        /// Total shared buffer of the switch; above zero. Default: `"12MB"`.
        buffer_size: Size,
        /// Traffic class of each DSCP (SONiC `DSCP_TO_TC_MAP`); unmapped DSCPs → TC 0.
        /// Default: `{ 26 = 3, 48 = 6 }`.
        dscp_to_tc: DscpMap => dscp_to_tc,
        /// Egress queue of each TC; unmapped TCs keep their own number. Default: identity.
        tc_to_queue: TcMap => tc_to_queue,
        /// Ingress priority group of each TC (SONiC `TC_TO_PRIORITY_GROUP_MAP`); unmapped
        /// TCs keep their own number. Ingress bytes, headroom and XOFF/XON are accounted per
        /// PG; a PG in XOFF pauses every PFC-enabled priority mapped to it. Default: identity.
        tc_to_pg: TcMap => tc_to_pg,
        /// Lossless (PFC-enabled) traffic classes. Default: `[3]`.
        pfc_enable: TcList => pfc_enable,
        /// Dynamic (α = 2^dynamic_th of the free shared buffer) or static (byte) thresholds.
        /// Default: `"dynamic"`.
        buffer_mode: BufferModeV => buffer_mode,
        /// Lossless priority-group thresholds. Default: see `lossless` keys.
        lossless: Lossless => lossless,
        /// Lossy egress queue limits. Default: see `lossy` keys.
        lossy: Lossy => lossy,
        /// RED/WRED ECN marking: a table turns it on (missing keys take their defaults).
        /// Default: off.
        ecn: EcnV => ecn,
        /// How a congested egress queue is detected for marking (needs an `ecn` table).
        /// Default: `"wred"`.
        congestion_detection: DetectionV => detection,
        /// Egress scheduling; strict queues go first (higher index wins), then DWRR.
        /// Default: queues 6, 7 strict; others DWRR weight 1.
        scheduler: Scheduler => scheduler,
        /// Used by `headroom = "auto"`. Default: `"5m"`.
        cable_length: Length => cable_length_m,
        /// Quanta in the XOFF pause frames the switch sends (1 quantum = 512 bit times).
        /// Default: `65535`.
        pfc_quanta: Int<1, 65535> => pfc_quanta,
        /// Delay between a pause frame's arrival and its effect; auto = the 802.3 Annex 31B
        /// maximum for the link speed. Default: `"auto"`.
        pfc_response: TimeAuto => pfc_response,
        /// Forwarding latency added at ingress. Default: `"0us"`.
        latency: TimeV => latency,
        /// The switch PFC watchdog (SONiC `PFC_WD`). Default: disabled.
        pfc_watchdog: Watchdog => pfc_watchdog,
        /// Drop lossless packets to a host whose MAC the switch has forgotten instead of
        /// flooding them (Guo et al. 2016 §4.2's fix). Default: `false`.
        drop_lossless_on_incomplete_arp: Bool => drop_lossless_on_incomplete_arp,
        /// Congestion isolation (IEEE 802.1Qcz): a table turns it on. Default: off.
        isolation: super::isolation::Isolation => isolation,
        /// `[switch.role.<role>]` tables (roles: tor, leaf, spine, edge, agg, core, switch;
        /// the role must exist in the topology). Default: none.
        role: Named<Switch>,
        /// `[switch.name.<switch>]` tables. Default: none.
        name: Named<Switch>,
    }
}

table! {
    /// `lossless`: priority-group thresholds of the lossless traffic classes.
    pub struct Lossless => LosslessParams {
        /// Dynamic mode: log2 α of the XOFF threshold. Default: `-4`.
        dynamic_th: Int<-8, 8> => dynamic_th,
        /// Dynamic mode: XON is sent when the shared occupancy falls this far below XOFF.
        /// Default: `"2KB"`.
        xon_offset: Size => xon_offset,
        /// Static mode: XOFF threshold of the PG occupancy. Default: `"180KB"`.
        xoff: Size => xoff,
        /// Static mode: XON threshold; must not be above `xoff`. Default: `"160KB"`.
        xon: Size => xon,
        /// Bytes absorbed after XOFF. `"auto"` computes 2 × (delay × rate) + 3 MTU frames
        /// (the one that crossed XOFF, the one the pause waits behind, the peer's frame in
        /// progress) + the pause frame + peer response per port; a size is fixed (at least one frame of the largest NIC
        /// MTU, MTU + 82 bytes); a **float** such as `0.5` means that multiple of auto (an
        /// integer is bytes: `2` is 2 bytes, `2.0` is twice auto). Default: `"auto"`.
        headroom: HeadroomV => headroom,
        /// Guaranteed bytes per ingress PG before the shared pool is used. Default: `1248`.
        reserved: Size => reserved,
    }
}

table! {
    /// `lossy`: egress queue limits of the lossy traffic classes.
    pub struct Lossy => LossyParams {
        /// Dynamic mode: log2 α of the queue limit. Default: `3`.
        dynamic_th: Int<-8, 8> => dynamic_th,
        /// Static mode: queue limit. Default: `"1MB"`.
        limit: Size => limit,
        /// Guaranteed bytes per queue. Default: `0`.
        reserved: Size => reserved,
    }
}

table! {
    /// `ecn`: RED/WRED marking. Probability 0 below kmin, pmax × (q − kmin)/(kmax − kmin) in
    /// between, 1 at or above kmax.
    pub struct Ecn => EcnParams {
        /// Queues that mark. Default: `[3]`.
        queues: TcList => queues,
        /// Marking starts here (the congestion threshold of `congestion_detection`).
        /// Default: `"5KB"`.
        kmin: Size => kmin,
        /// Marking probability reaches 1 here; not below `kmin`. Default: `"200KB"`.
        kmax: Size => kmax,
        /// Marking probability at kmax. Default: `0.01`.
        pmax: Prob => pmax,
        /// Depth seen on enqueue (without the packet) or on dequeue (behind it).
        /// Default: `"enqueue"`.
        mark_on: MarkOnV => mark_on,
    }
}

table! {
    /// `pfc_watchdog` (SONiC `PFC_WD` semantics): a lossless queue paused, non-empty and not
    /// transmitting for `detection_time` is stormed until no pause came for
    /// `restoration_time`.
    pub struct Watchdog => WatchdogParams {
        /// A table turns the watchdog on unless `enabled = false`. Default: `true` in a table.
        enabled: Bool,
        /// Storm detection time. Default: `"200ms"`.
        detection_time: TimeV => detection_time,
        /// Restoration time. Default: `"200ms"`.
        restoration_time: TimeV => restoration_time,
        /// Check period; above zero. Default: `"100ms"`.
        poll_interval: TimeV => poll_interval,
        /// `drop` discards queued and arriving lossless packets and ignores pauses, `forward`
        /// only ignores pauses, `alert` only records. Default: `"drop"`.
        action: ActionV => action,
        /// Watched ports. Default: `"all"`.
        ports: PortsV => server_facing_only,
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

impl Store<Option<EcnParams>> for Option<Ecn> {
    fn store(self, ctx: &mut Ctx, to: &mut Option<EcnParams>) {
        let Some(t) = self else {
            *to = None;
            return;
        };
        let mut e = to.unwrap_or(EcnParams {
            queues: 1 << 3,
            kmin: Bytes(5_000),
            kmax: Bytes(200_000),
            pmax: 0.01,
            mark_on: MarkOn::Enqueue,
        });
        t.apply(ctx, &mut e);
        *to = Some(e);
    }
}

impl Store<Option<WatchdogParams>> for Watchdog {
    fn store(self, ctx: &mut Ctx, to: &mut Option<WatchdogParams>) {
        let mut q = to.unwrap_or(WatchdogParams {
            detection_time: Time::from_ms(200),
            restoration_time: Time::from_ms(200),
            action: WatchdogAction::Drop,
            poll_interval: Time::from_ms(100),
            server_facing_only: false,
        });
        // A table turns the watchdog on unless it says `enabled = false`.
        let enabled = ctx.or(&self.enabled, true);
        self.apply(ctx, &mut q);
        if q.poll_interval == Time::ZERO {
            ctx.err(
                &self.poll_interval.key,
                "the poll interval must be positive",
            );
        }
        if let Some(on) = enabled {
            *to = on.then_some(q);
        }
    }
}

impl Store<[QueueSched; 8]> for Vec<(u8, QueueSched)> {
    fn store(self, _: &mut Ctx, to: &mut [QueueSched; 8]) {
        self.into_iter().for_each(|(q, s)| to[q as usize] = s);
    }
}

/// Read the `config_db` files of `t` onto `p`; errors name the file, the JSON path and the
/// key. Returns the scenario keys the files set.
fn apply_config_db(ctx: &mut Ctx, t: &Switch, p: &mut SwitchParams) -> Vec<&'static str> {
    let names = ctx.get(&t.port_names);
    if let Some(n) = &names {
        let mut seen = std::collections::BTreeSet::new();
        for (i, x) in n.iter().enumerate() {
            if !seen.insert(x) {
                let k = format!("{}[{i}]", t.port_names.key);
                ctx.err(k, format!("port name `{x}` appears twice"));
            }
        }
        p.config_ports.clone_from(n);
    }
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
    let db = super::config_db::import(&files, p, names.as_deref());
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
    let given: [(&str, bool, &str); 12] = [
        ("dscp_to_tc", t.dscp_to_tc.given(), "DSCP_TO_TC_MAP"),
        ("tc_to_queue", t.tc_to_queue.given(), "TC_TO_QUEUE_MAP"),
        ("tc_to_pg", t.tc_to_pg.given(), "TC_TO_PRIORITY_GROUP_MAP"),
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

/// Switch roles that generated topologies use.
pub const ROLES: &[&str] = &["tor", "leaf", "spine", "edge", "agg", "core", "switch"];

impl Layered for Switch {
    type Params = SwitchParams;
    type Env = (u64, u32);
    const SECTION: &'static str = "switch";
    fn named(&self) -> Vec<&V<Named<Switch>>> {
        vec![&self.role, &self.name]
    }
    fn onto(&self, ctx: &mut Ctx, p: &mut SwitchParams) {
        let imported = apply_config_db(ctx, self, p);
        conflicts(ctx, self, &imported);
        match ctx.get(&self.buffer_size) {
            Some(Bytes::ZERO) => ctx.err(&self.buffer_size.key, "the buffer size must be positive"),
            Some(b) => p.buffer_size = b,
            None => {}
        }
        self.apply(ctx, p);
    }
    /// `max_frame` is the largest frame any NIC sends and its MTU.
    fn validate(ctx: &mut Ctx, p: &SwitchParams, o: &Origins, max_frame: &(u64, u32)) {
        let l = &p.lossless;
        if p.buffer_mode == BufferMode::Static && l.xon > l.xoff {
            let (x, y) = (l.xon.written(), l.xoff.written());
            let msg = format!("XON ({x}) is above XOFF ({y})");
            ctx.err(o.key2("lossless.xon", "lossless.xoff"), msg);
        }
        let &(frame, mtu) = max_frame;
        if let Headroom::Fixed(h) = l.headroom {
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
        super::isolation::validate(ctx, p, o);
        if let Some(e) = p.ecn.filter(|e| e.kmin > e.kmax) {
            let (x, y) = (e.kmin.written(), e.kmax.written());
            let msg = format!("kmin ({x}) is above kmax ({y})");
            ctx.err(o.key2("ecn.kmin", "ecn.kmax"), msg);
        }
    }
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

/// Resolve one [`SwitchParams`] per switch of `topo` (`base`, then role tables, then name
/// tables) and check every layer. Without a topology the override tables are still checked.
pub fn resolve(
    ctx: &mut Ctx,
    t: &Switch,
    base: &Resolved<Switch>,
    topo: Option<&Topology>,
    max_frame: (u64, u32),
) -> Option<Vec<SwitchParams>> {
    let before = ctx.count();
    Switch::validate(ctx, &base.0, &base.1, &max_frame);
    let mut present: Vec<&str> = match topo {
        Some(t) => t.switches.iter().map(|s| s.role.as_str()).collect(),
        None => ROLES.to_vec(),
    };
    present.sort_unstable();
    present.dedup();
    let mut by_role = HashMap::new();
    for (role, key, v) in ctx.get(&t.role).unwrap_or_default() {
        check_role(ctx, &role, &key, &present);
        by_role.extend(layer::<Switch>(ctx, base, &key, &v, &max_frame).map(|l| (role, l)));
    }
    let names = ctx.get(&t.name).unwrap_or_default();
    let Some(topo) = topo else {
        for (_, key, v) in &names {
            layer::<Switch>(ctx, base, key, v, &max_frame);
        }
        return None;
    };
    let names: BTreeMap<String, (String, Value)> =
        names.into_iter().map(|(n, k, v)| (n, (k, v))).collect();
    for (name, (key, _)) in &names {
        check_node(ctx, topo, name, key, true);
    }
    let mut out = Vec::with_capacity(topo.switches.len());
    for sw in &topo.switches {
        let role = by_role.get(&sw.role).unwrap_or(base);
        match names.get(&sw.name) {
            Some((key, v)) => {
                out.extend(layer::<Switch>(ctx, role, key, v, &max_frame).map(|l| l.0))
            }
            None => out.push(role.0.clone()),
        }
    }
    out.iter_mut().for_each(super::isolation::lossless_cfqs);
    (ctx.count() == before).then_some(out)
}
