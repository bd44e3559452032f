//! The checker: typed reads from a `toml::Value` tree that record every problem instead of
//! stopping at the first one.
//!
//! Every reader takes the value and the full dotted key it was found at, and returns `None`
//! when the value is unusable (after recording why). Callers keep going with a default so that
//! later keys are still checked.

use std::collections::HashSet;

use toml::{Table, Value};

use super::error::ConfigError;
use super::suggest;

/// Accumulates errors for one scenario file.
#[derive(Debug)]
pub struct Ctx {
    /// File name put in every error.
    pub file: String,
    /// Errors so far, in order.
    pub errors: Vec<ConfigError>,
    /// Directory that relative paths in the file (config_db files) are resolved against.
    pub base_dir: std::path::PathBuf,
    seen: HashSet<(String, String)>,
}

/// `path.key`, or `key` at the top level.
pub fn at(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[i]`.
pub fn idx(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// How a value looks, for "found ..." in type errors.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                format!("string {short:?}...")
            } else {
                format!("string {s:?}")
            }
        }
        Value::Integer(i) => format!("integer {i}"),
        Value::Float(f) => format!("float {f}"),
        Value::Boolean(b) => format!("boolean {b}"),
        Value::Datetime(d) => format!("datetime {d}"),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

impl Ctx {
    /// A checker for `file`.
    pub fn new(file: &str) -> Ctx {
        Ctx {
            file: file.to_string(),
            errors: Vec::new(),
            base_dir: std::path::PathBuf::new(),
            seen: HashSet::new(),
        }
    }

    /// Record an error (an identical key and message is recorded once).
    pub fn err(&mut self, key: impl Into<String>, message: impl Into<String>) {
        let (key, message) = (key.into(), message.into());
        if self.seen.insert((key.clone(), message.clone())) {
            self.errors.push(ConfigError {
                file: self.file.clone(),
                key,
                message,
            });
        }
    }

    /// Number of errors so far (to tell whether a section added any).
    pub fn count(&self) -> usize {
        self.errors.len()
    }

    /// Report every key of `t` that is not in `allowed`, with a suggestion.
    pub fn unknown(&mut self, t: &Table, path: &str, allowed: &[&str]) {
        for k in t.keys() {
            if !allowed.contains(&k.as_str()) {
                let full = at(path, k);
                let hint = suggest::hint(k, allowed.iter().copied());
                self.err(full.clone(), format!("unknown key `{full}`{hint}"));
            }
        }
    }

    /// Record "expected X, found Y".
    pub fn expected(&mut self, key: &str, what: &str, v: &Value) {
        self.err(key, format!("expected {what}, found {}", describe(v)));
    }

    /// A table.
    pub fn table<'v>(&mut self, v: &'v Value, key: &str) -> Option<&'v Table> {
        match v {
            Value::Table(t) => Some(t),
            _ => {
                self.expected(key, "a table", v);
                None
            }
        }
    }

    /// An array.
    pub fn array<'v>(&mut self, v: &'v Value, key: &str) -> Option<&'v [Value]> {
        match v {
            Value::Array(a) => Some(a),
            _ => {
                self.expected(key, "an array", v);
                None
            }
        }
    }

    /// A string.
    pub fn string(&mut self, v: &Value, key: &str) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            _ => {
                self.expected(key, "a string", v);
                None
            }
        }
    }

    /// A boolean.
    pub fn boolean(&mut self, v: &Value, key: &str) -> Option<bool> {
        match v {
            Value::Boolean(b) => Some(*b),
            _ => {
                self.expected(key, "true or false", v);
                None
            }
        }
    }

    /// An integer in `lo..=hi`.
    pub fn int(&mut self, v: &Value, key: &str, lo: i64, hi: i64) -> Option<i64> {
        match v {
            Value::Integer(i) if (lo..=hi).contains(i) => Some(*i),
            Value::Integer(i) => {
                if *i < 0 && lo >= 0 {
                    self.err(key, format!("expected a non-negative integer, found {i}"));
                } else {
                    self.err(key, format!("{i} is out of range (allowed {lo}..={hi})"));
                }
                None
            }
            _ => {
                let what = if lo >= 0 {
                    "a non-negative integer"
                } else {
                    "an integer"
                };
                self.expected(key, what, v);
                None
            }
        }
    }

    /// One of `choices` (a string); unknown values get a suggestion.
    pub fn choice(
        &mut self,
        v: &Value,
        key: &str,
        choices: &[&'static str],
    ) -> Option<&'static str> {
        let list = choices.join(", ");
        match v {
            Value::String(s) => match choices.iter().find(|c| **c == s.as_str()) {
                Some(c) => Some(c),
                None => {
                    let hint = suggest::hint(s, choices.iter().copied());
                    self.err(
                        key,
                        format!("unknown value `{s}` (expected one of {list}){hint}"),
                    );
                    None
                }
            },
            _ => {
                self.expected(key, &format!("one of {list}"), v);
                None
            }
        }
    }

    /// A supported choice: `supported` are accepted, `later` are known but rejected with
    /// "not supported yet".
    pub fn supported(
        &mut self,
        v: &Value,
        key: &str,
        supported: &[&'static str],
        later: &[&'static str],
    ) -> Option<&'static str> {
        let all: Vec<&'static str> = supported.iter().chain(later).copied().collect();
        let c = self.choice(v, key, &all)?;
        if later.contains(&c) {
            self.err(
                key,
                format!(
                    "`{c}` is not supported yet (supported: {})",
                    supported.join(", ")
                ),
            );
            return None;
        }
        Some(c)
    }
}
