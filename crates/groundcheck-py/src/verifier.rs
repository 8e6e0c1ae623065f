//! `Verifier`: the engine under one policy, built once and shared by every thread of a
//! Python program. Rows are read while the GIL is held (they are Python objects), and only
//! taken out; parsing their JSON text and verifying run with the GIL released — on the
//! package's own threads ([`crate::engine`]: large stacks, rebuilt after a fork, the caller
//! waiting in slices so that Ctrl-C gets through), or, for a row too small to need them, on
//! the calling thread ([`crate::inline`]). For a run, a chunk of rows is verified while the
//! next is read, so other Python threads keep running. The `str`s a row was read from are let
//! go with the GIL held again ([`Held`]). Every call is guarded: a Rust panic becomes
//! `InternalError`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::TryRecvError;
use std::sync::Arc;

use groundcheck_core::{
    Bundle, Invocation, Report as CoreReport, Run, RunSet, Verdict as CoreVerdict, VerdictSet,
    Verifier as CoreVerifier,
};
#[cfg(feature = "test-hooks")]
use groundcheck_core::{Json, RawOutput};
use groundcheck_files::Template;
use groundcheck_host::Engine;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyString};
use rayon::prelude::*;

use crate::engine::{self, Answer, Cancel, Pool};
use crate::errors::{from_core, guard, invalid_row, panicked, raise};
use crate::policy::Policy;
use crate::results::{Report, Verdict};
use crate::row::{self, Held, Pending, RowError};

/// The engine under one policy, built once and shared by every thread; `raw_outputs` is a
/// template for rows without a raw output of their own, as `--raw-outputs`:
/// `/var/lib/agent/sessions/{session_id}/tools/{id}.json`; `threads` how many threads verify
/// a run (`None`: one a core, the package's pool; `1`: one thread, each chunk of rows in order).
#[pyclass(frozen, module = "groundcheck", name = "Verifier")]
pub struct Verifier {
    work: Work,
    threads: Threads,
}

/// What a verification needs, shared with the threads that do it (work handed over lives as
/// long as it runs, even past a caller that gave up on it): the host layer's engine, which
/// holds the verifier and the raw-output template.
#[derive(Clone)]
pub(crate) struct Work {
    engine: Arc<Engine>,
}

/// Where a verifier's runs are verified.
enum Threads {
    /// The package's pool: a thread a core, shared by the whole process.
    All,
    /// One thread at a time, one row after another: the calling thread for small rows, else
    /// one of the package's.
    One,
    /// A pool of the verifier's own, of this many threads.
    Pool(Pool, usize),
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

/// Whether every row of `chunk` may be verified on the calling thread.
fn all_small(chunk: &[Pending]) -> bool {
    chunk.iter().all(Pending::small) && crate::inline::allowed()
}

impl Work {
    fn attach(&self, invocations: &mut [Invocation]) {
        invocations.iter_mut().for_each(|inv| self.engine.attach(inv));
    }

    /// The core's verifier.
    fn core(&self) -> &CoreVerifier {
        self.engine.verifier()
    }

    /// The verdict of `invocation` (`verify_batch`'s rows): its file looked up first, when the
    /// verifier has a template. The invocation stays the caller's (its keys go on to the
    /// answer without a copy).
    pub(crate) fn verify_invocation(&self, invocation: &mut Invocation) -> CoreVerdict {
        self.attach(std::slice::from_mut(invocation));
        self.core().verify(invocation)
    }

    /// The verdict of a row read, with the keys of its run: its file looked up first, when
    /// the verifier has a template. The invocation is dropped here; what it was read from
    /// comes back, to be let go with the GIL held.
    fn verify_pending(&self, pending: Pending) -> (Keyed, Held) {
        let (invocation, held) = pending.finish();
        let mut invocation = [invocation];
        self.attach(&mut invocation);
        let [invocation] = invocation;
        let verdict = self.core().verify(&invocation);
        ((invocation.run_id, invocation.session_id, verdict), held)
    }

