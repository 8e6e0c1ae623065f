//! A `tool_invocation` row as a Python program holds it, read into the core's `Invocation`.
//!
//! A row is a `dict` (or any `Mapping`) of the table's columns as a DB driver returns them,
//! plus `raw_output` or `raw_output_text`. The rules are the bundle format's, so a row
//! verifies as the same row in a bundle file does: every key a column (a typo is an error,
//! never hidden evidence), `id` and `tool_name` required, integer columns within their SQL
//! type, at most one raw output. Where a driver differs from JSON, the driver's form is read
//! as the column means it: `0`/`1` in a boolean column, a `datetime` in `created_at`, a
//! `Decimal` in an integer column, and a JSON column given as text — a `str`, or `bytes`,
//! `bytearray` or `memoryview` — is the column's text, as the store reads the column from a
//! database: `raw_output` (and `raw_output_text`) the output's exact text, read as a bundle's
//! `raw_output_text` (JSON, else JSON Lines or YAML, else one string), `retrieval_details`
//! and `input_params` JSON text, or a string of that text when it is not JSON. Most drivers
//! hand a JSON column back as its text (PyMySQL, `sqlite3`, psycopg with text loaders), so
//! the verdict is the one `groundcheck run` gives for the same table. Bytes that are not
//! UTF-8 are decoded as the store decodes them, with U+FFFD, and the verdict warns
//! `invalid_utf8`. Any other value (a `dict`, a `list`, a number) is a parsed JSON value, and
//! `None` is SQL NULL: no raw output.
//!
//! Reading a row needs the GIL; it only takes Python values out: a value (a `raw_output`
//! dict, a JSON column given as a dict) is built into the engine's document at once, and a
//! `str` — a text column, `raw_output_text`, a JSON column given as text — is kept as the
//! `str` object itself ([`PyBackedStr`]: a reference and its UTF-8, which CPython keeps with
//! the object), not copied: [`Pending::finish`] parses the JSON text once the GIL is let go,
//! on the thread that verifies the row, copies the short text columns into the invocation
//! and shares the raw output's text with its `str` (no copy); the `str`s come back to be let
//! go with the GIL held ([`Held`]).

use std::sync::Arc;

use groundcheck_core::{Cell, Column, ColumnType, Invocation, Json, RawOutput, SharedText};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyMemoryView, PyString};

use crate::inline::Shape;
use crate::json::{classes, decimal_text, for_each_member, iso_text, lone_surrogate, text, to_json, NotJson};

/// A row's problem: the field, and what is wrong with it (or the row's own exception).
pub enum RowError {
    /// `(field, problem)`.
    Field(String, String),
    /// An exception the row's own code raised (a `Mapping` whose `items()` raises).
    Raised(PyErr),
}

impl RowError {
    fn at(field: &str, problem: impl Into<String>) -> RowError {
        RowError::Field(field.to_string(), problem.into())
    }

    /// `e` met reading `field`.
    fn of(field: &str, e: NotJson) -> RowError {
        match e {
            NotJson::Value(problem) => RowError::at(field, problem),
            NotJson::Raised(e) => RowError::Raised(e),
        }
    }
}

impl From<PyErr> for RowError {
    fn from(e: PyErr) -> RowError {
        RowError::Raised(e)
    }
}

/// A problem with the row itself (a key that is not a `str`).
impl From<NotJson> for RowError {
    fn from(e: NotJson) -> RowError {
        RowError::of("row", e)
    }
}

/// A JSON column as read under the GIL: a Python value, already built into a document, or
/// the column's own text (JSON text, else a string of that text, as the store reads a
/// column), parsed later without the GIL.
enum JsonColumn {
    Built(Json),
    Text(PyBackedStr),
    /// UTF-8 `bytes`, copied; or, in a [`Stored`] row, the column's text owned.
    Owned(String),
}

impl JsonColumn {
    /// The column's value (`None` for JSON `null`, as in a bundle), and the `str` it was
    /// parsed from, which the caller lets go with the GIL held ([`Held`]).
    fn parse(self) -> (Option<Json>, Option<PyBackedStr>) {
        match self {
            JsonColumn::Built(json) => ((!json.is_null()).then_some(json), None),
            JsonColumn::Text(text) => (Json::from_column(&text), Some(text)),
            JsonColumn::Owned(text) => (Json::from_column(&text), None),
        }
    }

