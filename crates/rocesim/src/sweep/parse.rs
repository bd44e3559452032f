//! Reading and checking a sweep file (see docs/sweeps.md): every error is listed, each naming
//! the file and the key, like scenario errors.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::Value;

use super::axes::{self, Axes};
use super::spec::{toml_text, type_name, RunSpec, Sweep, MAX_RUNS, SWEEP_KEYS};
use crate::config::{self, ConfigError};

/// Errors of a sweep file, each naming the file and the key.
pub(crate) struct Errs {
    file: String,
    list: Vec<ConfigError>,
}

impl Errs {
    /// Records that `key` is wrong: `message`.
    pub(crate) fn err(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.list.push(ConfigError {
            file: self.file.clone(),
            key: key.into(),
            message: message.into(),
        });
    }
}

/// Reads and checks the sweep file at `path`; `base` is resolved against its directory.
pub fn parse_file(path: &Path) -> Result<Sweep, Vec<ConfigError>> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![ConfigError {
            file: file.clone(),
            key: String::new(),
            message: format!("cannot read the sweep file: {e}"),
        }]
    })?;
    parse_str(&text, &file, path.parent().unwrap_or(Path::new("")))
}

/// Checks a sweep file's text. `file` names it in errors (its stem is the sweep name);
/// `dir` is where `base` is resolved. Returns every error found.
pub fn parse_str(text: &str, file: &str, dir: &Path) -> Result<Sweep, Vec<ConfigError>> {
    let root: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(err) => {
            let err: toml::de::Error = err;
            let mut e = Errs {
                file: file.to_string(),
                list: Vec::new(),
            };
            e.err(
                "",
                format!(
                    "TOML syntax error: {}",
                    err.message().trim().replace('\n', "; ")
                ),
            );
            return Err(e.list);
        }
    };
    check(&root, &axes::key_positions(text), file, dir)
}

impl Sweep {
    /// A grid sweep built in code, as a sweep file with these keys would give: `name` names it
    /// (in errors and sweep.json), `base` is the base scenario file, `grid` lists each swept
    /// scenario key (dotted, as `--set` takes) with its values, in column order (the first key
    /// varies slowest); `seeds` and `repeat` as in a sweep file. Checked like a sweep file.
    pub fn from_grid(
        name: &str,
        base: &Path,
        grid: Vec<(String, Vec<Value>)>,
        seeds: Option<Vec<u64>>,
        repeat: Option<u32>,
    ) -> Result<Sweep, Vec<ConfigError>> {
        let mut root = toml::Table::new();
        let mut pos = HashMap::new();
        root.insert("base".into(), Value::String(base.display().to_string()));
        let mut g = toml::Table::new();
        for (i, (k, vals)) in grid.into_iter().enumerate() {
            pos.insert(format!("grid.{k}"), i);
            g.insert(k, Value::Array(vals));
        }
        root.insert("grid".into(), Value::Table(g));
        if let Some(s) = seeds {
            let s = s.into_iter().map(|x| Value::Integer(x as i64)).collect();
            root.insert("seeds".into(), Value::Array(s));
        }
        if let Some(r) = repeat {
            root.insert("repeat".into(), Value::Integer(i64::from(r)));
        }
        check(&root, &pos, &format!("{name}.toml"), Path::new(""))
    }
}

/// Checks a parsed sweep file: `pos` gives the file position of each key (column order).
fn check(
    root: &toml::Table,
    pos: &HashMap<String, usize>,
    file: &str,
    dir: &Path,
) -> Result<Sweep, Vec<ConfigError>> {
    let mut e = Errs {
        file: file.to_string(),
        list: Vec::new(),
    };
    for k in root.keys() {
        if !SWEEP_KEYS.contains(&k.as_str()) {
            let hint = config::suggest::hint(k, SWEEP_KEYS.iter().copied());
            e.err(k.clone(), format!("unknown key `{k}`{hint}"));
        }
    }
    let base = base(root.get("base"), dir, &mut e);
    let mut ax = points(root, pos, &mut e);
    if let Some(v) = root.get("seeds") {
        axes::seeds(&mut ax, v, &mut e);
    }
    let repeat = repeat(root.get("repeat"), &mut e);
    let reps = repeat.unwrap_or(1);
    if ax.points.len().saturating_mul(reps as usize) > MAX_RUNS {
        e.err("", format!("the sweep has more than {MAX_RUNS} runs"));
    }
    if !e.list.is_empty() {
        return Err(e.list);
    }
    let runs = ax
        .points
        .into_iter()
        .flat_map(|values| {
            (0..reps).map(move |rep| RunSpec {
                values: values.clone(),
                rep,
            })
        })
        .collect();
    let name = Path::new(file)
        .file_stem()
        .map_or_else(|| "sweep".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(Sweep {
        file: file.to_string(),
        name,
        base: base.unwrap_or_default(),
        keys: ax.keys,
        repeat,
        runs,
        origin: ax.origin,
    })
}

/// The `base` scenario path, resolved against `dir`; it must exist.
fn base(v: Option<&Value>, dir: &Path, e: &mut Errs) -> Option<PathBuf> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => {
            let p = dir.join(s);
            if !p.is_file() {
                e.err(
                    "base",
                    format!("the base scenario `{}` does not exist", p.display()),
                );
            }
            Some(p)
        }
        Some(v) => {
            e.err(
                "base",
                format!(
                    "expected the path of a scenario file, found {} {v}",
                    type_name(v)
                ),
            );
            None
        }
        None => {
            e.err(
                "base",
                "missing: name the base scenario, e.g. base = \"../scenarios/incast.toml\"",
            );
            None
        }
    }
}

/// The swept points of `[grid]` or `[[run]]` (neither: the base scenario alone, one point).
fn points(root: &toml::Table, pos: &HashMap<String, usize>, e: &mut Errs) -> Axes {
    match (root.get("grid"), root.get("run")) {
        (Some(_), Some(_)) => {
            e.err(
                "run",
                "a sweep has either [grid] or [[run]] tables, not both",
            );
            Axes::default()
        }
        (Some(Value::Table(g)), None) => axes::grid(g, pos, e),
        (Some(v), None) => {
            e.err(
                "grid",
                format!("expected a table of key = [values], found {}", type_name(v)),
            );
            Axes::default()
        }
        (None, Some(Value::Array(runs))) => axes::run_list(runs, pos, e),
        (None, Some(v)) => {
            e.err(
                "run",
                format!("expected [[run]] tables, found {}", type_name(v)),
            );
            Axes::default()
        }
        (None, None) => Axes {
            points: vec![Vec::new()],
            ..Axes::default()
        },
    }
}

/// `repeat`: a positive integer, when given.
fn repeat(v: Option<&Value>, e: &mut Errs) -> Option<u32> {
    match v {
        None => None,
        Some(Value::Integer(n)) if (1..=i64::from(u32::MAX)).contains(n) => Some(*n as u32),
        Some(other) => {
            e.err(
                "repeat",
                format!(
                    "expected a positive integer, found {} {}",
                    type_name(other),
                    toml_text(other)
                ),
            );
            None
        }
    }
}