    /// The verdicts of `chunk`, in order, one row after another; a row not begun when
    /// `cancel` is set is not verified (the caller gave up and drops the answer).
    fn verify_in_order(&self, chunk: Vec<Pending>, cancel: &Cancel) -> Vec<(Keyed, Held)> {
        let mut done = Vec::with_capacity(chunk.len());
        for pending in chunk {
            if engine::cancelled(cancel) {
                break;
            }
            done.push(self.verify_pending(pending));
        }
        done
    }

    /// The report of runs: every invocation verified in parallel on the current pool (a row
    /// not begun when `cancel` is set is not), the verdicts grouped as `verify_runs` groups
    /// them. `None` when cancelled.
    fn verify_runs(&self, runs: &mut [Run], cancel: &Cancel) -> Option<CoreReport> {
        for run in runs.iter_mut() {
            self.attach(&mut run.invocations);
        }
        let all: Vec<(&Run, &Invocation)> =
            runs.iter().flat_map(|run| run.invocations.iter().map(move |inv| (run, inv))).collect();
        let verdicts: Vec<Option<CoreVerdict>> = all
            .par_iter()
            .map(|(_, inv)| (!engine::cancelled(cancel)).then(|| self.core().verify(inv)))
            .collect();
        let mut set = VerdictSet::default();
        for ((run, _), verdict) in all.iter().zip(verdicts) {
            // Ids were checked when the runs were grouped: this cannot fail.
            let _ = set.push(&run.run_id, &run.session_id, verdict?);
        }
        Some(set.into_report())
    }

    /// The report of bundle text, parsed and verified on the current pool.
    fn bundle(&self, text: &str, cancel: &Cancel) -> Result<Option<CoreReport>, groundcheck_core::Error> {
        let bundle = Bundle::parse(text)?;
        let mut runs = RunSet::default();
        for inv in bundle.invocations {
            runs.push(inv)?;
        }
        Ok(self.verify_runs(&mut runs.into_runs(), cancel))
    }
}

/// A chunk's answer taken in: its verdicts kept in `done`, what its rows were read from let
/// go (the GIL is held), its panic raised as `InternalError`.
fn take(py: Python<'_>, done: &mut Vec<(usize, Vec<Keyed>)>, message: Chunked) -> PyResult<()> {
    let (index, answer) = message;
    let verdicts = answer.map_err(|payload| panicked(py, payload.as_ref()))?;
    let (verdicts, held): (Vec<Keyed>, Vec<Held>) = verdicts.into_iter().unzip();
    drop(held);
    done.push((index, verdicts));
    Ok(())
}

/// A chunk's answer: its index in the run and its rows' verdicts (or its panic).
type Chunked = (usize, Answer<Vec<(Keyed, Held)>>);

/// A cancelled verification's report, which no caller sees (the caller raised already).
fn given_up(py: Python<'_>) -> PyErr {
    raise(py, "InternalError", "groundcheck: the call was given up", &[])
}

impl Verifier {
    /// What its verifications need, for `verify_batch` (batch.rs).
    pub(crate) fn work(&self) -> Work {
        self.work.clone()
    }

    /// The pool this verifier's work is handed to, in this process.
    pub(crate) fn pool(&self, py: Python<'_>) -> PyResult<Arc<rayon::ThreadPool>> {
        match &self.threads {
            Threads::Pool(pool, _) => pool.get(py),
            _ => engine::ENGINE.get(py),
        }
    }

    /// `verify_run` one chunk after another, each chunk's rows in order: on the calling thread
    /// with the GIL let go when they are small, else on one of the package's threads.
    fn run_in_order(&self, py: Python<'_>, rows: &Bound<'_, PyIterator>) -> PyResult<Report> {
        let mut verdicts = Vec::new();
        let mut read = 0;
        let cancel = engine::cancel();
        loop {
            let chunk = read_chunk(py, rows, &mut read)?;
            if chunk.is_empty() {
                break;
            }
            let done = if all_small(&chunk) {
                detached(py, || self.work.verify_in_order(chunk, &cancel))?
            } else {
                let (work, flag) = (self.work.clone(), Arc::clone(&cancel));
                engine::run(py, &self.pool(py)?, &cancel, move || work.verify_in_order(chunk, &flag))?
            };
            py.check_signals()?;
            let (done, held): (Vec<Keyed>, Vec<Held>) = done.into_iter().unzip();
            verdicts.extend(done);
            drop(held); // the GIL is held again
        }
        let report = detached(py, || into_report(verdicts))?;
        Ok(Report::new(report.map_err(|e| from_core(py, &e))?))
    }

