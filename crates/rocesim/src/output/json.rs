//! A tiny ordered JSON value: objects keep insertion order (serde_json's `Map` sorts keys unless
//! `preserve_order` is enabled), floats are rounded to 6 significant digits, non-finite floats
//! become `null`. Serialized through serde_json, so escaping and number syntax are standard.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::fmt::round_sig;

/// A JSON value whose objects keep their key order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// Unsigned integer.
    U64(u64),
    /// Float, rounded to 6 significant digits when written.
    F64(f64),
    /// String.
    Str(String),
    /// Array.
    Arr(Vec<Json>),
    /// Object, in insertion order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An object from `(key, value)` pairs, in the given order.
    pub(crate) fn obj<K: Into<String>>(pairs: Vec<(K, Json)>) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// `Some(x)` as a float, `None` as `null`.
    pub(crate) fn opt_f64(x: Option<f64>) -> Json {
        x.map_or(Json::Null, Json::F64)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::U64(n) => s.serialize_u64(*n),
            Json::F64(x) => {
                let r = round_sig(*x);
                if r.is_finite() {
                    s.serialize_f64(r)
                } else {
                    s.serialize_unit()
                }
            }
            Json::Str(t) => s.serialize_str(t),
            Json::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Obj(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_rounds() {
        let v = Json::obj(vec![
            ("z", Json::F64(1.234_567_89)),
            ("a", Json::F64(f64::NAN)),
            ("m", Json::Arr(vec![Json::U64(3), Json::Bool(true)])),
        ]);
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(text, r#"{"z":1.23457,"a":null,"m":[3,true]}"#);
    }
}
