//! The SONiC tables of `switch.config_db`, one function per group (see `config_db.rs` and the
//! mapping table in docs/sonic.md).

use serde_json::{Map, Value};

use super::config_db::{int, text, Db};
use super::leaf::parse_metres;
use crate::fabric::params::{
    EcnParams, MarkOn, QueueSched, SwitchParams, WatchdogAction, WatchdogParams,
};
use crate::units::{Bytes, Time};

/// `3,4` or `3-4` → the listed numbers (0–7).
pub fn list(db: &mut Db, path: &str, s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        match (a.trim().parse::<u8>(), b.trim().parse::<u8>()) {
            (Ok(a), Ok(b)) if a <= b && b < 8 => out.extend(a..=b),
            _ => db.err(path, format!("`{s}` is not a list of numbers 0-7")),
        }
    }
    out
}

/// A `{ "key": "value" }` map of table `t` named `name` into `out` (keys below `out.len()`,
/// values below `max`).
fn read_map(db: &mut Db, t: &str, name: &str, max: u8, out: &mut [u8]) {
    let Some(m) = db.entries(t).get(name).and_then(Value::as_object).cloned() else {
        return;
    };
    for (k, v) in &m {
        let path = format!("{t}|{name}.{k}");
        let key = k.trim().parse::<usize>().ok().filter(|&k| k < out.len());
        let val = text(v)
            .and_then(|s| s.trim().parse::<u8>().ok())
            .filter(|&x| x < max);
        match (key, val) {
            (Some(k), Some(x)) => out[k] = x,
            (None, _) => db.err(&path, format!("key must be a number below {}", out.len())),
            (_, None) => db.err(
                &path,
                format!("value must be a number below {max}, found {v}"),
            ),
        }
    }
}

/// The entry of the switch's first port in port-keyed table `t` (`suffix` after the port,
/// e.g. `|3`), warning for every other port whose entry differs in a field not in `own`
/// (fields each port keeps for itself).
fn per_port(
    db: &mut Db,
    t: &str,
    suffix: &str,
    own: &[&str],
) -> Option<(String, Map<String, Value>)> {
    let strip = |e: &Map<String, Value>| {
        let mut e = e.clone();
        e.retain(|k, _| !own.contains(&k.as_str()));
        e
    };
    let entries = db.entries(t);
    let mut first: Option<(String, Map<String, Value>)> = None;
    for port in db.ports.clone() {
        let key = format!("{port}{suffix}");
        let Some(e) = entries.get(&key).and_then(Value::as_object) else {
            continue;
        };
        match &first {
            None => first = Some((key, e.clone())),
            Some((k0, e0)) if strip(e0) != strip(e) => {
                let msg = format!("differs from `{t}|{k0}`; rocesim applies one setting per switch (the first port's)");
                db.warn(&format!("{t}|{key}"), msg);
            }
            Some(_) => {}
        }
    }
    first
}

/// Warn for every field of `e` (at `path`) not in `known`.
pub(super) fn warn_unknown(db: &mut Db, path: &str, e: &Map<String, Value>, known: &[&str]) {
    for k in e.keys().filter(|k| !known.contains(&k.as_str())) {
        db.warn(
            &format!("{path}.{k}"),
            "field not modelled by rocesim (ignored)",
        );
    }
}

