//! Python values as JSON text, the form the core reads rows and documents in.
//!
//! A Python program holds a row as a DB driver returns it: `dict`s (or any `Mapping`),
//! `list`s and `tuple`s, `str`, `int`, `float`, `Decimal`, `bool`, `None`, `datetime`. Each is
//! written as JSON, numbers by their text — `Decimal('0.950')` stays `0.950`, as the engine
//! keeps numbers as written. The walk keeps its own stack: a 10,000-deep value costs heap,
//! never the interpreter's or Rust's stack, and the engine's depth limit then decides its
//! verdict. What is not JSON-like (a container that contains itself, a non-string key, `NaN`,
//! a lone surrogate, a generator, a set, bytes that are not UTF-8) is a [`NotJson`], which the
//! caller turns into `InvalidRowError` naming the field.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Why a value cannot be written as JSON, or the Python exception met while reading it (a
/// `Mapping` whose `__getitem__` raises is the caller's exception, passed on as it is).
pub enum NotJson {
    /// What is wrong, for a sentence "FIELD: …".
    Value(String),
    /// An exception the value's own code raised.
    Raised(PyErr),
}

impl From<PyErr> for NotJson {
    fn from(e: PyErr) -> NotJson {
        NotJson::Raised(e)
    }
}

/// A container being written: its remaining children, and whether one was written yet.
enum Frame<'py> {
    Array { items: std::vec::IntoIter<Bound<'py, PyAny>>, first: bool, id: usize },
    Object { members: std::vec::IntoIter<(String, Bound<'py, PyAny>)>, first: bool, id: usize },
}

/// The classes a row's values may be that PyO3 has no type for under the stable ABI.
struct Classes {
    decimal: Py<PyAny>,
    mapping: Py<PyAny>,
    date: Py<PyAny>,
    time: Py<PyAny>,
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();
    CLASSES.get_or_try_init(py, || {
        let get = |module: &str, name: &str| -> PyResult<Py<PyAny>> {
            Ok(py.import(module)?.getattr(name)?.unbind())
        };
        Ok(Classes {
            decimal: get("decimal", "Decimal")?,
            mapping: get("collections.abc", "Mapping")?,
            date: get("datetime", "date")?,
            time: get("datetime", "time")?,
        })
    })
}

/// The `tool_invocation` columns that are booleans: SQLite and MySQL drivers return them as
/// the integers 0 and 1, which a row's reader takes for `false` and `true`.
const BOOLEAN_COLUMNS: [&str; 2] = ["success", "is_truncated"];

/// The `tool_invocation` columns that hold JSON: given as a `str`, that is the column's text
/// as the database holds it (JSON text, read as the engine's store reads it: text that is not
/// JSON is a string of that text); given as a dict or list, the value itself.
const JSON_COLUMNS: [&str; 2] = ["retrieval_details", "input_params"];

/// `row` (a mapping of `tool_invocation` columns) as a JSON object, its boolean columns read
/// from 0 and 1 and its JSON columns from their text, as a DB driver gives them.
pub fn row_to_json(row: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    walk(row, true)
}

/// `value` as JSON text.
pub fn to_json(value: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    walk(value, false)
}

fn walk(value: &Bound<'_, PyAny>, row: bool) -> Result<String, NotJson> {
    let py = value.py();
    let classes = classes(py)?;
    let mut out = String::new();
    let mut stack: Vec<Frame<'_>> = Vec::new();
    // The containers on the path from the root: one seen again contains itself.
    let mut open: Vec<usize> = Vec::new();
    let mut next = Some(value.clone());
    loop {
        if let Some(value) = next.take() {
            // The common scalars first: they need no class of Python's own to be told apart.
            if !write_common_scalar(&value, &mut out)? {
                if let Some(frame) = open_container(&value, classes, &open)? {
                    let id = match &frame {
                        Frame::Array { id, .. } | Frame::Object { id, .. } => *id,
                    };
                    open.push(id);
                    out.push(if matches!(frame, Frame::Array { .. }) { '[' } else { '{' });
                    stack.push(frame);
                } else {
                    write_scalar(&value, classes, &mut out)?;
                }
            }
        }
        let Some(top) = stack.last_mut() else { return Ok(out) };
        match top {
            Frame::Array { items, first, .. } => match items.next() {
                Some(item) => {
                    if !std::mem::take(first) {
                        out.push(',');
                    }
                    next = Some(item);
                }
                None => {
                    out.push(']');
                    stack.pop();
                    open.pop();
                }
            },
            Frame::Object { members, first, .. } => match members.next() {
                Some((key, item)) => {
                    if !std::mem::take(first) {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(&key).unwrap_or_default());
                    out.push(':');
                    let column = row && open.len() == 1;
                    if column && BOOLEAN_COLUMNS.contains(&key.as_str()) && as_flag(&item).is_some() {
                        out.push_str(if as_flag(&item) == Some(true) { "true" } else { "false" });
                    } else if column
                        && JSON_COLUMNS.contains(&key.as_str())
                        && item.is_instance_of::<PyString>()
                    {
                        let column_text = text(item.cast::<PyString>().map_err(PyErr::from)?)?;
                        if groundcheck_core::Json::parse(&column_text).is_ok() {
                            out.push_str(&column_text);
                        } else {
                            out.push_str(&serde_json::to_string(&column_text).unwrap_or_default());
                        }
                    } else {
                        next = Some(item);
                    }
                }
                None => {
                    out.push('}');
                    stack.pop();
                    open.pop();
                }
            },
        }
    }
}

/// An integer 0 or 1 (not a `bool`) as the flag it stands for.
fn as_flag(value: &Bound<'_, PyAny>) -> Option<bool> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return None;
    }
    match value.extract::<i64>().ok()? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

/// The frame of `value` when it is a container: a list or tuple, or a dict or `Mapping`.
fn open_container<'py>(
    value: &Bound<'py, PyAny>,
    classes: &Classes,
    open: &[usize],
) -> Result<Option<Frame<'py>>, NotJson> {
    let id = value.as_ptr() as usize;
    let array = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
    let object = !array
        && (value.is_instance_of::<PyDict>() || value.is_instance(classes.mapping.bind(value.py()))?);
    if !array && !object {
        return Ok(None);
    }
    if open.contains(&id) {
        return Err(NotJson::Value("a container that contains itself".into()));
    }
    if array {
        let items: Vec<Bound<'py, PyAny>> = value.try_iter()?.collect::<PyResult<_>>()?;
        return Ok(Some(Frame::Array { items: items.into_iter(), first: true, id }));
    }
    let mut members = Vec::new();
    let mut member = |key: Bound<'py, PyAny>, item: Bound<'py, PyAny>| -> Result<(), NotJson> {
        let Ok(key) = key.cast::<PyString>() else {
            let type_name = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(NotJson::Value(format!("a key of type {type_name}: JSON keys are strings")));
        };
        members.push((text(key)?, item));
        Ok(())
    };
    // A plain dict is read directly; a subclass or another Mapping through its own `items()`,
    // so that whatever it overrides is honoured (or raises).
    if value.is_exact_instance_of::<PyDict>() {
        for (key, item) in value.cast::<PyDict>().map_err(PyErr::from)?.iter() {
            member(key, item)?;
        }
    } else {
        for pair in value.call_method0("items")?.try_iter()? {
            let (key, item): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair?.extract()?;
            member(key, item)?;
        }
    }
    Ok(Some(Frame::Object { members: members.into_iter(), first: true, id }))
}

