//! `verify_batch`: `tool_invocation` rows given as Arrow columns, verified without a Python
//! object per value.
//!
//! Any Arrow table, record batch or stream of record batches crosses through the Arrow
//! PyCapsule interface (`__arrow_c_array__` / `__arrow_c_stream__`): pyarrow, polars, DuckDB,
//! Spark's `mapInArrow`, Ray Data's `map_batches` hand over their buffers as they are
//! ([`crate::capsule`], arrow-array's C Data Interface). Only that hand-over holds the GIL;
//! the stream is read, each row read out of the buffers into the core's `Invocation`,
//! verified and turned into an output row on the package's threads ([`crate::engine`]), in
//! parallel, the caller waiting with signals let through.
//!
//! A row is read by the bundle format's rules, as `verify_run` reads a `dict`: the seed
//! table's columns and no other (a typo is an error, never hidden evidence), `id` and
//! `tool_name` required, integer columns within their SQL type (`id`, `step_id` BIGINT; the
//! counts and `duration_ms` INT) from an Arrow integer column of any width, booleans from a
//! boolean column (or an integer one holding 0 and 1, as MySQL exports `TINYINT(1)`), text
//! from `string`, `large_string`, `string_view`, a dictionary of strings or a binary column
//! (bytes that are not UTF-8 decoded with U+FFFD and the verdict warning `invalid_utf8`, as
//! the store reads a database's text), `retrieval_details` and `input_params` as the column's
//! JSON text, `raw_output` or `raw_output_text` as the output's exact text (read as a bundle's
//! `raw_output_text`: JSON, else JSON Lines or YAML, else one string), `created_at` as text,
//! a timestamp or a date (in ISO 8601, as Python writes a `datetime`). A null is an absent
//! value. A column of another Arrow type is one `InvalidRowError` naming it before any row is
//! read; a row's bad value is one naming the row and the column.
//!
//! The answer is one Arrow record batch, a row per invocation in input order: `id`, `run_id`,
//! `session_id` (the row's own), `status`, `reason`, `claimed_status`, `claim_agrees` and
//! `refs`, the verdict's ref objects as the JSON report writes them. The rows are grouped into
//! runs as `verify_run` groups them, so an `id` repeated within a run is the same error.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, Int64Array, LargeStringArray, RecordBatch,
    RecordBatchReader, StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use groundcheck_core::{Cell, Column, ColumnType, Invocation, Json, RawOutput, RunSet, SharedText};
use pyo3::prelude::*;
use pyo3::types::PyString;
use rayon::prelude::*;

use crate::capsule::{self, VerdictBatch};
use crate::engine;
use crate::errors::{from_core, guard, invalid_row, raise};
use crate::verifier::{Verifier, Work};

/// The report of an Arrow table or record batch (anything with `__arrow_c_stream__` or
/// `__arrow_c_array__`) of `tool_invocation` rows, verified by `verifier`: an Arrow record
/// batch ([`VerdictBatch`], which pyarrow, polars and DuckDB read through the same interface),
/// one row per invocation in input order.
#[pyfunction]
pub fn _verify_batch(
    py: Python<'_>,
    verifier: PyRef<'_, Verifier>,
    batch: &Bound<'_, PyAny>,
) -> PyResult<VerdictBatch> {
    guard("verify_batch", || {
        let reader = capsule::reader(batch).map_err(|e| {
            let type_name = batch.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            invalid_row(py, None, "batch", &format!("not an Arrow table or record batch ({type_name}: {e})"))
        })?;
        let (work, pool) = (verifier.work(), verifier.pool(py)?);
        let cancel = engine::cancel();
        let flag = Arc::clone(&cancel);
        let answer = engine::run(py, &pool, &cancel, move || verify_stream(reader, &work, &flag))?;
        match answer {
            Ok(batch) => Ok(VerdictBatch::new(batch)),
            Err(Problem::Row(row, field, problem)) => Err(invalid_row(py, row, field, &problem)),
            Err(Problem::Core(e)) => Err(from_core(py, &e)),
            Err(Problem::Stream(e)) => Err(raise(
                py,
                "InvalidRowError",
                &format!("batch: {e}"),
                &[("field", PyString::new(py, "batch").into_any().unbind())],
            )),
            Err(Problem::Cancelled) => {
                Err(raise(py, "InternalError", "groundcheck: the call was given up", &[]))
            }
        }
    })
}

