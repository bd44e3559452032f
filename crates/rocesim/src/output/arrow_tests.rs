//! The Arrow tables hold what the CSV files hold: every batch, printed cell by cell as the CSV
//! writers print values (integers in decimal, floats with [`fixed`], nulls empty), gives the
//! CSV file byte for byte, on shipped scenarios that fill every table.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;

use super::arrow::{arrow_tables, ARROW_TABLES};
use super::{fixed, write_file};
use crate::monitor::RunResults;

/// The cell of row `i` of `col` as a CSV writer prints it.
fn cell(col: &dyn Array, i: usize) -> String {
    if col.is_null(i) {
        return String::new();
    }
    match col.data_type() {
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(i).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt16 => col.as_primitive::<UInt16Type>().value(i).to_string(),
        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(i).to_string(),
        DataType::Float64 => fixed(col.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => col.as_string::<i32>().value(i).to_string(),
        other => panic!("unexpected column type {other}"),
    }
}

/// `batch` as CSV text, header first.
fn csv_of(batch: &RecordBatch) -> String {
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let schema = batch.schema();
    out.write_record(schema.fields().iter().map(|f| f.name().as_str()))
        .unwrap();
    for i in 0..batch.num_rows() {
        out.write_record(batch.columns().iter().map(|c| cell(c.as_ref(), i)))
            .unwrap();
    }
    String::from_utf8(out.into_inner().unwrap()).unwrap()
}

/// CSV file `file` as the row-by-row writers (the oracle) print it from [`RunResults`].
fn legacy_csv(r: &RunResults, file: &str, w: &mut Vec<u8>) -> std::io::Result<()> {
    use super::tables::*;
    match file {
        "flows.csv" => write_flows(r, w),
        "tcp_flows.csv" => write_tcp_flows(r, w),
        "ports.csv" => write_ports(r, w),
        "port_queues.csv" => write_port_queues(r, w),
        "links.csv" => write_links(r, w),
        "pfc.csv" => write_pfc(r, w),
        "pause_intervals.csv" => write_pause_intervals(r, w),
        "timeseries/throughput.csv" => write_throughput(r, w),
        "timeseries/queues.csv" => write_queues(r, w),
        "timeseries/rates.csv" => write_rates(r, w),
        "deadlocks.csv" => super::failures::write_deadlocks(r, w),
        "nics.csv" => super::write_nics(r, w),
        "pingmesh.csv" => write_pingmesh(r, w),
        "timeseries/counters.csv" => super::write_counters(r, w),
        "isolation.csv" => match &r.isolation {
            Some(iso) => super::write_isolation(iso, w),
            None => super::write_isolation(&Default::default(), w),
        },
        other => panic!("no writer for {other}"),
    }
}

fn run(scenario: &str, set: &[&str]) -> RunResults {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(scenario);
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let sc = crate::config::load(&path, &set).unwrap();
    crate::run::simulate(sc, |_, _| true).unwrap()
}

fn check_equal_to_csv(r: &RunResults) {
    let tables = arrow_tables(r).unwrap();
    assert_eq!(tables.len(), ARROW_TABLES.len());
    for ((name, batch), (name2, file)) in tables.iter().zip(ARROW_TABLES) {
        assert_eq!(*name, name2);
        let mut csv = Vec::new();
        legacy_csv(r, file, &mut csv).unwrap();
        // ports.csv gains a `cfq` column with congestion isolation; its batch does not.
        let cfq = file == "ports.csv" && r.isolation.is_some();
        if !cfq {
            assert_eq!(
                csv_of(batch),
                String::from_utf8(csv.clone()).unwrap(),
                "{file}"
            );
        }
        // The files the run writes come from the batch.
        let mut from_batch = Vec::new();
        write_file(r, file, &mut from_batch).unwrap();
        assert_eq!(from_batch, csv, "{file}");
        // The Parquet file reads back (Arrow crates) to the same values and the same schema.
        let back = parquet_round_trip(batch);
        assert_eq!(back.columns(), batch.columns(), "{file}");
        assert_eq!(back.schema().fields(), batch.schema().fields(), "{file}");
        if !cfq {
            assert_eq!(csv_of(&back), String::from_utf8(csv).unwrap(), "{file}");
        }
    }
}

/// `batch` written as a Parquet file and read back with the Arrow crates' Parquet reader.
fn parquet_round_trip(batch: &RecordBatch) -> RecordBatch {
    let tmp = tempfile::tempfile().unwrap();
    super::write_parquet(batch, tmp.try_clone().unwrap()).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(tmp)
        .unwrap()
        .with_batch_size(usize::MAX)
        .build()
        .unwrap();
    let mut batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert!(batches.len() <= 1, "read back in {} batches", batches.len());
    batches
        .pop()
        .unwrap_or_else(|| RecordBatch::new_empty(batch.schema()))
}

#[test]
fn tables_equal_csv_files_with_tcp_nic_caches_and_isolation() {
    let r = run(
        "linkedin-storage.toml",
        &["sim.duration=2ms", "sim.warmup=0us"],
    );
    assert!(!r.tcp.is_empty());
    check_equal_to_csv(&r);
    let r = run(
        "slow-receiver.toml",
        &["sim.duration=1ms", "sim.warmup=0us"],
    );
    assert!(!r.nics.is_empty());
    check_equal_to_csv(&r);
    let r = run(
        "isolation-victim.toml",
        &["sim.duration=200us", "sim.warmup=0us"],
    );
    assert!(r.isolation.as_ref().is_some_and(|i| !i.events.is_empty()));
    check_equal_to_csv(&r);
}

#[test]
fn parquet_files_are_deterministic() {
    let r = run("pfc-storm.toml", &["sim.duration=8ms", "sim.warmup=0us"]);
    let bytes = |b: &RecordBatch| {
        let mut v = Vec::new();
        super::write_parquet(b, &mut v).unwrap();
        v
    };
    for ((name, a), (_, b)) in arrow_tables(&r)
        .unwrap()
        .iter()
        .zip(arrow_tables(&r).unwrap())
    {
        assert_eq!(bytes(a), bytes(&b), "{name}");
    }
}

/// Each table's declared columns are its CSV header, and docs/results.md lists every column
/// with the declared unit (tables with a unit column) and meaning.
#[test]
fn column_declarations_match_headers_and_docs() {
    use super::columns as c;
    let headers: [(&[&str], &[super::columns::Column]); 15] = [
        (&super::FLOWS_HEADER, c::FLOWS),
        (&super::TCP_FLOWS_HEADER, c::TCP_FLOWS),
        (&super::PORTS_HEADER, c::PORTS),
        (&super::tables::PORT_QUEUES_HEADER, c::PORT_QUEUES),
        (&super::LINKS_HEADER, c::LINKS),
        (&super::PFC_HEADER, c::PFC),
        (&super::tables::PAUSE_INTERVALS_HEADER, c::PAUSE_INTERVALS),
        (&super::THROUGHPUT_HEADER, c::THROUGHPUT),
        (&super::QUEUES_HEADER, c::QUEUES),
        (&super::RATES_HEADER, c::RATES),
        (&super::failures::DEADLOCKS_HEADER, c::DEADLOCKS),
        (&super::tables::PINGMESH_HEADER, c::PINGMESH),
        (&super::NICS_HEADER, c::NICS),
        (&super::ISOLATION_HEADER, c::ISOLATION),
        (&super::COUNTERS_HEADER, c::COUNTERS),
    ];
    for (header, cols) in headers {
        let names: Vec<&str> = cols.iter().map(|c| c.name).collect();
        assert_eq!(names, header);
    }
    let docs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results.md"),
    )
    .unwrap();
    let tables = arrow_tables(&RunResults::default()).unwrap();
    assert!(super::arrow::arrow_table(&RunResults::default(), "no_such_table").is_err());
    for ((_, file), (_, batch)) in ARROW_TABLES.iter().zip(&tables) {
        let section = docs
            .split("\n## ")
            .find(|s| s.starts_with(&format!("{file}\n")))
            .unwrap_or_else(|| panic!("docs/results.md has no section {file}"));
        for f in batch.schema().fields() {
            let meta = f.metadata();
            let desc = &meta["description"];
            let unit = meta.get("unit").map_or("", String::as_str);
            let row3 = format!("| `{}` | {unit} | {desc} |", f.name());
            let row3_empty = format!("| `{}` | | {desc} |", f.name());
            let mentioned = section.contains(&row3)
                || (unit.is_empty() && section.contains(&row3_empty))
                || section.contains(&format!("`{}`", f.name()));
            assert!(
                mentioned,
                "{file}: column {} not documented as declared",
                f.name()
            );
            if section.contains("| column | unit | meaning |") {
                assert!(
                    section.contains(&row3) || section.contains(&row3_empty),
                    "{file}: docs row of {} differs from its declaration",
                    f.name()
                );
            }
        }
    }
}

