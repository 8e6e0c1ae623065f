//! The Arrow PyCapsule interface, both ways, on arrow-array's own C Data Interface: a table,
//! record batch or stream comes in through `__arrow_c_stream__` or `__arrow_c_array__`, and
//! `verify_batch`'s answer goes out through the same dunders, so pyarrow, polars, DuckDB,
//! Spark and Ray hand over and take back their buffers without a copy.
//!
//! The only unsafe code of the package is here, three moves out of a capsule's struct: the
//! interface's contract is that a capsule named `arrow_array_stream`, `arrow_schema` or
//! `arrow_array` points to that C struct, which the consumer moves out (leaving it released,
//! so the capsule's destructor does nothing more).

#![allow(unsafe_code)]

use std::ffi::CStr;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{Array, RecordBatch, RecordBatchIterator, RecordBatchReader, StructArray};
use arrow_schema::DataType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

const STREAM: &CStr = c"arrow_array_stream";
const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";

/// The record batches of `input`, read through its `__arrow_c_stream__` (a table, a stream, a
/// DataFrame) or else its `__arrow_c_array__` (one record batch). The error says what was
/// wrong with the object, for the caller's one line.
pub fn reader(input: &Bound<'_, PyAny>) -> Result<Box<dyn RecordBatchReader + Send>, String> {
    let text = |e: PyErr| e.to_string();
    if input.hasattr("__arrow_c_stream__").map_err(text)? {
        let capsule = input.call_method0("__arrow_c_stream__").map_err(text)?;
        let capsule = capsule.cast::<PyCapsule>().map_err(|e| e.to_string())?;
        let pointer = capsule.pointer_checked(Some(STREAM)).map_err(text)?;
        // SAFETY: a capsule of this name holds an `ArrowArrayStream` (checked just above by
        // its name and a non-null pointer); it is moved out, the capsule left a released one.
        let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.cast().as_ptr()) };
        let reader = ArrowArrayStreamReader::try_new(stream).map_err(|e| e.to_string())?;
        return Ok(Box::new(reader));
    }
    if input.hasattr("__arrow_c_array__").map_err(text)? {
        let pair = input.call_method0("__arrow_c_array__").map_err(text)?;
        let (schema, array): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract().map_err(text)?;
        let schema = schema.cast::<PyCapsule>().map_err(|e| e.to_string())?;
        let array = array.cast::<PyCapsule>().map_err(|e| e.to_string())?;
        let schema = schema.pointer_checked(Some(SCHEMA)).map_err(text)?;
        let array = array.pointer_checked(Some(ARRAY)).map_err(text)?;
        // SAFETY: capsules of these names hold an `ArrowSchema` and an `ArrowArray` (checked
        // by name and pointer); the array is moved out, the schema only read, and both stay
        // alive (their capsules are held) until `from_ffi` has imported them.
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(array.cast().as_ptr());
            from_ffi(array, schema.cast::<FFI_ArrowSchema>().as_ref())
        }
        .map_err(|e| e.to_string())?;
        if !matches!(data.data_type(), DataType::Struct(_)) {
            return Err(format!("an array of {}, not a record batch", data.data_type()));
        }
        let rows = StructArray::from(data);
        if rows.null_count() > 0 {
            return Err("a struct array with null rows, not a record batch".into());
        }
        let batch = RecordBatch::from(rows);
        let schema = batch.schema();
        return Ok(Box::new(RecordBatchIterator::new([Ok(batch)], schema)));
    }
    Err("it has neither __arrow_c_stream__ nor __arrow_c_array__".into())
}

/// `verify_batch`'s answer: one record batch, which a consumer takes through the Arrow
/// PyCapsule interface (`pyarrow.record_batch(x)`, `pyarrow.table(x)`, `polars.from_arrow`,
/// DuckDB), each time as a new export of the same buffers.
#[pyclass(module = "groundcheck", name = "VerdictBatch", frozen)]
pub struct VerdictBatch {
    batch: RecordBatch,
}

impl VerdictBatch {
    /// The answer holding `batch`.
    pub fn new(batch: RecordBatch) -> VerdictBatch {
        VerdictBatch { batch }
    }
}

#[pymethods]
impl VerdictBatch {
    /// The batch as a struct array and its schema (the interface's record batch); a requested
    /// schema is not followed (the interface lets a producer keep its own).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into_data();
        let (array, schema) = to_ffi(&data).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let schema = PyCapsule::new_with_value(py, schema, SCHEMA)?;
        let array = PyCapsule::new_with_value(py, array, ARRAY)?;
        PyTuple::new(py, [schema, array])
    }

    /// The batch as a stream of one record batch.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let schema = self.batch.schema();
        let batches = RecordBatchIterator::new([Ok(self.batch.clone())], schema);
        PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(Box::new(batches)), STREAM)
    }

    /// The batch's schema.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, SCHEMA)
    }

    /// Its number of rows (one per invocation).
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("VerdictBatch({} rows)", self.batch.num_rows())
    }
}