/// Why a batch has no verdicts.
enum Problem {
    /// `(row, column, problem)`: a column of the wrong type (no row) or a row's bad value.
    Row(Option<usize>, &'static str, String),
    /// An `id` repeated within a run, as `verify_run` finds it.
    Core(groundcheck_core::Error),
    /// The producer's stream failed, or the answer cannot be built.
    Stream(String),
    /// The caller gave up.
    Cancelled,
}

/// What a column holds, which decides the Arrow types it may have and how a value is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// BIGINT: within i64.
    BigInt,
    /// INT: within i32, so every database accepts it.
    Int,
    Bool,
    Text,
    /// A JSON column, read from its text.
    JsonText,
    /// `raw_output` or `raw_output_text`: the output's exact text.
    RawText,
    /// `created_at`: text, a timestamp or a date.
    Time,
}

/// The columns a row may have: the core's table ([`Column::ALL`], at each column's own index),
/// then `raw_output` and `raw_output_text`, with what each holds. A column the core adds is
/// read here with no change.
const COLUMNS: [(&str, Kind); Column::ALL.len() + 2] = {
    let mut columns = [("", Kind::Text); Column::ALL.len() + 2];
    let mut i = 0;
    while i < Column::ALL.len() {
        let column = Column::ALL[i];
        let kind = match (column, column.ty()) {
            (Column::CreatedAt, _) => Kind::Time,
            (_, ColumnType::Bigint) => Kind::BigInt,
            (_, ColumnType::Int) => Kind::Int,
            (_, ColumnType::Boolean) => Kind::Bool,
            (_, ColumnType::Json) => Kind::JsonText,
            (_, ColumnType::Text) => Kind::Text,
        };
        columns[i] = (column.name(), kind);
        i += 1;
    }
    columns[at::RAW_OUTPUT] = ("raw_output", Kind::RawText);
    columns[at::RAW_OUTPUT_TEXT] = ("raw_output_text", Kind::RawText);
    columns
};

/// Positions in [`COLUMNS`] the reading code names.
mod at {
    use groundcheck_core::Column;

    pub const ID: usize = Column::Id as usize;
    pub const TOOL_NAME: usize = Column::ToolName as usize;
    pub const RAW_OUTPUT: usize = Column::ALL.len();
    pub const RAW_OUTPUT_TEXT: usize = Column::ALL.len() + 1;
}

/// For each of [`COLUMNS`], the position of the input's column holding it, if any: checked
/// once against the schema, before any row is read.
type Plan = [Option<usize>; COLUMNS.len()];

/// The plan of `schema`: every column one of [`COLUMNS`], once, of an Arrow type its kind
/// reads; `id` and `tool_name` present.
fn plan(schema: &Schema) -> Result<Plan, Problem> {
    let mut plan: Plan = [None; COLUMNS.len()];
    for (position, field) in schema.fields().iter().enumerate() {
        let Some(column) = COLUMNS.iter().position(|(name, _)| *name == field.name()) else {
            return Err(Problem::Row(
                None,
                "batch",
                format!(
                    "unknown column {} (expected tool_invocation columns, raw_output or raw_output_text)",
                    field.name()
                ),
            ));
        };
        let (name, kind) = COLUMNS[column];
        if plan[column].replace(position).is_some() {
            return Err(Problem::Row(None, name, "the column is given twice".into()));
        }
        if !reads(kind, field.data_type()) {
            return Err(Problem::Row(
                None,
                name,
                format!("{}, not the Arrow type {}", needs(kind), field.data_type()),
            ));
        }
    }
    for required in [at::ID, at::TOOL_NAME] {
        if plan[required].is_none() {
            return Err(Problem::Row(None, COLUMNS[required].0, "required column is missing".into()));
        }
    }
    Ok(plan)
}

/// What a column of `kind` must be, for an error.
fn needs(kind: Kind) -> &'static str {
    match kind {
        Kind::BigInt | Kind::Int => "must be an Arrow integer column",
        Kind::Bool => "must be an Arrow boolean (or integer 0/1) column",
        Kind::Text | Kind::JsonText | Kind::RawText => {
            "must be an Arrow string, large_string, string_view, binary or dictionary-of-string column"
        }
        Kind::Time => "must be an Arrow string, timestamp or date column",
    }
}

