//! Where the engine runs: on the package's own threads, never on a pool a `fork()` killed,
//! while the calling thread waits for the answer in slices and lets Ctrl-C through.
//!
//! Three hazards of running Rust work under a Python caller meet here:
//!
//! - **Small stacks.** A Python thread's stack is the program's choice
//!   (`threading.stack_size(64 * 1024)`), and the engine recurses once per nesting level up to
//!   its ceilings (1,000 levels of a queried document), which needs more than that. Work that
//!   may nest deeply runs on the host layer's threads instead (`groundcheck_host::Threads`,
//!   16 MiB stacks: reserved address space, only what is used becomes memory).
//! - **`fork()`.** Threads do not survive a fork: in a child (multiprocessing's default on
//!   Linux, gunicorn `--preload`, Celery prefork) every pool built before the fork has no
//!   threads, and work handed to it never comes back. A [`Pool`] (the host layer's `Threads`)
//!   remembers the process that built it and is built again in any other one. rayon's global
//!   pool, which cannot be rebuilt, is never used: work runs inside one of these pools, so the
//!   engine's own parallel searches use it too.
//! - **Ctrl-C.** A signal handler runs only when the main thread runs Python code. The calling
//!   thread therefore waits in slices of [`SLICE`], asking Python between them whether a
//!   signal came ([`wait`]); on `KeyboardInterrupt` (or any exception a handler raises) the
//!   call raises at once, sets the call's [`Cancel`] flag, and drops its answer when it comes.
//!
//! A [`Pool`] is looked up (and built) only while the GIL is held, and `os.fork()` forks with
//! the GIL held: so no other thread can be inside its lock at the moment of a fork.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use groundcheck_host::Threads;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::panicked;

/// How long the calling thread waits for the engine before asking Python for signals again.
const SLICE: Duration = Duration::from_millis(50);

/// Set when the caller gave up on a call (an exception from a signal handler): the work still
/// queued or between rows sees it and stops.
pub type Cancel = Arc<AtomicBool>;

/// A new flag, not set.
pub fn cancel() -> Cancel {
    Arc::new(AtomicBool::new(false))
}

/// Marks the call `cancel` belongs to as given up.
pub fn cancel_now(cancel: &Cancel) {
    cancel.store(true, Ordering::Relaxed);
}

/// Whether the call `cancel` belongs to was given up.
pub fn cancelled(cancel: &Cancel) -> bool {
    cancel.load(Ordering::Relaxed)
}

/// A rayon pool of the package's threads, built on first use in each process: the host
/// layer's [`Threads`], which is rebuilt in a forked child.
pub struct Pool(Threads);

/// The pool every call without a pool of its own runs on.
pub static ENGINE: Pool = Pool::new(None);

impl Pool {
    /// A pool of `threads` threads (`None`: one a core), not built yet.
    pub const fn new(threads: Option<usize>) -> Pool {
        Pool(Threads::new(threads))
    }

    /// The pool of this process, built now if this process has none (its first use, or a
    /// child forked after it was built). Called with the GIL held (see the module's comment).
    pub fn get(&self, _py: Python<'_>) -> PyResult<Arc<rayon::ThreadPool>> {
        self.0.pool().map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

/// What a job sends back: its value, or the panic it met.
pub type Answer<T> = std::thread::Result<T>;

/// Runs `work` on `pool` and waits for it, letting signals through ([`wait`]); a panic in it
/// becomes `InternalError`. `cancel` is set if the caller gives up.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    pool: &Arc<rayon::ThreadPool>,
    cancel: &Cancel,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (answer, answers) = std::sync::mpsc::sync_channel(1);
    let answers = Mutex::new(answers);
    spawn(pool, answer, work);
    wait(py, &answers, cancel)?.map_err(|payload| panicked(py, payload.as_ref()))
}

/// Spawns `work` on `pool`, its answer (or its panic) sent on `answer`; an answer no one waits
/// for any more is dropped on the pool's thread.
pub fn spawn<T: Send + 'static>(
    pool: &rayon::ThreadPool,
    answer: impl Sender<Answer<T>>,
    work: impl FnOnce() -> T + Send + 'static,
) {
    pool.spawn(move || {
        let done = catch_unwind(AssertUnwindSafe(|| {
            crate::hooks::point("engine");
            work()
        }));
        answer.send_answer(done);
    });
}

/// Either kind of `mpsc` sender.
pub trait Sender<T>: Send + 'static {
    /// Sends `value`, dropping it if the receiver is gone.
    fn send_answer(&self, value: T);
}

impl<T: Send + 'static> Sender<T> for std::sync::mpsc::Sender<T> {
    fn send_answer(&self, value: T) {
        let _ = self.send(value);
    }
}

impl<T: Send + 'static> Sender<T> for std::sync::mpsc::SyncSender<T> {
    fn send_answer(&self, value: T) {
        let _ = self.send(value);
    }
}

/// The next message on `answers` (in a `Mutex`: a `Receiver` cannot be lent to the code that
/// runs without the GIL otherwise), waited for without the GIL in slices of [`SLICE`], Python's
/// signal handlers run between them: an exception one raises (`KeyboardInterrupt`) is raised
/// here at once, with `cancel` set.
pub fn wait<T: Send>(py: Python<'_>, answers: &Mutex<Receiver<T>>, cancel: &Cancel) -> PyResult<T> {
    loop {
        match py.detach(|| answers.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(SLICE)) {
            Ok(answer) => return Ok(answer),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel_now(cancel);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                // Every job sends before it ends, its panic too: a bug if reached.
                return Err(Python::attach(|py| {
                    panicked(py, &"the engine's thread ended without an answer")
                }));
            }
        }
    }
}
