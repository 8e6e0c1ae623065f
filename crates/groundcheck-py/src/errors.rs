//! Raising the exceptions Python callers catch. The classes are Python's own, defined in
//! `groundcheck/_errors.py` (one per kind of the core's error, under `GroundcheckError`, the
//! input errors also `ValueError`s); this module raises them with their attributes, the class
//! of each kind read from one table ([`CLASSES`]).

use std::panic::{catch_unwind, AssertUnwindSafe};

use groundcheck_core::{Error, ErrorKind};
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

/// The exception class of each kind of the core's error, keyed by its one spelling
/// ([`ErrorKind::as_str`]): one line per kind. Each class is a subclass of the one the kind was
/// raised as before it had its own (`_errors.py` says which), so no `except` changes meaning.
pub const CLASSES: &[(&str, &str)] = &[
    ("json", "InvalidJsonError"),
    ("bundle", "InvalidBundleError"),
    ("path", "InvalidPathError"),
    ("path_limit", "PathLimitError"),
    ("too_deep", "TooDeepError"),
    ("over_limit", "LimitExceededError"),
    ("duplicate_id", "DuplicateIdError"),
    ("unknown_name", "UnknownNameError"),
    ("score", "ScoreError"),
    ("limit", "LimitSettingError"),
    ("row", "InvalidRowError"),
];

/// The class of `kind` in [`CLASSES`]; `LocatedError`, the base of them all, for a kind a
/// newer core added before this table named it.
pub fn class_of(kind: ErrorKind) -> &'static str {
    CLASSES.iter().find(|(name, _)| *name == kind.as_str()).map_or("LocatedError", |(_, class)| class)
}

/// A row that cannot be read, naming the field (and the row's position in a run, which is
/// also the exception's `invocation`).
pub fn invalid_row(py: Python<'_>, row: Option<usize>, field: &str, problem: &str) -> PyErr {
    let message = match row {
        Some(n) => format!("row {n}, {field}: {problem}"),
        None => format!("{field}: {problem}"),
    };
    let field = ("field", PyString::new(py, field).into_any().unbind());
    let invocation = ("invocation", row.map_or_else(|| py.None(), |n| int(py, n)));
    raise(py, "InvalidRowError", &message, &[field, invocation])
}

/// The core's `error` as the Python exception of its kind ([`CLASSES`]), with its message and
/// every attribute of [`located`]; `limit` too when a limit stopped it (`"nodes"`,
/// `"output_size"`, `"path_length"`, `"depth"`).
pub fn from_core(py: Python<'_>, error: &Error) -> PyErr {
    from_core_saying(py, error, &error.to_string())
}

/// An error of `resolve`: a document that is not JSON says so (`document: line 1, column 2:
/// …`), every other kind reads as [`from_core`] has it.
pub fn resolving(py: Python<'_>, error: &Error) -> PyErr {
    match error.kind() {
        ErrorKind::Json => from_core_saying(py, error, &format!("document: {error}")),
        _ => from_core(py, error),
    }
}

/// [`from_core`] with the message given.
fn from_core_saying(py: Python<'_>, error: &Error, message: &str) -> PyErr {
    let mut attrs = Vec::from(located(py, error));
    if let Some(limit) = error.limit() {
        attrs.push(("limit", PyString::new(py, limit.as_str()).into_any().unbind()));
    }
    raise(py, class_of(error.kind()), message, &attrs)
}

/// A Python int, or `None` if it cannot be made.
fn int(py: Python<'_>, n: usize) -> Py<PyAny> {
    n.into_pyobject(py).map_or_else(|_| py.None(), |o| o.into_any().unbind())
}

/// The attributes every exception of a core error has (`LocatedError`'s): its place, its
/// position in a text, and the invocation and field it is about.
fn located(py: Python<'_>, error: &Error) -> [(&'static str, Py<PyAny>); 6] {
    let text = |s: Option<&str>| s.map_or_else(|| py.None(), |s| PyString::new(py, s).into_any().unbind());
    let position = error.position();
    [
        ("place", text(error.place())),
        ("line", position.map_or_else(|| py.None(), |p| int(py, p.line))),
        ("column", position.map_or_else(|| py.None(), |p| int(py, p.column))),
        ("offset", position.map_or_else(|| py.None(), |p| int(py, p.offset))),
        ("invocation", error.invocation().map_or_else(|| py.None(), |n| int(py, n))),
        ("field", text(error.field())),
    ]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_the_core_has_a_class_of_its_own() {
        for kind in ErrorKind::ALL {
            assert_ne!(class_of(kind), "LocatedError", "{kind:?} has no class");
        }
        let classes: std::collections::HashSet<&str> = CLASSES.iter().map(|(_, class)| *class).collect();
        assert_eq!(classes.len(), ErrorKind::ALL.len(), "two kinds share a class");
    }
}
