//! Layered tables: `[switch.role.<role>]`, `[switch.name.<name>]` and `[nic.host.<name>]`
//! change only the keys they name on top of the layer below. [`Origins`] remembers which
//! table gave a key, so that a rule broken across layers is reported at the key the user
//! wrote in the most specific table.

use std::collections::HashMap;

use serde_json::json;
use toml::Value;

use super::check::{at, Ctx};
use super::declare::{Leaf, SubTable, TypeDoc, V};

/// A declared table that named override tables repeat (`[switch]`, `[nic]`).
pub trait Layered {
    /// JSON pointer to its schema in the scenario schema.
    const SCHEMA: &'static str;
}

/// A table of named override tables of `T`'s keys (`role`, `name`, `host`): each entry's
/// name, its dotted key and its (unchecked) value.
pub struct Named<T>(std::marker::PhantomData<T>);
impl<T> SubTable for Named<T> {}
impl<T: Layered> Leaf for Named<T> {
    type Out = Vec<(String, String, Value)>;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<Self::Out> {
        let t = c.table(v, k)?;
        Some(
            t.iter()
                .map(|(n, v)| (n.clone(), at(k, n), v.clone()))
                .collect(),
        )
    }
    fn doc() -> TypeDoc {
        TypeDoc {
            name: "tables by name".into(),
            schema: json!({ "type": "object", "additionalProperties": { "$ref": T::SCHEMA } }),
        }
    }
}

/// Which table last gave each key that a cross-key rule looks at (`rx.xon`, relative to the
/// section), as the dotted key it was given at.
#[derive(Clone, Debug)]
pub struct Origins {
    section: String,
    prefix: String,
    given: HashMap<String, (usize, String)>,
}

impl Origins {
    /// Origins for `section` (`switch`, `nic`), whose own table is the first layer.
    pub fn new(section: &str) -> Origins {
        Origins {
            section: section.into(),
            prefix: section.into(),
            given: HashMap::new(),
        }
    }
    /// A copy for the layer at `prefix` (`nic.host.R`), on top of this one.
    pub fn with(&self, prefix: &str) -> Origins {
        Origins {
            prefix: prefix.into(),
            ..self.clone()
        }
    }
    /// Record the keys of `fs` that this layer gives.
    pub fn given<T>(&mut self, fs: &[&V<T>]) {
        for f in fs.iter().filter(|f| f.given()) {
            let rel = f.key.strip_prefix(&self.prefix).unwrap_or(&f.key);
            let rel = rel.trim_start_matches('.').to_string();
            self.given.insert(rel, (self.prefix.len(), f.key.clone()));
        }
    }
    /// The dotted key of `rel`: where it was given, else under the section.
    pub fn key(&self, rel: &str) -> String {
        self.given
            .get(rel)
            .map_or_else(|| at(&self.section, rel), |(_, k)| k.clone())
    }
    /// The key of whichever of two related keys was given by the more specific table (`a`
    /// on a tie): the one the user most likely got wrong.
    pub fn key2(&self, a: &str, b: &str) -> String {
        let depth = |rel: &str| self.given.get(rel).map_or(0, |(d, _)| *d);
        if depth(b) > depth(a) {
            self.key(b)
        } else {
            self.key(a)
        }
    }
}

impl Ctx {
    /// Report `key` as unknown (a key that is declared, but not allowed where it is).
    pub fn unknown_key(&mut self, key: &str) {
        self.err(key, format!("unknown key `{key}`"));
    }
}
