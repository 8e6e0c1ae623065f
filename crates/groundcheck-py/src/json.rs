//! Python values as the engine's JSON documents ([`Json`]), built directly.
//!
//! A Python program holds a row as a DB driver returns it: `dict`s (or any `Mapping`),
//! `list`s and `tuple`s, `str`, `int`, `float`, `Decimal`, `bool`, `None`, `datetime`. Each
//! becomes the tree the core's parser would make of its JSON text, numbers by their text —
//! `Decimal('0.950')` stays `0.950`, as the engine keeps numbers as written — through the
//! core's [`JsonBuilder`], so no JSON text is written only to be parsed again. The walk keeps
//! its own stack: a 10,000-deep value costs heap, never the interpreter's or Rust's stack, and
//! the engine's depth limit then decides its verdict. What is not JSON-like (a container that
//! contains itself, a non-string key, `NaN`, a lone surrogate, a generator, a set, bytes that
//! are not UTF-8) is a [`NotJson`], which the caller turns into `InvalidRowError` naming the
//! field.
//!
//! The walk needs the GIL (it reads Python objects); the document it builds is verified
//! with the GIL let go.

use groundcheck_core::{Json, JsonBuilder};

use crate::inline::Shape;
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

/// One step of the walk. A container's children are pushed as steps when it is opened —
/// copied out first, so that Python code a child runs (a `float` subclass's `__repr__`, a
/// `Decimal` subclass's `__str__`) cannot change the container under the walk — then its
/// closing bracket; one stack serves the whole value.
enum Step<'py> {
    /// An array item, or the root.
    Item(Bound<'py, PyAny>),
    /// An object member.
    Member(Bound<'py, PyString>, Bound<'py, PyAny>),
    /// The end of the innermost open container.
    Close,
}

/// The classes a row's values may be that PyO3 has no type for under the stable ABI.
pub struct Classes {
    decimal: Py<PyAny>,
    mapping: Py<PyAny>,
    date: Py<PyAny>,
    time: Py<PyAny>,
}

pub fn classes(py: Python<'_>) -> PyResult<&Classes> {
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

impl Classes {
    /// `decimal.Decimal`.
    pub fn decimal_class<'py>(&self, py: Python<'py>) -> &Bound<'py, PyAny> {
        self.decimal.bind(py)
    }

    /// Whether `value` is a `dict` or another `Mapping`.
    pub fn is_mapping(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(value.is_instance_of::<PyDict>() || value.is_instance(self.mapping.bind(value.py()))?)
    }

    /// Whether `value` is a `Decimal`.
    pub fn is_decimal(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        value.is_instance(self.decimal.bind(value.py()))
    }

    /// Whether `value` is a `date`, a `datetime` or a `time`.
    pub fn is_date_or_time(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = value.py();
        Ok(value.is_instance(self.date.bind(py))? || value.is_instance(self.time.bind(py))?)
    }
}

/// `value` as the engine's JSON document, built directly (no JSON text is written and read
/// back); what the engine will read of it is counted in `shape` (its nodes, its strings'
/// text, its depth), which decides where it is verified.
pub fn to_json(value: &Bound<'_, PyAny>, shape: &mut Shape) -> Result<Json, NotJson> {
    let mut out = JsonBuilder::new();
    write_json(value, &mut out, shape)?;
    // Every call made above is one JSON value; an error here is a bug of this walk.
    let json = out.finish().map_err(|e| NotJson::Value(e.to_string()))?;
    shape.depth(json.depth());
    Ok(json)
}

/// Builds `value` in `out`.
fn write_json(value: &Bound<'_, PyAny>, out: &mut JsonBuilder, shape: &mut Shape) -> Result<(), NotJson> {
    let classes = classes(value.py())?;
    let mut steps = Vec::with_capacity(64);
    steps.push(Step::Item(value.clone()));
    let mut open = OpenPath::default();
    while let Some(step) = steps.pop() {
        let value = match step {
            Step::Close => {
                out.end();
                open.leave();
                continue;
            }
            Step::Item(value) => value,
            Step::Member(key, value) => {
                let key = text(&key)?;
                shape.string(&key);
                out.key(&key);
                value
            }
        };
        shape.node();
        // What a tool's output is mostly made of, each told by one comparison of its type —
        // an exact `str`, `dict` or `list` — before the scalars are tried one by one.
        if let Ok(s) = value.cast_exact::<PyString>() {
            let s = text(s)?;
            shape.string(&s);
            out.string(&s);
            continue;
        }
        let (dict, list) = (value.cast_exact::<PyDict>().ok(), value.cast_exact::<PyList>().ok());
        let array = if dict.is_some() || list.is_some() {
            list.is_some()
        } else if write_common_scalar(&value, out, shape)? {
            continue;
        } else {
            let array = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
            if !array && !classes.is_mapping(&value)? {
                write_scalar(&value, classes, out, shape)?;
                continue;
            }
            array
        };
        open.enter(&value)?;
        // How many children follow, when Python knows it without running a container's own
        // code: the builder's room for them, allocated once.
        let len = list.as_ref().map(|l| l.len()).or(dict.as_ref().map(|d| d.len())).unwrap_or(0);
        if array {
            out.begin_array_with_capacity(len);
        } else {
            out.begin_object_with_capacity(len);
        }
        steps.push(Step::Close);
        let first = steps.len();
        if let Some(list) = list {
            // Read directly: pushing steps runs no Python code, so the list cannot change.
            steps.extend(list.iter().map(Step::Item));
        } else if array {
            for item in value.try_iter()? {
                steps.push(Step::Item(item?));
            }
        } else if let Some(dict) = dict {
            // Read directly: pushing steps runs no Python code, so the dict cannot change.
            for (key, item) in dict.iter() {
                steps.push(Step::Member(member_key(key)?, item));
            }
        } else {
            for_each_member(&value, |key, item| {
                steps.push(Step::Member(key, item));
                Ok::<(), NotJson>(())
            })?;
        }
        // Pushed in order, taken from the end: reversed, the first child comes first.
        steps[first..].reverse();
    }
    Ok(())
}