/// Whether a column of `kind` reads `data_type`. A column of nulls alone reads as absent.
fn reads(kind: Kind, data_type: &DataType) -> bool {
    if *data_type == DataType::Null {
        return true;
    }
    match kind {
        Kind::BigInt | Kind::Int => integer_type(data_type),
        Kind::Bool => *data_type == DataType::Boolean || integer_type(data_type),
        Kind::Text | Kind::JsonText | Kind::RawText => text_type(data_type),
        Kind::Time => {
            text_type(data_type)
                || matches!(data_type, DataType::Timestamp(..) | DataType::Date32 | DataType::Date64)
        }
    }
}

fn integer_type(data_type: &DataType) -> bool {
    data_type.is_integer()
}

fn text_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => true,
        DataType::Dictionary(key, value) => integer_type(key) && text_type(value) && !value.is_nested(),
        _ => false,
    }
}

/// A column's value at a row, or `None` for a null.
type Getter<'a, T> = Box<dyn Fn(usize) -> Option<T> + Send + Sync + 'a>;

/// The integers of a column of any Arrow integer type (checked by [`plan`]), widened.
fn integers(array: &dyn Array) -> Getter<'_, i128> {
    fn of<T>(array: &dyn Array) -> Getter<'_, i128>
    where
        T: ArrowPrimitiveType,
        T::Native: Into<i128>,
    {
        let values = array.as_primitive::<T>();
        Box::new(move |i| values.is_valid(i).then(|| values.value(i).into()))
    }
    match array.data_type() {
        DataType::Int8 => of::<Int8Type>(array),
        DataType::Int16 => of::<Int16Type>(array),
        DataType::Int32 => of::<Int32Type>(array),
        DataType::Int64 => of::<Int64Type>(array),
        DataType::UInt8 => of::<UInt8Type>(array),
        DataType::UInt16 => of::<UInt16Type>(array),
        DataType::UInt32 => of::<UInt32Type>(array),
        DataType::UInt64 => of::<UInt64Type>(array),
        _ => Box::new(|_| None), // DataType::Null
    }
}

/// The bytes of a text column (checked by [`plan`]): a string or binary column of any offset
/// width or a view, or a dictionary of one.
fn bytes(array: &dyn Array) -> Getter<'_, &[u8]> {
    match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i).as_bytes()))
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i).as_bytes()))
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i).as_bytes()))
        }
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i)))
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i)))
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            Box::new(move |i| a.is_valid(i).then(|| a.value(i)))
        }
        DataType::Dictionary(..) => {
            let dictionary = array.as_any_dictionary();
            if dictionary.values().is_empty() {
                // Every key is null (arrow's `normalized_keys` refuses an empty dictionary).
                return Box::new(|_| None);
            }
            let keys = dictionary.normalized_keys();
            let values = bytes(dictionary.values().as_ref());
            let nulls = dictionary.keys().logical_nulls();
            Box::new(move |i| {
                if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
                    return None;
                }
                values(keys[i])
            })
        }
        _ => Box::new(|_| None), // DataType::Null
    }
}

