//! `Verifier`: the engine under one policy, built once and shared by every thread of a
//! Python program. Rows are read while the GIL is held (they are Python objects), and only
//! taken out; parsing their JSON text and verifying run with the GIL released — for a run,
//! on rayon, a chunk of rows verified while the next is read — so other Python threads keep
//! running. The `str`s a row was read from are let go with the GIL held again ([`Held`]).
//! Every call is guarded: a Rust panic becomes `InternalError`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use groundcheck_core::{
    Bundle, Invocation, Json, RawOutput, Report as CoreReport, Run, RunSet, Verdict as CoreVerdict,
    VerdictSet, Verifier as CoreVerifier,
};
use groundcheck_files::Template;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyString};
use rayon::prelude::*;

use crate::errors::{from_core, invalid_row, panicked, raise};
use crate::policy::Policy;
use crate::results::{Report, Verdict};
use crate::row::{self, Held, Pending, RowError};

/// The engine under one policy, built once and shared by every thread; `raw_outputs` is a
/// template for rows without a raw output of their own, as `--raw-outputs`:
/// `/var/lib/agent/sessions/{session_id}/tools/{id}.json`; `threads` how many threads verify
/// a run (`None`: one a core, rayon's pool; `1`: the calling thread, in order).
#[pyclass(frozen, module = "groundcheck", name = "Verifier")]
pub struct Verifier {
    core: Arc<CoreVerifier>,
    raw_outputs: Option<Arc<Template>>,
    threads: Threads,
}

/// Where a verifier's runs are verified.
enum Threads {
    /// rayon's global pool: a thread a core, shared by the whole process.
    All,
    /// The calling thread, one row after another, with no hand-over to another thread.
    One,
    /// A pool of the verifier's own, of this many threads.
    Pool(rayon::ThreadPool, usize),
}

/// Runs `work` without the GIL, a panic caught.
fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work))).map_err(|payload| panicked(py, payload.as_ref()))
}

/// How many rows `verify_run` reads with the GIL held before letting it go (while these rows
/// are verified, the next are read; other Python threads may take the GIL in between).
const ROWS_A_CHUNK: usize = 32;

/// Reads one row, its problem as `InvalidRowError` naming the field (`row N: …` in a run).
fn read_row(py: Python<'_>, row: &Bound<'_, PyAny>, n: Option<usize>) -> PyResult<Pending> {
    row::read(row).map_err(|e| match e {
        RowError::Field(field, problem) => invalid_row(py, n, &field, &problem),
        RowError::Raised(e) => e,
    })
}

/// Reads the next rows of `rows` (at most [`ROWS_A_CHUNK`]); `read` counts the rows read so
/// far, for the row numbers of errors. Empty when `rows` is done.
#[inline(never)] // a symbol of its own: the GIL-held read, for profiles (benches/README.md)
fn read_chunk(py: Python<'_>, rows: &Bound<'_, PyIterator>, read: &mut usize) -> PyResult<Vec<Pending>> {
    let mut rows = rows.clone();
    let mut chunk = Vec::with_capacity(ROWS_A_CHUNK);
    while chunk.len() < ROWS_A_CHUNK {
        let Some(row) = rows.next() else { break };
        chunk.push(read_row(py, &row?, Some(*read))?);
        *read += 1;
    }
    Ok(chunk)
}

/// A verdict with the keys of the run it belongs to (`run_id`, `session_id`).
type Keyed = (Option<String>, Option<String>, CoreVerdict);

