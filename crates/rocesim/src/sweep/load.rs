//! Loading the scenario of every run before anything runs: the base must be valid on its own,
//! and a swept key the scenario does not know is an error of the sweep file, not of its runs.

use rayon::prelude::*;

use super::spec::Sweep;
use super::Runner;
use crate::config::{self, ConfigError, ConfigErrors, Scenario};

/// The scenario of one run: loaded with the run's overrides, or the errors of loading it (a bad
/// value fails that run only).
pub type Loaded = Result<Scenario, ConfigErrors>;

/// Checks that the base scenario loads without overrides. On failure, the errors are those of
/// the sweep file: a first error on `base`, then the base scenario's own errors.
pub fn check_base(sweep: &Sweep) -> Result<(), Vec<ConfigError>> {
    let Err(errs) = config::load(&sweep.base, &[]) else {
        return Ok(());
    };
    let mut list = vec![ConfigError {
        file: sweep.file.clone(),
        key: "base".into(),
        message: format!("the base scenario `{}` has errors:", sweep.base.display()),
    }];
    list.extend(errs.0);
    Err(list)
}

impl Runner {
    /// Loads every run's scenario (the base with the run's overrides), in parallel on the
    /// runner's threads. Fails, with one error per key, when a swept key is not a scenario key.
    pub fn load(&self, sweep: &Sweep) -> Result<Vec<Loaded>, Vec<ConfigError>> {
        let overrides = sweep.overrides();
        let loaded: Vec<Loaded> = self.pool.install(|| {
            overrides
                .par_iter()
                .map(|o| config::load(&sweep.base, o))
                .collect()
        });
        let errs = unknown_keys(sweep, &loaded);
        if errs.is_empty() {
            Ok(loaded)
        } else {
            Err(errs)
        }
    }
}

/// One error per swept key that some run's loading reported as unknown.
fn unknown_keys(sweep: &Sweep, loaded: &[Loaded]) -> Vec<ConfigError> {
    let mut errs = Vec::new();
    for k in &sweep.keys {
        let unknown = loaded.iter().find_map(|r| {
            r.as_ref().err().and_then(|es| {
                es.0.iter()
                    .find(|e| e.message.starts_with("unknown key") && key_prefix(&e.key, k))
            })
        });
        if let Some(e) = unknown {
            errs.push(ConfigError {
                file: sweep.file.clone(),
                key: sweep.origin.get(k).cloned().unwrap_or_else(|| k.clone()),
                message: format!("not a scenario key: {}", e.message),
            });
        }
    }
    errs
}

/// True when `key` is `swept` or a leading part of it (`foo` of `foo.bar`).
pub(crate) fn key_prefix(key: &str, swept: &str) -> bool {
    swept == key
        || swept
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}
