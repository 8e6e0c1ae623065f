//! One guard for every door: a panic in the work becomes [`HostError::Panicked`], never an
//! unwind into a host (a JVM, a Python interpreter, an MCP client's server) that would abort.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::HostError;

/// Runs `work` with panics caught; a panic's message becomes [`HostError::Panicked`].
pub fn guard<T>(work: impl FnOnce() -> Result<T, HostError>) -> Result<T, HostError> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|payload| Err(panicked(payload.as_ref())))
}

/// What a caught panic said.
pub(crate) fn panicked(payload: &(dyn std::any::Any + Send)) -> HostError {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    HostError::Panicked(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_one_error_with_its_message() {
        let caught = guard::<()>(|| panic!("boom {}", 7));
        assert!(matches!(caught, Err(HostError::Panicked(m)) if m == "boom 7"));
        assert!(matches!(guard(|| Ok(3)), Ok(3)));
    }
}
