//! The effective configuration of one switch as a SONiC `config_db.json`: what
//! `switch.config_db` reads back into the same parameters (docs/sonic.md). Settings SONiC
//! cannot express are returned as notes.

use serde_json::{json, Map, Value};

use crate::fabric::params::{BufferMode, Headroom, MarkOn, QueueSched, SwitchParams};

/// `{"0": "v0", "1": "v1", ...}`.
fn map(values: &[u8]) -> Value {
    let m: Map<String, Value> = (values.iter().enumerate())
        .map(|(i, v)| (i.to_string(), Value::String(v.to_string())))
        .collect();
    Value::Object(m)
}

/// `"3,4"` for a TC bitmask.
fn tc_list(mask: u8) -> String {
    let v: Vec<String> = (0..8)
        .filter(|t| mask & (1 << t) != 0)
        .map(|t| t.to_string())
        .collect();
    v.join(",")
}

/// Port names: the imported ones, or `Ethernet0`, `Ethernet4`, ... (four lanes per port).
pub fn port_names(p: &SwitchParams, ports: usize) -> Vec<String> {
    (0..ports)
        .map(|i| match p.config_ports.get(i) {
            Some(n) => n.clone(),
            None => format!("Ethernet{}", 4 * i),
        })
        .collect()
}

/// The lossless PG profile: `xoff` the headroom (absent for `"auto"`: SONiC derives it from
/// speed and cable), `size` reserved + xoff, the XOFF point and the resume point.
fn lossless_profile(p: &SwitchParams, notes: &mut Vec<String>) -> Value {
    let l = &p.lossless;
    let mut e = json!({ "pool": "ingress_lossless_pool",
        "xon": l.xon.0.to_string(), "xon_offset": l.xon_offset.0.to_string() });
    let xoff = match l.headroom {
        Headroom::Fixed(b) => Some(b.0),
        Headroom::Auto => None,
        Headroom::AutoScaled(f) => {
            notes.push(format!(
                "lossless.headroom = {f} × auto has no SONiC form: exported as auto"
            ));
            None
        }
    };
    if let Some(x) = xoff {
        e["xoff"] = json!(x.to_string());
    }
    e["size"] = json!((l.reserved.0 + xoff.unwrap_or(0)).to_string());
    match p.buffer_mode {
        BufferMode::Dynamic => e["dynamic_th"] = json!(l.dynamic_th.to_string()),
        BufferMode::Static => e["static_th"] = json!(l.xoff.0.to_string()),
    }
    e
}

fn lossy_profile(p: &SwitchParams) -> Value {
    let l = &p.lossy;
    let mut e = json!({ "pool": "egress_lossy_pool", "size": l.reserved.0.to_string() });
    match p.buffer_mode {
        BufferMode::Dynamic => e["dynamic_th"] = json!(l.dynamic_th.to_string()),
        BufferMode::Static => e["static_th"] = json!(l.limit.0.to_string()),
    }
    e
}

/// The scheduler entry name of a discipline.
fn sched_name(s: QueueSched) -> String {
    match s {
        QueueSched::Strict => "scheduler.strict".into(),
        QueueSched::Dwrr(w) => format!("scheduler.dwrr_{w}"),
    }
}

/// The DSCP → TC map port `i` (named `n`) uses: `ROCESIM` when it is the switch's map, else
/// `ROCESIM_<port>`.
fn dscp_map_name(p: &SwitchParams, i: usize, n: &str) -> String {
    if p.dscp_to_tc_of(i) == &p.dscp_to_tc {
        "ROCESIM".into()
    } else {
        format!("ROCESIM_{n}")
    }
}

/// DSCP_TO_TC_MAP: the switch's map and every port's own.
fn dscp_maps(p: &SwitchParams, names: &[String]) -> Value {
    let mut m = Map::new();
    m.insert("ROCESIM".into(), map(&p.dscp_to_tc));
    for (i, n) in names.iter().enumerate() {
        m.insert(dscp_map_name(p, i, n), map(p.dscp_to_tc_of(i)));
    }
    Value::Object(m)
}

