//! Maps and lists of scenario values: DSCP and TC maps, the scheduler table, names, host
//! selectors, pairs, and arrays of tables.

use serde_json::json;
use toml::Value;

use super::check::{at, idx, Ctx};
use super::declare::{KeyDoc, Leaf, SubTable, TypeDoc};
use super::leaf::Tc;
use crate::fabric::params::QueueSched;

use super::leaf::leaf;

/// A table whose keys are small integers (`{ 26 = 3 }`): its entries with a valid key, each
/// with its full dotted key (invalid keys are recorded as errors).
fn int_keyed<'v>(
    c: &mut Ctx,
    v: &'v Value,
    k: &str,
    max: u8,
    what: &str,
) -> Option<Vec<(u8, &'v Value, String)>> {
    let Value::Table(t) = v else {
        c.expected(k, &format!("a table like {{ {what} }}"), v);
        return None;
    };
    let mut out = Vec::new();
    for (key, val) in t {
        let full = at(k, key);
        match key.trim().parse::<u8>() {
            Ok(i) if i <= max => out.push((i, val, full)),
            _ => c.err(full, format!("`{key}` is not a number in 0..={max}")),
        }
    }
    Some(out)
}

fn map_schema(value: serde_json::Value) -> serde_json::Value {
    json!({ "type": "object", "additionalProperties": value })
}

/// `map` with the entries of the table `v` (small integer → TC) written over it.
fn tc_map<const N: usize>(
    c: &mut Ctx,
    v: &Value,
    k: &str,
    what: &str,
    map: [u8; N],
) -> Option<[u8; N]> {
    let (mut map, mut ok) = (map, true);
    for (i, val, full) in int_keyed(c, v, k, (N - 1) as u8, what)? {
        match Tc::read(c, val, &full) {
            Some(t) => map[i as usize] = t,
            None => ok = false,
        }
    }
    ok.then_some(map)
}

leaf!(/// DSCP → traffic class; unmapped DSCPs map to TC 0.
DscpMap -> [u8; 64], "table DSCP → TC",
map_schema(json!({ "type": "integer", "minimum": 0, "maximum": 7 })),
|c, v, k| tc_map(c, v, k, "\"26\" = 3", [0; 64]));
leaf!(/// Traffic class → egress queue; unmapped TCs keep their own number.
TcMap -> [u8; 8], "table TC → queue",
map_schema(json!({ "type": "integer", "minimum": 0, "maximum": 7 })),
|c, v, k| tc_map(c, v, k, "\"3\" = 3", [0, 1, 2, 3, 4, 5, 6, 7]));
leaf!(/// Queue → `"strict"` or `{ dwrr = weight }`, for the queues named.
Scheduler -> Vec<(u8, QueueSched)>, "table queue → `\"strict\"` \\| `{ dwrr = weight }`",
map_schema(json!({ "anyOf": [ { "const": "strict" }, { "type": "object",
    "properties": { "dwrr": { "type": "integer", "minimum": 1 } },
    "required": ["dwrr"], "additionalProperties": false } ] })),
|c, v, k| {
    let entries = int_keyed(c, v, k, 7, "\"6\" = \"strict\", \"3\" = { dwrr = 50 }")?;
    let mut out = Vec::new();
    for (q, val, full) in entries {
        match val {
            Value::String(s) if s == "strict" => out.push((q, QueueSched::Strict)),
            Value::Table(t) => {
                c.unknown(t, &full, &["dwrr"]);
                match t.get("dwrr") {
                    Some(w) => {
                        let w = c.int(w, &at(&full, "dwrr"), 1, u32::MAX.into());
                        out.push((q, QueueSched::Dwrr(w? as u32)));
                    }
                    None => c.err(at(&full, "dwrr"), "missing required key `dwrr` (a weight)"),
                }
            }
            _ => c.expected(&full, "\"strict\" or { dwrr = weight }", val),
        }
    }
    Some(out)
});

