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

#[cfg(test)]
use super::fixed;

/// A column resolved to its type once, so that writing a cell does not look the type up.
enum Column<'a> {
    U64(&'a arrow_array::UInt64Array),
    U32(&'a arrow_array::UInt32Array),
    U16(&'a arrow_array::UInt16Array),
    U8(&'a arrow_array::UInt8Array),
    F64(&'a arrow_array::Float64Array),
    Str(&'a arrow_array::StringArray),
}

impl<'a> Column<'a> {
    fn of(col: &'a dyn Array) -> io::Result<Self> {
        Ok(match col.data_type() {
            DataType::UInt64 => Column::U64(col.as_primitive::<UInt64Type>()),
            DataType::UInt32 => Column::U32(col.as_primitive::<UInt32Type>()),
            DataType::UInt16 => Column::U16(col.as_primitive::<UInt16Type>()),
            DataType::UInt8 => Column::U8(col.as_primitive::<UInt8Type>()),
            DataType::Float64 => Column::F64(col.as_primitive::<Float64Type>()),
            DataType::Utf8 => Column::Str(col.as_string::<i32>()),
            other => return Err(io::Error::other(format!("no CSV form for {other}"))),
        })
    }

    fn is_null(&self, i: usize) -> bool {
        match self {
            Column::U64(c) => c.is_null(i),
            Column::U32(c) => c.is_null(i),
            Column::U16(c) => c.is_null(i),
            Column::U8(c) => c.is_null(i),
            Column::F64(c) => c.is_null(i),
            Column::Str(c) => c.is_null(i),
        }
    }

    /// Writes the cell of row `i` as the CSV files print it into `buf` (cleared first): a
    /// null is an empty cell. One buffer serves every cell, so no cell allocates.
    fn cell(&self, i: usize, buf: &mut String) {
        use std::fmt::Write as _;
        buf.clear();
        if self.is_null(i) {
            return;
        }
        let _ = match self {
            Column::U64(c) => write!(buf, "{}", c.value(i)),
            Column::U32(c) => write!(buf, "{}", c.value(i)),
            Column::U16(c) => write!(buf, "{}", c.value(i)),
            Column::U8(c) => write!(buf, "{}", c.value(i)),
            Column::F64(c) => {
                fixed_into(c.value(i), buf);
                Ok(())
            }
            Column::Str(c) => {
                buf.push_str(c.value(i));
                Ok(())
            }
        };
    }
}

/// [`fixed`] written into `buf` (empty for a non-finite value).
fn fixed_into(x: f64, buf: &mut String) {
    use std::fmt::Write as _;
    if !x.is_finite() {
        return;
    }
    let _ = write!(buf, "{x:.6}");
    if buf.contains('.') {
        let keep = buf.trim_end_matches('0').trim_end_matches('.').len();
        buf.truncate(keep);
    }
    if buf == "-0" {
        buf.replace_range(.., "0");
    }
}

/// Writes `batch` as CSV, header first, one line per row (`\n` line ends).
pub fn write_csv(batch: &RecordBatch, w: &mut dyn Write) -> io::Result<()> {
    write_csv_chunks(std::iter::once(Ok(batch.clone())), w)
}

/// Writes the batches of one table as one CSV file: the first batch's header, then every
/// batch's rows in order (a table built a chunk at a time is never whole in memory).
pub fn write_csv_chunks(
    batches: impl Iterator<Item = io::Result<RecordBatch>>,
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut out = super::tables::writer(w);
    for (k, batch) in batches.enumerate() {
        let batch = batch?;
        if k == 0 {
            let schema = batch.schema();
            out.write_record(schema.fields().iter().map(|f| f.name().as_str()))?;
        }
        write_rows(&mut out, &batch)?;
    }
    out.flush()
}

fn write_rows<W: Write>(out: &mut csv::Writer<W>, batch: &RecordBatch) -> io::Result<()> {
    let columns = (batch.columns().iter())
        .map(|c| Column::of(c.as_ref()))
        .collect::<io::Result<Vec<_>>>()?;
    let mut buf = String::new();
    for i in 0..batch.num_rows() {
        for c in &columns {
            c.cell(i, &mut buf);
            out.write_field(&buf)?;
        }
        out.write_record(None::<&[u8]>)?;
    }
    Ok(())
}

/// Writes `batch` as one Parquet file (Snappy, one row group per million rows; the Arrow
/// schema with its field metadata is embedded, so readers get the units and meanings back).
pub fn write_parquet<W: Write + Send>(batch: &RecordBatch, w: W) -> io::Result<()> {
    write_parquet_chunks(std::iter::once(Ok(batch.clone())), w)
}

/// Writes batches of one schema (at least one) to `w` as one Parquet file, a batch at a time.
pub fn write_parquet_chunks<W: Write + Send>(
    mut batches: impl Iterator<Item = io::Result<RecordBatch>>,
    w: W,
) -> io::Result<()> {
    let first = batches
        .next()
        .ok_or_else(|| io::Error::other("a Parquet table needs a batch"))??;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(concat!("rocesim ", env!("CARGO_PKG_VERSION")).to_string())
        .build();
    let mut writer =
        ArrowWriter::try_new(w, first.schema(), Some(props)).map_err(io::Error::other)?;
    writer.write(&first).map_err(io::Error::other)?;
    for batch in batches {
        writer.write(&batch?).map_err(io::Error::other)?;
    }
    writer.close().map_err(io::Error::other)?;
    Ok(())
}

#[cfg(test)]
mod csv_cell_tests {
    use super::*;

    /// flows.csv written a chunk at a time is the file written from the whole table.
    #[test]
    fn chunked_csv_is_the_whole_table() {
        let rows: Vec<crate::monitor::FlowResult> = (0..7)
            .map(|i| crate::monitor::FlowResult {
                flow_id: i,
                name: format!("f{i}"),
                size_bytes: (i % 2 == 0).then_some(1000 * i as u64),
                goodput_gbps: i as f64 / 3.0,
                ..Default::default()
            })
            .collect();
        let flows = crate::output::arrow::flow_rows;
        let mut whole = Vec::new();
        write_csv(&flows(&rows).unwrap(), &mut whole).unwrap();
        let mut parts = Vec::new();
        let chunks = [&rows[..3], &rows[3..3], &rows[3..]].map(|c| Ok(flows(c).unwrap()));
        write_csv_chunks(chunks.into_iter(), &mut parts).unwrap();
        let whole = String::from_utf8(whole).unwrap();
        assert_eq!(whole.lines().count(), 8, "a header and seven rows");
        assert_eq!(String::from_utf8(parts).unwrap(), whole);
    }

    #[test]
    fn fixed_into_matches_fixed() {
        let mut buf = String::new();
        for x in [
            0.0,
            -0.0,
            1.5,
            3.0,
            0.000001,
            0.0000004,
            -0.0000004,
            -2.25,
            1e20,
            123.4567891,
            f64::NAN,
            f64::INFINITY,
            1e-7,
            10.0,
            100.10,
        ] {
            buf.clear();
            fixed_into(x, &mut buf);
            assert_eq!(buf, fixed(x), "{x}");
        }
    }
}
