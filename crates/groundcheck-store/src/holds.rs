//! What an existing database holds of what groundcheck reads: found once per store by
//! `schema.rs`, read by `dialect.rs` to select NULL for a column an older agent schema lacks,
//! and kept by the `Store`. A module of its own so that the SQL (`dialect.rs`) needs nothing
//! of the code that probes and migrates.

use std::sync::{Arc, Mutex};

/// The columns of `tool_invocation` an older agent schema may lack (the seed's V010).
pub(crate) const OPTIONAL_COLUMNS: [&str; 2] = ["relevance_level", "dedup_reason"];

/// The columns of `tool_invocation` every read selects: the seed's V005 table. A table
/// without one of them cannot be read, and the error names it.
pub(crate) const REQUIRED_COLUMNS: [&str; 17] = [
    "id",
    "session_id",
    "run_id",
    "step_id",
    "tool_name",
    "input_params",
    "output_preview",
    "output_length",
    "retrieval_layer",
    "l0_match_count",
    "l1_match_count",
    "is_truncated",
    "retrieval_details",
    "duration_ms",
    "success",
    "error_message",
    "created_at",
];

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
    /// Whether `input_params`, `retrieval_details` and `raw_output` are PostgreSQL `bytea`:
    /// read as their bytes, not as the server's text of the value (`dialect.rs`).
    pub(crate) bytea: [bool; 3],
    /// Whether `raw_output` is PostgreSQL `json` or `jsonb` (which a text parameter is not
    /// assigned to): imports cast to it ([`Dialect::insert_output`](crate::dialect)).
    pub(crate) raw_json: Option<JsonType>,
    /// Whether `created_at` is a text column on PostgreSQL, compared and read through a cast.
    pub(crate) text_time: bool,
}

/// PostgreSQL's two JSON types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Json,
    Jsonb,
}

impl Schema {
    /// Both optional columns are there: rows can be inserted with them.
    pub(crate) fn full_rows(&self) -> bool {
        self.columns.iter().all(|&c| c)
    }
}

/// The schema found so far; `None` until the first read asks (and again after a migration).
pub(crate) type Found = Arc<Mutex<Option<Schema>>>;
