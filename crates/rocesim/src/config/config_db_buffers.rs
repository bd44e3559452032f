//! `switch.config_db` buffer profiles: lossless `BUFFER_PG` entries onto the lossless PG
//! thresholds and headroom, lossy `BUFFER_QUEUE` entries onto the lossy queue limits.

use serde_json::{Map, Value};

use super::config_db::{int, Db};
use super::config_db_tables::{ranged, warn_unknown};
use crate::fabric::params::{BufferMode, Headroom, SwitchParams};
use crate::units::Bytes;

/// A profile's integer field, if present.
fn field(db: &mut Db, path: &str, e: &Map<String, Value>, f: &str) -> Option<i64> {
    e.get(f).and_then(|v| int(db, &format!("{path}.{f}"), v))
}

/// The profile an entry names (already checked to exist).
fn named(db: &Db, e: &Map<String, Value>) -> Option<(String, Map<String, Value>)> {
    let name = super::config_db::text(e.get("profile")?)?;
    let name = name
        .trim_start_matches("[BUFFER_PROFILE|")
        .trim_end_matches(']')
        .to_string();
    let p = db
        .entries("BUFFER_PROFILE")
        .get(&name)?
        .as_object()?
        .clone();
    Some((name, p))
}

/// The first port's lossless PG profile onto `p.lossless`: `xoff` is the headroom, `size`
/// the PG's own buffer (less `xoff` when it includes it), `dynamic_th` / `static_th` the XOFF
/// point, `xon` / `xon_offset` the resume point. Without one, headroom stays `"auto"`.
pub fn pgs(db: &mut Db, p: &mut SwitchParams) {
    let mut done: Option<String> = None;
    let mut lossy_warned = false;
    let lossless_pgs = p.lossless_pgs();
    for (pg, k, e) in ranged(db, "BUFFER_PG") {
        let Some((name, prof)) = named(db, &e) else {
            continue;
        };
        let path = format!("BUFFER_PROFILE|{name}");
        if lossless_pgs & (1 << pg) == 0 {
            if !lossy_warned {
                let msg = "ingress limits of lossy PGs are not modelled (lossy traffic is limited at its egress queue)";
                db.warn(&format!("BUFFER_PG|{k}"), msg);
                lossy_warned = true;
            }
            continue;
        }
        if let Some(first) = &done {
            if *first != name {
                let msg =
                    format!("differs from `{first}`; rocesim uses one lossless profile per switch");
                db.warn(&format!("BUFFER_PG|{k}.profile"), msg);
            }
            continue;
        }
        lossless_profile(db, &path, &prof, p);
        done = Some(name);
    }
}

fn lossless_profile(db: &mut Db, path: &str, prof: &Map<String, Value>, p: &mut SwitchParams) {
    let l = &mut p.lossless;
    let xoff = field(db, path, prof, "xoff").map(|x| x.max(0) as u64);
    let size = field(db, path, prof, "size").map(|x| x.max(0) as u64);
    if let Some(x) = xoff {
        l.headroom = Headroom::Fixed(Bytes(x));
    }
    if let Some(s) = size {
        let x = xoff.unwrap_or(0);
        l.reserved = Bytes(if s >= x { s - x } else { s });
    }
    if let Some(th) = field(db, path, prof, "dynamic_th") {
        if !(-8..=8).contains(&th) {
            db.err(
                &format!("{path}.dynamic_th"),
                format!("{th} is outside -8..=8"),
            );
        }
        p.buffer_mode = BufferMode::Dynamic;
        l.dynamic_th = th.clamp(-8, 8) as i8;
    } else if let Some(th) = field(db, path, prof, "static_th") {
        p.buffer_mode = BufferMode::Static;
        l.xoff = Bytes(th.max(0) as u64);
    }
    if let Some(x) = field(db, path, prof, "xon") {
        l.xon = Bytes(x.max(0) as u64);
    }
    if let Some(x) = field(db, path, prof, "xon_offset") {
        l.xon_offset = Bytes(x.max(0) as u64);
    }
    let known = [
        "pool",
        "size",
        "xoff",
        "xon",
        "xon_offset",
        "dynamic_th",
        "static_th",
    ];
    warn_unknown(db, path, prof, &known);
    db.keys.extend(["lossless", "buffer_mode"]);
}

/// The first port's lossy queue profile onto `p.lossy`: `size` reserved, `dynamic_th` or
/// `static_th` the limit. Lossless queues' egress limits are not modelled (PFC bounds them).
pub fn lossy_queues(db: &mut Db, p: &mut SwitchParams) {
    let mut done: Option<String> = None;
    for (q, k, e) in ranged(db, "BUFFER_QUEUE") {
        let Some((name, prof)) = named(db, &e) else {
            continue;
        };
        let path = format!("BUFFER_PROFILE|{name}");
        let lossless = (0..8).any(|tc| p.pfc_enable & (1 << tc) != 0 && p.tc_to_queue[tc] == q);
        if lossless {
            continue;
        }
        if let Some(first) = &done {
            if *first != name {
                let msg = format!(
                    "differs from `{first}`; rocesim uses one lossy queue profile per switch"
                );
                db.warn(&format!("BUFFER_QUEUE|{k}.profile"), msg);
            }
            continue;
        }
        let l = &mut p.lossy;
        if let Some(s) = field(db, &path, &prof, "size") {
            l.reserved = Bytes(s.max(0) as u64);
        }
        if let Some(th) = field(db, &path, &prof, "dynamic_th") {
            l.dynamic_th = th.clamp(-8, 8) as i8;
        } else if let Some(th) = field(db, &path, &prof, "static_th") {
            l.limit = Bytes(th.max(0) as u64);
        }
        warn_unknown(
            db,
            &path,
            &prof,
            &["pool", "size", "dynamic_th", "static_th"],
        );
        db.keys.push("lossy");
        done = Some(name);
    }
}
