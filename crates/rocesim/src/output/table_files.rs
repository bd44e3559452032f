//! Result tables as files: CSV and Parquet, both written from the Arrow record batches of
//! [`super::arrow`], so that the CSV files, the Parquet files and the Python tables hold the same
//! values. CSV cells print integers in decimal, floats with [`super::fixed`] (6 decimals) and
//! nulls as empty cells; Parquet keeps every value at full precision, Snappy-compressed, with
//! each column's unit and meaning in the schema's field metadata.

use std::io::{self, Write};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::fixed;

/// The cell of row `i` of `col` as the CSV files print it.
fn cell(col: &dyn Array, i: usize) -> io::Result<String> {
    if col.is_null(i) {
        return Ok(String::new());
    }
    Ok(match col.data_type() {
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(i).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt16 => col.as_primitive::<UInt16Type>().value(i).to_string(),
        DataType::UInt8 => col.as_primitive::<UInt8Type>().value(i).to_string(),
        DataType::Float64 => fixed(col.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => col.as_string::<i32>().value(i).to_string(),
        other => return Err(io::Error::other(format!("no CSV form for {other}"))),
    })
}

/// Writes `batch` as CSV, header first, one line per row (`\n` line ends).
pub fn write_csv(batch: &RecordBatch, w: &mut dyn Write) -> io::Result<()> {
    let mut out = super::tables::writer(w);
    let schema = batch.schema();
    out.write_record(schema.fields().iter().map(|f| f.name().as_str()))?;
    let mut row = Vec::with_capacity(batch.num_columns());
    for i in 0..batch.num_rows() {
        row.clear();
        for c in batch.columns() {
            row.push(cell(c.as_ref(), i)?);
        }
        out.write_record(&row)?;
    }
    out.flush()
}

/// Writes `batch` as one Parquet file (Snappy, one row group per million rows; the Arrow
/// schema with its field metadata is embedded, so readers get the units and meanings back).
pub fn write_parquet<W: Write + Send>(batch: &RecordBatch, w: W) -> io::Result<()> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(concat!("rocesim ", env!("CARGO_PKG_VERSION")).to_string())
        .build();
    let mut writer =
        ArrowWriter::try_new(w, batch.schema(), Some(props)).map_err(io::Error::other)?;
    writer.write(batch).map_err(io::Error::other)?;
    writer.close().map_err(io::Error::other)?;
    Ok(())
}
