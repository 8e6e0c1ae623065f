//! Injected panics for the test build (cargo feature `test-hooks`, which `scripts/test.sh`
//! enables and a release wheel leaves out): `_panic_at(entry)` makes the next call of that
//! entry point panic inside its own guard ([`crate::errors::guard`]), so the tests show that
//! every real entry point turns a panic into `InternalError`. Without the feature, [`point`]
//! is empty and the module functions do not exist.

#[cfg(feature = "test-hooks")]
mod armed {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;

    use pyo3::prelude::*;

    /// Whether an entry is armed: the one load every guarded call pays in the test build.
    static ANY: AtomicBool = AtomicBool::new(false);
    /// The entry armed.
    static ENTRY: Mutex<Option<String>> = Mutex::new(None);

    /// Panics when `entry` is the one armed (once: the arming is used up).
    pub fn point(entry: &str) {
        if !ANY.load(Ordering::Relaxed) {
            return;
        }
        let mut armed = ENTRY.lock().unwrap_or_else(|e| e.into_inner());
        if armed.as_deref() == Some(entry) {
            *armed = None;
            ANY.store(false, Ordering::Relaxed);
            drop(armed);
            panic!("injected panic at {entry}");
        }
    }

    /// Arms `entry` (`"Verdict.to_json"`, `"resolve"`, `"engine"` for the work on the
    /// package's threads): its next call panics inside its guard. `None` disarms.
    #[pyfunction]
    #[pyo3(signature = (entry))]
    pub fn _panic_at(entry: Option<String>) {
        let mut armed = ENTRY.lock().unwrap_or_else(|e| e.into_inner());
        ANY.store(entry.is_some(), Ordering::Relaxed);
        *armed = entry;
    }
}

#[cfg(feature = "test-hooks")]
pub use armed::point;

/// Nothing: the build without injected panics.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn point(_entry: &str) {}

/// Adds the hooks' functions to the extension module (test build only).
pub fn register(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
    #[cfg(feature = "test-hooks")]
    {
        use pyo3::prelude::*;
        m.add_function(wrap_pyfunction!(armed::_panic_at, m)?)?;
    }
    #[cfg(not(feature = "test-hooks"))]
    let _ = m;
    Ok(())
}