    /// The column with its text owned (copied out of the `str`), the `str` given back.
    #[cfg(feature = "test-hooks")]
    fn owned(self) -> (Option<JsonColumn>, Option<PyBackedStr>) {
        match self {
            JsonColumn::Text(text) => (Some(JsonColumn::Owned(String::from(&*text))), Some(text)),
            column => (Some(column), None),
        }
    }
}

/// Where a text is kept while the row is read: the table's text columns at their own
/// [`Column`]'s index, `raw_output_text` after them.
const RAW_OUTPUT_TEXT: usize = Column::ALL.len();

const TEXTS: usize = RAW_OUTPUT_TEXT + 1;

/// A row read from Python: its text columns still the `str` objects (their UTF-8 not copied
/// yet), its JSON columns given as text not parsed yet.
pub struct Pending {
    invocation: Invocation,
    texts: [Option<PyBackedStr>; TEXTS],
    /// `created_at` given as a `date`/`datetime`/`time`: its ISO 8601 text.
    created_at: Option<String>,
    input_params: Option<JsonColumn>,
    retrieval_details: Option<JsonColumn>,
    /// A `raw_output` value, built into the engine's document.
    raw_value: Option<Json>,
    /// The raw output's text given as bytes (`raw_output` or `raw_output_text`), decoded.
    raw_bytes: Option<String>,
    /// How many of `raw_output` and `raw_output_text` were given (not `None`): one at most.
    raw_given: u8,
    /// What the engine will read of the row: whether it may be verified on the calling thread.
    shape: Shape,
}

/// The Python `str`s an invocation was read from, once it no longer needs them: to be
/// dropped with the GIL held. A reference to a Python object let go without the GIL is not
/// let go at once: PyO3 queues it, under a lock every thread shares, until some thread next
/// takes the GIL — a cost a row, paid on the threads that verify. Dropped with the GIL held,
/// each is one decrement of a reference count.
///
/// The raw output's `str` is shared with the invocation (`RawOutput::Shared`): this clone is
/// the one to be let go last, so that the `str` itself is let go here, with the GIL held,
/// once the invocation (dropped first, on the thread that verified it) is gone.
#[must_use = "dropped with the GIL held (see `Held`)"]
pub struct Held {
    _texts: [Option<PyBackedStr>; TEXTS],
    _raw_output_text: Option<Arc<PyBackedStr>>,
    _columns: [Option<PyBackedStr>; 2],
}

/// A row as a Rust program reading the table holds it: every text its own `String`, the
/// raw output and the JSON columns still their text. What `Verifier._time_verify_run` (the
/// floor of `verify_run`) starts from; a bench hook's, so only in the `test-hooks` build.
#[cfg(feature = "test-hooks")]
pub struct Stored {
    invocation: Invocation,
    input_params: Option<JsonColumn>,
    retrieval_details: Option<JsonColumn>,
}

#[cfg(feature = "test-hooks")]
impl Stored {
    /// The invocation, its JSON columns parsed, as the store's rows become invocations.
    pub fn finish(self) -> Invocation {
        let mut inv = self.invocation;
        inv.input_params = self.input_params.and_then(|c| c.parse().0);
        inv.retrieval_details = self.retrieval_details.and_then(|c| c.parse().0);
        inv
    }
}

impl Pending {
    /// Whether the row is small enough to verify on the calling thread ([`crate::inline`]).
    pub fn small(&self) -> bool {
        self.shape.small()
    }

    /// Whether verifying the row parses text: its raw output given as text, or its claim as
    /// the column's JSON text. A row given as Python values was built into the engine's
    /// documents while it was read (with the GIL held), and what is left of its work is
    /// shorter than handing the GIL to a waiting thread and taking it back.
    pub fn parses_text(&self) -> bool {
        self.texts[RAW_OUTPUT_TEXT].is_some()
            || self.raw_bytes.is_some()
            || matches!(self.retrieval_details, Some(JsonColumn::Text(_) | JsonColumn::Owned(_)))
    }