    /// `verify_run` on a pool: the calling thread reads a chunk with the GIL held and hands it
    /// to the pool, which verifies it (its rows in parallel) while the next chunk is read; the
    /// calling thread then waits for the last chunks in slices, signals let through. What a
    /// chunk's rows were read from comes back with its verdicts, let go here with the GIL.
    fn run_overlapped(&self, py: Python<'_>, rows: &Bound<'_, PyIterator>) -> PyResult<Report> {
        let pool = self.pool(py)?;
        let cancel = engine::cancel();
        let (answer, answers) = std::sync::mpsc::channel::<Chunked>();
        let answers = std::sync::Mutex::new(answers);
        let mut done: Vec<(usize, Vec<Keyed>)> = Vec::new();
        let mut read = 0;
        let mut sent = 0;
        let outcome = (|| -> PyResult<()> {
            loop {
                let chunk = read_chunk(py, rows, &mut read)?;
                if chunk.is_empty() {
                    break;
                }
                let (work, flag) = (self.work.clone(), Arc::clone(&cancel));
                let index = sent;
                let answer = answer.clone();
                pool.spawn(move || {
                    let verdicts = catch_unwind(AssertUnwindSafe(|| {
                        crate::hooks::point("engine");
                        chunk
                            .into_par_iter()
                            .map(|p| (!engine::cancelled(&flag)).then(|| work.verify_pending(p)))
                            .collect::<Vec<_>>()
                    }));
                    let verdicts = verdicts.map(|v| v.into_iter().flatten().collect());
                    let _ = answer.send((index, verdicts));
                });
                sent += 1;
                // Chunks verified meanwhile: their `str`s let go now, with the GIL held.
                loop {
                    let next = answers.lock().unwrap_or_else(|e| e.into_inner()).try_recv();
                    match next {
                        Ok(message) => take(py, &mut done, message)?,
                        Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                    }
                }
                py.check_signals()?;
            }
            while done.len() < sent {
                let message = engine::wait(py, &answers, &cancel)?;
                take(py, &mut done, message)?;
            }
            Ok(())
        })();
        if let Err(e) = outcome {
            engine::cancel_now(&cancel);
            return Err(e);
        }
        done.sort_unstable_by_key(|(index, _)| *index);
        let report = detached(py, || into_report(done.into_iter().flat_map(|(_, verdicts)| verdicts)))?;
        Ok(Report::new(report.map_err(|e| from_core(py, &e))?))
    }

    /// The report of bundle text: parsed and verified on the package's threads.
    fn bundle(&self, py: Python<'_>, text: impl AsRef<str> + Send + 'static) -> PyResult<Report> {
        let (work, cancel) = (self.work.clone(), engine::cancel());
        let flag = Arc::clone(&cancel);
        let (report, text) = engine::run(py, &self.pool(py)?, &cancel, move || {
            let report = work.bundle(text.as_ref(), &flag);
            (report, text)
        })?;
        drop(text); // with the GIL held
        match report {
            Ok(Some(report)) => Ok(Report::new(report)),
            Ok(None) => Err(given_up(py)),
            Err(e) => Err(from_core(py, &e)),
        }
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
        guard("Verifier.__new__", || {
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
                    let pool = Pool::new(Some(n as usize));
                    // Built now, so that threads that cannot be started fail here.
                    pool.get(py)?;
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
            let work = Work { engine: Arc::new(Engine::new(policy, raw_outputs, None)) };
            Ok(Verifier { work, threads })
        })
    }

    /// The policy verdicts are decided under.
    #[getter]
    fn policy(&self) -> PyResult<Policy> {
        guard("Verifier.policy", || Ok(Policy(*self.work.core().policy())))
    }

    /// How many threads verify a run: `None` for one a core (the package's pool), `1` for one
    /// thread, each chunk of rows in order.
    #[getter]
    fn threads(&self) -> PyResult<Option<usize>> {
        guard("Verifier.threads", || Ok(self.thread_count()))
    }