/// `created_at` of a timestamp or date column in ISO 8601, as Python's `isoformat()` writes
/// the `datetime` (or `date`) a driver returns: fractions of a second only when there are
/// some (microseconds, or nanoseconds when finer), the offset only for a timestamp with a
/// time zone (the zone's own offset at that instant).
fn times(array: &dyn Array) -> Option<Getter<'_, String>> {
    use arrow_array::temporal_conversions::{as_date, as_datetime, as_datetime_with_timezone};
    use arrow_array::timezone::Tz;

    fn stamps<T: ArrowPrimitiveType<Native = i64>>(
        array: &dyn Array,
        zone: Option<Tz>,
    ) -> Getter<'_, String> {
        let values = array.as_primitive::<T>();
        Box::new(move |i| {
            if values.is_null(i) {
                return None;
            }
            let v = values.value(i);
            match zone {
                Some(zone) => as_datetime_with_timezone::<T>(v, zone).map(|t| {
                    let fraction = fraction(t.timestamp_subsec_nanos());
                    format!("{}{fraction}{}", t.format("%Y-%m-%dT%H:%M:%S"), t.format("%:z"))
                }),
                None => as_datetime::<T>(v).map(|t| {
                    let fraction = fraction(t.and_utc().timestamp_subsec_nanos());
                    format!("{}{fraction}", t.format("%Y-%m-%dT%H:%M:%S"))
                }),
            }
        })
    }
    let (unit, zone) = match array.data_type() {
        DataType::Timestamp(unit, zone) => (*unit, zone.as_deref().map(|z| z.parse::<Tz>())),
        DataType::Date32 => {
            let values = array.as_primitive::<Date32Type>();
            return Some(Box::new(move |i| {
                values
                    .is_valid(i)
                    .then(|| as_date::<Date32Type>(values.value(i).into()))
                    .flatten()
                    .map(|d| d.format("%Y-%m-%d").to_string())
            }));
        }
        DataType::Date64 => {
            let values = array.as_primitive::<Date64Type>();
            return Some(Box::new(move |i| {
                values
                    .is_valid(i)
                    .then(|| as_date::<Date64Type>(values.value(i)))
                    .flatten()
                    .map(|d| d.format("%Y-%m-%d").to_string())
            }));
        }
        _ => return None,
    };
    // A zone arrow cannot read is written as UTC's instant, without an offset.
    let zone = zone.and_then(Result::ok);
    Some(match unit {
        TimeUnit::Second => stamps::<TimestampSecondType>(array, zone),
        TimeUnit::Millisecond => stamps::<TimestampMillisecondType>(array, zone),
        TimeUnit::Microsecond => stamps::<TimestampMicrosecondType>(array, zone),
        TimeUnit::Nanosecond => stamps::<TimestampNanosecondType>(array, zone),
    })
}

/// A second's fraction as `isoformat()` writes it: none, six digits, or nine when finer.
fn fraction(nanos: u32) -> String {
    match nanos {
        0 => String::new(),
        n if n % 1000 == 0 => format!(".{:06}", n / 1000),
        n => format!(".{n:09}"),
    }
}

/// A string column a raw output is shared with: its array behind one reference count per
/// batch, so that a row's raw output is the column's own bytes, not a copy of them.
#[derive(Clone)]
enum Strings {
    Utf8(Arc<StringArray>),
    Large(Arc<LargeStringArray>),
    View(Arc<StringViewArray>),
}

impl Strings {
    /// The column `array` when its values can be shared: a string column of any offset width
    /// or a view (a binary column's bytes may need decoding, and a dictionary's values are
    /// copied).
    fn of(array: &dyn Array) -> Option<Strings> {
        match array.data_type() {
            DataType::Utf8 => Some(Strings::Utf8(Arc::new(array.as_string::<i32>().clone()))),
            DataType::LargeUtf8 => Some(Strings::Large(Arc::new(array.as_string::<i64>().clone()))),
            DataType::Utf8View => Some(Strings::View(Arc::new(array.as_string_view().clone()))),
            _ => None,
        }
    }
}

/// Row `row`'s value of a string column, as the owner of a [`SharedText`]: the column's
/// buffers are kept alive by it, never copied.
struct InColumn {
    strings: Strings,
    row: usize,
}

impl AsRef<str> for InColumn {
    fn as_ref(&self) -> &str {
        match &self.strings {
            Strings::Utf8(a) => a.value(self.row),
            Strings::Large(a) => a.value(self.row),
            Strings::View(a) => a.value(self.row),
        }
    }
}

/// One batch's columns, ready to read a row.
struct Readers<'a> {
    ints: Vec<(usize, Getter<'a, i128>)>,
    texts: Vec<(usize, Getter<'a, &'a [u8]>)>,
    /// `created_at` as a timestamp or date.
    time: Option<Getter<'a, String>>,
    /// `raw_output` and `raw_output_text` when a row's text can be shared with the column.
    shared: [Option<Strings>; 2],
}

