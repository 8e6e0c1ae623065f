//! The verifiers Java holds, by number. A Java `Verifier` keeps a `long` that names an entry
//! here, never a pointer: a call with a closed (removed) or made-up number finds nothing and
//! fails with `CLOSED`, and a call already running when `close()` removes the entry keeps its
//! own `Arc` until it returns. So no use of a Java object, however wrong, reaches freed memory,
//! and no `unsafe` is needed to turn a number back into a Rust object.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

/// A verifier, where raw-output files are (if anywhere) and its threads: the host layer's
/// engine.
pub type Held = groundcheck_host::Engine;

static NEXT: AtomicI64 = AtomicI64::new(1);

fn table() -> &'static RwLock<HashMap<i64, Arc<Held>>> {
    static TABLE: std::sync::OnceLock<RwLock<HashMap<i64, Arc<Held>>>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Keeps `held` and returns its number (never 0, never reused).
pub fn insert(held: Held) -> i64 {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    table().write().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::new(held));
    id
}

/// The verifier numbered `id`, unless it was closed.
pub fn get(id: i64) -> Option<Arc<Held>> {
    table().read().unwrap_or_else(PoisonError::into_inner).get(&id).cloned()
}

/// Forgets `id`; the verifier is dropped when the last call using it returns. Closing twice is
/// harmless.
pub fn remove(id: i64) {
    let held = table().write().unwrap_or_else(PoisonError::into_inner).remove(&id);
    drop(held);
}