/// PORT_QOS_MAP and the maps it names: DSCP → TC, TC → queue, TC → PG, PFC priority → queue.
pub fn qos_maps(db: &mut Db, p: &mut SwitchParams) {
    let global = db
        .entries("PORT_QOS_MAP")
        .get("global")
        .and_then(Value::as_object)
        .cloned();
    let (path, e) = match per_port(db, "PORT_QOS_MAP", "", &["dscp_to_tc_map"]) {
        Some((k, e)) => (format!("PORT_QOS_MAP|{k}"), e),
        None => (
            "PORT_QOS_MAP|global".into(),
            global.clone().unwrap_or_default(),
        ),
    };
    let field = |e: &Map<String, Value>, f: &str| e.get(f).and_then(text);
    let map_of = |f: &str| field(&e, f).or_else(|| global.as_ref().and_then(|g| field(g, f)));
    let maps = [
        ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
        ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
        ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
        ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
    ];
    let mut pfc_to_queue = [0, 1, 2, 3, 4, 5, 6, 7];
    for (f, t) in maps {
        let Some(name) = map_of(f) else { continue };
        if !db.entries(t).contains_key(&name) {
            db.err(
                &format!("{path}.{f}"),
                format!("map `{name}` does not exist in {t}"),
            );
            continue;
        }
        match t {
            "DSCP_TO_TC_MAP" => {
                p.dscp_to_tc = [0; 64];
                read_map(db, t, &name, 8, &mut p.dscp_to_tc);
                db.keys.push("dscp_to_tc");
            }
            "TC_TO_QUEUE_MAP" => {
                read_map(db, t, &name, 8, &mut p.tc_to_queue);
                db.keys.push("tc_to_queue");
            }
            "TC_TO_PRIORITY_GROUP_MAP" => {
                read_map(db, t, &name, 8, &mut p.tc_to_pg);
                db.keys.push("tc_to_pg");
            }
            _ => read_map(db, t, &name, 8, &mut pfc_to_queue),
        }
    }
    if let Some(s) = field(&e, "pfc_enable") {
        let tcs = list(db, &format!("{path}.pfc_enable"), &s);
        p.pfc_enable = tcs.iter().fold(0, |m, t| m | 1 << t);
        db.keys.push("pfc_enable");
    }
    for tc in (0..8).filter(|t| p.pfc_enable & (1 << t) != 0) {
        if pfc_to_queue[tc] != p.tc_to_queue[tc] {
            let msg = format!("PFC priority {tc} pauses queue {}, but TC {tc} is in queue {}; rocesim pauses the TC's queue", pfc_to_queue[tc], p.tc_to_queue[tc]);
            db.warn(&format!("MAP_PFC_PRIORITY_TO_QUEUE.{tc}"), msg);
        }
    }
    let known = [
        "dscp_to_tc_map",
        "tc_to_queue_map",
        "tc_to_pg_map",
        "pfc_to_queue_map",
        "pfc_enable",
        "pfcwd_sw_enable",
    ];
    warn_unknown(db, &path, &e, &known);
    let first = map_of("dscp_to_tc_map");
    port_dscp_maps(db, p, global.as_ref(), first);
}

/// Each port's own `dscp_to_tc_map` (its PORT_QOS_MAP entry, else `global`, else the switch's
/// map): when ports differ, `port_dscp_to_tc` holds every port's map.
fn port_dscp_maps(
    db: &mut Db,
    p: &mut SwitchParams,
    global: Option<&Map<String, Value>>,
    first: Option<String>,
) {
    let entries = db.entries("PORT_QOS_MAP");
    let name_in = |e: Option<&Value>| e?.as_object()?.get("dscp_to_tc_map").and_then(text);
    // Maps read so far by name (each read, and its errors reported, once).
    let mut read: Vec<(Option<String>, [u8; 64])> = vec![(first, p.dscp_to_tc)];
    let mut maps = Vec::with_capacity(db.ports.len());
    for port in db.ports.clone() {
        let own = name_in(entries.get(&port));
        let name = own.or_else(|| global.and_then(|g| g.get("dscp_to_tc_map").and_then(text)));
        if let Some((_, m)) = read.iter().find(|(n, _)| *n == name) {
            maps.push(*m);
            continue;
        }
        let mut m = p.dscp_to_tc;
        if let Some(n) = &name {
            if db.entries("DSCP_TO_TC_MAP").contains_key(n) {
                m = [0; 64];
                read_map(db, "DSCP_TO_TC_MAP", n, 8, &mut m);
            } else {
                let path = format!("PORT_QOS_MAP|{port}.dscp_to_tc_map");
                db.err(&path, format!("map `{n}` does not exist in DSCP_TO_TC_MAP"));
            }
        }
        read.push((name, m));
        maps.push(m);
    }
    if maps.iter().any(|m| *m != p.dscp_to_tc) {
        p.port_dscp_to_tc = maps;
    }
}

/// The profile an entry names, or an error at `path.profile`.
fn profile(
    db: &mut Db,
    path: &str,
    e: &Map<String, Value>,
) -> Option<(String, Map<String, Value>)> {
    let name = e.get("profile").and_then(text)?;
    let name = name
        .trim_start_matches("[BUFFER_PROFILE|")
        .trim_end_matches(']')
        .to_string();
    match db
        .entries("BUFFER_PROFILE")
        .get(&name)
        .and_then(Value::as_object)
    {
        Some(p) => Some((name, p.clone())),
        None => {
            db.err(
                &format!("{path}.profile"),
                format!("profile `{name}` does not exist in BUFFER_PROFILE"),
            );
            None
        }
    }
}

