//! `switch.config_db`: SONiC's own rendered samples import with warnings only; the
//! LinkedIn-style file gives the classes the seed describes; bad files name the JSON path.

use crate::config::{load_str, ConfigErrors, Scenario};
use crate::fabric::params::{BufferMode, Headroom, QueueSched};
use crate::units::Bytes;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(switch: &str) -> Result<Scenario, ConfigErrors> {
    let text = format!(
        "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n\
         link = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[switch]\n{switch}\n"
    );
    load_str(&text, "t.toml", &repo(), &[])
}

#[test]
fn the_linkedin_file_gives_the_seed_classes() {
    let sc = load("config_db = \"scenarios/sonic/config_db.json\"").unwrap();
    let p = &sc.switches[0];
    assert_eq!(
        (p.dscp_to_tc[26], p.dscp_to_tc[48], p.dscp_to_tc[0]),
        (3, 6, 0)
    );
    assert_eq!(p.pfc_enable, 1 << 3);
    assert_eq!(p.scheduler[0], QueueSched::Dwrr(30));
    assert_eq!(p.scheduler[3], QueueSched::Dwrr(80));
    assert_eq!(p.scheduler[6], QueueSched::Strict);
    let e = p.ecn.unwrap();
    assert_eq!(
        (e.queues, e.kmin, e.kmax, e.pmax),
        (1 << 3, Bytes(20_480), Bytes(204_800), 0.05)
    );
    assert_eq!(p.buffer_size, Bytes(12_000_000));
    // No lossless BUFFER_PG entry: the headroom is derived from speed and cable.
    assert_eq!(p.lossless.headroom, Headroom::Auto);
    assert_eq!(p.port_cable_m, vec![5.0; 9]);
    let w = p.pfc_watchdog.unwrap();
    assert_eq!(w.detection_time, crate::units::Time::from_ms(200));
    assert_eq!(w.poll_interval, crate::units::Time::from_ms(100));
}

#[test]
fn sonic_rendered_samples_import_with_warnings_only() {
    for (qos, buf) in [
        (
            "qos-mellanox4600c-c64.json",
            "buffers-mellanox4600c-t1.json",
        ),
        ("qos-dell6100.json", "buffers-dell6100.json"),
    ] {
        let key =
            format!("config_db = [\"tests/fixtures/sonic/{qos}\", \"tests/fixtures/sonic/{buf}\"]");
        let sc = load(&key).unwrap_or_else(|e| panic!("{qos}: {e:?}"));
        let p = &sc.switches[0];
        assert_eq!(p.pfc_enable, 1 << 3 | 1 << 4, "{qos}");
        assert_eq!(p.dscp_to_tc[3], 3, "{qos}");
        assert_eq!(p.scheduler[3], QueueSched::Dwrr(15), "{qos}");
        assert!(p.ecn.is_some_and(|e| e.queues == 0b11000), "{qos}");
        assert!(!p.config_warnings.is_empty(), "{qos}");
        assert!(p
            .config_warnings
            .iter()
            .any(|w| w.contains("BUFFER_POOL|ingress_lossless_pool.xoff")));
    }
    // Dell 6100: 10,875,072 B ingress lossless pool, dynamic mode; the Mellanox 4600C samples
    // leave lossless PGs to the buffer manager (auto headroom) and its ports are 300 m or 5 m.
    let sc = load("config_db = [\"tests/fixtures/sonic/qos-dell6100.json\", \"tests/fixtures/sonic/buffers-dell6100.json\"]").unwrap();
    assert_eq!(sc.switches[0].buffer_size, Bytes(10_875_072));
    let sc = load("config_db = [\"tests/fixtures/sonic/qos-mellanox4600c-c64.json\", \"tests/fixtures/sonic/buffers-mellanox4600c-t1.json\"]").unwrap();
    let p = &sc.switches[0];
    assert_eq!(p.lossless.headroom, Headroom::Auto);
    assert_eq!(p.buffer_mode, BufferMode::Dynamic);
    assert_eq!(&p.port_cable_m[..3], &[300.0, 300.0, 5.0]);
}

fn errors(switch: &str, json: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("db.json"), json).unwrap();
    let text = format!(
        "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 2\n\
         link = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[switch]\nconfig_db = \"db.json\"\n{switch}\n"
    );
    let e = load_str(&text, "t.toml", dir.path(), &[]).unwrap_err();
    e.0.iter().map(ToString::to_string).collect()
}