impl<'a> Readers<'a> {
    fn new(plan: &Plan, batch: &'a RecordBatch) -> Readers<'a> {
        let mut readers = Readers { ints: Vec::new(), texts: Vec::new(), time: None, shared: [None, None] };
        for (column, position) in plan.iter().enumerate() {
            let Some(position) = *position else { continue };
            let array: &'a ArrayRef = batch.column(position);
            match COLUMNS[column].1 {
                Kind::BigInt | Kind::Int => readers.ints.push((column, integers(array.as_ref()))),
                Kind::Bool if array.data_type().is_integer() => {
                    readers.ints.push((column, integers(array.as_ref())))
                }
                Kind::Bool => {} // read from the array itself (`boolean`)
                Kind::Time => match times(array.as_ref()) {
                    Some(time) => readers.time = Some(time),
                    None => readers.texts.push((column, bytes(array.as_ref()))),
                },
                Kind::RawText => {
                    readers.shared[column - at::RAW_OUTPUT] = Strings::of(array.as_ref());
                    readers.texts.push((column, bytes(array.as_ref())))
                }
                Kind::Text | Kind::JsonText => readers.texts.push((column, bytes(array.as_ref()))),
            }
        }
        readers
    }
}

/// A value's text: its bytes as UTF-8, or decoded with U+FFFD (`lossy` set). Checked with
/// `simdutf8` (SIMD, chosen at run time; every byte of every raw output passes here): only
/// text that fails it is decoded again, by the standard library's lossy decoder.
fn text<'b>(bytes: &'b [u8], lossy: &mut bool) -> Cow<'b, str> {
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    *lossy = true;
    String::from_utf8_lossy(bytes)
}

/// Row `i` of `batch` (row `row` of the input) read into an invocation.
fn row(
    plan: &Plan,
    batch: &RecordBatch,
    readers: &Readers<'_>,
    i: usize,
    row: usize,
) -> Result<Invocation, Problem> {
    let mut inv = Invocation::default();
    let mut id = None;
    let bad = |column: usize, problem: String| Problem::Row(Some(row), COLUMNS[column].0, problem);
    for (column, get) in &readers.ints {
        let Some(n) = get(i) else { continue };
        let Some(&core) = Column::ALL.get(*column) else { continue };
        if COLUMNS[*column].1 == Kind::Bool {
            // A boolean held as an integer: 0 or 1 only.
            if !(0..=1).contains(&n) {
                return Err(bad(*column, format!("must be true, false, 0, 1 or null, not {n}")));
            }
            inv.set(core, Cell::Bool(n == 1)).map_err(|e| bad(*column, e.message().to_string()))?;
            continue;
        }
        // The core's table bounds the column (a number past i64 named as it is).
        let n = i64::try_from(n)
            .map_or_else(|_| core.integer_text(&n.to_string()), |n| core.check_integer(n))
            .map_err(|e| bad(*column, e.message().to_string()))?;
        match core {
            Column::Id => id = Some(n),
            _ => inv.set(core, Cell::Integer(n)).map_err(|e| bad(*column, e.message().to_string()))?,
        }
    }
    for column in Column::ALL.into_iter().filter(|c| c.ty() == ColumnType::Boolean) {
        if let Some(position) = plan[column as usize] {
            if let Some(values) = batch.column(position).as_boolean_opt() {
                let value = boolean(values, i).map_or(Cell::Null, Cell::Bool);
                inv.set(column, value).map_err(|e| bad(column as usize, e.message().to_string()))?;
            }
        }
    }
    let (mut raw_given, mut lossy, mut tool) = (0, false, false);
    for (column, get) in &readers.texts {
        let Some(bytes) = get(i) else { continue };
        let value = text(bytes, &mut lossy);
        match *column {
            at::RAW_OUTPUT | at::RAW_OUTPUT_TEXT => {
                raw_given += 1;
                // UTF-8 in a string column: the column's own bytes, shared; else its text.
                let shared = &readers.shared[*column - at::RAW_OUTPUT];
                inv.raw_output = Some(match (value, shared) {
                    (Cow::Borrowed(_), Some(strings)) => {
                        RawOutput::Shared(SharedText::new(InColumn { strings: strings.clone(), row: i }))
                    }
                    (value, _) => RawOutput::Text(value.into_owned()),
                });
            }
            at::TOOL_NAME => {
                tool = true;
                inv.tool_name = value.into_owned();
            }
            _ => {
                let Some(&core) = Column::ALL.get(*column) else { continue };
                let cell = match core.ty() {
                    ColumnType::Json => Json::from_column(&value).map_or(Cell::Null, Cell::Json),
                    _ => Cell::Text(value.into_owned()),
                };
                inv.set(core, cell).map_err(|e| bad(*column, e.message().to_string()))?;
            }
        }
    }
    inv.invalid_utf8 = lossy;
    if let Some(time) = &readers.time {
        inv.created_at = time(i);
    }
    if raw_given > 1 {
        return Err(bad(at::RAW_OUTPUT, "raw_output and raw_output_text are both given; keep one".into()));
    }
    inv.id = id.ok_or_else(|| bad(at::ID, "required integer is missing".into()))?;
    if !tool {
        return Err(bad(at::TOOL_NAME, "required string is missing".into()));
    }
    Ok(inv)
}