#[test]
fn tables_equal_csv_files_under_dcqcn() {
    let r = run(
        "parking-lot-dcqcn.toml",
        &["sim.duration=2ms", "sim.warmup=0us"],
    );
    assert!(!r.flows.is_empty() && !r.throughput.is_empty());
    assert!(!r.queues.is_empty() && !r.rates.is_empty());
    check_equal_to_csv(&r);
}

#[test]
fn tables_equal_csv_files_in_a_pause_storm() {
    let r = run("pfc-storm.toml", &["sim.duration=8ms", "sim.warmup=0us"]);
    assert!(!r.pfc_log.is_empty() && !r.pause_intervals.is_empty());
    // timeseries/counters.csv (pfc-storm.toml sets output.counters_interval): its Parquet twin
    // reads back to the CSV file's values.
    assert!(!r.counters.is_empty());
    check_equal_to_csv(&r);
}

#[test]
fn tables_equal_csv_files_on_a_deadlock() {
    let r = run("deadlock-ring.toml", &[]);
    assert!(!r.deadlocks.is_empty() && !r.pause_intervals.is_empty());
    check_equal_to_csv(&r);
}

#[test]
fn tables_equal_csv_files_with_pingmesh_probes() {
    let r = run(
        "pingmesh-latency.toml",
        &["sim.duration=1ms", "sim.warmup=0us"],
    );
    assert!(!r.pingmesh.is_empty());
    check_equal_to_csv(&r);
}

#[test]
fn empty_run_gives_empty_tables_with_the_full_schema() {
    let r = RunResults::default();
    for (name, batch) in arrow_tables(&r).unwrap() {
        assert_eq!(batch.num_rows(), 0, "{name}");
        assert!(batch.num_columns() >= 3, "{name}");
    }
}

#[test]
fn units_in_field_metadata() {
    let r = RunResults::default();
    let flows = super::arrow::flows(&r).unwrap();
    let unit = |c: &str| {
        flows
            .schema()
            .field_with_name(c)
            .unwrap()
            .metadata()
            .get("unit")
            .cloned()
    };
    assert_eq!(unit("fct_ns").as_deref(), Some("ns"));
    assert_eq!(unit("size_bytes").as_deref(), Some("bytes"));
    assert_eq!(unit("goodput_gbps").as_deref(), Some("Gb/s"));
    assert_eq!(unit("src"), None);
    let desc = flows.schema().field_with_name("fct_ns").unwrap().metadata()["description"].clone();
    assert!(desc.starts_with("flow completion time"), "{desc}");
}
