use crate::config::load_str;
use crate::fabric::isolation_params::{Cfq, CipReliability, Identify};
use crate::units::Time;

const BASE: &str = r#"
[sim]
duration = "1ms"
[topology]
hosts = ["A", "B"]
switches = ["S"]
links = [["A", "S"], ["B", "S"]]
link = { rate = "100Gbps", delay = "1us" }
[[flow]]
src = "A"
dst = "B"
size = "1MB"
"#;

fn errors(extra: &str) -> Vec<(String, String)> {
    let text = format!("{BASE}{extra}");
    match load_str(&text, "t.toml", std::path::Path::new("."), &[]) {
        Ok(_) => Vec::new(),
        Err(e) => e.0.into_iter().map(|e| (e.key, e.message)).collect(),
    }
}

#[test]
fn a_valid_table_resolves_and_makes_the_cfq_priority_lossless() {
    let text = format!(
        "{BASE}[switch.isolation]\nidentify = \"share\"\nshare_threshold = 0.3\n\
         table_size = 64\ntable_age = \"2ms\"\ncip_reliability = \"ack\"\n\
         release_time = \"50us\"\ncfq = {{ 3 = {{ priority = 2, queue = 1 }} }}\n\
         [switch.tc_to_queue]\n1 = 4\n"
    );
    let sc = load_str(&text, "t.toml", std::path::Path::new("."), &[]).unwrap();
    let p = &sc.switches[0];
    let iso = p.isolation.unwrap();
    assert_eq!(iso.identify, Identify::Share(0.3));
    assert_eq!(iso.table_size, 64);
    assert_eq!(iso.table_age, Time::from_ms(2));
    assert_eq!(iso.cip, CipReliability::Ack);
    assert_eq!(iso.release_time, Time::from_us(50));
    assert_eq!(
        iso.cfq[3],
        Some(Cfq {
            priority: 2,
            queue: 1
        })
    );
    // The CFQ's priority is lossless (its class is) and maps to the CFQ's queue.
    assert_eq!(p.pfc_enable, (1 << 3) | (1 << 2));
    assert_eq!(p.tc_to_queue[2], 1);
}

#[test]
fn off_unless_a_table_is_given() {
    let sc = load_str(BASE, "t.toml", std::path::Path::new("."), &[]).unwrap();
    assert!(sc.switches[0].isolation.is_none());
    let e = errors("[switch.isolation]\nenabled = false\n");
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn bad_input_names_every_key_at_once() {
    // DSCP 26 → TC 3 (lossless) and DSCP 48 → TC 6 by default; TC 0 takes the unmapped
    // DSCPs and, through tc_to_queue's identity default, queue 0.
    let e = errors(
        "[switch]\npfc_enable = [3]\n[switch.isolation]\ntable_size = 0\n\
         cfq = { 3 = { priority = 6, queue = 0 }, 5 = { priority = 1, queue = 1 } }\n",
    );
    let has = |key: &str, words: &str| e.iter().any(|(k, m)| k == key && m.contains(words));
    assert!(
        has("switch.isolation.table_size", "at least one entry"),
        "{e:?}"
    );
    assert!(has("switch.isolation.cfq.3.priority", "DSCP 48"), "{e:?}");
    assert!(
        has("switch.isolation.cfq.3.queue", "identity default"),
        "{e:?}"
    );
    assert!(has("switch.isolation.cfq.5", "not lossless"), "{e:?}");
    assert_eq!(e.len(), 4, "{e:?}");
}

#[test]
fn a_queue_reached_through_an_explicit_tc_to_queue_is_refused() {
    let e = errors(
        "[switch]\ntc_to_queue = { 0 = 2 }\n[switch.isolation]\n\
         cfq = { 3 = { priority = 2, queue = 2 } }\n",
    );
    assert_eq!(
        e,
        [(
            "switch.isolation.cfq.3.queue".to_string(),
            "queue 2 is used by TC 0".to_string()
        )]
    );
}
