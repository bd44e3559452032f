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
        write_file(r, file, &mut csv).unwrap();
        assert_eq!(csv_of(batch), String::from_utf8(csv).unwrap(), "{file}");
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
}