leaf!(/// A list of non-empty names.
Names -> Vec<String>, "list of names",
json!({ "type": "array", "items": { "type": "string", "minLength": 1 } }),
|c, v, k| {
    let mut out = Vec::new();
    for (i, x) in c.array(v, k)?.iter().enumerate() {
        match c.string(x, &idx(k, i))? {
            s if s.is_empty() => {
                c.err(idx(k, i), "a name cannot be empty");
                return None;
            }
            s => out.push(s),
        }
    }
    Some(out)
});
leaf!(/// A host selector (`"h3"`, `"all"`, `"tor2/*"`, `"pod1/*"`) or a list of them.
Selector -> Vec<String>, "selector or list of selectors",
json!({ "anyOf": [ { "type": "string" }, { "type": "array", "items": { "type": "string" } } ] }),
|c, v, k| match v {
    Value::String(s) => Some(vec![s.clone()]),
    Value::Array(a) => a.iter().enumerate().map(|(i, x)| c.string(x, &idx(k, i))).collect(),
    _ => {
        c.expected(k, "a host selector or a list of them", v);
        None
    }
});

/// Two values of type `T` written as `[a, b]`; `what` names them in errors.
pub fn pair<T>(
    c: &mut Ctx,
    v: &Value,
    k: &str,
    what: &str,
    read: impl Fn(&mut Ctx, &Value, &str) -> Option<T>,
) -> Option<(T, T)> {
    match v {
        Value::Array(a) if a.len() == 2 => {
            let x = read(c, &a[0], &idx(k, 0));
            let y = read(c, &a[1], &idx(k, 1));
            Some((x?, y?))
        }
        _ => {
            c.expected(k, what, v);
            None
        }
    }
}

leaf!(/// Two node names `["a", "b"]`.
    NodePair -> (String, String), "`[\"a\", \"b\"]`",
    json!({ "type": "array", "items": { "type": "string" }, "minItems": 2, "maxItems": 2 }),
    |c, v, k| pair(c, v, k, "a pair of node names like [\"S1\", \"S2\"]", Ctx::string));
leaf!(/// Two pod numbers `[0, 1]`.
PodPair -> (u32, u32), "two pod numbers",
json!({ "type": "array", "items": { "type": "integer", "minimum": 0 }, "minItems": 2, "maxItems": 2 }),
|c, v, k| {
    if let Value::Array(a) = v {
        if a.len() != 2 {
            c.err(k, format!("expected two pod numbers like [0, 1], found {} values", a.len()));
            return None;
        }
    }
    let r = |c: &mut Ctx, v: &Value, k: &str| c.int(v, k, 0, u32::MAX.into()).map(|x| x as u32);
    pair(c, v, k, "an array", r)
});
/// What an array of tables (`[[flow]]`, `[[workload]]`, `[[fault]]`) holds, for the schema.
pub trait Items {
    /// The schema of one element.
    fn schema() -> serde_json::Value;
}

/// An array of tables: each element's dotted key (`fault[2]`) and table.
pub struct Tables<T>(std::marker::PhantomData<T>);
impl<T> SubTable for Tables<T> {}
impl<T: Items> Leaf for Tables<T> {
    type Out = Vec<(String, toml::Table)>;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Self::Out> {
        let Value::Array(a) = v else {
            c.expected(k, &format!("an array of tables ([[{k}]])"), v);
            return None;
        };
        let tables = a.iter().enumerate().filter_map(|(i, v)| {
            let key = idx(k, i);
            c.table(v, &key).map(|t| (key, t.clone()))
        });
        Some(tables.collect())
    }
    fn doc() -> TypeDoc {
        TypeDoc {
            name: "array of tables".into(),
            schema: json!({ "type": "array", "items": T::schema() }),
        }
    }
}

/// The schema of tables whose `kind` selects one of `kinds`.
pub fn kinds_schema(kinds: &[(&str, &[KeyDoc])]) -> serde_json::Value {
    let one = |keys: &[KeyDoc]| {
        let props: serde_json::Map<_, _> = keys
            .iter()
            .map(|k| (k.name.to_string(), (k.ty)().schema))
            .collect();
        json!({ "type": "object", "properties": props, "additionalProperties": false })
    };
    json!({ "anyOf": kinds.iter().map(|(_, keys)| one(keys)).collect::<Vec<_>>() })
}