/// A Python `str` as Rust text: one holding a lone surrogate is not Unicode text.
fn text(s: &Bound<'_, PyString>) -> Result<String, NotJson> {
    s.to_str()
        .map(str::to_string)
        .map_err(|_| NotJson::Value("a string with a lone surrogate, which is not Unicode text".into()))
}

/// Writes `value` when it is `None`, a `bool`, an `int`, a `float` or a `str`; `false` when it
/// is none of them.
fn write_common_scalar(value: &Bound<'_, PyAny>, out: &mut String) -> Result<bool, NotJson> {
    if value.is_none() {
        out.push_str("null");
    } else if let Ok(s) = value.cast::<PyString>() {
        out.push_str(&serde_json::to_string(&text(s)?).unwrap_or_default());
    } else if let Ok(b) = value.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if value.is_instance_of::<PyInt>() {
        match value.extract::<i64>() {
            Ok(small) => out.push_str(&small.to_string()),
            Err(_) => {
                let digits = value.str().map_err(|_| {
                    NotJson::Value(
                        "an integer too long to write in decimal (Python's int_max_str_digits)".into(),
                    )
                })?;
                out.push_str(&text(&digits)?);
            }
        }
    } else if let Ok(f) = value.cast::<PyFloat>() {
        if !f.value().is_finite() {
            return Err(NotJson::Value(format!("{} is not a JSON number", f.value())));
        }
        out.push_str(&text(&value.repr()?)?);
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Writes the scalars [`write_common_scalar`] leaves: `Decimal`, bytes, dates and times.
fn write_scalar(value: &Bound<'_, PyAny>, classes: &Classes, out: &mut String) -> Result<(), NotJson> {
    let py = value.py();
    if value.is_instance(classes.decimal.bind(py))? {
        if !value.call_method0("is_finite")?.is_truthy()? {
            return Err(NotJson::Value(format!("Decimal('{}') is not a JSON number", value.str()?)));
        }
        out.push_str(&text(&value.str()?)?);
    } else if value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyByteArray>() {
        let bytes: Vec<u8> = value.extract()?;
        let s = String::from_utf8(bytes).map_err(|e| {
            NotJson::Value(format!("bytes that are not UTF-8 (at byte {})", e.utf8_error().valid_up_to()))
        })?;
        out.push_str(&serde_json::to_string(&s).unwrap_or_default());
    } else if value.is_instance(classes.date.bind(py))? || value.is_instance(classes.time.bind(py))? {
        let iso = value.call_method0("isoformat")?;
        out.push_str(
            &serde_json::to_string(&text(iso.cast::<PyString>().map_err(PyErr::from)?)?).unwrap_or_default(),
        );
    } else {
        let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(NotJson::Value(format!("a value of type {type_name}, which is not JSON-like")));
    }
    Ok(())
}