fn boolean(values: &BooleanArray, i: usize) -> Option<bool> {
    values.is_valid(i).then(|| values.value(i))
}

/// A row's answer: its keys and its verdict's columns (the verdict itself dropped on the
/// thread that made it, in parallel).
struct Out {
    id: i64,
    run_id: Option<String>,
    session_id: Option<String>,
    status: &'static str,
    reason: &'static str,
    claimed_status: Option<String>,
    claim_agrees: Option<bool>,
    refs: String,
}

/// Reads `reader` to its end and verifies every row, in parallel on the current pool (a row
/// not begun when `cancel` is set is not verified): the answer batch, or the first problem in
/// input order.
fn verify_stream(
    reader: Box<dyn RecordBatchReader + Send>,
    work: &Work,
    cancel: &engine::Cancel,
) -> Result<RecordBatch, Problem> {
    let plan = plan(&reader.schema())?;
    let mut outs: Vec<Out> = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| Problem::Stream(e.to_string()))?;
        let readers = Readers::new(&plan, &batch);
        let first = outs.len();
        let done: Vec<Result<Option<Out>, Problem>> = (0..batch.num_rows())
            .into_par_iter()
            .map(|i| {
                let inv = row(&plan, &batch, &readers, i, first + i)?;
                if engine::cancelled(cancel) {
                    return Ok(None);
                }
                Ok(Some(work.verify(inv)))
            })
            .collect();
        for out in done {
            outs.push(out?.ok_or(Problem::Cancelled)?);
        }
    }
    check_runs(&outs)?;
    answer(outs)
}

/// The rows grouped as `verify_run` groups them: an `id` repeated within a run is its error.
fn check_runs(outs: &[Out]) -> Result<(), Problem> {
    let mut runs = RunSet::default();
    for out in outs {
        let key = Invocation {
            id: out.id,
            run_id: out.run_id.clone(),
            session_id: out.session_id.clone(),
            ..Invocation::default()
        };
        runs.push(key).map_err(Problem::Core)?;
    }
    Ok(())
}

/// A Rust program's rows, to be turned into `verify_batch`'s answer: the floor
/// `benches/python/arrow_bench.py` measures `verify_batch` against, each side timed the same
/// way, around one call from Python. Built from rows read as `verify_run` reads them, into the
/// form a Rust program reading the table holds them in (every text its own `String`, the raw
/// output and the JSON columns their text); [`_BatchFloor::run`] then does, on the verifier's
/// threads, what such a program does to write the answer: the JSON columns parsed, every row
/// verified in parallel, the runs' ids checked, the answer's columns written as `verify_batch`
/// writes them. What `verify_batch` does beyond it is reading the Arrow columns (and handing
/// the batch over). A bench hook: only in the `test-hooks` build.
#[cfg(feature = "test-hooks")]
#[pyclass(module = "groundcheck", name = "_BatchFloor")]
pub struct BatchFloor {
    /// The rows, until run; what they were read from, let go with the GIL held.
    rows: std::sync::Mutex<Option<(Vec<crate::row::Stored>, Vec<crate::row::Held>)>>,
    work: Work,
    pool: Arc<rayon::ThreadPool>,
}

#[cfg(feature = "test-hooks")]
#[pymethods]
impl BatchFloor {
    #[new]
    fn new(py: Python<'_>, verifier: PyRef<'_, Verifier>, rows: &Bound<'_, PyAny>) -> PyResult<BatchFloor> {
        guard("_BatchFloor.__new__", || {
            let (mut stored, mut held) = (Vec::new(), Vec::new());
            for (n, row) in rows.try_iter()?.enumerate() {
                let pending = crate::row::read(&row?).map_err(|e| match e {
                    crate::row::RowError::Field(field, problem) => invalid_row(py, Some(n), &field, &problem),
                    crate::row::RowError::Raised(e) => e,
                })?;
                let (row, from) = pending.stored();
                stored.push(row);
                held.push(from);
            }
            let rows = std::sync::Mutex::new(Some((stored, held)));
            Ok(BatchFloor { rows, work: verifier.work(), pool: verifier.pool(py)? })
        })
    }

