//! Layered tables: `[switch.role.<role>]`, `[switch.name.<name>]` and `[nic.host.<name>]`
//! change only the keys they name on top of the layer below. [`Origins`] remembers which
//! table gave a key, so that a rule broken across layers is reported at the key the user
//! wrote in the most specific table.

use serde_json::json;
use toml::Value;

use super::check::{at, Ctx};
use super::declare::{Leaf, SubTable, TypeDoc, V};
use super::suggest;
use crate::topology::Topology;

/// A declared table that named override tables repeat (`[switch]`, `[nic]`).
pub trait Layered: Leaf<Out = Self> + Sized {
    /// What one resolved table gives.
    type Params: Clone;
    /// What the cross-key rules need beyond the parameters.
    type Env;
    /// The section (`switch`, `nic`).
    const SECTION: &'static str;
    /// Its tables of named layers (not allowed inside a layer).
    fn named(&self) -> Vec<&V<Named<Self>>>;
    /// Apply the keys this table gives onto `p`.
    fn onto(&self, ctx: &mut Ctx, p: &mut Self::Params);
    /// Cross-key rules of one resolved table; `o` tells which table gave which key.
    fn validate(ctx: &mut Ctx, p: &Self::Params, o: &Origins, env: &Self::Env);
}

/// Resolved parameters, with where their keys came from.
pub type Resolved<T> = (<T as Layered>::Params, Origins);

/// The section's own table `t` (written as `raw`) applied onto `defaults`.
pub fn base<T: Layered>(
    ctx: &mut Ctx,
    t: &T,
    raw: Option<&Value>,
    mut defaults: T::Params,
) -> Resolved<T> {
    t.onto(ctx, &mut defaults);
    let section = T::SECTION.to_string();
    let layers = raw.map(|v| (section.clone(), v.clone())).into_iter();
    let origins = Origins {
        section,
        layers: layers.collect(),
    };
    (defaults, origins)
}

/// The layer `v` at `key` on top of `below`, checked and validated.
pub fn layer<T: Layered>(
    ctx: &mut Ctx,
    below: &Resolved<T>,
    key: &str,
    v: &Value,
    env: &T::Env,
) -> Option<Resolved<T>> {
    let t = T::read(ctx, v, key)?;
    for f in t.named().into_iter().filter(|f| f.given()) {
        ctx.unknown_key(&f.key);
    }
    let (mut p, mut o) = below.clone();
    t.onto(ctx, &mut p);
    o.layers.push((key.to_string(), v.clone()));
    T::validate(ctx, &p, &o, env);
    Some((p, o))
}

/// Check that `name` (the table at `key`) is a switch of `topo` (`switch`), else a host.
pub fn check_node(ctx: &mut Ctx, topo: &Topology, name: &str, key: &str, switch: bool) {
    let names = |sw: bool| -> Vec<&str> {
        if sw {
            topo.switches.iter().map(|s| s.name.as_str()).collect()
        } else {
            topo.hosts.iter().map(|h| h.name.as_str()).collect()
        }
    };
    let (want, other) = (names(switch), names(!switch));
    if want.contains(&name) {
        return;
    }
    let (what, not, fix) = if switch {
        ("switch", "host", "nic.host")
    } else {
        ("host", "switch", "switch.name")
    };
    let msg = if other.contains(&name) {
        format!("`{name}` is a {not}, not a {what} (use [{fix}.{name}])")
    } else {
        format!("unknown {what} `{name}`{}", suggest::hint(name, want))
    };
    ctx.err(key, msg);
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
        let schema = format!("#/properties/{}", T::SECTION);
        TypeDoc {
            name: "tables by name".into(),
            schema: json!({ "type": "object", "additionalProperties": { "$ref": schema } }),
        }
    }
}

/// The tables a resolved configuration was layered from (its section's, then each override
/// table's), as written, with their dotted keys: a rule broken across layers is reported at
/// the key given by the most specific table.
#[derive(Clone, Debug)]
pub struct Origins {
    section: String,
    layers: Vec<(String, Value)>,
}

impl Origins {
    /// The dotted key of the most specific table that gives `rel` (`rx.xon`, relative to the
    /// section).
    fn origin(&self, rel: &str) -> Option<&str> {
        let gives = |v: &Value| rel.split('.').try_fold(v, |v, k| v.get(k)).is_some();
        let layer = self.layers.iter().rev().find(|(_, v)| gives(v));
        layer.map(|(prefix, _)| prefix.as_str())
    }
    /// The dotted key of `rel`: where it was given, else under the section.
    pub fn key(&self, rel: &str) -> String {
        at(self.origin(rel).unwrap_or(&self.section), rel)
    }
    /// The key of whichever of two related keys was given by the more specific table (`a`
    /// on a tie): the one the user most likely got wrong.
    pub fn key2(&self, a: &str, b: &str) -> String {
        let depth = |rel: &str| self.origin(rel).map_or(0, str::len);
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
