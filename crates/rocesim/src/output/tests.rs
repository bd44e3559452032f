//! Tests of the whole output layer on a small hand-built run.

use std::fs;

use crate::monitor::{
    FlowResult, PauseInterval, PfcDir, PfcRecord, PortQueueRow, PortRow, QueueSample, RunResults,
    ThroughputSample,
};

use super::*;

fn flow(id: u32, name: &str, size: Option<u64>, slowdown: Option<f64>) -> FlowResult {
    let done = slowdown.is_some();
    FlowResult {
        flow_id: id,
        name: name.into(),
        src: "A".into(),
        dst: "R".into(),
        size_bytes: size,
        start_ns: 1000,
        end_ns: done.then_some(51_000),
        acked_ns: done.then_some(51_000),
        delivered_ns: done.then_some(49_000),
        fct_ns: done.then_some(50_000),
        ideal_fct_ns: done.then_some(25_000),
        slowdown,
        bytes_delivered: 1_000_000,
        goodput_gbps: 12.345_678_9,
        goodput_active_gbps: 13.5,
        retx_packets: 3,
        cnp_rx: 4,
        ecn_marked: 5,
        tx_bytes: 1_100_000,
        discarded_bytes: 60_000,
        dropped_bytes: 40_000,
        inflight_bytes: 0,
    }
}

/// The port rows of [`sample`]: one busy port of S1 and its peer.
fn sample_ports() -> Vec<PortRow> {
    vec![
        PortRow {
            node: "S1".into(),
            port: 3,
            peer: "S2".into(),
            prio: 3,
            rate_bps: 40_000_000_000,
            tx_bytes_window: 9_500,
            tx_packets: 10,
            tx_bytes: 10_820,
            rx_packets: 9,
            rx_bytes: 9_000,
            drops: 0,
            pause_tx: 2,
            pause_rx: 1,
            paused_ns: 1500,
        },
        PortRow {
            node: "S2".into(),
            port: 0,
            peer: "S1".into(),
            prio: 3,
            pause_tx: 1,
            pause_rx: 2,
            paused_ns: 500,
            ..PortRow::default()
        },
    ]
}

/// The PFC log of [`sample`]: one pause and its resume.
fn sample_pfc_log() -> Vec<PfcRecord> {
    vec![
        PfcRecord {
            time_ns: 1200,
            node: "S1".into(),
            port: 3,
            prio: 3,
            direction: PfcDir::Tx,
            quanta: 65535,
        },
        PfcRecord {
            time_ns: 2700,
            node: "S1".into(),
            port: 3,
            prio: 3,
            direction: PfcDir::Tx,
            quanta: 0,
        },
    ]
}

/// Ten completed flows with slowdowns 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 plus one long-lived flow.
fn sample() -> RunResults {
    let slow = [10.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0, 5.0];
    let mut flows: Vec<FlowResult> = slow
        .iter()
        .enumerate()
        .map(|(i, s)| {
            flow(
                i as u32 + 1,
                &format!("f{}", i + 1),
                Some(1000 << i),
                Some(*s),
            )
        })
        .collect();
    flows.insert(0, flow(0, "long, \"quoted\"", None, None));
    RunResults {
        scenario: "parking-lot".into(),
        seed: 7,
        sim_time_ns: 2_000_000,
        warmup_ns: 100_000,
        wall_s: 0.5,
        events: 1_000_000,
        packet_hops: 300_000,
        peak_memory_kb: 0,
        incomplete: false,
        stopped_by: None,
        flows: flows.into(),
        tcp: Vec::new(),
        ports: sample_ports(),
        port_queues: vec![PortQueueRow {
            node: "S1".into(),
            port: 3,
            peer: "S2".into(),
            queue: 5,
            ecn_marked: 4,
            max_queue_bytes: 65_000,
        }],
        pause_intervals: vec![PauseInterval {
            node: "S1".into(),
            port: 3,
            prio: 3,
            start_ns: 1200,
            duration_ns: 1500,
        }],
        pfc_log: sample_pfc_log(),
        pfc_log_truncated: 0,
        throughput: (1..=20)
            .flat_map(|k| {
                (0..3).map(move |f| ThroughputSample {
                    time_ns: k * 100_000,
                    flow_id: f,
                    gbps: 10.0 + f as f64 / 3.0,
                })
            })
            .collect(),
        queues: (0..50)
            .map(|k| QueueSample {
                time_ns: k * 10_000,
                node: "S1".into(),
                port: 3,
                queue: 3,
                bytes: k * 1000,
            })
            .collect(),
        drops_lossless: 0,
        drops_lossy: 11,
        drops_ttl: 1,
        drops_fault: 2,
        ecn_marked: 40,
        cnp_tx: 6,
        warnings: vec!["headroom below one RTT".into()],
        ..RunResults::default()
    }
}

