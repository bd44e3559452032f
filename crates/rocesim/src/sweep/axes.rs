//! The swept points of a sweep file: a `[grid]` multiplied out (first key slowest) or a list of
//! `[[run]]` tables, then multiplied by `seeds`; keys kept in the file's order.

use std::collections::HashMap;

use toml::Value;

use super::parse::Errs;
use super::spec::{toml_text, type_name, MAX_RUNS};

/// The swept keys, where each was given, and one point (a value per key) per run.
#[derive(Default)]
pub(crate) struct Axes {
    /// The swept keys, in file order.
    pub keys: Vec<String>,
    /// Where each key was given (`grid.nic.mtu`, `run[2].nic.cc`, `seeds`).
    pub origin: HashMap<String, String>,
    /// One value per key per run; `None`: not set in that run.
    pub points: Vec<Vec<Option<Value>>>,
}

/// Byte position of every key in the file (`grid.nic.mtu`, `run[1].nic.cc`, ...), so that
/// columns follow the file's order (the parsed tables are sorted by key).
pub(crate) fn key_positions(text: &str) -> HashMap<String, usize> {
    use toml::de::{DeTable, DeValue};
    fn walk(t: &DeTable<'_>, prefix: &str, m: &mut HashMap<String, usize>) {
        for (k, v) in t.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            m.entry(path.clone()).or_insert(k.span().start);
            match v.get_ref() {
                DeValue::Table(sub) => walk(sub, &path, m),
                DeValue::Array(a) => {
                    for (i, e) in a.iter().enumerate() {
                        if let DeValue::Table(sub) = e.get_ref() {
                            walk(sub, &format!("{path}[{i}]"), m);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut m = HashMap::new();
    if let Ok(t) = DeTable::parse(text) {
        walk(t.get_ref(), "", &mut m);
    }
    m
}

/// Flattens nested tables into dotted keys (`switch = { lossless = { headroom = 0.5 } }` and
/// `switch.lossless.headroom = 0.5` both give `switch.lossless.headroom`), in file order.
fn flatten(
    t: &toml::Table,
    prefix: &str,
    pos_prefix: &str,
    pos: &HashMap<String, usize>,
) -> Vec<(String, Value, usize)> {
    let mut out = Vec::new();
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let p = pos
            .get(&format!("{pos_prefix}.{key}"))
            .copied()
            .unwrap_or(usize::MAX);
        match v {
            Value::Table(sub) => out.extend(flatten(sub, &key, pos_prefix, pos)),
            other => out.push((key, other.clone(), p)),
        }
    }
    out.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Every point of `points` once per value of `vals`, the value appended (`points` varies
/// slowest).
fn times(points: Vec<Vec<Option<Value>>>, vals: &[Value]) -> Vec<Vec<Option<Value>>> {
    points
        .into_iter()
        .flat_map(|p| {
            vals.iter().map(move |v| {
                let mut q = p.clone();
                q.push(Some(v.clone()));
                q
            })
        })
        .collect()
}

/// The axes of a `[grid]` table: key → list of values; the points are the Cartesian product,
/// the first key varying slowest.
pub(crate) fn grid(g: &toml::Table, pos: &HashMap<String, usize>, e: &mut Errs) -> Axes {
    let mut ax = Axes::default();
    let mut axes: Vec<(String, Vec<Value>)> = Vec::new();
    for (k, v, _) in flatten(g, "", "grid", pos) {
        let at = format!("grid.{k}");
        match v {
            Value::Array(a) if a.is_empty() => {
                e.err(at, "empty list: give at least one value");
            }
            Value::Array(a) => {
                ax.origin.insert(k.clone(), at);
                axes.push((k, a));
            }
            other => e.err(
                at,
                format!(
                    "expected a list of values, e.g. [{}], found {} {}",
                    toml_text(&other),
                    type_name(&other),
                    toml_text(&other)
                ),
            ),
        }
    }
    if g.is_empty() {
        e.err("grid", "empty grid: give at least one key = [values]");
    }
    let total = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.1.len()));
    if total.is_none_or(|n| n > MAX_RUNS) {
        e.err("grid", format!("the grid has more than {MAX_RUNS} runs"));
    } else {
        ax.keys = axes.iter().map(|a| a.0.clone()).collect();
        ax.points.push(Vec::new());
        for (_, vals) in &axes {
            ax.points = times(std::mem::take(&mut ax.points), vals);
        }
    }
    ax
}

/// The axes of a list of `[[run]]` tables: the keys are those of all runs, in order of first
/// appearance; a run without a key leaves its value `None`.
pub(crate) fn run_list(runs: &[Value], pos: &HashMap<String, usize>, e: &mut Errs) -> Axes {
    let mut ax = Axes::default();
    let mut per_run: Vec<Vec<(String, Value)>> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let Value::Table(t) = r else {
            e.err(
                format!("run[{i}]"),
                format!("expected a table, found {}", type_name(r)),
            );
            continue;
        };
        let kv: Vec<(String, Value)> = flatten(t, "", &format!("run[{i}]"), pos)
            .into_iter()
            .map(|(k, v, _)| (k, v))
            .collect();
        for (k, _) in &kv {
            if !ax.keys.contains(k) {
                ax.keys.push(k.clone());
                ax.origin.insert(k.clone(), format!("run[{i}].{k}"));
            }
        }
        per_run.push(kv);
    }
    if runs.is_empty() {
        e.err("run", "no [[run]] tables");
    }
    for kv in per_run {
        let mut vals = vec![None; ax.keys.len()];
        for (k, v) in kv {
            if let Some(j) = ax.keys.iter().position(|x| *x == k) {
                vals[j] = Some(v);
            }
        }
        ax.points.push(vals);
    }
    ax
}

/// Multiplies the points by the `seeds` list (a `sim.seed` column, last).
pub(crate) fn seeds(ax: &mut Axes, v: &Value, e: &mut Errs) {
    let a = match v {
        Value::Array(a) if !a.is_empty() => a,
        other => {
            return e.err(
                "seeds",
                format!(
                    "expected a non-empty list of seeds, e.g. [1, 2, 3], found {} {}",
                    type_name(other),
                    toml_text(other)
                ),
            )
        }
    };
    let mut seeds = Vec::new();
    for (i, s) in a.iter().enumerate() {
        match s {
            Value::Integer(n) if *n >= 0 => seeds.push(s.clone()),
            other => e.err(
                format!("seeds[{i}]"),
                format!(
                    "expected a non-negative integer, found {} {}",
                    type_name(other),
                    toml_text(other)
                ),
            ),
        }
    }
    if ax.keys.iter().any(|k| k == "sim.seed") {
        e.err("seeds", "`sim.seed` is also swept; use one or the other");
    } else {
        ax.keys.push("sim.seed".to_string());
        ax.origin.insert("sim.seed".into(), "seeds".into());
        ax.points = times(std::mem::take(&mut ax.points), &seeds);
    }
}
