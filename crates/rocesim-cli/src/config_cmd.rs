//! `rocesim config SCENARIO --export DIR`: each switch's effective configuration as a SONiC
//! `config_db.json` (`DIR/<switch>/config_db.json`), readable back with `switch.config_db`.

use std::path::Path;
use std::process::ExitCode;

use rocesim::config::config_db_export::export_text;
use rocesim::topology::NodeRef;

/// Write every switch's file; exit 2 on a bad scenario, 1 when a file cannot be written.
pub fn config(path: &Path, set: &[String], dir: &Path) -> ExitCode {
    let sc = match super::load(path, set) {
        Ok(sc) => sc,
        Err(code) => return code,
    };
    for (s, p) in sc.switches.iter().enumerate() {
        let me = NodeRef::Switch(s as u32);
        let ports: usize = (sc.topology.links.iter())
            .map(|l| (l.a == me) as usize + (l.b == me) as usize)
            .sum();
        let name = &sc.topology.switches[s].name;
        let (text, notes) = export_text(p, ports);
        for n in notes {
            eprintln!("note: switch `{name}`: {n}");
        }
        let out = dir.join(name).join("config_db.json");
        let written =
            std::fs::create_dir_all(dir.join(name)).and_then(|_| std::fs::write(&out, text));
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", out.display());
            return ExitCode::from(1);
        }
        println!("{}", out.display());
    }
    ExitCode::SUCCESS
}