fn read(dir: &std::path::Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn writes_every_file_with_headers() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = write_all(&sample(), tmp.path(), true).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            p.strip_prefix(tmp.path())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        names,
        [
            "summary.json",
            "flows.csv",
            "ports.csv",
            "port_queues.csv",
            "links.csv",
            "pfc.csv",
            "pause_intervals.csv",
            "timeseries/throughput.csv",
            "timeseries/queues.csv",
            "timeseries/rates.csv",
            "deadlocks.csv",
            "report.html"
        ]
    );
    for p in &paths {
        assert!(p.is_file(), "{p:?}");
    }
    let first = |name: &str| read(tmp.path(), name).lines().next().unwrap().to_string();
    assert_eq!(
        first("flows.csv"),
        "flow_id,name,src,dst,size_bytes,start_ns,end_ns,acked_ns,delivered_ns,fct_ns,ideal_fct_ns,slowdown,bytes_delivered,goodput_gbps,goodput_active_gbps,retx_packets,cnp_rx,ecn_marked,tx_bytes,discarded_bytes,dropped_bytes,inflight_bytes"
    );
    assert_eq!(
        first("ports.csv"),
        "node,port,peer,prio,tx_packets,tx_bytes,rx_packets,rx_bytes,drops,pause_tx,pause_rx,paused_ns"
    );
    assert_eq!(
        read(tmp.path(), "port_queues.csv"),
        "node,port,peer,queue,ecn_marked,max_queue_bytes\nS1,3,S2,5,4,65000\n"
    );
    assert_eq!(first("pfc.csv"), "time_ns,node,port,prio,direction,quanta");
    assert_eq!(first("timeseries/throughput.csv"), "time_ns,flow_id,gbps");
    assert_eq!(
        first("timeseries/queues.csv"),
        "time_ns,node,port,queue,bytes"
    );
}

#[test]
fn known_rows() {
    let tmp = tempfile::tempdir().unwrap();
    write_all(&sample(), tmp.path(), false).unwrap();
    assert!(!tmp.path().join("report.html").exists());
    let flows = read(tmp.path(), "flows.csv");
    let lines: Vec<&str> = flows.lines().collect();
    assert_eq!(lines.len(), 12);
    // Long-lived flow: empty size, end, fct, ideal and slowdown; the name is quoted.
    assert_eq!(
        lines[1],
        r#"0,"long, ""quoted""",A,R,,1000,,,,,,,1000000,12.345679,13.5,3,4,5,1100000,60000,40000,0"#
    );
    assert_eq!(
        lines[2],
        "1,f1,A,R,1000,1000,51000,51000,49000,50000,25000,10,1000000,12.345679,13.5,3,4,5,1100000,60000,40000,0"
    );
    assert!(!flows.contains('\r'));
    let ports = read(tmp.path(), "ports.csv");
    assert_eq!(
        ports.lines().nth(1).unwrap(),
        "S1,3,S2,3,10,10820,9,9000,0,2,1,1500"
    );
    let pfc = read(tmp.path(), "pfc.csv");
    assert_eq!(pfc.lines().nth(1).unwrap(), "1200,S1,3,3,tx,65535");
    assert_eq!(pfc.lines().nth(2).unwrap(), "2700,S1,3,3,tx,0");
    let tput = read(tmp.path(), "timeseries/throughput.csv");
    assert_eq!(tput.lines().nth(2).unwrap(), "100000,1,10.333333");
    let q = read(tmp.path(), "timeseries/queues.csv");
    assert_eq!(q.lines().nth(3).unwrap(), "20000,S1,3,3,2000");
}

