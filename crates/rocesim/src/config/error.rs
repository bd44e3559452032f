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

impl<'a> IntoIterator for &'a ConfigErrors {
    type Item = &'a ConfigError;
    type IntoIter = std::slice::Iter<'a, ConfigError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_one_per_line() {
        let e = ConfigErrors(vec![
            ConfigError {
                file: "parking-lot.toml".into(),
                key: "switch.lossless.xon".into(),
                message: "XON (200KB) is above XOFF (180KB)".into(),
            },
            ConfigError {
                file: "p.toml".into(),
                key: String::new(),
                message: "bad".into(),
            },
        ]);
        assert_eq!(
            e.to_string(),
            "parking-lot.toml: switch.lossless.xon: XON (200KB) is above XOFF (180KB)\np.toml: bad"
        );
        let _: &dyn std::error::Error = &e;
    }
}
