//! The JSON Schema of scenario files and the key tables of `docs/scenario.md`, both generated
//! from the declared tables (each key's doc comment is the single source of its meaning,
//! unit and default).
//!
//! A doc comment reads "meaning. Default: `value`." (or "Required."); the tables of the docs
//! sit between `<!-- keys:NAME -->` and `<!-- /keys -->`, NAME being one of [`doc_tables`].

use serde_json::{json, Map, Value};

use super::declare::{KeyDoc, Table, TypeDoc};
use super::sections as s;

/// The [`TypeDoc`] of a declared table: an object of its keys, no others.
pub fn table_doc<T: Table>() -> TypeDoc {
    TypeDoc {
        name: "table".into(),
        schema: object_schema(T::KEYS, T::DOC),
    }
}

/// A doc comment as one line of text.
fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The meaning and the default (`**required**` for required keys) of a key's doc comment.
pub fn split_doc(doc: &str) -> (String, String) {
    let text = one_line(doc);
    if let Some(m) = text.strip_suffix(" Required.") {
        return (m.to_string(), "**required**".into());
    }
    match text.rfind(" Default: ") {
        Some(i) => {
            let d = text[i + 10..].trim_end_matches('.').to_string();
            (text[..i].to_string(), d)
        }
        None => (text, "—".into()),
    }
}

fn object_schema(keys: &[KeyDoc], doc: &str) -> Value {
    let mut props = Map::new();
    for k in keys {
        let mut schema = (k.ty)().schema;
        if let Some(o) = schema.as_object_mut() {
            o.insert("description".into(), Value::String(one_line(k.doc)));
        }
        props.insert(k.name.into(), schema);
    }
    json!({ "type": "object", "description": one_line(doc), "properties": props,
            "additionalProperties": false })
}

/// The JSON Schema of a scenario file.
pub fn json_schema() -> Value {
    let mut root = object_schema(s::ScenarioFile::KEYS, s::ScenarioFile::DOC);
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["title"] = json!("rocesim scenario");
    root["required"] = json!(["sim", "topology"]);
    root
}

/// The JSON Schema of scenario files as pretty-printed JSON text (what `rocesim schema` prints).
pub fn json_schema_text() -> String {
    serde_json::to_string_pretty(&json_schema()).unwrap_or_default()
}

/// The named key tables of the docs.
pub fn doc_tables() -> Vec<(&'static str, &'static [KeyDoc])> {
    let mut v: Vec<(&'static str, &'static [KeyDoc])> = vec![
        ("sim", s::Sim::KEYS),
        ("output", s::Output::KEYS),
        ("switch", s::Switch::KEYS),
        ("switch.lossless", s::Lossless::KEYS),
        ("switch.lossy", s::Lossy::KEYS),
        ("switch.ecn", s::Ecn::KEYS),
        ("switch.pfc_watchdog", s::Watchdog::KEYS),
        ("switch.isolation", s::Isolation::KEYS),
        ("nic", s::Nic::KEYS),
        ("nic.rx", s::Rx::KEYS),
        ("nic.dcqcn", s::Dcqcn::KEYS),
        ("nic.rcm", s::Rcm::KEYS),
        ("nic.hpcc", s::Hpcc::KEYS),
        ("nic.timely", s::Timely::KEYS),
        ("nic.dctcp", s::Dctcp::KEYS),
        ("flow", s::Flow::KEYS),
    ];
    v.extend_from_slice(s::TOPOLOGY_KINDS);
    v.extend_from_slice(s::WORKLOAD_KINDS);
    v.extend_from_slice(s::FAULT_KINDS);
    v
}

/// The Markdown table of `keys`.
pub fn markdown(keys: &[KeyDoc]) -> String {
    let mut out = String::from("| key | type | default | meaning |\n| --- | --- | --- | --- |\n");
    for k in keys.iter().filter(|k| k.name != "kind") {
        let (meaning, default) = split_doc(k.doc);
        let ty = (k.ty)().name;
        out += &format!("| `{}` | {ty} | {default} | {meaning} |\n", k.name);
    }
    out
}

/// `doc` with every generated table (between `<!-- keys:NAME -->` and `<!-- /keys -->`)
/// regenerated; an unknown NAME is an error.
pub fn update_doc(doc: &str) -> Result<String, String> {
    let tables = doc_tables();
    let mut out = String::new();
    let mut rest = doc;
    while let Some(i) = rest.find("<!-- keys:") {
        let open_end = rest[i..].find("-->").ok_or("unclosed `<!-- keys:`")? + i + 3;
        let name = rest[i + 10..open_end - 3].trim();
        let close = rest[open_end..]
            .find("<!-- /keys -->")
            .ok_or_else(|| format!("no `<!-- /keys -->` after keys:{name}"))?
            + open_end;
        let keys = tables
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| format!("unknown key table `{name}`"))?
            .1;
        out += &rest[..open_end];
        out += "\n";
        out += &markdown(keys);
        rest = &rest[close..];
    }
    out += rest;
    Ok(out)
}

/// Every generated table, each under a heading with its name (`rocesim schema --markdown`).
pub fn all_markdown() -> String {
    let mut out = String::new();
    for (name, keys) in doc_tables() {
        out += &format!("### {name}\n\n{}\n", markdown(keys));
    }
    out
}