#[test]
fn summary_values() {
    let tmp = tempfile::tempdir().unwrap();
    write_all(&sample(), tmp.path(), false).unwrap();
    let text = read(tmp.path(), "summary.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["scenario"], "parking-lot");
    assert_eq!(v["seed"], 7);
    assert_eq!(v["sim_time_ns"], 2_000_000);
    assert_eq!(v["events"], 1_000_000);
    assert_eq!(v["events_per_s"], 2_000_000.0);
    assert_eq!(v["packet_hops"], 300_000);
    assert_eq!(v["incomplete"], false);
    assert_eq!(v["flows"]["count"], 11);
    assert_eq!(v["flows"]["completed"], 10);
    assert_eq!(v["goodput_gbps"]["f3"], 12.3457);
    assert_eq!(v["goodput_gbps"]["long, \"quoted\""], 12.3457);
    assert_eq!(v["total_goodput_gbps"], 135.802);
    assert_eq!(v["drops"]["lossless"], 0);
    assert_eq!(v["drops"]["lossy"], 11);
    assert_eq!(v["drops"]["ttl"], 1);
    assert_eq!(v["drops"]["fault"], 2);
    assert_eq!(v["pfc"]["pause_tx"], 3);
    assert_eq!(v["pfc"]["pause_rx"], 3);
    assert_eq!(v["pfc"]["paused_ns"], 2000);
    assert_eq!(v["ecn_marked"], 40);
    assert_eq!(v["cnp_tx"], 6);
    // Slowdowns 1..=10, nearest rank: p50 = rank ceil(5) = 5, p95 = rank ceil(9.5) = 10,
    // p99 = rank ceil(9.9) = 10, p99.9 = rank ceil(9.99) = 10.
    assert_eq!(v["fct_slowdown"]["p50"], 5.0);
    assert_eq!(v["fct_slowdown"]["p95"], 10.0);
    assert_eq!(v["fct_slowdown"]["p99"], 10.0);
    assert_eq!(v["fct_slowdown"]["p999"], 10.0);
    assert_eq!(v["watchdog"], serde_json::json!([]));
    assert_eq!(v["deadlocks"], serde_json::json!([]));
    assert_eq!(v["warnings"][0], "headroom below one RTT");
    assert_eq!(v["pfc_log_truncated"], 0);
    // goodput_gbps keeps flow order (serde_json's Map would sort "f10" before "f2").
    let a = text.find("\"f2\"").unwrap();
    let b = text.find("\"f10\"").unwrap();
    assert!(a < b);
    assert!(text.starts_with("{\n  \"scenario\": \"parking-lot\",\n  \"seed\": 7,"));
}

#[test]
fn summary_edge_cases() {
    let r = RunResults {
        flows: vec![flow(0, "x", Some(10), None), flow(1, "x", Some(10), None)].into(),
        ..RunResults::default()
    };
    let v: serde_json::Value = serde_json::from_str(&summary_json(&r)).unwrap();
    assert_eq!(v["events_per_s"], 0.0);
    assert!(v["fct_slowdown"]["p50"].is_null());
    assert!(v["fct_slowdown"]["p999"].is_null());
    // A repeated name gets the flow id appended instead of overwriting the first.
    assert_eq!(v["goodput_gbps"].as_object().unwrap().len(), 2);
    assert!(v["goodput_gbps"]["x#1"].is_number());
}

#[test]
fn identical_input_identical_bytes() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let pa = write_all(&sample(), a.path(), true).unwrap();
    let pb = write_all(&sample(), b.path(), true).unwrap();
    for (x, y) in pa.iter().zip(&pb) {
        assert_eq!(fs::read(x).unwrap(), fs::read(y).unwrap(), "{x:?}");
    }
    // Writing twice into the same directory gives the same bytes too.
    let before = fs::read(&pa[0]).unwrap();
    write_all(&sample(), a.path(), true).unwrap();
    assert_eq!(before, fs::read(&pa[0]).unwrap());
}

