//! `Verifier`: the engine under one policy, built once and shared by every thread of a
//! Python program. Rows are read while the GIL is held (they are Python objects), and only
//! copied out; parsing their JSON and verifying run with the GIL released, on rayon for a
//! run, so other Python threads keep running. Every call is guarded: a Rust panic becomes
//! `InternalError`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use groundcheck_core::{Bundle, Invocation, RunSet, Verifier as CoreVerifier};
use groundcheck_files::Template;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::{from_core, invalid_row, panicked, raise};
use crate::policy::Policy;
use crate::results::{Report, Verdict};
use crate::row::{self, Pending, RowError};

/// The engine under one policy, built once and shared by every thread; `raw_outputs` is a
/// template for rows without a raw output of their own, as `--raw-outputs`:
/// `/var/lib/agent/sessions/{session_id}/tools/{id}.json`.
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

/// Rows with less text than this are verified with the GIL held: their work is shorter than
/// a hand-over of the GIL to a waiting thread (benches/README.md).
const DETACH_BYTES: usize = 4 * 1024;

fn pending_is_small(pending: &Pending) -> bool {
    pending.text_bytes() < DETACH_BYTES
}

/// Reads one row, its problem as `InvalidRowError` naming the field (`row N: …` in a run).
fn read_row(py: Python<'_>, row: &Bound<'_, PyAny>, n: Option<usize>) -> PyResult<Pending> {
    row::read(row).map_err(|e| match e {
        RowError::Field(field, problem) => invalid_row(py, n, &field, &problem),
        RowError::Raised(e) => e,
    })
}

impl Verifier {
    fn max_output_bytes(&self) -> usize {
        self.core.policy().limits.max_output_bytes
    }

    fn attach(&self, invocations: &mut [Invocation]) {
        if let Some(template) = &self.raw_outputs {
            let max = self.core.policy().limits.max_output_bytes;
            for inv in invocations {
                groundcheck_files::attach_one(template, inv, max);
            }
        }
    }

    /// The report of `invocations` grouped into runs, verified without the GIL.
    fn report(&self, py: Python<'_>, invocations: Vec<Invocation>) -> PyResult<Report> {
        let mut runs = RunSet::default();
        for inv in invocations {
            runs.push(inv).map_err(|e| from_core(py, &e))?;
        }
        let mut runs = runs.into_runs();
        detached(py, || {
            for run in &mut runs {
                self.attach(&mut run.invocations);
            }
            Report::new(self.core.verify_runs(&runs))
        })
    }
}

#[pymethods]
impl Verifier {
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

    /// The verdict of one `tool_invocation` row (a `dict` or any `Mapping` of its columns,
    /// as a DB driver returns them, plus `raw_output` or `raw_output_text`).
    fn verify_invocation(&self, py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        let pending = read_row(py, row, None)?;
        let small = pending_is_small(&pending) && self.raw_outputs.is_none();
        let work = || {
            let mut invocation = [pending.finish(self.max_output_bytes())];
            self.attach(&mut invocation);
            Verdict::one(self.core.verify(&invocation[0]))
        };
        // A small row is verified faster than another thread wakes up and takes the GIL
        // over: letting it go would only make threads queue for it.
        // A larger row, or a raw-output file to read, is verified with the GIL let go.
        if small {
            catch_unwind(AssertUnwindSafe(work)).map_err(|payload| panicked(py, payload.as_ref()))
        } else {
            detached(py, work)
        }
    }

    /// The report of rows (any iterable of mappings, a generator too) grouped into runs (by
    /// `run_id`, else `session_id`), verified in parallel with the GIL released.
    fn verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<Report> {
        let mut pending = Vec::new();
        for (n, row) in rows.try_iter()?.enumerate() {
            if n > 0 && n % ROWS_BETWEEN_YIELDS == 0 {
                // Other Python threads get the GIL for a moment.
                py.detach(|| {});
            }
            pending.push(read_row(py, &row?, Some(n))?);
        }
        let invocations = detached(py, || {
            pending.into_iter().map(|p| p.finish(self.max_output_bytes())).collect::<Vec<_>>()
        })?;
        self.report(py, invocations)
    }

    /// The report of a bundle file (a `str` or `os.PathLike`): what `groundcheck verify
    /// --format json FILE` prints.
    fn verify_bundle(&self, py: Python<'_>, path: PathBuf) -> PyResult<Report> {
        let bytes = detached(py, || std::fs::read(&path))??;
        let text = bundle_text(py, bytes)?;
        self.bundle(py, &text)
    }

    /// The report of bundle text (`str`, or UTF-8 `bytes`).
    fn verify_bundle_json(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Report> {
        if let Ok(s) = text.cast::<PyString>() {
            return self.bundle(py, &s.to_cow()?);
        }
        if text.is_instance_of::<PyBytes>() || text.is_instance_of::<PyByteArray>() {
            let text = bundle_text(py, text.extract()?)?;
            return self.bundle(py, &text);
        }
        let type_name = text.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        Err(raise(py, "InvalidBundleError", &format!("a bundle is str or bytes, not {type_name}"), &[]))
    }

    /// Seconds for `n` verifications of one row read once, in Rust alone: the floor the
    /// binding's per-call overhead is measured against (`benches/python/bench.py`).
    fn _time_verify(&self, py: Python<'_>, row: &Bound<'_, PyAny>, n: usize) -> PyResult<f64> {
        let invocation = read_row(py, row, None)?.finish(self.max_output_bytes());
        detached(py, || {
            let started = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(self.core.verify(std::hint::black_box(&invocation)));
            }
            started.elapsed().as_secs_f64()
        })
    }

    /// Seconds for the engine alone to verify `rows` (read once, grouped into runs), as a
    /// Rust program holding the same invocations would: the floor of `verify_run`'s
    /// throughput (`benches/python/bench.py`).
    fn _time_verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<f64> {
        let mut runs = RunSet::default();
        for row in rows.try_iter()? {
            let invocation = read_row(py, &row?, None)?.finish(self.max_output_bytes());
            runs.push(invocation).map_err(|e| from_core(py, &e))?;
        }
        let runs = runs.into_runs();
        detached(py, || {
            let started = std::time::Instant::now();
            std::hint::black_box(self.core.verify_runs(std::hint::black_box(&runs)));
            started.elapsed().as_secs_f64()
        })
    }

    fn __repr__(&self) -> String {
        format!("Verifier({})", Policy(*self.core.policy()).__repr__())
    }
}

impl Verifier {
    fn bundle(&self, py: Python<'_>, text: &str) -> PyResult<Report> {
        let bundle = detached(py, || Bundle::parse(text))?.map_err(|e| from_core(py, &e))?;
        self.report(py, bundle.invocations)
    }
}

/// A bundle's bytes as text: a bundle is UTF-8.
fn bundle_text(py: Python<'_>, bytes: Vec<u8>) -> PyResult<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        raise(py, "InvalidBundleError", &format!("the bundle is not UTF-8 (byte {at})"), &[])
    })
}
