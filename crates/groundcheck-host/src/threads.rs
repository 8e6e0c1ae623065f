//! The engine's own threads: stacks large enough for the deepest input, and never a pool a
//! `fork()` emptied.
//!
//! - **Stacks.** A host's thread has the host's stack (a Java thread 1 MiB or less under
//!   `-Xss`, a Python thread what `threading.stack_size` set), and the engine recurses once
//!   per nesting level up to its ceilings (the core's `stack_probe` example measures up to
//!   171 KiB in a release build, 487 KiB in a debug build). Threads of [`ENGINE_STACK`]
//!   have room to spare (reserved address space: only what is used becomes memory).
//! - **`fork()`.** Threads do not survive a fork: in a child (Python's multiprocessing on
//!   Linux, gunicorn `--preload`, Celery prefork) a pool built before the fork has no threads,
//!   and work handed to it never comes back. [`Threads`] remembers the process that built its
//!   pool and builds another in any other process; the dead one is leaked, never dropped
//!   (dropping it would take locks its lost threads may have held). rayon's global pool, which
//!   cannot be rebuilt, is never used: work runs inside one of these pools, so the engine's
//!   own parallel searches use it too.

use std::sync::{Arc, Mutex};

use crate::error::HostError;

/// Stack size of the engine's threads: the query ceiling's recursion with room to spare.
pub const ENGINE_STACK: usize = 16 << 20;

/// A rayon pool of the engine's threads, built on first use in each process.
pub struct Threads {
    /// `None`: one a core (rayon's default, `RAYON_NUM_THREADS` honoured).
    count: Option<usize>,
    built: Mutex<Option<Built>>,
}

/// A pool and the process that built it.
struct Built {
    pid: u32,
    pool: Arc<rayon::ThreadPool>,
}

/// The pool every engine without a thread count of its own shares: one a core, built once a
/// process, so that a host making many engines (a Java `Verifier` each, an MCP policy each)
/// does not start a pool for each.
static SHARED: Threads = Threads::new(None);

impl Threads {
    /// The process's shared pool (one thread a core).
    pub fn shared() -> &'static Threads {
        &SHARED
    }

    /// `count` threads (`None`: one a core), not started yet.
    pub const fn new(count: Option<usize>) -> Threads {
        Threads { count, built: Mutex::new(None) }
    }

    /// How many threads were asked for (`None`: one a core).
    pub fn count(&self) -> Option<usize> {
        self.count
    }

    /// The pool of this process, built now if this process has none (its first use, or a
    /// child forked after it was built: the parent's pool has no threads here). A host that
    /// may fork calls this where no other thread can hold its lock at the fork (Python: with
    /// the GIL held).
    pub fn pool(&self) -> Result<Arc<rayon::ThreadPool>, HostError> {
        let pid = std::process::id();
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = built.as_ref().filter(|b| b.pid == pid) {
            return Ok(Arc::clone(&b.pool));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.count.unwrap_or(0))
            .stack_size(ENGINE_STACK)
            .thread_name(|i| format!("groundcheck-{i}"))
            .build()
            .map_err(|e| HostError::Threads(e.to_string()))?;
        let pool = Arc::new(pool);
        if let Some(dead) = built.replace(Built { pid, pool: Arc::clone(&pool) }) {
            // Built by the parent: its threads are gone. Dropping it would wake them under
            // locks they may have held at the fork; leaked, it costs its memory once.
            std::mem::forget(dead);
        }
        Ok(pool)
    }

    /// Runs `work` on this process's pool and waits for it (a run's parallel verification
    /// too, as the pool is the current one inside).
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> Result<T, HostError> {
        Ok(self.pool()?.install(work))
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        let built = self.built.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(b) = built.filter(|b| b.pid != std::process::id()) {
            std::mem::forget(b); // a parent's pool: see `Threads::pool`
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_the_engines_named_threads_with_their_stack() {
        let threads = Threads::new(Some(2));
        let name = threads.install(|| std::thread::current().name().map(str::to_string)).unwrap();
        assert!(name.is_some_and(|n| n.starts_with("groundcheck-")));
        // 4 MiB on the stack: more than a default 2 MiB rayon or Rust thread has.
        let deep = threads.install(|| std::hint::black_box([1u8; 4 << 20]).len()).unwrap();
        assert_eq!(deep, 4 << 20);
        assert!(Arc::ptr_eq(&threads.pool().unwrap(), &threads.pool().unwrap()), "built once a process");
    }

    #[test]
    fn engines_without_a_count_share_one_pool() {
        let policy = groundcheck_core::Policy::default();
        let (a, b) = (crate::Engine::new(policy, None, None), crate::Engine::new(policy, None, None));
        assert!(Arc::ptr_eq(&a.threads().pool().unwrap(), &b.threads().pool().unwrap()));
        let own = crate::Engine::new(policy, None, Some(1));
        assert!(!Arc::ptr_eq(&a.threads().pool().unwrap(), &own.threads().pool().unwrap()));
    }
}
