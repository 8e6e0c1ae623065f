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

use groundcheck_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::{from_core, raise};

/// mimalloc for what Rust allocates here, as the `groundcheck` binary does: building a row's
/// document and verifying it allocate and free many small strings and nodes, which mimalloc
/// does in clearly fewer instructions than the system allocator (benches/README.md, the
/// Python section). Python's objects keep Python's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use crate::json::{to_json, NotJson};

/// A resolved node as it crosses to Python: `(normalized path, value as JSON text,
/// descended, read_as)`.
type Node = (String, String, bool, Option<&'static str>);

/// The nodes `path` selects in `document`, exactly as `groundcheck resolve` prints them:
/// `(normalized path, value as JSON text, descended, read_as)`. A `str` document is a text,
/// read as a raw output is (JSON, else its JSON Lines or YAML view); any other value is
/// the document itself.
#[pyfunction]
fn _resolve(py: Python<'_>, document: &Bound<'_, PyAny>, path: &str) -> PyResult<Vec<Node>> {
    let invalid = |problem: String| raise(py, "InvalidDocumentError", &format!("document: {problem}"), &[]);
    let resolved = match document.cast::<PyString>() {
        Ok(s) => groundcheck_core::resolve_text(path, &s.to_cow()?),
        Err(_) => {
            let document = to_json(document).map_err(|e| match e {
                NotJson::Value(problem) => invalid(problem),
                NotJson::Raised(e) => e,
            })?;
            groundcheck_core::resolve(path, &document)
        }
    };
    let nodes = resolved.map_err(|e| match e.kind() {
        ErrorKind::Path | ErrorKind::PathLimit => from_core(py, &e),
        _ => invalid(e.to_string()),
    })?;
    Ok(nodes.into_iter().map(|n| (n.path, n.value, n.descended, n.read_as.map(|r| r.as_str()))).collect())
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