#[test]
fn bad_files_name_the_json_path_and_the_key() {
    let e = errors("", "{ not json");
    assert!(
        e[0].contains("switch.config_db: db.json: not JSON"),
        "{e:?}"
    );
    let e = errors(
        "",
        r#"{"BUFFER_PG": {"Ethernet0|3": {"profile": "nope"}}, "BUFFER_PROFILE": {}}"#,
    );
    assert!(e.iter().any(|e| e.contains("switch.config_db: db.json: BUFFER_PG|Ethernet0|3.profile: profile `nope` does not exist")), "{e:?}");
    let e = errors(
        "dscp_to_tc = { 26 = 3 }",
        r#"{"DSCP_TO_TC_MAP": {"M": {"26": "3"}}, "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "M"}}}"#,
    );
    assert!(
        e.iter()
            .any(|e| e.contains("switch.dscp_to_tc: conflicts with DSCP_TO_TC_MAP")),
        "{e:?}"
    );
    let e = errors(
        "",
        r#"{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,9"}}}"#,
    );
    assert!(
        e.iter()
            .any(|e| e.contains("PORT_QOS_MAP|Ethernet0.pfc_enable")),
        "{e:?}"
    );
}

/// The parameters a config_db carries, with the import's bookkeeping cleared and cable
/// lengths compared per port.
fn comparable(
    p: &crate::fabric::params::SwitchParams,
    ports: usize,
) -> crate::fabric::params::SwitchParams {
    let mut q = p.clone();
    q.port_cable_m = (0..ports).map(|i| p.cable_of(i)).collect();
    q.port_scheduler = (0..ports).map(|i| *p.scheduler_of(i)).collect();
    q.port_dscp_to_tc = (0..ports).map(|i| *p.dscp_to_tc_of(i)).collect();
    q.port_ecn_queues = (0..ports).map(|i| p.ecn_queues_of(i)).collect();
    q.config_warnings.clear();
    q.config_ports.clear();
    q
}

/// Export a switch, import the file in a fresh scenario, and compare.
fn round_trip(switch: &str) {
    let sc = load(switch).unwrap();
    let p = &sc.switches[0];
    let (v, notes) = super::config_db_export::export(p, 3);
    assert!(notes.is_empty(), "{notes:?}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("out.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let text = "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n\
         link = { rate = \"100Gbps\", delay = \"1us\" }\n[switch]\nconfig_db = \"out.json\"\n";
    let back = load_str(text, "t.toml", dir.path(), &[]).unwrap();
    let b = &back.switches[0];
    assert_eq!(comparable(b, 3), comparable(p, 3), "{switch}");
    assert!(b.config_warnings.is_empty(), "{:?}", b.config_warnings);
}

#[test]
fn export_then_import_gives_the_same_switch() {
    round_trip("");
    round_trip("config_db = \"scenarios/sonic/config_db.json\"");
    round_trip(
        "dscp_to_tc = { 26 = 4, 48 = 7, 10 = 1 }\ntc_to_queue = { 4 = 5 }\npfc_enable = [4]\n\
         buffer_mode = \"static\"\nbuffer_size = \"9MB\"\ncable_length = \"40m\"\n\
         lossless = { xoff = \"100KB\", xon = \"80KB\", headroom = \"60KB\", reserved = \"2KB\" }\n\
         lossy = { limit = \"500KB\", reserved = \"1KB\" }\n\
         ecn = { queues = [5], kmin = \"10KB\", kmax = \"90KB\", pmax = 0.2 }\n\
         scheduler = { 7 = \"strict\", 0 = { dwrr = 3 } }\n\
         pfc_watchdog = { detection_time = \"50ms\", restoration_time = \"300ms\", poll_interval = \"10ms\", action = \"forward\" }",
    );
}

#[test]
fn port_names_place_the_files_ports() {
    // The file has cables for Ethernet0 (5 m), Ethernet4 (40 m) and Ethernet8 (300 m).
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "40m", "Ethernet8": "300m"}}}"#;
    std::fs::write(dir.path().join("db.json"), json).unwrap();
    let load = |names: &str| {
        let text = format!(
            "[sim]\nduration = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\n\
             link = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[switch]\nconfig_db = \"db.json\"\n{names}\n"
        );
        load_str(&text, "t.toml", dir.path(), &[])
    };
    // Default: sorted by N, in local port order.
    let p = load("").unwrap().switches[0].clone();
    assert_eq!(p.port_cable_m, vec![5.0, 40.0, 300.0]);
    assert_eq!(p.config_ports, ["Ethernet0", "Ethernet4", "Ethernet8"]);
    // Explicit: port 0 is Ethernet8, port 1 Ethernet0, port 2 Ethernet12 (not in the file:
    // the default 5 m); Ethernet4 is not a port of the switch, a warning.
    let sc = load("port_names = [\"Ethernet8\", \"Ethernet0\", \"Ethernet12\"]").unwrap();
    let p = &sc.switches[0];
    assert_eq!(p.port_cable_m[..2], [300.0, 5.0]);
    assert_eq!(p.cable_of(2), 5.0);
    assert_eq!(p.config_ports, ["Ethernet8", "Ethernet0", "Ethernet12"]);
    assert!(
        p.config_warnings
            .iter()
            .any(|w| w.contains("port `Ethernet4` is not in switch.port_names")),
        "{:?}",
        p.config_warnings
    );
    let e = load("port_names = [\"Ethernet0\", \"Ethernet0\"]").unwrap_err();
    assert!(
        e.0.iter().any(|e| e
            .to_string()
            .contains("switch.port_names[1]: port name `Ethernet0` appears twice")),
        "{e:?}"
    );
}

