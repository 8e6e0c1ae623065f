//! groundcheck for Python: the extension module `groundcheck._groundcheck`, a thin layer
//! over `groundcheck-core` (no verification rule is written here). The Python package
//! (`python/groundcheck/`) wraps it in typed results and documented functions; see its
//! `__init__.py` and the README's Python section.

mod batch;
mod capsule;
mod engine;
mod errors;
mod hooks;
mod inline;
mod json;
mod loads;
mod policy;
mod results;
mod row;
mod verifier;

use groundcheck_core::Json;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;

use crate::errors::{guard, panicked, raise, resolving};
use crate::inline::Shape;

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

/// A document to resolve in, as taken out of Python.
enum Document {
    /// A text, read as a raw output is.
    Text(PyBackedStr),
    /// A JSON-like value, built.
    Value(Json),
}

/// The nodes `path` selects in `document`, exactly as `groundcheck resolve` prints them:
/// `(normalized path, value as JSON text, descended, read_as)`. A `str` document is a text,
/// read as a raw output is (JSON, else its JSON Lines or YAML view); any other value is
/// the document itself. `limits` (a `Limits`; the defaults when `None`) bound it as they bound
/// a verification: past one, `LimitExceededError` names it.
#[pyfunction]
#[pyo3(signature = (document, path, limits=None))]
fn _resolve(
    py: Python<'_>,
    document: &Bound<'_, PyAny>,
    path: &str,
    limits: Option<PyRef<'_, policy::Limits>>,
) -> PyResult<Vec<Node>> {
    guard("resolve", || {
        let invalid =
            |problem: String| raise(py, "InvalidDocumentError", &format!("document: {problem}"), &[]);
        let limits = limits.map_or_else(groundcheck_core::Limits::default, |l| l.0);
        let mut shape = Shape::default();
        shape.text(path);
        let document = match document.cast::<PyString>() {
            Ok(s) => {
                let text = PyBackedStr::try_from(s.clone())?;
                shape.text(&text);
                Document::Text(text)
            }
            Err(_) => Document::Value(to_json(document, &mut shape).map_err(|e| match e {
                NotJson::Value(problem) => invalid(problem),
                NotJson::Raised(e) => e,
            })?),
        };
        let path = path.to_string();
        let work = move || {
            let resolved = match &document {
                Document::Text(text) => groundcheck_core::resolve_text_with(&path, text, &limits),
                Document::Value(json) => groundcheck_core::resolve_with(&path, json, &limits),
            };
            (resolved, document)
        };
        let (resolved, document) = if shape.small() && inline::allowed() {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .map_err(|payload| panicked(py, payload.as_ref()))?
        } else {
            engine::run(py, &engine::ENGINE.get(py)?, &engine::cancel(), work)?
        };
        drop(document); // with the GIL held
        let nodes = resolved.map_err(|e| resolving(py, &e))?;
        Ok(nodes.into_iter().map(|n| (n.path, n.value, n.descended, n.read_as.map(|r| r.as_str()))).collect())
    })
}

/// Panics at once, inside a guard (the guard's own test; test build only).
#[cfg(feature = "test-hooks")]
#[pyfunction]
fn _panic_for_test(message: String) -> PyResult<()> {
    guard("_panic_for_test", || panic!("{message}"))
}

/// The Python value of a node's JSON text (`_resolve`'s second item), read without recursion,
/// so a node nested deeper than a small thread's stack allows for Python's own `json.loads`
/// is read too.
#[pyfunction]
fn _loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    guard("loads", || loads::loads(py, text))
}

#[pymodule]
fn _groundcheck(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<policy::Limits>()?;
    m.add_class::<policy::Policy>()?;
    m.add_class::<verifier::Verifier>()?;
    results::register(m)?;
    m.add_function(wrap_pyfunction!(_resolve, m)?)?;
    m.add_function(wrap_pyfunction!(_loads, m)?)?;
    m.add_function(wrap_pyfunction!(batch::_verify_batch, m)?)?;
    hooks::register(m)?;
    #[cfg(feature = "test-hooks")]
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    #[cfg(feature = "test-hooks")]
    m.add_class::<batch::BatchFloor>()?;
    m.add("SCHEMA", groundcheck_core::SCHEMA)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