/// Tables that hold one entry per port (or per port and queue / PG).
fn per_port_tables(p: &SwitchParams, names: &[String], root: &mut Map<String, Value>) {
    let lossless_q: Vec<u8> = (0..8)
        .filter(|&t| p.pfc_enable & (1 << t) != 0)
        .map(|t| p.tc_to_queue[t])
        .collect();
    let (mut qos, mut pg, mut bq, mut queue, mut cable, mut wd) = (
        Map::new(),
        Map::new(),
        Map::new(),
        Map::new(),
        Map::new(),
        Map::new(),
    );
    for (i, n) in names.iter().enumerate() {
        qos.insert(
            n.clone(),
            json!({ "dscp_to_tc_map": dscp_map_name(p, i, n), "tc_to_queue_map": "ROCESIM",
            "tc_to_pg_map": "ROCESIM", "pfc_to_queue_map": "ROCESIM",
            "pfc_enable": tc_list(p.pfc_enable) }),
        );
        for g in (0..8).filter(|g| p.lossless_pgs() & (1 << g) != 0) {
            pg.insert(
                format!("{n}|{g}"),
                json!({ "profile": "pg_lossless_profile" }),
            );
        }
        for q in (0..8u8).filter(|q| !lossless_q.contains(q)) {
            bq.insert(
                format!("{n}|{q}"),
                json!({ "profile": "egress_lossy_profile" }),
            );
        }
        for q in 0..8 {
            let mut e = json!({ "scheduler": sched_name(p.scheduler_of(i)[q]) });
            if p.ecn_queues_of(i) & (1 << q) != 0 {
                e["wred_profile"] = json!("ROCESIM_ECN");
            }
            queue.insert(format!("{n}|{q}"), e);
        }
        cable.insert(n.clone(), json!(format!("{}m", p.cable_of(i))));
        if let Some(w) = p.pfc_watchdog {
            let action = format!("{:?}", w.action).to_lowercase();
            wd.insert(
                n.clone(),
                json!({ "action": action,
                "detection_time": (w.detection_time.ps() / 1_000_000_000).to_string(),
                "restoration_time": (w.restoration_time.ps() / 1_000_000_000).to_string() }),
            );
        }
    }
    root.insert("PORT_QOS_MAP".into(), Value::Object(qos));
    root.insert("BUFFER_PG".into(), Value::Object(pg));
    root.insert("BUFFER_QUEUE".into(), Value::Object(bq));
    root.insert("QUEUE".into(), Value::Object(queue));
    root.insert("CABLE_LENGTH".into(), json!({ "AZURE": cable }));
    if let Some(w) = p.pfc_watchdog {
        wd.insert(
            "GLOBAL".into(),
            json!({ "POLL_INTERVAL": (w.poll_interval.ps() / 1_000_000_000).to_string() }),
        );
        root.insert("PFC_WD".into(), Value::Object(wd));
    }
}

/// Notes for settings that SONiC's tables cannot carry exactly.
fn inexpressible(p: &SwitchParams, notes: &mut Vec<String>) {
    if let Some(w) = p.pfc_watchdog {
        let ms = [w.detection_time, w.restoration_time, w.poll_interval];
        if ms.iter().any(|t| t.ps() % 1_000_000_000 != 0) {
            notes.push("PFC_WD times are whole milliseconds: rounded down".into());
        }
        if w.server_facing_only {
            notes.push(
                "pfc_watchdog.ports = \"server_facing\" has no PFC_WD field: every port is listed"
                    .into(),
            );
        }
    }
    if let Some(e) = p.ecn {
        if e.mark_on == MarkOn::Dequeue {
            notes.push("ecn.mark_on = \"dequeue\" has no WRED_PROFILE field".into());
        }
        if (e.pmax * 100.0).fract() != 0.0 {
            notes.push(format!(
                "ecn.pmax = {} is rounded to a whole percent",
                e.pmax
            ));
        }
    }
}

/// The switch's effective configuration with `ports` ports, and notes on what SONiC cannot
/// express.
pub fn export(p: &SwitchParams, ports: usize) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let mut root = Map::new();
    root.insert("DSCP_TO_TC_MAP".into(), dscp_maps(p, &port_names(p, ports)));
    root.insert(
        "TC_TO_QUEUE_MAP".into(),
        json!({ "ROCESIM": map(&p.tc_to_queue) }),
    );
    root.insert(
        "TC_TO_PRIORITY_GROUP_MAP".into(),
        json!({ "ROCESIM": map(&p.tc_to_pg) }),
    );
    root.insert(
        "MAP_PFC_PRIORITY_TO_QUEUE".into(),
        json!({ "ROCESIM": map(&p.tc_to_queue) }),
    );
    let mode = if p.buffer_mode == BufferMode::Dynamic {
        "dynamic"
    } else {
        "static"
    };
    let size = p.buffer_size.0.to_string();
    root.insert(
        "BUFFER_POOL".into(),
        json!({
        "ingress_lossless_pool": { "type": "ingress", "mode": mode, "size": size },
        "egress_lossy_pool": { "type": "egress", "mode": mode, "size": size } }),
    );
    root.insert(
        "BUFFER_PROFILE".into(),
        json!({
        "pg_lossless_profile": lossless_profile(p, &mut notes),
        "egress_lossy_profile": lossy_profile(p) }),
    );
    if let Some(e) = p.ecn {
        root.insert("WRED_PROFILE".into(), json!({ "ROCESIM_ECN": {
            "wred_green_enable": "true", "ecn": "ecn_all",
            "green_min_threshold": e.kmin.0.to_string(), "green_max_threshold": e.kmax.0.to_string(),
            "green_drop_probability": ((e.pmax * 100.0).round() as u64).to_string() } }));
    }
    let mut sched = Map::new();
    for &s in p.port_scheduler.iter().flatten().chain(&p.scheduler) {
        let e = match s {
            QueueSched::Strict => json!({ "type": "STRICT" }),
            QueueSched::Dwrr(w) => json!({ "type": "DWRR", "weight": w.to_string() }),
        };
        sched.insert(sched_name(s), e);
    }
    root.insert("SCHEDULER".into(), Value::Object(sched));
    let names = port_names(p, ports);
    per_port_tables(p, &names, &mut root);
    inexpressible(p, &mut notes);
    (Value::Object(root), notes)
}

/// [`export`] as indented JSON text, ending in a newline.
pub fn export_text(p: &SwitchParams, ports: usize) -> (String, Vec<String>) {
    let (v, notes) = export(p, ports);
    let text = serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    (text, notes)
}
