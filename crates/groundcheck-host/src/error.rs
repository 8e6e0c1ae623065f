//! [`HostError`]: why a door's call failed, whichever door it came through.

/// A failure of the host layer: the core's error (a bad row, bundle, path or policy value),
/// threads that could not be started, or a panic caught at the boundary. A door maps each to
/// its own form (an exception class, a Java `Kind`, a tool result with `isError`).
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The core refused the input: its [`groundcheck_core::Error`], kind and place.
    #[error("{0}")]
    Core(#[from] groundcheck_core::Error),
    /// The engine's threads could not be started (the process is out of threads or memory).
    #[error("groundcheck could not start its threads: {0}")]
    Threads(String),
    /// A panic in groundcheck, caught: a bug, reported with what it said.
    #[error("groundcheck panicked (a bug; please report the input): {0}")]
    Panicked(String),
}