    /// The invocation, its JSON columns given as text parsed: no Python object is touched,
    /// so this runs with the GIL let go. The raw output's text is shared with its `str`, not
    /// copied ([`RawOutput::Shared`]); the other text columns, short, are copied. A
    /// `raw_output` value was built into the engine's document when read, as a bundle's
    /// inline `raw_output` is parsed, so neither is bound by `max_output_bytes`; the verdict
    /// is the bundle's. The `str`s come back as [`Held`], to be let go with the GIL held,
    /// after the invocation.
    pub fn finish(self) -> (Invocation, Held) {
        let Pending {
            mut invocation,
            mut texts,
            created_at,
            input_params,
            retrieval_details,
            raw_value,
            raw_bytes,
            ..
        } = self;
        invocation.raw_output = raw_value.map(RawOutput::Json).or(raw_bytes.map(RawOutput::Text));
        let raw = texts[RAW_OUTPUT_TEXT].take().map(Arc::new);
        copy_texts(&mut invocation, &texts, created_at);
        if let Some(raw) = &raw {
            let owner: Arc<dyn AsRef<str> + Send + Sync> = raw.clone();
            invocation.raw_output = Some(RawOutput::Shared(SharedText::from_arc(owner)));
        }
        let (input_params, params_text) = input_params.map_or((None, None), JsonColumn::parse);
        let (retrieval_details, details_text) = retrieval_details.map_or((None, None), JsonColumn::parse);
        invocation.input_params = input_params;
        invocation.retrieval_details = retrieval_details;
        (invocation, Held { _texts: texts, _raw_output_text: raw, _columns: [params_text, details_text] })
    }

    /// The row as a Rust program reading the table holds it ([`Stored`]): every text copied
    /// into a `String`, the raw output's too, the JSON columns not parsed yet.
    #[cfg(feature = "test-hooks")]
    pub fn stored(self) -> (Stored, Held) {
        let Pending {
            mut invocation,
            mut texts,
            created_at,
            input_params,
            retrieval_details,
            raw_value,
            raw_bytes,
            ..
        } = self;
        // A Rust program holds a tool's output as the text a database or the tool gave it.
        invocation.raw_output =
            raw_value.map(|json| RawOutput::Text(json.to_json_string())).or(raw_bytes.map(RawOutput::Text));
        let raw = texts[RAW_OUTPUT_TEXT].take();
        copy_texts(&mut invocation, &texts, created_at);
        if let Some(raw) = &raw {
            invocation.raw_output = Some(RawOutput::Text(String::from(&**raw)));
        }
        let (input_params, params_text) = input_params.map_or((None, None), JsonColumn::owned);
        let (retrieval_details, details_text) = retrieval_details.map_or((None, None), JsonColumn::owned);
        let held = Held {
            _texts: texts,
            _raw_output_text: raw.map(Arc::new),
            _columns: [params_text, details_text],
        };
        (Stored { invocation, input_params, retrieval_details }, held)
    }
}

/// The text columns (but the raw output's) copied into `inv`, each where the core's table
/// puts it; `created_at` given as a date is its ISO text.
fn copy_texts(inv: &mut Invocation, texts: &[Option<PyBackedStr>; TEXTS], created_at: Option<String>) {
    for column in Column::ALL.into_iter().filter(|c| c.ty() == ColumnType::Text) {
        let text = texts[column as usize].as_deref().map_or(Cell::Null, |t| Cell::Text(String::from(t)));
        // Checked when read: a text in a text column, and the required one present.
        let _ = inv.set(column, text);
    }
    if created_at.is_some() {
        inv.created_at = created_at;
    }
}

