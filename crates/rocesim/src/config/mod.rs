//! Scenario files: parse, check every rule, report all errors with file and key.
//!
//! [`load`] reads a TOML scenario (the user contract is `docs/scenario.md`), applies
//! `--set key=value` overrides, checks every section and returns a typed [`Scenario`] or
//! every problem found, each naming the file and the dotted key it is about:
//!
//! ```text
//! parking-lot.toml: switch.lossless.xon: XON (200KB) is above XOFF (180KB)
//! parking-lot.toml: topology.linkz: unknown key `topology.linkz`; did you mean `links`?
//! ```

pub mod cc_dcqcn_rcm;
pub mod cc_hpcc_timely_dctcp;
pub mod check;
pub mod error;
pub mod faults;
pub mod flows;
pub mod nic;
pub mod overrides;
pub mod scenario;
pub mod sim;
pub mod suggest;
pub mod switch;
pub mod topo;

use std::path::Path;

pub use error::{ConfigError, ConfigErrors};
pub use scenario::{OutputParams, Scenario, SimParams, TableFormat};

use check::Ctx;

/// Top-level sections of a scenario file.
pub const SECTIONS: &[&str] = &[
    "sim", "topology", "switch", "nic", "flow", "workload", "fault", "output",
];

/// Load the scenario file at `path`, applying `overrides` (`key=value`, as given to `--set`).
/// The scenario's name is the file stem; relative paths inside it (trace files) are relative
/// to the file's directory.
pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario, ConfigErrors> {
    let file_name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigErrors(vec![ConfigError {
            file: file_name.clone(),
            key: String::new(),
            message: format!("cannot read the scenario file: {e}"),
        }])
    })?;
    let base_dir = path.parent().unwrap_or(Path::new(""));
    load_str(&text, &file_name, base_dir, overrides)
}

/// Line and column (1-based) of byte offset `pos` in `text`.
fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Load a scenario from its text. `file_name` names it in errors and gives the scenario name
/// (its stem); `base_dir` is where relative paths in it are resolved.
pub fn load_str(
    text: &str,
    file_name: &str,
    base_dir: &Path,
    overrides: &[String],
) -> Result<Scenario, ConfigErrors> {
    let mut ctx = Ctx::new(file_name);
    let mut root: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            let e: toml::de::Error = e;
            let msg = e.message().trim().replace('\n', "; ");
            let message = match e.span() {
                Some(span) => {
                    let (line, col) = line_col(text, span.start);
                    format!("TOML syntax error at line {line}, column {col}: {msg}")
                }
                None => format!("TOML syntax error: {msg}"),
            };
            ctx.err("", message);
            return Err(ConfigErrors(ctx.errors));
        }
    };
    for o in overrides {
        if let Err(e) = overrides::apply(&mut root, o) {
            ctx.err("--set", e);
        }
    }
    let name = Path::new(file_name).file_stem().map_or_else(
        || "scenario".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );

    ctx.keys(&root, "", SECTIONS);
    let sim = sim::parse_sim(&mut ctx, &root);
    let topology = topo::parse(&mut ctx, &root);
    let layers = switch::parse_base(&mut ctx, &root);
    let nics = nic::parse(&mut ctx, &root, &layers.base, topology.as_ref());
    let max_frame = Some((nics.max_mtu as u64 + switch::FRAME_OVERHEAD, nics.max_mtu));
    let switches = switch::resolve(&mut ctx, &layers, topology.as_ref(), max_frame);
    let env = flows::Env {
        hosts: topology.as_ref().map(flows::Hosts::new),
        nics: nics.per_host.as_deref(),
        base_dir,
        topology: topology.as_ref(),
        duration: sim.as_ref().map(|s| s.duration),
    };
    let seed = sim.as_ref().map_or(1, |s| s.seed);
    let flows = flows::parse(&mut ctx, &root, &env, seed);
    let faults = faults::parse(
        &mut ctx,
        &root,
        topology.as_ref(),
        sim.as_ref().map(|s| s.duration),
    );
    let output = sim::parse_output(&mut ctx, &root, &name);

    match (
        sim,
        topology,
        switches,
        nics.per_host,
        flows,
        faults,
        output,
    ) {
        (
            Some(sim),
            Some(topology),
            Some(switches),
            Some(nics),
            Some(flows),
            Some(faults),
            Some(output),
        ) if ctx.errors.is_empty() => Ok(Scenario {
            name,
            sim,
            topology,
            switches,
            nics,
            flows,
            faults,
            output,
        }),
        _ => {
            if ctx.errors.is_empty() {
                // Every None above comes with an error; this is a guard, not an expected path.
                ctx.err("", "the scenario is incomplete");
            }
            Err(ConfigErrors(ctx.errors))
        }
    }
}

#[cfg(test)]
mod tests;