#[test]
fn report_is_self_contained() {
    let html = report_html(&sample());
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg"));
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(!html.contains("<script"));
    for part in [
        "Delivered throughput per flow",
        "Egress queue depth",
        "Pause timeline",
        "FCT slowdown by flow size",
        "S1:3 p3",
        "long, &quot;quoted&quot;",
        "headroom below one RTT",
    ] {
        assert!(html.contains(part), "missing {part}");
    }
    // An empty run still renders.
    let empty = report_html(&RunResults::default());
    assert!(empty.contains("No PFC pause frames"));
}

#[test]
fn report_caps_series() {
    let mut r = sample();
    r.throughput = (0..40)
        .flat_map(|f| {
            (1..=5).map(move |k| ThroughputSample {
                time_ns: k * 1000,
                flow_id: f,
                gbps: f as f64,
            })
        })
        .collect();
    let html = report_html(&r);
    assert!(html.contains("other 25 flows (mean)"));
}

#[test]
fn terminal_lists_every_warning_deadlock_and_watchdog_action() {
    use crate::monitor::failures::{DeadlockMember, DeadlockRecord, WatchdogEvent};
    let mut r = sample();
    r.warnings = vec!["first thing".into(), "second thing".into()];
    let member = DeadlockMember {
        node: "S1".into(),
        port: 0,
        peer: "S2".into(),
        prio: 3,
    };
    r.deadlocks = vec![DeadlockRecord {
        formed_ns: 2_000_000,
        detected_ns: 4_000_000,
        members: vec![member.clone(), member.clone(), member],
        flows: vec![0, 1],
    }];
    let event = |e: &str| WatchdogEvent {
        time_ns: 1,
        node: "S1".into(),
        port: 0,
        prio: 3,
        event: e.into(),
        action: "drop".into(),
    };
    r.watchdog = vec![event("storm_detected"), event("storm_restored")];
    let t = terminal_table(&r);
    for w in ["warning: first thing", "warning: second thing"] {
        assert_eq!(t.matches(w).count(), 1, "{t}");
    }
    assert!(
        t.contains("deadlocks 1 · first: a cycle of 3 paused queues"),
        "{t}"
    );
    assert!(t.contains("storms detected 1 · restored 1"), "{t}");
}

#[test]
fn terminal_lists_flows_and_totals() {
    let t = terminal_table(&sample());
    for name in ["f1", "f10", "long, \"quoted\""] {
        assert!(t.contains(name), "{t}");
    }
    assert!(t.contains("A→R"));
    assert!(t.contains("pauses sent/received 3/3"));
    let drops = format!(
        "drops lossless/lossy/ttl/fault 0/11/{}/{}",
        sample().drops_ttl,
        sample().drops_fault
    );
    assert!(t.contains(&drops), "{t}");
    assert!(t.contains("events 1000000 (2M/s)"));
    let lines: Vec<&str> = t.lines().collect();
    // Header and rows are aligned: the size column ends at the same character position.
    let end = |l: &str, pat: &str| {
        l.find(pat)
            .map(|i| l[..i].chars().count() + pat.chars().count())
    };
    assert_eq!(end(lines[0], "size"), end(lines[2], "1KB"));

    let mut many = sample();
    many.flows = (0..25)
        .map(|i| flow(i, &format!("g{i}"), Some(1), None))
        .collect();
    let t = terminal_table(&many);
    assert!(t.contains("… 5 more flows"));
    assert!(!t.contains("g20"));
}

#[test]
fn report_stays_small_for_many_flows() {
    let mut r = sample();
    r.flows = (0..12_000)
        .map(|i| {
            flow(
                i,
                &format!("m{i}"),
                Some(1000 + u64::from(i)),
                Some(1.0 + f64::from(i)),
            )
        })
        .collect();
    let html = report_html(&r);
    assert!(html.contains("of 12000 completed flows"));
    assert!(html.contains("… 11500 more flows in flows.csv"));
    let dots = html.matches("<circle").count();
    assert!((2000..=5000).contains(&dots), "{dots}");
}

