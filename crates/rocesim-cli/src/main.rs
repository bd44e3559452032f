//! `rocesim`: run RoCEv2 datacenter network scenarios from the command line.

#![warn(clippy::too_many_lines)]

mod bench;
mod config_cmd;
mod headroom;
mod progress;
mod sweep;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::{Parser, Subcommand};
use rocesim::config;
use rocesim::Sim;

/// rocesim: a fast packet-level simulator of RDMA (RoCEv2) datacenter networks.
#[derive(Parser)]
#[command(name = "rocesim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario and write its results.
    Run {
        /// The scenario file (TOML; see docs/scenario.md).
        scenario: PathBuf,
        /// Override a key: --set nic.cc=dcqcn --set sim.duration=20ms (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Result directory (default: output.dir of the scenario).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// No progress bar and no table on the terminal.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Check a scenario without running it: every error (exit code 2), then the configuration
    /// findings (DSCP/TC/queue mismatches, PFC at one end, short headroom, ECN after PFC,
    /// ...; exit code 1); 0 when clean.
    Lint {
        /// The scenario file.
        scenario: PathBuf,
        /// Overrides, as for `run`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Run benchmark scenarios (default: every benches/*.toml) and print wall time, peak
    /// memory, events/s and packet-hops/s (medians).
    Bench {
        /// Scenario files; default: benches/*.toml.
        scenarios: Vec<PathBuf>,
        /// Runs per scenario.
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Instead of scenarios: time this sweep file run one at a time (`--jobs 1`) and on
        /// all cores, and print the ratio of the two wall times.
        #[arg(long, value_name = "SWEEP", conflicts_with = "scenarios")]
        sweep: Option<PathBuf>,
    },
    /// Run a base scenario many times with different overrides (a grid or a list of runs), in
    /// parallel, and write one table of the runs (see docs/sweeps.md).
    Sweep {
        /// The sweep file (TOML: `base`, `[grid]` or `[[run]]`, optional `seeds`, `repeat`).
        sweep: PathBuf,
        /// Runs at the same time (default: the number of cores).
        #[arg(long, short, value_name = "N")]
        jobs: Option<usize>,
        /// Result directory: DIR/sweep.csv, DIR/sweep.json, DIR/run-N/ for run N (default:
        /// results/sweeps/STEM, STEM the sweep file's name without its extension).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// No progress bar and no table on the terminal.
        #[arg(long, short)]
        quiet: bool,
        /// Do not run again the runs whose directory already holds a complete summary.json
        /// (their rows are read back from it).
        #[arg(long)]
        resume: bool,
    },
    /// Print the JSON Schema of scenario files (or, with --markdown, the key tables of
    /// docs/scenario.md; with --update-doc FILE, rewrite FILE's generated key tables).
    Schema {
        /// Print the Markdown key tables instead.
        #[arg(long)]
        markdown: bool,
        /// Regenerate the key tables between `<!-- keys:NAME -->` and `<!-- /keys -->`.
        #[arg(long, value_name = "FILE", conflicts_with = "markdown")]
        update_doc: Option<PathBuf>,
    },
    /// Size a lossless priority group's headroom (xoff), xon and PG size from the 802.1Qbb /
    /// 802.3 delay budget, printing each term (the same code as `headroom = "auto"`).
    Headroom {
        /// Port speed, e.g. 100G or 25Gbps.
        #[arg(long)]
        speed: String,
        /// Cable length, e.g. 40m.
        #[arg(long, default_value = "5m")]
        cable: String,
        /// Payload MTU of the RoCE frames (nic.mtu).
        #[arg(long, default_value_t = 1024)]
        mtu: u32,
        /// Peer (NIC) pause response time, e.g. 1us (default: the 802.3 Annex 31B maximum).
        #[arg(long, value_name = "TIME")]
        nic_response: Option<String>,
        /// Header bytes per data frame on the wire, preamble and gap included (nic.frame_overhead).
        #[arg(long, default_value_t = 82)]
        overhead: u32,
    },
    /// Write each switch's effective configuration as a SONiC config_db.json
    /// (DIR/SWITCH/config_db.json, SWITCH each switch's name; `switch.config_db` reads
    /// it back).
    Config {
        /// The scenario file.
        scenario: PathBuf,
        /// Directory to write to.
        #[arg(long, value_name = "DIR")]
        export: PathBuf,
        /// Overrides, as for `run`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Print the topology a scenario builds: nodes, links, and per-port headroom.
    Topo {
        /// The scenario file.
        scenario: PathBuf,
        /// Overrides, as for `run`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run {
            scenario,
            set,
            out,
            quiet,
        } => run(&scenario, &set, out, quiet),
        Cmd::Bench {
            sweep: Some(sweep),
            repeat,
            ..
        } => bench::bench_sweep(&sweep, repeat),
        Cmd::Bench {
            scenarios, repeat, ..
        } => bench::bench(scenarios, repeat),
        Cmd::Sweep {
            sweep,
            jobs,
            out,
            quiet,
            resume,
        } => sweep::sweep(&sweep, jobs, out, quiet, resume),
        Cmd::Schema {
            markdown,
            update_doc,
        } => schema(markdown, update_doc.as_deref()),
        Cmd::Lint { scenario, set } => lint(&scenario, &set),
        Cmd::Headroom {
            speed,
            cable,
            mtu,
            nic_response,
            overhead,
        } => headroom::headroom(&headroom::Args {
            speed,
            cable,
            mtu,
            nic_response,
            overhead,
        }),
        Cmd::Config {
            scenario,
            export,
            set,
        } => config_cmd::config(&scenario, &set, &export),
        Cmd::Topo { scenario, set } => match load(&scenario, &set) {
            Ok(sc) => match Sim::new(sc) {
                Ok(sim) => {
                    print!("{}: {}", scenario.display(), sim.describe());
                    ExitCode::SUCCESS
                }
                Err(e) => bad_scenario(&scenario, &e.0),
            },
            Err(code) => code,
        },
    }
}

/// `rocesim schema`: the JSON Schema, the Markdown key tables, or a doc file regenerated.
fn schema(markdown: bool, update_doc: Option<&Path>) -> ExitCode {
    use config::schema;
    if let Some(path) = update_doc {
        let doc = match std::fs::read_to_string(path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(1);
            }
        };
        let written = schema::update_doc(&doc).and_then(|new| {
            std::fs::write(path, new).map_err(|e| format!("cannot write {}: {e}", path.display()))
        });
        return match written {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        };
    }
    if markdown {
        print!("{}", schema::all_markdown());
    } else {
        println!("{}", schema::json_schema_text());
    }
    ExitCode::SUCCESS
}

