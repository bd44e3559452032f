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

pub mod cc;
pub mod check;
pub mod config_db;
mod config_db_buffers;
/// `rocesim config --export`: a switch's effective configuration as SONiC config_db.json.
pub mod config_db_export;
mod config_db_tables;
#[cfg(test)]
mod config_db_tests;
pub mod declare;
pub mod error;
pub mod faults;
pub mod flows;
pub mod irn;
pub mod isolation;
pub mod leaf;
pub mod lists;
pub mod memory;
pub mod nic;
pub mod nic_cache;
pub mod overlay;
pub mod overrides;
pub mod pingmesh;
pub mod scenario;
pub mod schema;
pub mod sim;
pub mod suggest;
pub mod switch;
pub mod tcp;
pub mod topo;
pub mod workload;
#[cfg(test)]
mod workload_tests;

use std::path::Path;

pub use error::{ConfigError, ConfigErrors};
pub use scenario::{OutputParams, Scenario, SimParams, TableFormat};

use crate::fabric;
use check::Ctx;
use declare::Leaf;
use lists::Tables;

/// The declared tables, by section (for the schema and the docs).
pub mod sections {
    pub use super::cc::{Dcqcn, Dctcp, Hpcc, Rcm, Timely};
    pub use super::faults::KINDS as FAULT_KINDS;
    pub use super::flows::Flow;
    pub use super::irn::Irn;
    pub use super::isolation::Isolation;
    pub use super::nic::{Nic, Rx};
    pub use super::nic_cache::Cache;
    pub use super::sim::{Output, Sim};
    pub use super::switch::{Ecn, Lossless, Lossy, Switch, Watchdog};
    pub use super::tcp::Tcp;
    pub use super::topo::KINDS as TOPOLOGY_KINDS;
    pub use super::workload::KINDS as WORKLOAD_KINDS;
    pub use super::ScenarioFile;
}

crate::table! {
    /// A scenario file. Only `[sim]` (with `duration`) and `[topology]` are required;
    /// everything else has defaults.
    pub struct ScenarioFile {
        /// Run control. Required.
        sim: sim::Sim,
        /// The network: explicit nodes and links, or a generated kind. Required.
        topology: topo::TopologyV,
        /// Defaults for every switch, with role and name overrides. Default: see `[switch]`.
        switch: switch::Switch,
        /// Defaults for every host NIC, with per-host overrides. Default: see `[nic]`.
        nic: nic::Nic,
        /// TCP flows' parameters. Default: see `[tcp]`.
        tcp: tcp::Tcp,
        /// Explicit flows. Default: none.
        flow: Tables<flows::FlowItems>,
        /// Generated traffic. Default: none.
        workload: Tables<workload::WorkloadItems>,
        /// Faults. Default: none.
        fault: Tables<faults::FaultItems>,
        /// What to write and where. Default: see `[output]`.
        output: sim::Output,
    }
}

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

/// The TOML tree of `text` with `overrides` applied; `None` after a syntax error.
fn parse_text(ctx: &mut Ctx, text: &str, overrides: &[String]) -> Option<toml::Table> {
    let mut root: toml::Table = match text.parse::<toml::Table>() {
        Ok(t) => t,
        Err(e) => {
            let msg = e.message().trim().replace('\n', "; ");
            let message = match e.span() {
                Some(span) => {
                    let (line, col) = line_col(text, span.start);
                    format!("TOML syntax error at line {line}, column {col}: {msg}")
                }
                None => format!("TOML syntax error: {msg}"),
            };
            ctx.err("", message);
            return None;
        }
    };
    for o in overrides {
        if let Err(e) = overrides::apply(&mut root, o) {
            ctx.err("--set", e);
        }
    }
    Some(root)
}

/// Check every section of `file` (section by section, so that every error is recorded) and
/// assemble the scenario named `name`.
fn check(ctx: &mut Ctx, file: &ScenarioFile, name: String, base_dir: &Path) -> Option<Scenario> {
    // A section that is given but is not a table was reported as such, not as missing.
    let sim_t = ctx.get(&file.sim);
    let sim = (sim_t.is_some() || !file.sim.given()).then(|| sim::sim(ctx, sim_t.as_ref()));
    let sim = sim.flatten();
    let topo_v = ctx.get(&file.topology);
    let topology = (topo_v.is_some() || !file.topology.given())
        .then(|| topo::parse(ctx, topo_v.as_ref()))
        .flatten();
    let sw_table = ctx.get(&file.switch).unwrap_or_default();
    let sw_defaults = fabric::params::SwitchParams::default();
    let sw_base = overlay::base(ctx, &sw_table, file.switch.raw.as_ref(), sw_defaults);
    let nic_table = ctx.get(&file.nic).unwrap_or_default();
    let nic_raw = file.nic.raw.as_ref();
    let nics = nic::resolve(ctx, &nic_table, nic_raw, &sw_base.0, topology.as_ref());
    let max_frame = nics.max_frame;
    let mut switches = switch::resolve(ctx, &sw_table, &sw_base, topology.as_ref(), max_frame);
    let ecmp_hash = topo::ecmp_hash(ctx, topo_v.as_ref());
    for s in switches.iter_mut().flatten() {
        s.ecmp_hash = ecmp_hash;
    }
    let duration = sim.as_ref().map(|s| s.duration);
    let tcp_t = ctx.get(&file.tcp).unwrap_or_default();
    let tcp = tcp::resolve(ctx, &tcp_t);
    let env = flows::Env {
        tcp_cc: tcp.cc,
        hosts: topology.as_ref().map(flows::Hosts::new),
        nics: nics.per_host.as_deref(),
        base_dir,
        topology: topology.as_ref(),
        duration,
        seed: sim.as_ref().map_or(1, |s| s.seed),
        ecmp_hash,
    };
    let (flow_t, workload_t) = (ctx.get(&file.flow), ctx.get(&file.workload));
    let flows = flows::parse(
        ctx,
        &flow_t.unwrap_or_default(),
        &workload_t.unwrap_or_default(),
        &env,
    );
    let fault_t = ctx.get(&file.fault).unwrap_or_default();
    let faults = faults::parse(ctx, &fault_t, topology.as_ref(), duration);
    let output_t = ctx.get(&file.output).unwrap_or_default();
    let output = sim::output(ctx, &output_t, &name);
    let (flows, streams) = flows.unzip();
    let scenario = Scenario {
        name,
        sim: sim?,
        topology: topology?,
        switches: switches?,
        nics: nics.per_host?,
        flows: flows?,
        streams: streams?,
        faults: faults?,
        output: output?,
        tcp,
    };
    memory::check(ctx, &scenario);
    Some(scenario)
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
    ctx.base_dir = base_dir.to_path_buf();
    let name = Path::new(file_name).file_stem().map_or_else(
        || "scenario".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let scenario = parse_text(&mut ctx, text, overrides)
        .and_then(|root| ScenarioFile::read(&mut ctx, &toml::Value::Table(root), ""))
        .and_then(|file| check(&mut ctx, &file, name, base_dir));
    match scenario {
        Some(s) if ctx.errors.is_empty() => Ok(s),
        _ => {
            if ctx.errors.is_empty() {
                // Every None above comes with an error; this is a guard, not an expected path.
                ctx.err("", "the scenario is incomplete");
            }
            Err(ConfigErrors(ctx.errors))
        }
    }
}