/// The containers on the path from the root to the walk's position, by identity: one opened
/// again inside itself is a container that contains itself. The walk checks every container
/// it opens, so the check must stay cheap at any depth. The first [`SCANNED`] levels are
/// scanned (a tool's output rarely nests deeper, and a scan that short beats hashing); deeper
/// ones are also kept in a set, so a value 10,000 levels deep costs a set lookup and a short
/// scan a level, not a scan of the whole path.
#[derive(Default)]
struct OpenPath {
    ids: Vec<usize>,
    deep: std::collections::HashSet<usize>,
}

/// How many levels from the root [`OpenPath`] scans rather than hashes.
const SCANNED: usize = 32;

impl OpenPath {
    /// Notes `value`, a container about to be opened below the path.
    fn enter(&mut self, value: &Bound<'_, PyAny>) -> Result<(), NotJson> {
        let id = value.as_ptr() as usize;
        let scanned = &self.ids[..self.ids.len().min(SCANNED)];
        if scanned.contains(&id) || self.deep.contains(&id) {
            return Err(NotJson::Value("a container that contains itself".into()));
        }
        if self.ids.len() >= SCANNED {
            self.deep.insert(id);
        }
        self.ids.push(id);
        Ok(())
    }

    /// Closes the innermost container.
    fn leave(&mut self) {
        if let Some(id) = self.ids.pop() {
            if self.ids.len() >= SCANNED {
                self.deep.remove(&id);
            }
        }
    }
}

/// A member's key, which must be a `str`.
fn member_key(key: Bound<'_, PyAny>) -> Result<Bound<'_, PyString>, NotJson> {
    key.cast_into::<PyString>().map_err(|e| {
        let key = e.into_inner();
        let type_name = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        NotJson::Value(format!("a key of type {type_name}: JSON keys are strings"))
    })
}

/// Calls `each` with every member of `mapping` (a dict or another `Mapping`), its key a
/// `str`. A plain dict's members are copied out first, since `each` may run Python code
/// that changes it; a subclass or another Mapping is read through its own `items()`, so
/// that whatever it overrides is honoured (or raises).
pub fn for_each_member<'py, E: From<NotJson> + From<PyErr>>(
    mapping: &Bound<'py, PyAny>,
    mut each: impl FnMut(Bound<'py, PyString>, Bound<'py, PyAny>) -> Result<(), E>,
) -> Result<(), E> {
    if let Ok(dict) = mapping.cast_exact::<PyDict>() {
        let members: Vec<_> = dict.iter().collect();
        for (key, item) in members {
            each(member_key(key)?, item)?;
        }
    } else {
        for pair in mapping.call_method0("items")?.try_iter()? {
            let (key, item): (Bound<'py, PyAny>, Bound<'py, PyAny>) = pair?.extract()?;
            each(member_key(key)?, item)?;
        }
    }
    Ok(())
}

/// A Python `str` as Rust text: one holding a lone surrogate is not Unicode text.
pub fn text<'a>(s: &'a Bound<'_, PyString>) -> Result<std::borrow::Cow<'a, str>, NotJson> {
    s.to_cow().map_err(|_| lone_surrogate())
}

/// The problem of a `str` that is not Unicode text.
pub fn lone_surrogate() -> NotJson {
    NotJson::Value("a string with a lone surrogate, which is not Unicode text".into())
}