/// Reads `row` (a mapping of `tool_invocation` columns).
pub fn read(row: &Bound<'_, PyAny>) -> Result<Pending, RowError> {
    if !classes(row.py())?.is_mapping(row)? {
        return Err(RowError::at("row", "a row is a mapping of tool_invocation columns"));
    }
    let mut pending = Pending {
        invocation: Invocation::default(),
        texts: Default::default(),
        created_at: None,
        input_params: None,
        retrieval_details: None,
        raw_value: None,
        raw_bytes: None,
        raw_given: 0,
        shape: Shape::default(),
    };
    let mut id = None;
    for_each_member(row, |key, value| {
        let key = text(&key).map_err(|e| RowError::of("row", e))?;
        let field = key.as_ref();
        let inv = &mut pending.invocation;
        let texts = &mut pending.texts;
        let mut text = |slot: usize, value| -> Result<(), RowError> {
            texts[slot] = string(value, field)?;
            Ok(())
        };
        let v = &value;
        match (field, Column::named(field)) {
            (_, Some(Column::CreatedAt)) => {
                // The text a DB driver returns first: a `str` is no date, no class to ask.
                if value.is_instance_of::<PyString>() || value.is_none() {
                    pending.created_at = None;
                    text(Column::CreatedAt as usize, value)?;
                } else {
                    pending.created_at = created_at(v)?;
                    text(Column::CreatedAt as usize, v.py().None().into_bound(v.py()))?;
                }
            }
            (_, Some(column)) => match column.ty() {
                ColumnType::Text => text(column as usize, value)?,
                ColumnType::Json => {
                    let read = json_column(value, field, &mut pending.shape, &mut inv.invalid_utf8)?;
                    match column {
                        Column::InputParams => pending.input_params = read,
                        _ => pending.retrieval_details = read,
                    }
                }
                ColumnType::Bigint | ColumnType::Int if column == Column::Id => {
                    id = integer(v, field, column)?
                }
                ColumnType::Bigint | ColumnType::Int => {
                    let n = integer(v, field, column)?;
                    inv.set(column, n.map_or(Cell::Null, Cell::Integer))
                        .map_err(|e| RowError::at(field, e.message()))?
                }
                ColumnType::Boolean => {
                    let b = boolean(v, field)?;
                    inv.set(column, b.map_or(Cell::Null, Cell::Bool))
                        .map_err(|e| RowError::at(field, e.message()))?
                }
            },
            ("raw_output" | "raw_output_text", None) if value.is_none() => {}
            ("raw_output" | "raw_output_text", None) => {
                pending.raw_given += 1;
                if let Some(decoded) = column_bytes(v).map_err(|e| RowError::of(field, e))? {
                    pending.shape.text(&decoded.text);
                    inv.invalid_utf8 |= decoded.lossy;
                    pending.raw_bytes = Some(decoded.text);
                } else if value.is_instance_of::<PyString>() {
                    // The output's exact text, as `raw_output_text` (shaped with the texts).
                    text(RAW_OUTPUT_TEXT, value)?;
                } else if field == "raw_output_text" {
                    return Err(RowError::at(
                        field,
                        format!("must be a str, bytes or None, not {}", what(v)),
                    ));
                } else {
                    pending.raw_value =
                        Some(to_json(v, &mut pending.shape).map_err(|e| RowError::of(field, e))?);
                }
            }
            _ => {
                return Err(RowError::at(
                    field,
                    "unknown key (expected a tool_invocation column, raw_output or raw_output_text)",
                ))
            }
        }
        Ok(())
    })?;
    for (column, text) in pending.texts.iter().enumerate() {
        match text {
            // The one text column parsed; the others are only copied or searched.
            Some(text) if column == RAW_OUTPUT_TEXT => pending.shape.text(text),
            Some(text) => pending.shape.plain(text),
            None => {}
        }
    }
    if pending.raw_given > 1 {
        return Err(RowError::at("raw_output", "raw_output and raw_output_text are both given; keep one"));
    }
    pending.invocation.id = id.ok_or_else(|| RowError::at("id", "required integer is missing"))?;
    if pending.texts[Column::ToolName as usize].is_none() {
        return Err(RowError::at("tool_name", "required string is missing"));
    }
    Ok(pending)
}

/// What a value is, for saying what was found instead of what a column needs.
fn what(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

/// A text column: `str` or `None`. The `str` is kept, not copied: its UTF-8 is read later,
/// with the GIL let go.
fn string(value: Bound<'_, PyAny>, field: &str) -> Result<Option<PyBackedStr>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    match value.cast_into::<PyString>() {
        Ok(s) => Ok(Some(backed(s).map_err(|e| RowError::of(field, e))?)),
        Err(e) => {
            Err(RowError::at(field, format!("must be a str or None, not {}", what(e.into_inner().as_any()))))
        }
    }
}

/// A `str` kept with its UTF-8 (CPython's own, cached with the object: no copy).
fn backed(s: Bound<'_, PyString>) -> Result<PyBackedStr, NotJson> {
    PyBackedStr::try_from(s).map_err(|_| lone_surrogate())
}