/// The LinkedIn file with Ethernet4 (port 1) changed: queue 0 strict instead of DWRR 30,
/// and queue 3 without its WRED profile; and Ethernet8 (port 2) with a DSCP map that puts
/// DSCP 26 in TC 0. Written to `dir`; returns the `config_db` key.
fn linkedin_with_a_different_port(dir: &Path) -> String {
    let text = std::fs::read_to_string(repo().join("scenarios/sonic/config_db.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["QUEUE"]["Ethernet4|0"]["scheduler"] = "scheduler.2".into();
    // Ethernet8 classifies DSCP 26 as lossy TC 0 (the classic mismatch), by its own map.
    let mut lossy = v["DSCP_TO_TC_MAP"]["ROCE"].clone();
    lossy["26"] = "0".into();
    v["DSCP_TO_TC_MAP"]["ROCE_LOSSY"] = lossy;
    v["PORT_QOS_MAP"]["Ethernet8"]["dscp_to_tc_map"] = "ROCE_LOSSY".into();
    let q3 = v["QUEUE"]["Ethernet4|3"].as_object_mut().unwrap();
    q3.remove("wred_profile");
    let f = dir.join("per-port.json");
    std::fs::write(&f, v.to_string()).unwrap();
    format!("config_db = {:?}", f.to_str().unwrap())
}

#[test]
fn ports_keep_their_own_dscp_maps_schedulers_and_marking_queues() {
    let dir = tempfile::tempdir().unwrap();
    let key = linkedin_with_a_different_port(dir.path());
    let sc = load(&key).unwrap();
    let p = &sc.switches[0];
    // Port 0 (Ethernet0) and port 2 (Ethernet8) as the file's stock ports; port 1 its own.
    for i in [0, 2] {
        let s = p.scheduler_of(i);
        assert_eq!(
            (s[0], s[3], s[6]),
            (
                QueueSched::Dwrr(30),
                QueueSched::Dwrr(80),
                QueueSched::Strict
            )
        );
        assert_eq!(p.ecn_queues_of(i), 1 << 3);
    }
    let s = p.scheduler_of(1);
    assert_eq!((s[0], s[3]), (QueueSched::Strict, QueueSched::Dwrr(80)));
    assert_eq!(p.ecn_queues_of(1), 0);
    assert_eq!(
        [0, 1, 2].map(|i| p.dscp_to_tc_of(i)[26]),
        [3, 3, 0],
        "Ethernet8 maps DSCP 26 to TC 0"
    );
    assert_eq!([0, 1, 2].map(|i| p.dscp_to_tc_of(i)[48]), [6, 6, 6]);
    assert!(
        !p.config_warnings
            .iter()
            .any(|w| w.contains("one setting per switch")),
        "{:?}",
        p.config_warnings
    );
    // The export writes each port's own entries, and they import back the same.
    round_trip(&key);
}