/// Builds `value` when it is `None`, a `bool`, an `int`, a `float` or a `str`; `false` when
/// it is none of them.
fn write_common_scalar(
    value: &Bound<'_, PyAny>,
    out: &mut JsonBuilder,
    shape: &mut Shape,
) -> Result<bool, NotJson> {
    if value.is_none() {
        out.null();
    } else if let Ok(s) = value.cast::<PyString>() {
        let s = text(s)?;
        shape.string(&s);
        out.string(&s);
    } else if let Ok(b) = value.cast::<PyBool>() {
        out.bool(b.is_true());
    } else if value.is_instance_of::<PyInt>() {
        write_int(value, out)?;
    } else if let Ok(f) = value.cast::<PyFloat>() {
        let f = f.value();
        if !f.is_finite() {
            return Err(NotJson::Value(format!("{f} is not a JSON number")));
        }
        // Python's own shortest text (`1e+16`, `0.1`) of the float's value: a subclass's
        // `__repr__` is not asked.
        out.number(&float_repr(f));
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// What Python's `repr` writes for a finite float (`0.95`, `1e+16`, `1e-05`, `-0.0`,
/// `100.0`), without asking Python: the shortest digits that read back as the same float,
/// the closest such, a tie to the even digit (Ryu's choice, and Python's), laid out by
/// `repr`'s rule — exponent notation when the decimal point would fall more than 16 digits
/// right of the first digit or 4 or more zeros left of it, else positional with at least
/// one digit after the point. Python's own path (`_Py_dg_dtoa`) costs several times more,
/// and a tool's JSON output is often mostly numbers. (Rust's own shortest formatting is not
/// it: it breaks a tie upwards, `-1723134297266376.3` where `repr` writes `.2`.)
fn float_repr(f: f64) -> String {
    use std::fmt::Write;
    let mut buffer = ryu::Buffer::new();
    let written = buffer.format_finite(f.abs());
    // Ryu's own layout (`1e16`, `1.5e-7`, `0.001`, `123.0`) read back as digits and the
    // place of the decimal point.
    let (mantissa, exponent) = written.split_once(['e', 'E']).unwrap_or((written, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut point = whole.len() as i32 + exponent;
    let all = format!("{whole}{fraction}");
    let leading = all.len() - all.trim_start_matches('0').len();
    point -= leading as i32;
    let digits = all.trim_matches('0');
    let (digits, point) = if digits.is_empty() { ("0", 1) } else { (digits, point) };
    let mut out = String::with_capacity(digits.len() + 8);
    if f.is_sign_negative() {
        out.push('-');
    }
    if !(-3..=16).contains(&point) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exponent = point - 1;
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(digits);
    } else {
        let point = point as usize;
        if point >= digits.len() {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// Builds an `int`, in decimal.
fn write_int(value: &Bound<'_, PyAny>, out: &mut JsonBuilder) -> Result<(), NotJson> {
    match value.extract::<i64>() {
        Ok(small) => {
            out.number(itoa::Buffer::new().format(small));
            Ok(())
        }
        Err(_) => {
            let digits = value.str().map_err(|_| {
                NotJson::Value("an integer too long to write in decimal (Python's int_max_str_digits)".into())
            })?;
            out.number(&text(&digits)?);
            Ok(())
        }
    }
}

/// Builds the scalars [`write_common_scalar`] leaves: `Decimal`, bytes, dates and times.
fn write_scalar(
    value: &Bound<'_, PyAny>,
    classes: &Classes,
    out: &mut JsonBuilder,
    shape: &mut Shape,
) -> Result<(), NotJson> {
    let (text, number) = if classes.is_decimal(value)? {
        (decimal_text(value)?, true)
    } else if value.is_instance_of::<PyBytes>() || value.is_instance_of::<PyByteArray>() {
        (utf8(value)?, false)
    } else if classes.is_date_or_time(value)? {
        (iso_text(value)?, false)
    } else {
        return Err(not_json_like(value));
    };
    if number {
        out.number(&text);
    } else {
        shape.string(&text);
        out.string(&text);
    }
    Ok(())
}

/// A finite `Decimal`'s text, as written (`Decimal('0.950')` is `0.950`).
pub fn decimal_text(value: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    if !value.call_method0("is_finite")?.is_truthy()? {
        return Err(NotJson::Value(format!("Decimal('{}') is not a JSON number", value.str()?)));
    }
    Ok(text(&value.str()?)?.into_owned())
}

/// `bytes` or `bytearray` as text, when it is UTF-8.
pub fn utf8(value: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    let bytes: Vec<u8> = value.extract()?;
    String::from_utf8(bytes).map_err(|e| {
        NotJson::Value(format!("bytes that are not UTF-8 (at byte {})", e.utf8_error().valid_up_to()))
    })
}

/// A `date`, `datetime` or `time` in ISO 8601 (`2026-11-30T10:00:01+00:00`).
pub fn iso_text(value: &Bound<'_, PyAny>) -> Result<String, NotJson> {
    let iso = value.call_method0("isoformat")?;
    Ok(text(iso.cast::<PyString>().map_err(PyErr::from)?)?.into_owned())
}

/// The problem of a value that is none of the JSON-like types.
pub fn not_json_like(value: &Bound<'_, PyAny>) -> NotJson {
    let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    NotJson::Value(format!("a value of type {type_name}, which is not JSON-like"))
}
