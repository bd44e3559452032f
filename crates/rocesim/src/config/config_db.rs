//! `switch.config_db`: a SONiC `config_db.json` (or several, merged: `qos.json` and
//! `buffers.json` as SONiC renders them) read onto a switch's [`SwitchParams`].
//!
//! rocesim applies one QoS configuration per switch: the lowest-numbered port (`EthernetN`,
//! sorted by N) gives the maps, buffer profiles, queue settings and watchdog; other ports that
//! differ are reported as warnings. Cable lengths are kept per port. Lossless PGs without a
//! `BUFFER_PG` entry get the headroom SONiC's buffer manager would derive from speed and cable
//! (`headroom = "auto"`). Fields rocesim does not model are warnings, never silently dropped.
//! The mapping is documented in docs/sonic.md.

use serde_json::{Map, Value};

use super::config_db_tables as tables;
use crate::fabric::params::SwitchParams;

/// One parsed file set: the merged tables, the switch's port names in port order, and what
/// the import found.
pub struct Db {
    /// Top-level tables (`DSCP_TO_TC_MAP`, ...), merged over the files.
    pub root: Map<String, Value>,
    /// Port names in port order (EthernetN sorted by N).
    pub ports: Vec<String>,
    /// Errors, each starting with the JSON path.
    pub errors: Vec<String>,
    /// Warnings, each starting with the JSON path.
    pub warnings: Vec<String>,
    /// The scenario-level keys the import set (for conflicts with the same layer's keys).
    pub keys: Vec<&'static str>,
}

/// The number in `EthernetN`, if the name has that form.
fn ethernet_no(name: &str) -> Option<u64> {
    name.strip_prefix("Ethernet")?.parse().ok()
}

/// The port part of a `PORT|...` key: `Ethernet0|3-4` → `Ethernet0`.
fn port_of(key: &str) -> &str {
    key.split('|').next().unwrap_or(key)
}

/// Tables whose keys start with a port name.
const PORT_KEYED: &[&str] = &[
    "PORT",
    "PORT_QOS_MAP",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "QUEUE",
    "PFC_WD",
];

impl Db {
    /// Merge `files` (name, parsed JSON) into one set of tables.
    pub fn new(files: &[(String, Value)]) -> Db {
        let mut db = Db {
            root: Map::new(),
            ports: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            keys: Vec::new(),
        };
        for (name, v) in files {
            let Some(obj) = v.as_object() else {
                db.errors
                    .push(format!("{name}: the top level must be an object of tables"));
                continue;
            };
            for (t, entries) in obj {
                match (db.root.get_mut(t), entries) {
                    (Some(Value::Object(have)), Value::Object(more)) => {
                        have.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
                    }
                    _ => {
                        db.root.insert(t.clone(), entries.clone());
                    }
                }
            }
        }
        db.ports = db.port_names();
        db
    }

    /// Use the switch's `port_names` (local port order) instead of the sorted file names;
    /// the file's other ports are warnings.
    fn name_ports(&mut self, names: &[String]) {
        let file = std::mem::take(&mut self.ports);
        self.warnings
            .retain(|w| !w.contains("is not named EthernetN"));
        for n in file.iter().filter(|n| !names.contains(n)) {
            self.warnings.push(format!(
                "port `{n}` is not in switch.port_names: its entries are ignored"
            ));
        }
        self.ports = names.to_vec();
    }

    /// Every port named in a port-keyed table or in CABLE_LENGTH, in port order.
    fn port_names(&mut self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for t in PORT_KEYED {
            for k in self.entries(t).keys() {
                let p = port_of(k);
                if p != "global" && p != "GLOBAL" {
                    names.push(p.to_string());
                }
            }
        }
        for m in self.entries("CABLE_LENGTH").values() {
            names.extend(m.as_object().into_iter().flat_map(|o| o.keys().cloned()));
        }
        names.sort_by(|a, b| {
            (ethernet_no(a).is_none(), ethernet_no(a), a).cmp(&(
                ethernet_no(b).is_none(),
                ethernet_no(b),
                b,
            ))
        });
        names.dedup();
        for n in names.iter().filter(|n| ethernet_no(n).is_none()) {
            self.warnings.push(format!(
                "port `{n}` is not named EthernetN: it is placed after the EthernetN ports"
            ));
        }
        names
    }

    /// The entries of table `t` (empty when absent or not an object).
    pub fn entries(&self, t: &str) -> Map<String, Value> {
        match self.root.get(t) {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        }
    }

    /// The first port (the one whose settings the switch takes), if any.
    pub fn first_port(&self) -> Option<&str> {
        self.ports.first().map(String::as_str)
    }

    /// Record an error at `path`.
    pub fn err(&mut self, path: &str, msg: impl AsRef<str>) {
        self.errors.push(format!("{path}: {}", msg.as_ref()));
    }

    /// Record a warning at `path`.
    pub fn warn(&mut self, path: &str, msg: impl AsRef<str>) {
        self.warnings.push(format!("{path}: {}", msg.as_ref()));
    }
}

/// A field's text: config_db stores every value as a string, but numbers are accepted.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A field as an integer, or an error at `path`.
pub fn int(db: &mut Db, path: &str, v: &Value) -> Option<i64> {
    let t = text(v);
    match t.as_deref().map(str::trim).map(str::parse::<i64>) {
        Some(Ok(x)) => Some(x),
        _ => {
            db.err(path, format!("expected an integer, found {v}"));
            None
        }
    }
}

/// The tables rocesim reads; any other table is reported as not modelled.
const KNOWN: &[&str] = &[
    "DSCP_TO_TC_MAP",
    "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "PORT_QOS_MAP",
    "BUFFER_POOL",
    "BUFFER_PROFILE",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "WRED_PROFILE",
    "SCHEDULER",
    "QUEUE",
    "CABLE_LENGTH",
    "PFC_WD",
];

/// Read `files` onto `p`. Returns the import record: errors and warnings name the JSON path.
pub fn import(files: &[(String, Value)], p: &mut SwitchParams, names: Option<&[String]>) -> Db {
    let mut db = Db::new(files);
    if let Some(names) = names {
        db.name_ports(names);
    }
    if !db.errors.is_empty() {
        return db;
    }
    let other: Vec<String> = (db.root.keys())
        .filter(|t| !KNOWN.contains(&t.as_str()))
        .cloned()
        .collect();
    for t in other {
        db.warn(&t, "table not modelled by rocesim (ignored)");
    }
    tables::qos_maps(&mut db, p);
    tables::buffers(&mut db, p);
    tables::queues(&mut db, p);
    tables::cable_lengths(&mut db, p);
    tables::pfc_wd(&mut db, p);
    db.keys.sort_unstable();
    db.keys.dedup();
    db
}
