//! Handing a record batch to Python without copying: the Arrow C stream interface wrapped in a
//! PyCapsule named `arrow_array_stream` (the Arrow PyCapsule interface), which pyarrow, polars
//! and others import by taking ownership of the same buffers.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// One result table, exportable as an Arrow stream (`__arrow_c_stream__`).
#[pyclass(module = "rocesim._native", frozen)]
pub struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    /// Wraps `batch` (its buffers are shared, not copied).
    pub fn new(batch: RecordBatch) -> ArrowTable {
        ArrowTable { batch }
    }
}

#[pymethods]
impl ArrowTable {
    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The Arrow PyCapsule stream protocol: a capsule holding an `ArrowArrayStream` over this
    /// table. `requested_schema` is ignored (the table has one schema).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let schema = self.batch.schema();
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}
