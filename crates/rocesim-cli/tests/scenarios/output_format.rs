//! `output.format`: Parquet twins of every CSV table, read back with the Arrow crates' Parquet
//! reader; bad values; stale files of the other format deleted.

use std::path::Path;

use super::rocesim;

/// Every table file of `dir` (relative names ending in `ext`).
fn tables(dir: &Path, ext: &str) -> Vec<String> {
    let mut names = Vec::new();
    for sub in ["", "timeseries"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if let Some(base) = name.strip_suffix(ext) {
                let rel = if sub.is_empty() {
                    base.to_string()
                } else {
                    format!("{sub}/{base}")
                };
                names.push(rel);
            }
        }
    }
    names.sort();
    names
}

fn run(scenario: &str, dir: &Path, format: &str) {
    run_with(scenario, dir, format, &[]);
}

/// Runs `scenario` into `dir` in `format`, with the further `--set` values of `sets`.
fn run_with(scenario: &str, dir: &Path, format: &str, sets: &[&str]) {
    let set = format!("output.format={format}");
    let mut args = vec![
        "run",
        scenario,
        "--quiet",
        "--set",
        &set,
        "--set",
        "output.report=false",
        "--out",
        dir.to_str().unwrap(),
    ];
    sets.iter().for_each(|s| args.extend(["--set", s]));
    let o = rocesim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Parquet file `dir/t.parquet`, read back with the Arrow crates and printed as CSV, is
/// `dir/t.csv` byte for byte, and its fields carry their meaning.
fn assert_parquet_reads_back_to_csv(dir: &Path, t: &str) {
    let file = std::fs::File::open(dir.join(format!("{t}.parquet"))).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(usize::MAX)
        .build()
        .unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    let expected = std::fs::read(dir.join(format!("{t}.csv"))).unwrap();
    let header_only = expected.iter().filter(|&&b| b == b'\n').count() == 1;
    assert!(batches.len() <= 1, "{t}");
    let Some(batch) = batches.first() else {
        assert!(
            header_only,
            "{t}: rows in the CSV, none in the Parquet file"
        );
        return;
    };
    let mut printed = Vec::new();
    rocesim::output::write_csv(batch, &mut printed).unwrap();
    assert_eq!(
        String::from_utf8(printed).unwrap(),
        String::from_utf8(expected).unwrap(),
        "{t}"
    );
    let f = batch.schema();
    let meta = f.field(0).metadata();
    assert!(meta.contains_key("description"), "{t}: {meta:?}");
}

/// With `both`, every CSV table has a Parquet twin, and the Parquet file read back with the
/// Arrow crates and printed as CSV is the CSV file byte for byte.
#[test]
fn parquet_twins_read_back_to_the_csv_files() {
    let dir = tempfile::tempdir().unwrap();
    run("scenarios/deadlock-ring.toml", dir.path(), "both");
    let csv = tables(dir.path(), ".csv");
    assert_eq!(csv, tables(dir.path(), ".parquet"));
    for t in [
        "flows",
        "ports",
        "port_queues",
        "links",
        "pfc",
        "pause_intervals",
        "deadlocks",
        "timeseries/throughput",
        "timeseries/queues",
        "timeseries/rates",
    ] {
        assert!(csv.iter().any(|c| c == t), "{t} missing");
    }
    for t in &csv {
        assert_parquet_reads_back_to_csv(dir.path(), t);
    }
    let flows = std::fs::read_to_string(dir.path().join("flows.csv")).unwrap();
    assert!(flows.lines().count() > 1, "the deadlock has flows");
}

/// `parquet` writes no CSV table, and a run deletes the tables an earlier run left in the
/// other format, so a directory never mixes two runs.
#[test]
fn switching_format_deletes_the_other_formats_stale_tables() {
    let dir = tempfile::tempdir().unwrap();
    run("scenarios/topo-star.toml", dir.path(), "csv");
    assert!(dir.path().join("flows.csv").exists());
    run("scenarios/topo-star.toml", dir.path(), "parquet");
    assert_eq!(tables(dir.path(), ".csv"), Vec::<String>::new());
    assert!(dir.path().join("flows.parquet").exists());
    assert!(dir.path().join("timeseries/queues.parquet").exists());
    assert!(dir.path().join("summary.json").exists());
    run("scenarios/topo-star.toml", dir.path(), "csv");
    assert_eq!(tables(dir.path(), ".parquet"), Vec::<String>::new());
}

#[test]
fn bad_output_format_names_the_key() {
    let o = rocesim(&[
        "run",
        "scenarios/topo-star.toml",
        "--quiet",
        "--set",
        "output.format=xlsx",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("output.format"), "{err}");
    assert!(err.contains("parquet") && err.contains("both"), "{err}");
}

/// timeseries/counters.csv (pfc-storm.toml samples the switch counters) has its Parquet twin,
/// which reads back to the CSV values.
#[test]
fn counters_have_a_parquet_twin() {
    let dir = tempfile::tempdir().unwrap();
    run_with(
        "scenarios/pfc-storm.toml",
        dir.path(),
        "both",
        &["sim.duration=8ms", "sim.warmup=0us"],
    );
    let csv = std::fs::read_to_string(dir.path().join("timeseries/counters.csv")).unwrap();
    assert!(csv.lines().count() > 1, "counters were sampled");
    assert_parquet_reads_back_to_csv(dir.path(), "timeseries/counters");
}