/// Verdicts grouped into the report, as `RunSet` and `verify_runs` group them: pushed in the
/// order the rows were read. The first repeated `id` is the error, as `RunSet` finds it.
fn into_report(verdicts: impl IntoIterator<Item = Keyed>) -> Result<CoreReport, groundcheck_core::Error> {
    let mut set = VerdictSet::default();
    for (run_id, session_id, verdict) in verdicts {
        set.push(&run_id, &session_id, verdict)?;
    }
    Ok(set.into_report())
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

    /// The verdict of a row read, with the keys of its run: its file looked up first, when
    /// the verifier has a template. The invocation is dropped here; what it was read from
    /// comes back, to be let go with the GIL held.
    fn verify_pending(&self, pending: Pending) -> (Keyed, Held) {
        let (invocation, held) = pending.finish();
        let mut invocation = [invocation];
        self.attach(&mut invocation);
        let [invocation] = invocation;
        let verdict = self.core.verify(&invocation);
        ((invocation.run_id, invocation.session_id, verdict), held)
    }

    /// The report of runs, on this verifier's threads.
    fn verify_runs(&self, runs: &mut [Run]) -> CoreReport {
        for run in runs.iter_mut() {
            self.attach(&mut run.invocations);
        }
        match &self.threads {
            Threads::All => self.core.verify_runs(runs),
            Threads::Pool(pool, _) => pool.install(|| self.core.verify_runs(runs)),
            Threads::One => {
                let mut set = VerdictSet::default();
                for run in runs.iter() {
                    for inv in &run.invocations {
                        // Ids were checked when the runs were grouped: this cannot fail.
                        let _ = set.push(&run.run_id, &run.session_id, self.core.verify(inv));
                    }
                }
                set.into_report()
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
        detached(py, || Report::new(self.verify_runs(&mut runs)))
    }

    /// `verify_run` on the calling thread: a chunk read with the GIL held, then verified
    /// with it let go, and so on.
    fn run_in_order(&self, py: Python<'_>, rows: &Bound<'_, PyIterator>) -> PyResult<Report> {
        let mut verdicts = Vec::new();
        let mut read = 0;
        loop {
            let chunk = read_chunk(py, rows, &mut read)?;
            if chunk.is_empty() {
                break;
            }
            let (done, held): (Vec<Keyed>, Vec<Held>) =
                detached(py, || chunk.into_iter().map(|p| self.verify_pending(p)).unzip())?;
            verdicts.extend(done);
            drop(held); // the GIL is held again
        }
        let report = detached(py, || into_report(verdicts))?;
        Ok(Report::new(report.map_err(|e| from_core(py, &e))?))
    }

    /// Reads `rows` a chunk at a time, taking the GIL for each, and spawns each chunk's
    /// verification on `scope`; each chunk's verdicts land in `done` with the chunk's index,
    /// and what its rows were read from in `held`, let go by this thread when it next holds
    /// the GIL.
    fn read_chunks<'s>(
        &'s self,
        scope: &rayon::Scope<'s>,
        rows: &'s Py<PyIterator>,
        done: &'s Mutex<Vec<(usize, Vec<Keyed>)>>,
        held: &'s Mutex<Vec<Held>>,
    ) -> PyResult<()> {
        let mut read = 0;
        for index in 0.. {
            let chunk = Python::attach(|py| {
                drop(std::mem::take(&mut *held.lock().unwrap_or_else(|e| e.into_inner())));
                read_chunk(py, rows.bind(py), &mut read)
            })?;
            if chunk.is_empty() {
                break;
            }
            scope.spawn(move |_| {
                let done_here: Vec<(Keyed, Held)> =
                    chunk.into_par_iter().map(|p| self.verify_pending(p)).collect();
                let (verdicts, chunk_held): (Vec<Keyed>, Vec<Held>) = done_here.into_iter().unzip();
                done.lock().unwrap_or_else(|e| e.into_inner()).push((index, verdicts));
                held.lock().unwrap_or_else(|e| e.into_inner()).extend(chunk_held);
            });
        }
        Ok(())
    }

    /// `verify_run` on a pool: the calling thread reads a chunk with the GIL held and hands it
    /// to the pool, which verifies it while the next chunk is read.
    fn run_overlapped(&self, py: Python<'_>, rows: &Bound<'_, PyIterator>) -> PyResult<Report> {
        let rows = rows.clone().unbind();
        let done = Mutex::new(Vec::new());
        let held = Mutex::new(Vec::new());
        let (read, report) = detached(py, || {
            let read = match &self.threads {
                Threads::Pool(pool, _) => {
                    pool.in_place_scope(|scope| self.read_chunks(scope, &rows, &done, &held))
                }
                _ => rayon::in_place_scope(|scope| self.read_chunks(scope, &rows, &done, &held)),
            };
            let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
            done.sort_unstable_by_key(|(index, _)| *index);
            (read, into_report(done.into_iter().flat_map(|(_, verdicts)| verdicts)))
        })?;
        drop(held); // the GIL is held again
        read?;
        Ok(Report::new(report.map_err(|e| from_core(py, &e))?))
    }
}

#[pymethods]
impl Verifier {
    #[new]
    #[pyo3(signature = (policy=None, *, raw_outputs=None, threads=None))]
    fn new(
        py: Python<'_>,
        policy: Option<PyRef<'_, Policy>>,
        raw_outputs: Option<&str>,
        threads: Option<i64>,
    ) -> PyResult<Verifier> {
        let raw_outputs = raw_outputs
            .map(|t| {
                t.parse::<Template>()
                    .map_err(|e| raise(py, "InvalidPolicyError", &format!("raw_outputs: {e}"), &[]))
            })
            .transpose()?;
        let threads = match threads {
            None => Threads::All,
            Some(1) => Threads::One,
            Some(n) if (2..=1024).contains(&n) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n as usize)
                    .thread_name(|i| format!("groundcheck-{i}"))
                    .build()
                    .map_err(|e| raise(py, "InvalidPolicyError", &format!("threads: {e}"), &[]))?;
                Threads::Pool(pool, n as usize)
            }
            Some(n) => {
                return Err(raise(
                    py,
                    "InvalidPolicyError",
                    &format!("threads: must be 1 to 1024, not {n}"),
                    &[],
                ))
            }
        };
        let policy = policy.map_or_else(groundcheck_core::Policy::default, |p| p.0);
        Ok(Verifier {
            core: Arc::new(CoreVerifier::new(policy)),
            raw_outputs: raw_outputs.map(Arc::new),
            threads,
        })
    }

    /// The policy verdicts are decided under.
    #[getter]
    fn policy(&self) -> Policy {
        Policy(*self.core.policy())
    }

    /// How many threads verify a run: `None` for one a core (rayon's pool), `1` for the
    /// calling thread alone.
    #[getter]
    fn threads(&self) -> Option<usize> {
        match &self.threads {
            Threads::All => None,
            Threads::One => Some(1),
            Threads::Pool(_, n) => Some(*n),
        }
    }

    /// The verdict of one `tool_invocation` row (a `dict` or any `Mapping` of its columns,
    /// as a DB driver returns them, plus `raw_output` or `raw_output_text`), verified on the
    /// calling thread.
    fn verify_invocation(&self, py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        let pending = read_row(py, row, None)?;
        let detach = pending.parses_text() || self.raw_outputs.is_some();
        let work = || {
            let ((_, _, verdict), held) = self.verify_pending(pending);
            (Verdict::one(verdict), held)
        };
        // Text to parse (or a raw-output file to read) is verified with the GIL let go, at any
        // size: two threads scale on it (a 1.2 KB row costs the same either way). A row given
        // as Python values was built while read, with the GIL held; the rest of its work is
        // shorter than a hand-over of the GIL, which would only make threads queue for it
        // (benches/README.md).
        let (verdict, held) = if detach {
            detached(py, work)?
        } else {
            catch_unwind(AssertUnwindSafe(work)).map_err(|payload| panicked(py, payload.as_ref()))?
        };
        drop(held); // with the GIL held
        Ok(verdict)
    }

    /// The report of rows (any iterable of mappings, a generator too) grouped into runs (by
    /// `run_id`, else `session_id`): read a chunk at a time with the GIL held, each chunk
    /// verified with the GIL let go while the next is read.
    fn verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<Report> {
        let rows = rows.try_iter()?;
        match self.threads {
            Threads::One => self.run_in_order(py, &rows),
            _ => self.run_overlapped(py, &rows),
        }
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
    /// binding's per-call overhead is measured against (`benches/python/bench.py`). `form`
    /// gives the raw output as a Rust caller would hold it: `"text"` its JSON text (what a
    /// database holds), `"tree"` the engine's parsed document; `None`, as read.
    #[pyo3(signature = (row, n, form=None))]
    fn _time_verify(
        &self,
        py: Python<'_>,
        row: &Bound<'_, PyAny>,
        n: usize,
        form: Option<&str>,
    ) -> PyResult<f64> {
        let (mut invocation, _held) = read_row(py, row, None)?.finish();
        invocation.raw_output = match (form, invocation.raw_output.take()) {
            (Some("text"), Some(RawOutput::Json(json))) => Some(RawOutput::Text(json.to_json_string())),
            (Some("tree"), Some(raw)) if raw.text().is_some() => {
                Some(Json::parse(raw.text().unwrap_or_default()).map_or(raw, RawOutput::Json))
            }
            (_, raw) => raw,
        };
        detached(py, || {
            let started = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(self.core.verify(std::hint::black_box(&invocation)));
            }
            started.elapsed().as_secs_f64()
        })
    }

    /// Seconds for a Rust program to verify `rows` as a database gives it them (every text
    /// its own `String`, the JSON columns their text), on this verifier's threads: the JSON
    /// columns parsed (as the store's rows become invocations), the rows grouped into runs,
    /// verified and dropped. The floor of `verify_run`'s throughput (`benches/python/bench.py`
    /// says why the parse belongs to it); the rows are read from Python before the clock
    /// starts.
    fn _time_verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<f64> {
        let mut stored = Vec::new();
        for row in rows.try_iter()? {
            stored.push(read_row(py, &row?, None)?.stored().0);
        }
        let (seconds, grouped) = detached(py, || {
            let started = std::time::Instant::now();
            let work = || -> Result<(), groundcheck_core::Error> {
                let invocations: Vec<Invocation> = match self.threads {
                    Threads::One => stored.into_iter().map(row::Stored::finish).collect(),
                    _ => stored.into_par_iter().map(row::Stored::finish).collect(),
                };
                let mut runs = RunSet::default();
                for inv in invocations {
                    runs.push(inv)?;
                }
                let mut runs = runs.into_runs();
                drop(std::hint::black_box(self.verify_runs(std::hint::black_box(&mut runs))));
                Ok(())
            };
            let grouped = match &self.threads {
                Threads::Pool(pool, _) => pool.install(work),
                _ => work(),
            };
            (started.elapsed().as_secs_f64(), grouped)
        })?;
        grouped.map_err(|e| from_core(py, &e))?;
        Ok(seconds)
    }

    /// Reads `rows` as `verify_run` does, chunk by chunk with the GIL held, and verifies
    /// nothing: the serial part of `verify_run`, for profiling it (`benches/python/bench.py`,
    /// benches/README.md). Returns how many rows were read.
    fn _read_rows(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<usize> {
        let rows = rows.try_iter()?;
        let mut read = 0;
        let mut chunks = Vec::new();
        loop {
            let chunk = read_chunk(py, &rows, &mut read)?;
            if chunk.is_empty() {
                break;
            }
            chunks.push(chunk);
        }
        // Let go with the GIL held, as verify_run lets go of the `str`s a row was read from.
        drop(chunks);
        Ok(read)
    }

    fn __repr__(&self) -> String {
        let policy = Policy(*self.core.policy()).__repr__();
        match self.threads() {
            None => format!("Verifier({policy})"),
            Some(n) => format!("Verifier({policy}, threads={n})"),
        }
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