/// Check that every BUFFER_PG / BUFFER_QUEUE entry of every port names an existing profile.
fn profiles_exist(db: &mut Db) {
    for t in ["BUFFER_PG", "BUFFER_QUEUE"] {
        for (k, e) in db.entries(t) {
            if let Some(e) = e.as_object() {
                profile(db, &format!("{t}|{k}"), e);
            }
        }
    }
    for (k, e) in db.entries("BUFFER_PROFILE") {
        let pool = e.get("pool").and_then(text).unwrap_or_default();
        let pool = pool
            .trim_start_matches("[BUFFER_POOL|")
            .trim_end_matches(']');
        if !db.entries("BUFFER_POOL").contains_key(pool) {
            db.err(
                &format!("BUFFER_PROFILE|{k}.pool"),
                format!("pool `{pool}` does not exist in BUFFER_POOL"),
            );
        }
    }
}

/// The entries of the first port in a `PORT|a-b` keyed table, expanded to (index, key, entry).
pub(super) fn ranged(db: &mut Db, t: &str) -> Vec<(u8, String, Map<String, Value>)> {
    match db.first_port().map(str::to_string) {
        Some(port) => ranged_at(db, t, &port),
        None => Vec::new(),
    }
}

/// The entries of port-keyed table `t` for `port` (`port|3-4` keys), one row per index.
pub(super) fn ranged_at(db: &mut Db, t: &str, port: &str) -> Vec<(u8, String, Map<String, Value>)> {
    let mut out = Vec::new();
    for (k, e) in db.entries(t) {
        let Some((pt, range)) = k.split_once('|') else {
            continue;
        };
        let Some(e) = e.as_object() else { continue };
        if pt == port {
            for i in list(db, &format!("{t}|{k}"), range) {
                out.push((i, k.clone(), e.clone()));
            }
        }
    }
    out
}

/// BUFFER_POOL → buffer size; lossless BUFFER_PG profiles → thresholds and headroom; lossy
/// BUFFER_QUEUE profiles → lossy limits.
pub fn buffers(db: &mut Db, p: &mut SwitchParams) {
    profiles_exist(db);
    let pools = db.entries("BUFFER_POOL");
    let size_of = |db: &mut Db, ty: &str| -> Option<u64> {
        let mut best = None;
        for (k, e) in &pools {
            if e.get("type").and_then(text).as_deref() == Some(ty) {
                let s = e
                    .get("size")
                    .map(|v| int(db, &format!("BUFFER_POOL|{k}.size"), v));
                best = best.max(s.flatten().map(|s| s.max(0) as u64));
            }
        }
        best.filter(|&s| s > 0)
    };
    if let Some(s) = size_of(db, "ingress").or_else(|| size_of(db, "egress")) {
        p.buffer_size = Bytes(s);
        db.keys.push("buffer_size");
    }
    for (k, e) in &pools {
        if e.get("xoff").is_some() {
            db.warn(&format!("BUFFER_POOL|{k}.xoff"), "a shared headroom pool is not modelled: rocesim reserves each lossless PG's headroom");
        }
    }
    super::config_db_buffers::pgs(db, p);
    super::config_db_buffers::lossy_queues(db, p);
}

/// QUEUE → each port's schedulers and ECN-marking queues. Ports may differ: their schedulers
/// go to `port_scheduler` and their marking queues to `port_ecn_queues` (the first port's
/// also to `scheduler` and `ecn.queues`); the WRED profile's thresholds are one per switch.
pub fn queues(db: &mut Db, p: &mut SwitchParams) {
    let mut ecn: Option<(String, EcnParams)> = None;
    let base = p.scheduler;
    let (mut scheds, mut marks) = (Vec::new(), Vec::new());
    for port in db.ports.clone() {
        let (s, m) = port_queues(db, &port, base, &mut ecn);
        scheds.push(s);
        marks.push(m);
    }
    if let Some(first) = scheds.first().copied() {
        p.scheduler = first;
        if scheds.iter().any(|s| *s != first) {
            p.port_scheduler = scheds;
        }
    }
    if let Some((_, mut e)) = ecn {
        e.queues = marks.first().copied().unwrap_or(0);
        if marks.iter().any(|&m| m != e.queues) {
            p.port_ecn_queues = marks;
        }
        p.ecn = Some(e);
        db.keys.push("ecn");
    }
}

