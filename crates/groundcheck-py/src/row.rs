//! A `tool_invocation` row as a Python program holds it, read into the core's `Invocation`.
//!
//! A row is a `dict` (or any `Mapping`) of the table's columns as a DB driver returns them,
//! plus `raw_output` (any JSON-like value) or `raw_output_text` (the text). The rules are the
//! bundle format's, so a row verifies as the same row in a bundle file does: every key a
//! column (a typo is an error, never hidden evidence), `id` and `tool_name` required, integer
//! columns within their SQL type, at most one raw output. Where a driver differs from JSON,
//! the driver's form is read as the column means it: `0`/`1` in a boolean column, a
//! `datetime` in `created_at`, a `Decimal` in an integer column, and a JSON column
//! (`retrieval_details`, `input_params`) given as `str` is the column's text — JSON text, or
//! (as the store reads it) a string of that text when it is not JSON.
//!
//! Reading a row needs the GIL; it only copies Python values out. JSON columns are taken as
//! text ([`Pending`]) and parsed by [`Pending::finish`] once the GIL is let go.

use groundcheck_core::{Invocation, Json, RawOutput};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

use crate::json::{classes, decimal_text, for_each_member, iso_text, text, to_json, utf8, NotJson};

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

/// A JSON column as read under the GIL, parsed later: the text a Python value was written
/// as, or the column's own text (JSON text, else a string of that text, as the store reads
/// a column).
struct JsonText(String);

impl JsonText {
    /// The column's value; `None` for JSON `null`, as in a bundle.
    fn parse(self) -> Option<Json> {
        Json::from_column(&self.0)
    }
}

/// A row read from Python, its JSON columns not parsed yet.
pub struct Pending {
    invocation: Invocation,
    input_params: Option<JsonText>,
    retrieval_details: Option<JsonText>,
    raw_output: Option<JsonText>,
}

impl Pending {
    /// The bytes of text the engine will read for this row (its raw output, preview and
    /// claim): what the work of verifying it grows with.
    pub fn text_bytes(&self) -> usize {
        let inv = &self.invocation;
        let column = |c: &Option<JsonText>| c.as_ref().map_or(0, |t| t.0.len());
        let raw_text = match &inv.raw_output {
            Some(RawOutput::Text(text)) => text.len(),
            _ => 0,
        };
        column(&self.raw_output)
            + column(&self.retrieval_details)
            + raw_text
            + inv.output_preview.as_ref().map_or(0, String::len)
    }

    /// The invocation, its JSON columns parsed: no Python object is touched, so this runs
    /// with the GIL let go.
    ///
    /// A `raw_output` value becomes the JSON text it was written as, which the engine reads
    /// like `raw_output_text` — the located route, with no tree built — unless that text is
    /// over the size limit `max_output_bytes`: a bundle's inline `raw_output` is not bound
    /// by that limit (it was parsed already), so neither is a Python value, and such a text
    /// is parsed here. Either way the verdict is the bundle's.
    pub fn finish(self, max_output_bytes: usize) -> Invocation {
        let mut inv = self.invocation;
        inv.input_params = self.input_params.and_then(JsonText::parse);
        inv.retrieval_details = self.retrieval_details.and_then(JsonText::parse);
        if let Some(JsonText(text)) = self.raw_output {
            inv.raw_output = if text.len() <= max_output_bytes {
                Some(RawOutput::Text(text))
            } else {
                JsonText(text).parse().map(RawOutput::Json)
            };
        }
        inv
    }
}

