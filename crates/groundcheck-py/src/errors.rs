//! Raising the exceptions Python callers catch. The classes are Python's own, defined in
//! `groundcheck/_errors.py` (one per kind of the core's error, under `GroundcheckError`, the
//! input errors also `ValueError`s); this module raises them with their attributes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use groundcheck_core::{Error, ErrorKind, Limit};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// An instance of `groundcheck._errors.CLASS` with `message` and the attributes given; a
/// `ValueError` if the module cannot be imported (the extension loaded on its own).
pub fn raise(py: Python<'_>, class: &str, message: &str, attrs: &[(&str, Py<PyAny>)]) -> PyErr {
    let made =
        py.import("groundcheck._errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1((message,)));
    match made {
        Ok(error) => {
            for (name, value) in attrs {
                if let Err(e) = error.setattr(*name, value) {
                    return e;
                }
            }
            PyErr::from_value(error)
        }
        Err(_) => PyValueError::new_err(message.to_string()),
    }
}

/// A row that cannot be read, naming the field (and the row's position in a run).
pub fn invalid_row(py: Python<'_>, row: Option<usize>, field: &str, problem: &str) -> PyErr {
    let message = match row {
        Some(n) => format!("row {n}, {field}: {problem}"),
        None => format!("{field}: {problem}"),
    };
    raise(py, "InvalidRowError", &message, &[("field", PyString::new(py, field).into_any().unbind())])
}

/// The core's `error` as the Python exception of its kind, with its place and position.
pub fn from_core(py: Python<'_>, error: &Error) -> PyErr {
    let class = match error.kind() {
        ErrorKind::Path | ErrorKind::PathLimit => "InvalidPathError",
        ErrorKind::Score | ErrorKind::UnknownName => "InvalidPolicyError",
        _ => "InvalidBundleError",
    };
    let attrs = located(py, error);
    raise(py, class, &error.to_string(), &attrs)
}

/// The attributes every exception of a core error has: its place and position.
fn located(py: Python<'_>, error: &Error) -> [(&'static str, Py<PyAny>); 4] {
    let int = |n: usize| n.into_pyobject(py).map_or_else(|_| py.None(), |o| o.into_any().unbind());
    let position = error.position();
    [
        ("place", error.place().map_or_else(|| py.None(), |p| PyString::new(py, p).into_any().unbind())),
        ("line", position.map_or_else(|| py.None(), |p| int(p.line))),
        ("column", position.map_or_else(|| py.None(), |p| int(p.column))),
        ("offset", position.map_or_else(|| py.None(), |p| int(p.offset))),
    ]
}

/// A limit that stopped `error` (`resolve` past `max_nodes`), as `LimitExceededError` with
/// `limit` naming it (`"nodes"`, `"output_size"`, `"path_length"`, `"depth"`) and the error's
/// place and position.
pub fn limit_exceeded(py: Python<'_>, error: &Error, limit: Limit) -> PyErr {
    let name = ("limit", PyString::new(py, limit.as_str()).into_any().unbind());
    let [place, line, column, offset] = located(py, error);
    raise(py, "LimitExceededError", &error.to_string(), &[place, line, column, offset, name])
}

/// Runs the body of the entry point named `entry` (`Verdict.to_json`, `resolve`) with a panic
/// caught: every `#[pymethods]` and `#[pyfunction]` goes through here, so a panic reaches Python
/// as `InternalError` (a `GroundcheckError`, which `except Exception` catches), never as
/// PyO3's `PanicException` (a `BaseException`). The name is for the test build's injected
/// panics ([`crate::hooks`]).
#[inline]
pub fn guard<T>(entry: &'static str, body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(|| {
        crate::hooks::point(entry);
        body()
    }))
    .unwrap_or_else(|payload| Err(Python::attach(|py| panicked(py, payload.as_ref()))))
}

/// A Rust panic caught at the boundary, as `InternalError`.
pub fn panicked(py: Python<'_>, payload: &(dyn std::any::Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    raise(py, "InternalError", &format!("groundcheck panicked (a bug; please report the input): {what}"), &[])
}
