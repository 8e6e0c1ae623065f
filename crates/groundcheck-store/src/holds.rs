//! What an existing database holds of what groundcheck reads: found once per store by
//! `schema.rs`, read by `dialect.rs` to select NULL for a column an older agent schema lacks,
//! and kept by the `Store`. A module of its own so that the SQL (`dialect.rs`) needs nothing
//! of the code that probes and migrates.

use std::sync::{Arc, Mutex};

/// The columns of `tool_invocation` an older agent schema may lack (the seed's V010).
pub(crate) const OPTIONAL_COLUMNS: [&str; 2] = ["relevance_level", "dedup_reason"];

/// What the database holds of what groundcheck reads, found once per store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Schema {
    /// Whether `tool_invocation` has each of [`OPTIONAL_COLUMNS`].
    pub(crate) columns: [bool; 2],
    /// Whether `tool_invocation_output` exists.
    pub(crate) outputs: bool,
    /// Whether `evidence_verification` exists.
    pub(crate) verdicts: bool,
    /// Whether `reverify_checkpoint` exists.
    pub(crate) checkpoints: bool,
}

impl Schema {
    /// Both optional columns are there: rows can be inserted with them.
    pub(crate) fn full_rows(&self) -> bool {
        self.columns.iter().all(|&c| c)
    }
}

/// The schema found so far; `None` until the first read asks (and again after a migration).
pub(crate) type Found = Arc<Mutex<Option<Schema>>>;