    /// The answer of the rows (once: the rows are used up).
    fn run(&self, py: Python<'_>) -> PyResult<VerdictBatch> {
        guard("_BatchFloor.run", || {
            let taken = self.rows.lock().unwrap_or_else(|e| e.into_inner()).take();
            let Some((stored, held)) = taken else {
                return Err(raise(py, "InternalError", "_BatchFloor.run: the rows were used", &[]));
            };
            let (work, cancel) = (self.work.clone(), engine::cancel());
            let answer = engine::run(py, &self.pool, &cancel, move || {
                let outs: Vec<Out> = stored.into_par_iter().map(|row| work.verify(row.finish())).collect();
                check_runs(&outs).and_then(|()| answer(outs))
            })?;
            drop(held); // with the GIL held
            match answer {
                Ok(batch) => Ok(VerdictBatch::new(batch)),
                Err(Problem::Core(e)) => Err(from_core(py, &e)),
                Err(_) => Err(raise(py, "InternalError", "the floor's answer cannot be built", &[])),
            }
        })
    }
}

impl Work {
    /// The output row of `inv`: its keys, its verdict and the verdict's refs as JSON text.
    fn verify(&self, mut inv: Invocation) -> Out {
        let verdict = self.verify_invocation(&mut inv);
        let refs = serde_json::to_string(&verdict.refs).unwrap_or_default();
        Out {
            id: verdict.id,
            run_id: inv.run_id.take(),
            session_id: inv.session_id.take(),
            status: verdict.status.as_str(),
            reason: verdict.reason.as_str(),
            claimed_status: verdict.claimed_status,
            claim_agrees: verdict.claim_agrees,
            refs,
        }
    }
}

/// The answer's schema: a row per invocation.
fn schema() -> Schema {
    Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("run_id", DataType::Utf8, true),
        Field::new("session_id", DataType::Utf8, true),
        Field::new("status", DataType::Utf8, false),
        Field::new("reason", DataType::Utf8, false),
        Field::new("claimed_status", DataType::Utf8, true),
        Field::new("claim_agrees", DataType::Boolean, true),
        Field::new("refs", DataType::Utf8, false),
    ])
}

/// The bytes a string column of the answer holds for a row.
type Length = fn(&Out) -> usize;

/// The answer batch of `outs`. A `string` column holds at most 2 GiB of text: a batch whose
/// refs pass that is refused (pass smaller batches), never a panic.
fn answer(outs: Vec<Out>) -> Result<RecordBatch, Problem> {
    let columns: [(&str, Length); 4] = [
        ("refs", |o| o.refs.len()),
        ("run_id", |o| o.run_id.as_ref().map_or(0, String::len)),
        ("session_id", |o| o.session_id.as_ref().map_or(0, String::len)),
        ("claimed_status", |o| o.claimed_status.as_ref().map_or(0, String::len)),
    ];
    for (name, len) in columns {
        let total: usize = outs.iter().map(len).sum();
        if total > i32::MAX as usize {
            return Err(Problem::Stream(format!(
                "the answer's {name} column would hold {total} bytes, more than an Arrow string \
                 column holds (2 GiB): pass smaller batches"
            )));
        }
    }
    let ids = Int64Array::from_iter_values(outs.iter().map(|o| o.id));
    let run_ids = StringArray::from_iter(outs.iter().map(|o| o.run_id.as_deref()));
    let session_ids = StringArray::from_iter(outs.iter().map(|o| o.session_id.as_deref()));
    let statuses = StringArray::from_iter_values(outs.iter().map(|o| o.status));
    let reasons = StringArray::from_iter_values(outs.iter().map(|o| o.reason));
    let claimed = StringArray::from_iter(outs.iter().map(|o| o.claimed_status.as_deref()));
    let agrees = BooleanArray::from_iter(outs.iter().map(|o| o.claim_agrees));
    let refs = StringArray::from_iter_values(outs.iter().map(|o| o.refs.as_str()));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(run_ids),
        Arc::new(session_ids),
        Arc::new(statuses),
        Arc::new(reasons),
        Arc::new(claimed),
        Arc::new(agrees),
        Arc::new(refs),
    ];
    RecordBatch::try_new(Arc::new(schema()), columns).map_err(|e| Problem::Stream(e.to_string()))
}
