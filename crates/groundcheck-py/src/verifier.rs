//! `Verifier`: the engine under one policy, built once and shared by every thread of a
//! Python program. Rows are read while the GIL is held (they are Python objects); the
//! verification itself runs with the GIL released, on rayon for a run, so other Python
//! threads keep running. Every call is guarded: a Rust panic becomes `InternalError`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use groundcheck_core::{Bundle, Invocation, Report, RunSet, Verifier as CoreVerifier};
use groundcheck_files::Template;
use pyo3::prelude::*;

use crate::errors::{from_core, invalid_row, panicked, raise};
use crate::json::{row_to_json, NotJson};
use crate::policy::Policy;

/// A verifier: a policy, its compiled paths, and where raw-output files are, if anywhere.
#[pyclass(frozen, module = "groundcheck", name = "Verifier")]
pub struct Verifier {
    core: Arc<CoreVerifier>,
    raw_outputs: Option<Arc<Template>>,
}

/// Runs `work` without the GIL, a panic caught.
fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work))).map_err(|payload| panicked(py, payload.as_ref()))
}

/// How many rows are read between two moments when other Python threads may take the GIL.
const ROWS_BETWEEN_YIELDS: usize = 32;

/// `rows` (each a row as a DB driver returns it) as one bundle's text. Reading the Python
/// objects needs the GIL; every few rows it is let go for a moment so that other threads keep
/// running.
fn rows_text(py: Python<'_>, rows: &[Bound<'_, PyAny>]) -> PyResult<String> {
    let mut text = String::from("{\"invocations\":[");
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            text.push(',');
            if i % ROWS_BETWEEN_YIELDS == 0 {
                py.detach(|| {});
            }
        }
        let row_json = row_to_json(row).map_err(|e| match e {
            NotJson::Value(problem) => invalid_row(py, &format!("row {i}"), &problem),
            NotJson::Raised(e) => e,
        })?;
        if !row_json.starts_with('{') {
            return Err(invalid_row(
                py,
                &format!("row {i}"),
                "a row is a mapping of tool_invocation columns",
            ));
        }
        text.push_str(&row_json);
    }
    text.push_str("]}");
    Ok(text)
}

/// A problem the bundle reader found in rows, as the row error naming the field
/// (`$.invocations[3].retrieval_details: …` → `retrieval_details`).
fn row_error(py: Python<'_>, e: &groundcheck_core::Error) -> PyErr {
    let place = e.place().unwrap_or("");
    let field = place.split_once("].").map_or(place, |(_, field)| field);
    invalid_row(py, if field.is_empty() { "row" } else { field }, e.message())
}

impl Verifier {
    fn attach(&self, invocations: &mut [Invocation]) {
        if let Some(template) = &self.raw_outputs {
            let max = self.core.policy().limits.max_output_bytes;
            for inv in invocations {
                groundcheck_files::attach_one(template, inv, max);
            }
        }
    }

    /// The report of `bundle`'s invocations grouped into runs, as pretty JSON and a newline:
    /// what `groundcheck verify --format json` prints.
    fn report(&self, py: Python<'_>, bundle: Bundle) -> PyResult<String> {
        let mut runs = RunSet::default();
        for inv in bundle.invocations {
            runs.push(inv).map_err(|e| from_core(py, &e))?;
        }
        let mut runs = runs.into_runs();
        detached(py, || {
            for run in &mut runs {
                self.attach(&mut run.invocations);
            }
            report_json(&self.core.verify_runs(&runs))
        })
    }
}

/// `report` as `verify --format json` prints it.
pub fn report_json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

#[pymethods]
impl Verifier {
    /// A verifier under `policy` (the default policy when `None`); `raw_outputs` is a
    /// `--raw-outputs` template for rows without a raw output of their own.
    #[new]
    #[pyo3(signature = (policy=None, *, raw_outputs=None))]
    fn new(
        py: Python<'_>,
        policy: Option<PyRef<'_, Policy>>,
        raw_outputs: Option<&str>,
    ) -> PyResult<Verifier> {
        let raw_outputs = raw_outputs
            .map(|t| {
                t.parse::<Template>()
                    .map_err(|e| raise(py, "InvalidPolicyError", &format!("raw_outputs: {e}"), &[]))
            })
            .transpose()?;
        let policy = policy.map_or_else(groundcheck_core::Policy::default, |p| p.0);
        Ok(Verifier { core: Arc::new(CoreVerifier::new(policy)), raw_outputs: raw_outputs.map(Arc::new) })
    }

    /// The policy verdicts are decided under.
    #[getter]
    fn policy(&self) -> Policy {
        Policy(*self.core.policy())
    }

    /// One row's verdict as JSON text (one invocation object of the report).
    fn _verify_invocation(&self, py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<String> {
        let text = rows_text(py, std::slice::from_ref(row))?;
        // One release of the GIL for reading, verifying and writing.
        let verdict = detached(py, || {
            let mut invocations = Bundle::parse(&text)?.invocations;
            self.attach(&mut invocations);
            Ok(serde_json::to_string(&self.core.verify(&invocations[0])).unwrap_or_default())
        })?;
        verdict.map_err(|e: groundcheck_core::Error| row_error(py, &e))
    }

    /// Seconds for `n` verifications of one row read once, in Rust alone: the floor the
    /// binding's per-call overhead is measured against (`benches/python/bench.py`).
    fn _time_verify(&self, py: Python<'_>, row: &Bound<'_, PyAny>, n: usize) -> PyResult<f64> {
        let text = rows_text(py, std::slice::from_ref(row))?;
        let bundle = Bundle::parse(&text).map_err(|e| row_error(py, &e))?;
        let invocation = &bundle.invocations[0];
        detached(py, || {
            let started = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(self.core.verify(std::hint::black_box(invocation)));
            }
            started.elapsed().as_secs_f64()
        })
    }

    /// The report of rows (any iterable), grouped into runs, as JSON text.
    fn _verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<String> {
        let rows: Vec<Bound<'_, PyAny>> = rows.try_iter()?.collect::<PyResult<_>>()?;
        let text = rows_text(py, &rows)?;
        let bundle = detached(py, || Bundle::parse(&text))?.map_err(|e| row_error(py, &e))?;
        self.report(py, bundle)
    }

    /// The report of bundle text, as JSON text.
    fn _verify_bundle_json(&self, py: Python<'_>, text: &str) -> PyResult<String> {
        let bundle = detached(py, || Bundle::parse(text))?.map_err(|e| from_core(py, &e))?;
        self.report(py, bundle)
    }
}
