//! A change: an invocation whose new verdict differs from the one stored before (or that had
//! none), as the tally counts it and the spool writes it.

use groundcheck_core::{Reason, Status};
use serde::Serialize;

/// A status and reason pair, as stored and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The verdict's status.
    pub status: Status,
    /// Why.
    pub reason: Reason,
}

/// One invocation whose stored verdict differs from the new one (or had none).
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The invocation.
    pub id: i64,
    /// Its run (`null` for a session's rows without one).
    pub run_id: Option<String>,
    /// `null` when nothing was stored for the compared policy before.
    pub from: Option<Outcome>,
    /// The verdict now.
    pub to: Outcome,
}