/// The QUEUE entries of one port: its schedulers (starting from `base`) and the queues
/// that mark; the first marking profile found is kept in `ecn`.
fn port_queues(
    db: &mut Db,
    port: &str,
    base: [QueueSched; 8],
    ecn: &mut Option<(String, EcnParams)>,
) -> ([QueueSched; 8], u8) {
    let (mut sched, mut marking) = (base, 0u8);
    for (q, k, e) in ranged_at(db, "QUEUE", port) {
        let path = format!("QUEUE|{k}");
        if let Some(name) = e.get("wred_profile").and_then(text) {
            let name = name
                .trim_start_matches("[WRED_PROFILE|")
                .trim_end_matches(']')
                .to_string();
            match db
                .entries("WRED_PROFILE")
                .get(&name)
                .and_then(Value::as_object)
                .cloned()
            {
                None => db.err(
                    &format!("{path}.wred_profile"),
                    format!("profile `{name}` does not exist in WRED_PROFILE"),
                ),
                Some(w) => {
                    if let Some(params) = wred(db, &name, &w) {
                        marking |= 1 << q;
                        match ecn {
                            Some((n0, e0)) if *e0 != params => db.warn(&format!("{path}.wred_profile"), format!("differs from `{n0}`; rocesim uses one marking profile per switch")),
                            Some(_) => {}
                            None => *ecn = Some((name, params)),
                        }
                    }
                }
            }
        }
        if let Some(name) = e.get("scheduler").and_then(text) {
            let name = name
                .trim_start_matches("[SCHEDULER|")
                .trim_end_matches(']')
                .to_string();
            match db
                .entries("SCHEDULER")
                .get(&name)
                .and_then(Value::as_object)
                .cloned()
            {
                None => db.err(
                    &format!("{path}.scheduler"),
                    format!("scheduler `{name}` does not exist in SCHEDULER"),
                ),
                Some(s) => {
                    if let Some(x) = scheduler(db, &name, &s) {
                        sched[q as usize] = x;
                        db.keys.push("scheduler");
                    }
                }
            }
        }
        warn_unknown(db, &path, &e, &["wred_profile", "scheduler"]);
    }
    (sched, marking)
}

/// A WRED profile that marks ECN (green thresholds), or `None` when it does not mark.
fn wred(db: &mut Db, name: &str, w: &Map<String, Value>) -> Option<EcnParams> {
    let path = format!("WRED_PROFILE|{name}");
    let mode = w
        .get("ecn")
        .and_then(text)
        .unwrap_or_else(|| "ecn_none".into());
    let green = w.get("wred_green_enable").and_then(text).as_deref() == Some("true");
    if mode == "ecn_none" || !green {
        db.warn(
            &path,
            "does not mark ECN (ecn_none or green disabled): WRED drops are not modelled",
        );
        return None;
    }
    let mut get = |f: &str| w.get(f).and_then(|v| int(db, &format!("{path}.{f}"), v));
    let (kmin, kmax, prob) = (
        get("green_min_threshold"),
        get("green_max_threshold"),
        get("green_drop_probability"),
    );
    for c in ["yellow", "red"] {
        let same = ["min_threshold", "max_threshold", "drop_probability"]
            .iter()
            .all(|f| {
                w.get(&format!("{c}_{f}")).is_none()
                    || w.get(&format!("{c}_{f}")) == w.get(&format!("green_{f}"))
            });
        if !same {
            db.warn(
                &format!("{path}.{c}_*"),
                "rocesim marks every packet by the green thresholds (no packet colours)",
            );
        }
    }
    let (kmin, kmax) = (kmin?.max(0) as u64, kmax?.max(0) as u64);
    if kmin > kmax {
        db.err(
            &format!("{path}.green_min_threshold"),
            format!("{kmin} is above green_max_threshold {kmax}"),
        );
    }
    let known = [
        "wred_green_enable",
        "wred_yellow_enable",
        "wred_red_enable",
        "ecn",
        "green_min_threshold",
        "green_max_threshold",
        "green_drop_probability",
        "yellow_min_threshold",
        "yellow_max_threshold",
        "yellow_drop_probability",
        "red_min_threshold",
        "red_max_threshold",
        "red_drop_probability",
    ];
    warn_unknown(db, &path, w, &known);
    Some(EcnParams {
        queues: 0,
        kmin: Bytes(kmin),
        kmax: Bytes(kmax),
        pmax: prob.unwrap_or(100).clamp(0, 100) as f64 / 100.0,
        mark_on: MarkOn::Enqueue,
    })
}