    /// The verdict of one `tool_invocation` row (a `dict` or any `Mapping` of its columns,
    /// as a DB driver returns them, plus `raw_output` or `raw_output_text`).
    fn verify_invocation(&self, py: Python<'_>, row: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        guard("Verifier.verify_invocation", || {
            let pending = read_row(py, row, None)?;
            let ((_, _, verdict), held) =
                if pending.small() && self.work.engine.raw_outputs().is_none() && crate::inline::allowed() {
                    // Small: verified on the calling thread. Text to parse is verified with the GIL
                    // let go: two threads scale on it. A row given as Python values was built while
                    // read, with the GIL held; the rest of its work is shorter than a hand-over of
                    // the GIL, which would only make threads queue for it (benches/README.md).
                    if pending.parses_text() {
                        detached(py, || self.work.verify_pending(pending))?
                    } else {
                        catch_unwind(AssertUnwindSafe(|| self.work.verify_pending(pending)))
                            .map_err(|payload| panicked(py, payload.as_ref()))?
                    }
                } else {
                    // Large or deep, or a raw-output file to read (its text is not seen before it
                    // is read): on the package's threads, the caller waiting with signals let in.
                    let (work, cancel) = (self.work.clone(), engine::cancel());
                    engine::run(py, &self.pool(py)?, &cancel, move || work.verify_pending(pending))?
                };
            drop(held); // with the GIL held
            Ok(Verdict::one(verdict))
        })
    }

    /// The report of rows (any iterable of mappings, a generator too) grouped into runs (by
    /// `run_id`, else `session_id`): read a chunk at a time with the GIL held, each chunk
    /// verified with the GIL let go while the next is read.
    fn verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<Report> {
        guard("Verifier.verify_run", || {
            let rows = rows.try_iter()?;
            match self.threads {
                Threads::One => self.run_in_order(py, &rows),
                _ => self.run_overlapped(py, &rows),
            }
        })
    }

    /// The report of a bundle file (a `str` or `os.PathLike`): what `groundcheck verify
    /// --format json FILE` prints.
    fn verify_bundle(&self, py: Python<'_>, path: PathBuf) -> PyResult<Report> {
        guard("Verifier.verify_bundle", || {
            let bytes = detached(py, || std::fs::read(&path))??;
            let text = bundle_text(py, bytes)?;
            self.bundle(py, text)
        })
    }

    /// The report of bundle text (`str`, or UTF-8 `bytes`).
    fn verify_bundle_json(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Report> {
        guard("Verifier.verify_bundle_json", || {
            if let Ok(s) = text.cast::<PyString>() {
                let s = PyBackedStr::try_from(s.clone()).map_err(|_| {
                    raise(
                        py,
                        "InvalidBundleError",
                        "the bundle holds a lone surrogate, which is not text",
                        &[],
                    )
                })?;
                return self.bundle(py, s);
            }
            if text.is_instance_of::<PyBytes>() || text.is_instance_of::<PyByteArray>() {
                let text = bundle_text(py, text.extract()?)?;
                return self.bundle(py, text);
            }
            let type_name = text.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            Err(raise(py, "InvalidBundleError", &format!("a bundle is str or bytes, not {type_name}"), &[]))
        })
    }

    /// Seconds for `n` verifications of one row read once, in Rust alone: the floor the
    /// binding's per-call overhead is measured against (`benches/python/bench.py`). `form`
    /// gives the raw output as a Rust caller would hold it: `"text"` its JSON text (what a
    /// database holds), `"tree"` the engine's parsed document; `None`, as read. Timed on one
    /// of the package's threads.
    #[cfg(feature = "test-hooks")] // a bench hook: not in a release wheel
    #[pyo3(signature = (row, n, form=None))]
    fn _time_verify(
        &self,
        py: Python<'_>,
        row: &Bound<'_, PyAny>,
        n: usize,
        form: Option<&str>,
    ) -> PyResult<f64> {
        guard("Verifier._time_verify", || {
            let (mut invocation, held) = read_row(py, row, None)?.finish();
            invocation.raw_output = match (form, invocation.raw_output.take()) {
                (Some("text"), Some(RawOutput::Json(json))) => Some(RawOutput::Text(json.to_json_string())),
                (Some("tree"), Some(raw)) if raw.text().is_some() => {
                    Some(Json::parse(raw.text().unwrap_or_default()).map_or(raw, RawOutput::Json))
                }
                (_, raw) => raw,
            };
            let (work, cancel) = (self.work.clone(), engine::cancel());
            let seconds = engine::run(py, &self.pool(py)?, &cancel, move || {
                let started = std::time::Instant::now();
                for _ in 0..n {
                    std::hint::black_box(work.core().verify(std::hint::black_box(&invocation)));
                }
                started.elapsed().as_secs_f64()
            })?;
            drop(held);
            Ok(seconds)
        })
    }

    /// Seconds for a Rust program to verify `rows` as a database gives it them (every text
    /// its own `String`, the JSON columns their text), on this verifier's threads: the JSON
    /// columns parsed (as the store's rows become invocations), the rows grouped into runs,
    /// verified and dropped. The floor of `verify_run`'s throughput (`benches/python/bench.py`
    /// says why the parse belongs to it); the rows are read from Python before the clock
    /// starts.
    #[cfg(feature = "test-hooks")] // a bench hook: not in a release wheel
    fn _time_verify_run(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<f64> {
        guard("Verifier._time_verify_run", || {
            let mut stored = Vec::new();
            for row in rows.try_iter()? {
                stored.push(read_row(py, &row?, None)?.stored().0);
            }
            let one = matches!(self.threads, Threads::One);
            let (work, cancel) = (self.work.clone(), engine::cancel());
            let flag = Arc::clone(&cancel);
            let (seconds, grouped) = engine::run(py, &self.pool(py)?, &cancel, move || {
                let started = std::time::Instant::now();
                let grouped = (|| -> Result<(), groundcheck_core::Error> {
                    let invocations: Vec<Invocation> = if one {
                        stored.into_iter().map(row::Stored::finish).collect()
                    } else {
                        stored.into_par_iter().map(row::Stored::finish).collect()
                    };
                    let mut runs = RunSet::default();
                    for inv in invocations {
                        runs.push(inv)?;
                    }
                    let mut runs = runs.into_runs();
                    let report = if one {
                        let all = runs.iter().flat_map(|r| r.invocations.iter().map(move |i| (r, i)));
                        let verdicts: Vec<Keyed> = all
                            .map(|(r, i)| (r.run_id.clone(), r.session_id.clone(), work.core().verify(i)))
                            .collect();
                        into_report(verdicts).ok()
                    } else {
                        work.verify_runs(std::hint::black_box(&mut runs), &flag)
                    };
                    drop(std::hint::black_box(report));
                    Ok(())
                })();
                (started.elapsed().as_secs_f64(), grouped)
            })?;
            grouped.map_err(|e| from_core(py, &e))?;
            Ok(seconds)
        })
    }

    /// Reads `rows` as `verify_run` does, chunk by chunk with the GIL held, and verifies
    /// nothing: the serial part of `verify_run`, for profiling it (`benches/python/bench.py`,
    /// benches/README.md). Returns how many rows were read.
    #[cfg(feature = "test-hooks")] // a bench hook: not in a release wheel
    fn _read_rows(&self, py: Python<'_>, rows: &Bound<'_, PyAny>) -> PyResult<usize> {
        guard("Verifier._read_rows", || {
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
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        guard("Verifier.__repr__", || {
            let policy = Policy(*self.work.core().policy()).__repr__()?;
            Ok(match self.thread_count() {
                None => format!("Verifier({policy})"),
                Some(n) => format!("Verifier({policy}, threads={n})"),
            })
        })
    }
}

impl Verifier {
    fn thread_count(&self) -> Option<usize> {
        match &self.threads {
            Threads::All => None,
            Threads::One => Some(1),
            Threads::Pool(_, n) => Some(*n),
        }
    }
}

/// A bundle's bytes as text: a bundle is UTF-8.
fn bundle_text(py: Python<'_>, bytes: Vec<u8>) -> PyResult<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        raise(py, "InvalidBundleError", &format!("the bundle is not UTF-8 (byte {at})"), &[])
    })
}