/// Reads `row` (a mapping of `tool_invocation` columns).
pub fn read(row: &Bound<'_, PyAny>) -> Result<Pending, RowError> {
    if !classes(row.py())?.is_mapping(row)? {
        return Err(RowError::at("row", "a row is a mapping of tool_invocation columns"));
    }
    let mut pending = Pending {
        invocation: Invocation::default(),
        input_params: None,
        retrieval_details: None,
        raw_output: None,
    };
    let (mut id, mut tool_name, mut raw_text) = (None, None, None);
    for_each_member(row, |key, value| {
        let key = text(&key).map_err(|e| RowError::of("row", e))?;
        let field = key.as_ref();
        let inv = &mut pending.invocation;
        let v = &value;
        match field {
            "id" => id = integer(v, field, Column::BigInt)?,
            "session_id" => inv.session_id = string(v, field)?,
            "run_id" => inv.run_id = string(v, field)?,
            "step_id" => inv.step_id = integer(v, field, Column::BigInt)?,
            "tool_name" => tool_name = string(v, field)?,
            "input_params" => pending.input_params = json_column(v, field)?,
            "output_preview" => inv.output_preview = string(v, field)?,
            "output_length" => inv.output_length = integer(v, field, Column::Int)?,
            "retrieval_layer" => inv.retrieval_layer = string(v, field)?,
            "l0_match_count" => inv.l0_match_count = integer(v, field, Column::Int)?,
            "l1_match_count" => inv.l1_match_count = integer(v, field, Column::Int)?,
            "is_truncated" => inv.is_truncated = boolean(v, field)?,
            "relevance_level" => inv.relevance_level = string(v, field)?,
            "dedup_reason" => inv.dedup_reason = string(v, field)?,
            "retrieval_details" => pending.retrieval_details = json_column(v, field)?,
            "duration_ms" => inv.duration_ms = integer(v, field, Column::Int)?,
            "success" => inv.success = boolean(v, field)?,
            "error_message" => inv.error_message = string(v, field)?,
            "created_at" => inv.created_at = created_at(v)?,
            "raw_output" => {
                pending.raw_output = if v.is_none() {
                    None
                } else {
                    Some(JsonText(to_json(v).map_err(|e| RowError::of(field, e))?))
                }
            }
            "raw_output_text" => raw_text = string(v, field)?,
            _ => {
                return Err(RowError::at(
                    field,
                    "unknown key (expected a tool_invocation column, raw_output or raw_output_text)",
                ))
            }
        }
        Ok(())
    })?;
    if let Some(text) = raw_text {
        if pending.raw_output.is_some() {
            return Err(RowError::at(
                "raw_output",
                "raw_output and raw_output_text are both given; keep one",
            ));
        }
        pending.invocation.raw_output = Some(RawOutput::Text(text));
    }
    pending.invocation.id = id.ok_or_else(|| RowError::at("id", "required integer is missing"))?;
    pending.invocation.tool_name =
        tool_name.ok_or_else(|| RowError::at("tool_name", "required string is missing"))?;
    Ok(pending)
}

/// What a value is, for saying what was found instead of what a column needs.
fn what(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

/// A text column: `str` or `None`.
fn string(value: &Bound<'_, PyAny>, field: &str) -> Result<Option<String>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    match value.cast::<PyString>() {
        Ok(s) => Ok(Some(text(s).map_err(|e| RowError::of(field, e))?.into_owned())),
        Err(_) => Err(RowError::at(field, format!("must be a str or None, not {}", what(value)))),
    }
}

/// `created_at`: a `datetime` (or `date`) in ISO 8601, or the column's text.
fn created_at(value: &Bound<'_, PyAny>) -> Result<Option<String>, RowError> {
    if classes(value.py())?.is_date_or_time(value)? {
        return Ok(Some(iso_text(value).map_err(|e| RowError::of("created_at", e))?));
    }
    string(value, "created_at")
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

/// The SQL type of an integer column, which bounds it.
#[derive(Clone, Copy)]
enum Column {
    /// BIGINT: within i64.
    BigInt,
    /// INT: within i32, so every database accepts it.
    Int,
}

/// An integer column: an `int` (not a `bool`), or a `Decimal` without fraction, within the
/// column's type; or `None`.
fn integer(value: &Bound<'_, PyAny>, field: &str, column: Column) -> Result<Option<i64>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    let (min, max, name) = match column {
        Column::BigInt => (i64::MIN, i64::MAX, "BIGINT (i64)"),
        Column::Int => (i32::MIN.into(), i32::MAX.into(), "INT (i32)"),
    };
    let parsed: Result<i64, String> = if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>()
    {
        value.extract::<i64>().map_err(|_| value.str().map_or_else(|_| "an int".into(), |s| s.to_string()))
    } else if classes(value.py())?.is_decimal(value)? {
        let digits = decimal_text(value).map_err(|e| RowError::of(field, e))?;
        digits.parse::<i64>().map_err(|_| digits)
    } else {
        return Err(RowError::at(field, format!("must be an int or None, not {}", what(value))));
    };
    match parsed {
        Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
        Ok(n) => Err(RowError::at(field, format!("{n} is not an integer within {name}"))),
        Err(digits) => Err(RowError::at(field, format!("{digits} is not an integer within {name}"))),
    }
}

/// A JSON column: a `str` is the column's text; anything else is the value itself.
fn json_column(value: &Bound<'_, PyAny>, field: &str) -> Result<Option<JsonText>, RowError> {
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Some(JsonText(text(s).map_err(|e| RowError::of(field, e))?.into_owned())));
    }
    if value.is_instance_of::<pyo3::types::PyBytes>() {
        return Ok(Some(JsonText(utf8(value).map_err(|e| RowError::of(field, e))?)));
    }
    Ok(Some(JsonText(to_json(value).map_err(|e| RowError::of(field, e))?)))
}