/// `created_at` when it is not a `str`: a `datetime` (or `date`) in ISO 8601.
fn created_at(value: &Bound<'_, PyAny>) -> Result<Option<String>, RowError> {
    if classes(value.py())?.is_date_or_time(value)? {
        return Ok(Some(iso_text(value).map_err(|e| RowError::of("created_at", e))?));
    }
    Err(RowError::at("created_at", format!("must be a str or None, not {}", what(value))))
}

/// A boolean column: `bool`, the integers 0 and 1 (SQLite and MySQL drivers return those),
/// or `None`.
fn boolean(value: &Bound<'_, PyAny>, field: &str) -> Result<Option<bool>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Some(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        match value.extract::<i64>() {
            Ok(0) => return Ok(Some(false)),
            Ok(1) => return Ok(Some(true)),
            _ => {}
        }
    }
    Err(RowError::at(field, format!("must be True, False, 0, 1 or None, not {}", what(value))))
}

/// An integer column: an `int` (not a `bool`), or a `Decimal` without fraction, within the
/// column's type; or `None`.
fn integer(value: &Bound<'_, PyAny>, field: &str, column: Column) -> Result<Option<i64>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    // The digits as written, so that a number past i64 is named as given; the core's table
    // bounds the column.
    let digits = if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        match value.extract::<i64>() {
            Ok(n) => return column.check_integer(n).map(Some).map_err(|e| RowError::at(field, e.message())),
            Err(_) => value.str().map_or_else(|_| "an int".into(), |s| s.to_string()),
        }
    } else if classes(value.py())?.is_decimal(value)? {
        decimal_text(value).map_err(|e| RowError::of(field, e))?
    } else {
        return Err(RowError::at(field, format!("must be an int or None, not {}", what(value))));
    };
    column.integer_text(&digits).map(Some).map_err(|e| RowError::at(field, e.message()))
}

/// A JSON column: a `str` (or bytes, decoded as [`column_bytes`] says, `lossy` set when they
/// were not UTF-8) is the column's text; anything else is the value itself, built at once.
fn json_column(
    value: Bound<'_, PyAny>,
    field: &str,
    shape: &mut Shape,
    lossy: &mut bool,
) -> Result<Option<JsonColumn>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    let value = match value.cast_into::<PyString>() {
        Ok(s) => {
            let text = backed(s).map_err(|e| RowError::of(field, e))?;
            shape.text(&text);
            return Ok(Some(JsonColumn::Text(text)));
        }
        Err(e) => e.into_inner(),
    };
    if let Some(decoded) = column_bytes(&value).map_err(|e| RowError::of(field, e))? {
        shape.text(&decoded.text);
        *lossy |= decoded.lossy;
        return Ok(Some(JsonColumn::Owned(decoded.text)));
    }
    Ok(Some(JsonColumn::Built(to_json(&value, shape).map_err(|e| RowError::of(field, e))?)))
}

/// A column's text given as bytes, decoded.
struct Decoded {
    text: String,
    /// Whether some bytes were not UTF-8 (and became U+FFFD).
    lossy: bool,
}

/// A column's text given as `bytes`, `bytearray` or `memoryview` (what drivers return for a
/// `BLOB` or `bytea`, and `sqlite3` for a value stored as a blob), decoded as the store
/// decodes a database's text: bytes that are not UTF-8 become U+FFFD, and the row is flagged
/// (`invalid_utf8`), so the verdict is the one `groundcheck run` gives for the same column.
/// `None` when `value` is none of these.
fn column_bytes(value: &Bound<'_, PyAny>) -> Result<Option<Decoded>, NotJson> {
    let decode = |bytes: &[u8]| match std::str::from_utf8(bytes) {
        Ok(text) => Decoded { text: text.to_owned(), lossy: false },
        Err(_) => Decoded { text: String::from_utf8_lossy(bytes).into_owned(), lossy: true },
    };
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(Some(decode(bytes.as_bytes())));
    }
    if let Ok(bytes) = value.cast::<PyByteArray>() {
        return Ok(Some(decode(&bytes.to_vec())));
    }
    if value.is_instance_of::<PyMemoryView>() {
        let bytes = value.call_method0("tobytes")?;
        let bytes = bytes.cast::<PyBytes>().map_err(PyErr::from)?;
        return Ok(Some(decode(bytes.as_bytes())));
    }
    Ok(None)
}
