//! groundcheck for Python: the extension module `groundcheck._groundcheck`, a thin layer
//! over `groundcheck-core` (no verification rule is written here). The Python package
//! (`python/groundcheck/`) wraps it in typed results and documented functions; see its
//! `__init__.py` and the README's Python section.

mod errors;
mod json;
mod policy;
mod results;
mod row;
mod verifier;

use groundcheck_core::Json;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{from_core, raise};
use crate::json::{to_json, NotJson};

/// The nodes `path` selects in `document` (JSON text, or a JSON-like Python value), exactly
/// as `groundcheck resolve` prints them: `(normalized path, value as JSON text, descended)`.
#[pyfunction]
fn _resolve(
    py: Python<'_>,
    document: &Bound<'_, PyAny>,
    path: &str,
) -> PyResult<Vec<(String, String, bool)>> {
    let text = match document.cast::<PyString>() {
        Ok(s) => s.to_str()?.to_string(),
        Err(_) => to_json(document).map_err(|e| match e {
            NotJson::Value(problem) => {
                raise(py, "InvalidDocumentError", &format!("document: {problem}"), &[])
            }
            NotJson::Raised(e) => e,
        })?,
    };
    let doc =
        Json::parse(&text).map_err(|e| raise(py, "InvalidDocumentError", &format!("document: {e}"), &[]))?;
    let nodes = groundcheck_core::resolve(path, &doc).map_err(|e| from_core(py, &e))?;
    Ok(nodes.into_iter().map(|n| (n.path, n.value, n.descended)).collect())
}

/// Panics inside Rust, to show that a panic reaches Python as `InternalError` (tests).
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    std::panic::catch_unwind(|| panic!("{message}")).map_err(|payload| errors::panicked(py, payload.as_ref()))
}

#[pymodule]
fn _groundcheck(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<policy::Limits>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<verifier::Verifier>()?;
    results::register(m)?;
    m.add_function(wrap_pyfunction!(_resolve, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add("SCHEMA", groundcheck_core::SCHEMA)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
