//! Errors found in a scenario file: every one names the file and the key it is about.

use std::fmt;

/// One problem in a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The scenario file name as the user gave it (e.g. `parking-lot.toml`).
    pub file: String,
    /// Dotted path of the key, e.g. `switch.lossless.xon` or `flow[2].src`; `--set` for a
    /// malformed command-line override; empty for a TOML syntax error.
    pub key: String,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Every problem found in a scenario file, in the order they were found (never empty when
/// returned by [`load`](super::load)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl ConfigErrors {
    /// Number of errors.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Iterate over the errors.
    pub fn iter(&self) -> std::slice::Iter<'_, ConfigError> {
        self.0.iter()
    }
    /// True if some error is about `key` (exactly).
    pub fn has_key(&self, key: &str) -> bool {
        self.0.iter().any(|e| e.key == key)
    }
}

/// How many names a collapsed line lists.
const NAMES_SHOWN: usize = 3;

/// The shape of `line`: what comes before its first backtick-quoted name (a switch, a host)
/// as written, then the rest with its numbers blanked; and that name. Lines of one shape are
/// errors of one kind about different elements.
fn shape(line: &str) -> (String, Option<&str>) {
    let mut parts = line.splitn(3, '`');
    let (head, name, tail) = (parts.next().unwrap_or(""), parts.next(), parts.next());
    let Some(tail) = tail else {
        return (line.to_string(), None);
    };
    let mut blanked = String::new();
    for c in tail.chars() {
        if !c.is_ascii_digit() {
            blanked.push(c);
        } else if !blanked.ends_with('#') {
            blanked.push('#');
        }
    }
    (format!("{head}`*`{blanked}"), name)
}

/// Errors of one kind repeated over many switches or hosts (the same text but for the quoted
/// name and the numbers after it) collapse into the first one, with how many more there are
/// and their first names. Groups keep the order of their first line.
pub fn collapse(lines: &[String]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let key = shape(l).0;
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut out = Vec::new();
    for (_, members) in groups {
        if members.len() <= NAMES_SHOWN {
            out.extend(members.iter().map(|&i| lines[i].clone()));
            continue;
        }
        let names = members[1..].iter().filter_map(|&i| shape(&lines[i]).1);
        let listed: Vec<String> = names.take(NAMES_SHOWN).map(|n| format!("`{n}`")).collect();
        let (first, more) = (&lines[members[0]], members.len() - 1);
        out.push(format!(
            "{first} (and {more} more like it: {}, ...)",
            listed.join(", ")
        ));
    }
    out
}