#[test]
fn slowdown_by_size_in_summary_terminal_and_report() {
    let v: serde_json::Value = serde_json::from_str(&summary_json(&sample())).unwrap();
    let b = &v["fct_slowdown_by_size"];
    let keys: Vec<&String> = b.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 5);
    // Sizes 1, 2, 4, 8 KB (slowdowns 10, 1, 9, 2): sorted 1, 2, 9, 10; p50 = rank 2, p95 = rank 4.
    assert_eq!(b["<10KB"]["flows"], 4);
    assert_eq!(b["<10KB"]["p50"], 2.0);
    assert_eq!(b["<10KB"]["p95"], 10.0);
    // 16, 32, 64 KB (8, 3, 7): sorted 3, 7, 8; p50 = rank 2.
    assert_eq!(b["10KB-100KB"]["flows"], 3);
    assert_eq!(b["10KB-100KB"]["p50"], 7.0);
    assert_eq!(b["10KB-100KB"]["p999"], 8.0);
    // 128, 256, 512 KB (4, 6, 5).
    assert_eq!(b["100KB-1MB"]["p50"], 5.0);
    assert_eq!(b["100KB-1MB"]["p99"], 6.0);
    assert_eq!(b[">=10MB"]["flows"], 0);
    assert!(b[">=10MB"]["p50"].is_null());
    // The overall percentiles are still there.
    assert_eq!(v["fct_slowdown"]["p50"], 5.0);

    let t = terminal_table(&sample());
    assert!(t.contains("FCT slowdown"), "{t}");
    let row = t.lines().find(|l| l.starts_with("10KB-100KB")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["10KB-100KB", "3", "7.00", "8.00", "8.00", "8.00"]);
    assert!(!t.contains(">=10MB"), "empty buckets are left out: {t}");
    // No completed flows: no slowdown table.
    assert!(!terminal_table(&RunResults::default()).contains("FCT slowdown"));

    let html = report_html(&sample());
    assert!(html.contains("<table class=\"buckets\">"));
    assert!(html.contains("<td class=\"l\">&lt;10KB</td><td>4</td><td>2</td><td>10</td>"));
}

#[test]
fn links_csv_utilisation() {
    let tmp = tempfile::tempdir().unwrap();
    write_all(&sample(), tmp.path(), false).unwrap();
    let links = read(tmp.path(), "links.csv");
    let lines: Vec<&str> = links.lines().collect();
    // S1:3 at 40G sent 9 500 wire bytes in the 1.9 ms window (2 ms run, 0.1 ms warm-up):
    // 76 000 bits / 1.9 ms = 0.04 Gb/s, 0.1 % of the link.
    assert_eq!(
        lines,
        [
            "node,port,peer,rate_gbps,tx_gbps,utilisation",
            "S1,3,S2,40,0.04,0.001",
            "S2,0,S1,0,0,",
        ]
    );
}

#[test]
fn report_names_queues_by_peer_and_explains_a_missing_fct_chart() {
    let mut r = sample();
    let html = report_html(&r);
    // The queue samples are at S1 port 3, whose ports.csv row says it faces S2.
    assert!(html.contains("S1→S2 q3"), "queue label");
    r.flows = (r.flows.iter())
        .filter(|f| f.size_bytes.is_none())
        .map(std::borrow::Cow::into_owned)
        .collect();
    let html = report_html(&r);
    assert!(html.contains("are long-lived"), "all-long note");
}

#[test]
fn report_draws_percentiles_warmup_and_pause_durations() {
    let mut r = sample();
    // Slowdowns 1..10: nearest-rank p50 = 5 and p99 = 10, drawn as two dashed lines.
    let html = report_html(&r);
    let fct = &html[html.find("FCT slowdown by flow size").unwrap()..];
    assert_eq!(fct.matches(r#"class="mark""#).count(), 2);
    assert!(fct.contains(">p50 5</text>") && fct.contains(">p99 10</text>"));
    // The 100 us warm-up is shaded on the throughput and queue charts.
    assert_eq!(html.matches(">warm-up</text>").count(), 2);
    // One pause of 1.5 us at S1 port 3 (facing S2): one step of the CDF, two points.
    let pauses = &html[html.find("Pause durations per port").unwrap()..];
    assert!(pauses.contains("S1→S2 p3 (1 pause)"));
    assert!(html.contains(r#"data-series="1" data-points="2"><title>Pause durations"#));
    // Without a warm-up or pauses, neither is drawn.
    r.warmup_ns = 0;
    r.pause_intervals.clear();
    let html = report_html(&r);
    assert!(!html.contains("warm-up") && !html.contains("Pause durations"));
}
