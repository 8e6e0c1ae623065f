//! JSON text as Python values without recursion: what `resolve` hands back as a node's value.
//! Python's own `json.loads` recurses once per nesting level in C, which overflows a small
//! thread's stack on the deep nodes `resolve` may select (a 64 KiB thread at a few hundred
//! levels); this walk keeps its own stack. It reads the compact JSON the engine writes, and
//! gives what `json.loads` gives for it: `int` for a number without fraction or exponent,
//! `float` otherwise, the last of repeated keys.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString};

/// A container being filled.
enum Open<'py> {
    List(Bound<'py, PyList>),
    /// A dict, and the key of the member whose value comes next.
    Dict(Bound<'py, PyDict>, Option<Bound<'py, PyString>>),
}

/// The Python value of JSON `text`.
pub fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let bad = || PyValueError::new_err("groundcheck: a node's JSON could not be read (a bug)");
    let bytes = text.as_bytes();
    let mut open: Vec<Open<'py>> = Vec::new();
    let mut at = 0;
    loop {
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b'\r' | b'\t' | b',' | b':') {
            at += 1;
        }
        let b = *bytes.get(at).ok_or_else(bad)?;
        let value: Bound<'py, PyAny> = match b {
            b'[' => {
                at += 1;
                open.push(Open::List(PyList::empty(py)));
                continue;
            }
            b'{' => {
                at += 1;
                open.push(Open::Dict(PyDict::new(py), None));
                continue;
            }
            b']' | b'}' => {
                at += 1;
                match open.pop().ok_or_else(bad)? {
                    Open::List(list) => list.into_any(),
                    Open::Dict(dict, _) => dict.into_any(),
                }
            }
            b'"' => {
                let end = string_end(bytes, at).ok_or_else(bad)?;
                let s: String = serde_json::from_str(&text[at..end]).map_err(|_| bad())?;
                at = end;
                let s = PyString::new(py, &s);
                if let Some(Open::Dict(_, key @ None)) = open.last_mut() {
                    *key = Some(s);
                    continue;
                }
                s.into_any()
            }
            b't' | b'f' | b'n' => {
                let (word, value) = match b {
                    b't' => ("true", true.into_pyobject(py)?.to_owned().into_any()),
                    b'f' => ("false", false.into_pyobject(py)?.to_owned().into_any()),
                    _ => ("null", py.None().into_bound(py)),
                };
                at += word.len();
                value
            }
            _ => {
                let end = bytes[at..]
                    .iter()
                    .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .map_or(bytes.len(), |n| at + n);
                let number = &text[at..end];
                at = end;
                if number.is_empty() {
                    return Err(bad());
                }
                if number.contains(['.', 'e', 'E']) {
                    PyFloat::new(py, number.parse::<f64>().map_err(|_| bad())?).into_any()
                } else if let Ok(n) = number.parse::<i64>() {
                    n.into_pyobject(py)?.into_any()
                } else {
                    // Beyond i64: Python's own int of the digits (its digit limit applies, as
                    // it does to json.loads).
                    py.get_type::<PyInt>().call1((number,))?
                }
            }
        };
        match open.last_mut() {
            None => return Ok(value),
            Some(Open::List(list)) => list.append(value)?,
            Some(Open::Dict(dict, key)) => dict.set_item(key.take().ok_or_else(bad)?, value)?,
        }
    }
}

/// The end (one past the closing quote) of the JSON string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}