/// A SCHEDULER entry: DWRR, WRR (as DWRR, with a warning) or STRICT.
fn scheduler(db: &mut Db, name: &str, s: &Map<String, Value>) -> Option<QueueSched> {
    let path = format!("SCHEDULER|{name}");
    let ty = s
        .get("type")
        .and_then(text)
        .unwrap_or_default()
        .to_uppercase();
    warn_unknown(db, &path, s, &["type", "weight"]);
    if ty == "STRICT" {
        return Some(QueueSched::Strict);
    }
    if ty == "WRR" {
        db.warn(
            &format!("{path}.type"),
            "WRR is modelled as DWRR (byte deficits, not packet counts)",
        );
    } else if ty != "DWRR" {
        db.err(
            &format!("{path}.type"),
            format!("expected DWRR, WRR or STRICT, found `{ty}`"),
        );
        return None;
    }
    let w = s
        .get("weight")
        .and_then(|v| int(db, &format!("{path}.weight"), v))?;
    if !(1..=u32::MAX as i64).contains(&w) {
        db.err(
            &format!("{path}.weight"),
            format!("the weight must be positive, found {w}"),
        );
        return None;
    }
    Some(QueueSched::Dwrr(w as u32))
}

/// CABLE_LENGTH: one length per port, in port order (the first also becomes `cable_length`).
pub fn cable_lengths(db: &mut Db, p: &mut SwitchParams) {
    let tables = db.entries("CABLE_LENGTH");
    let Some((name, m)) = tables.iter().next() else {
        return;
    };
    let m = m.as_object().cloned().unwrap_or_default();
    let mut per_port = Vec::new();
    for port in db.ports.clone() {
        let path = format!("CABLE_LENGTH|{name}.{port}");
        let len = m.get(&port).and_then(text).map(|s| parse_metres(&s));
        match len {
            Some(Ok(x)) if (0.0..=1e7).contains(&x) => per_port.push(x),
            Some(Ok(x)) => db.err(&path, format!("cable length {x} m is out of range")),
            Some(Err(e)) => db.err(&path, e),
            None => per_port.push(per_port.last().copied().unwrap_or(p.cable_length_m)),
        }
    }
    if let Some(&first) = per_port.first() {
        p.cable_length_m = first;
        p.port_cable_m = per_port;
        db.keys.push("cable_length");
    }
}

/// PFC_WD: the first port's detection and restoration times and action, GLOBAL's poll interval.
pub fn pfc_wd(db: &mut Db, p: &mut SwitchParams) {
    let Some((k, e)) = per_port(db, "PFC_WD", "", &[]) else {
        return;
    };
    let path = format!("PFC_WD|{k}");
    let ms = |db: &mut Db, e: &Map<String, Value>, f: &str, path: &str| {
        e.get(f)
            .and_then(|v| int(db, &format!("{path}.{f}"), v))
            .map(|x| Time::from_ms(x.max(0) as u64))
    };
    let mut w = WatchdogParams {
        detection_time: ms(db, &e, "detection_time", &path).unwrap_or(Time::from_ms(200)),
        restoration_time: ms(db, &e, "restoration_time", &path).unwrap_or(Time::from_ms(200)),
        action: WatchdogAction::Drop,
        poll_interval: Time::from_ms(100),
        server_facing_only: false,
    };
    match e.get("action").and_then(text).as_deref() {
        None | Some("drop") => {}
        Some("forward") => w.action = WatchdogAction::Forward,
        Some("alert") => w.action = WatchdogAction::Alert,
        Some(a) => db.err(
            &format!("{path}.action"),
            format!("expected drop, forward or alert, found `{a}`"),
        ),
    }
    warn_unknown(
        db,
        &path,
        &e,
        &["action", "detection_time", "restoration_time"],
    );
    if let Some(g) = db
        .entries("PFC_WD")
        .get("GLOBAL")
        .and_then(Value::as_object)
        .cloned()
    {
        if let Some(t) = ms(db, &g, "POLL_INTERVAL", "PFC_WD|GLOBAL").filter(|t| *t > Time::ZERO) {
            w.poll_interval = t;
        }
        warn_unknown(
            db,
            "PFC_WD|GLOBAL",
            &g,
            &["POLL_INTERVAL", "BIG_RED_SWITCH"],
        );
    }
    p.pfc_watchdog = Some(w);
    db.keys.push("pfc_watchdog");
}