fn load(path: &Path, set: &[String]) -> Result<config::Scenario, ExitCode> {
    config::load(path, set).map_err(|errs| {
        let lines: Vec<String> = errs.0.iter().map(ToString::to_string).collect();
        for e in config::error::collapse(&lines) {
            eprintln!("error: {e}");
        }
        eprintln!(
            "{}: {} error(s); nothing was run",
            path.display(),
            errs.0.len()
        );
        ExitCode::from(2)
    })
}

fn bad_scenario(path: &Path, errors: &[String]) -> ExitCode {
    for e in config::error::collapse(errors) {
        eprintln!("error: {}: {e}", path.display());
    }
    eprintln!(
        "{}: {} error(s); nothing was run",
        path.display(),
        errors.len()
    );
    ExitCode::from(2)
}

/// `rocesim lint`: 2 when the scenario is invalid, 1 with configuration findings, 0 clean.
fn lint(path: &Path, set: &[String]) -> ExitCode {
    let sc = match load(path, set) {
        Ok(sc) => sc,
        Err(code) => return code,
    };
    let findings = rocesim::lint::lint(&sc);
    let warnings = rocesim::lint::import_warnings(&sc);
    if let Err(e) = Sim::new(sc) {
        return bad_scenario(path, &e.0);
    }
    for w in rocesim::lint::collapse(&warnings) {
        println!("{}: warning: {w}", path.display());
    }
    for f in rocesim::lint::collapse(&findings) {
        println!("{}: {f}", path.display());
    }
    if findings.is_empty() {
        println!("{}: ok", path.display());
        ExitCode::SUCCESS
    } else {
        println!("{}: {} finding(s)", path.display(), findings.len());
        ExitCode::from(1)
    }
}

fn run(path: &Path, set: &[String], out: Option<PathBuf>, quiet: bool) -> ExitCode {
    let sc = match load(path, set) {
        Ok(sc) => sc,
        Err(code) => return code,
    };
    let mut findings = rocesim::lint::import_warnings(&sc);
    findings.extend(rocesim::lint::lint(&sc));
    for f in rocesim::lint::collapse(&findings) {
        eprintln!("warning: {}: {f}", path.display());
    }
    let key = if out.is_some() { "--out" } else { "output.dir" };
    let dir = out.unwrap_or_else(|| sc.output.dir.clone());
    let report = sc.output.report;
    let format = sc.output.format;
    if let Err(e) = rocesim::output::prepare_dir(&dir) {
        let msg = format!("{key}: cannot write results to {}: {e}", dir.display());
        return bad_scenario(path, &[msg]);
    }
    let sim = match Sim::new(sc) {
        Ok(s) => s,
        Err(e) => return bad_scenario(path, &e.0),
    };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C while results are written falls through to the default handler.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let mut bar = progress::Bar::new(quiet);
    let results = rocesim::run::run_sim(sim, |p, elapsed| {
        bar.update(p, elapsed);
        !stop.load(Ordering::Relaxed)
    });
    bar.finish();
    match rocesim::output::write_results(&results, &dir, report, format) {
        Ok(_) => {}
        Err(e) => {
            eprintln!("error: cannot write results to {}: {e}", dir.display());
            return ExitCode::from(1);
        }
    }
    if !quiet {
        print!("{}", rocesim::output::terminal_table(&results));
        println!("results: {}", dir.display());
    }
    if results.incomplete {
        let wall = results.stopped_by.as_deref() == Some("wall_limit");
        let why = if wall {
            "sim.wall_limit reached"
        } else {
            "interrupted"
        };
        eprintln!(
            "{why} at {} ns simulated: partial results written",
            results.sim_time_ns
        );
        return ExitCode::from(if wall { 3 } else { 130 });
    }
    ExitCode::SUCCESS
}
