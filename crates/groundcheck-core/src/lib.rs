//! groundcheck-core checks a diagnosis agent's claimed evidence against its tools' raw
//! outputs.
//!
//! Each `tool_invocation` row ([`Invocation`]) claims evidence in `retrieval_details`: a
//! JSONPath `raw_path` into the raw output and the quoted `text` found there. The engine
//! resolves every path (RFC 9535, with the RFC 6901 JSON Pointer fallback), searches the
//! selected leaves on the ladder `exact` → `normalized` → `elided` ([`Rung`]), and classifies
//! the invocation as `supported`, `unsupported` or `no_evidence` with a [`Reason`]
//! ([`Verdict`]). A `no_evidence` verdict means "no evidence found by this tool", never "the
//! fault is absent".
//!
//! The crate is pure: no I/O, no async. A [`Verifier`] verifies runs on rayon and gives
//! exactly the result of a sequential run; reports ([`Report`]) contain nothing time- or
//! machine-dependent, so their bytes are stable for snapshot tests.
//!
//! ```
//! use groundcheck_core::{Invocation, Json, Policy, RawOutput, Status, Verifier};
//!
//! let invocation = Invocation {
//!     id: 101,
//!     tool_name: "query_logs".into(),
//!     retrieval_details: Some(Json::parse(
//!         r#"{"evidence_status": "supported",
//!             "evidence_refs": [{"raw_path": "$.logs[0]", "text": "Connection refused"}]}"#,
//!     )?),
//!     raw_output: Some(RawOutput::Text(
//!         r#"{"logs": [{"message": "dial tcp 10.0.0.7:5432: connection refused"}]}"#.into(),
//!     )),
//!     ..Invocation::default()
//! };
//! let verifier = Verifier::new(Policy::default());
//! let verdict = verifier.verify(&invocation);
//! assert_eq!(verdict.status, Status::Supported);
//! assert_eq!(verdict.refs[0].matched_path.as_deref(), Some("$['logs'][0]['message']"));
//! # Ok::<(), groundcheck_core::Error>(())
//! ```
//!
//! # The public API
//!
//! - **Inputs**: [`Invocation`] (one `tool_invocation` row) with its [`RawOutput`] (its text
//!   owned, or a [`SharedText`] a binding shares without copying) and [`RawOutputFile`];
//!   [`Json`], a document that keeps every number as written, and [`JsonBuilder`] to build
//!   one from another form without writing its text; [`Bundle`], the bundle file format;
//!   [`Run`], and [`RunSet`] to group invocations into runs; the table's columns
//!   ([`Column`], [`ColumnType`]) and [`Invocation::set`], which stores a [`Cell`] only where
//!   its type fits, so every reader of rows checks them alike.
//! - **Policy**: [`Policy`] with [`Require`], the loosest [`Rung`], the fuzzy rung's
//!   [`Score`] and the [`Limits`].
//! - **Verifying**: [`Verifier`] — built once under a policy, it verifies one invocation
//!   ([`Verifier::verify`]), a run ([`Verifier::verify_run`]) or many runs
//!   ([`Verifier::verify_runs`]); [`VerdictSet`] groups verdicts made one at a time.
//! - **Reports**: [`Report`], [`RunReport`], [`Summary`], [`Verdict`], [`RefReport`],
//!   [`Nearest`], and the enums [`Status`], [`Reason`], [`RefOutcome`], [`Source`],
//!   [`Warning`], [`ReadAs`]; [`SCHEMA`] names the JSON format.
//! - **Paths**: [`resolve`] shows what a path selects ([`ResolvedNode`]) in a document, and
//!   [`resolve_text`] in a text, read as YAML or JSON Lines when it is not JSON.
//! - **Errors**: one [`Error`], with its [`ErrorKind`] and [`Position`].
//! - **For people**: [`view`] lays a document out one value a line, as the HTML page shows it;
//!   [`explain`] puts a verdict in words (its reason, warnings, limits and what was found
//!   about each failed ref), the same words in every format that shows one.
//!
//! # Panics
//!
//! Never, on any input: the Verifier calls this crate in-process on whatever an agent and its
//! tools wrote. Every [`Invocation`] gets a [`Verdict`] — hostile rows (10,000-deep nesting,
//! lone surrogate escapes, numbers beyond f64, 100 KB paths, 1 MB quotes, heavy filter
//! regexes, `$..*` over large documents, thousands of refs) get the verdicts the limits of
//! the rules (`docs/verification.md#limits` in the repository) define, in bounded time and
//! memory set by [`Limits`] — and every unreadable file a typed [`Error`]. No operation
//! recurses once per nesting level of a document beyond [`Limits::QUERY_DEPTH_CEILING`], so
//! deep input cannot overflow a thread's stack. The evidence is the fuzz targets in the
//! repository's `fuzz/` (bundle parsing; every verification route compared with the tree
//! route; `resolve`; generated YAML and JSON Lines texts on every route), the hostile corpus
//! in `fixtures/hostile/`, and the rule tests. A panic is a bug: please report the input.
//!
//! # Stack
//!
//! What a call does on the caller's thread recurses per nesting level in one place only:
//! serde_json_path's descendant segments and filters, on documents at most
//! [`Limits::QUERY_DEPTH_CEILING`] deep, and its parser, on paths within the filter and
//! parenthesis ceilings. Everything else of ours (the JSON, JSON Lines and YAML readers, the
//! expanded view, the writers, dropping a tree of any depth) keeps its own stack on the heap.
//! The largest stack a call needs, measured by the repository's
//! `crates/groundcheck-core/examples/stack_probe.rs` on the deepest inputs of every format
//! (verifying and resolving): at the default limits about 95 KiB in a release build (255 KiB
//! in a debug build); with the depth limit raised to the query ceiling 171 KiB (487 KiB);
//! paths with 8 nested filters or 32 parentheses 91 KiB (327 KiB). A binding that calls the
//! engine on a thread it does not own (a Java or Python thread, whose stack the host chose)
//! moves the work to a thread with a stack of its own unless the input is too small to nest
//! (the Java binding: at most 256 bytes and 16 brackets and parentheses).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod address;
mod boundary;
mod budget;
mod bundle;
mod cache;
mod claim;
mod columns;
mod distance;
mod document;
mod elsewhere;
mod error;
pub mod explain;
mod invocation;
mod iregexp;
mod json;
mod ladder;
mod leaves;
mod names;
mod nearest;
mod normalize;
mod path;
mod policy;
mod report;
mod resolve;
mod run;
mod score;
mod verify;
pub mod view;

pub use crate::bundle::Bundle;
pub use crate::columns::{Cell, Column, ColumnType};
pub use crate::error::{Error, ErrorKind, Position};
pub use crate::invocation::{Invocation, RawOutput, RawOutputFile, SharedText};
pub use crate::json::{Json, JsonBuilder};
pub use crate::policy::{Limit, Limits, Policy, Require, Rung};
pub use crate::report::{
    Nearest, ReadAs, Reason, RefOutcome, RefReport, Report, RunReport, Source, Status, Summary, Verdict,
    Warning, SCHEMA,
};
pub use crate::resolve::{resolve, resolve_text, resolve_text_with, resolve_with, ResolvedNode};
pub use crate::run::{Run, RunSet, VerdictSet};
pub use crate::score::Score;
#[doc(hidden)]
pub use crate::verify::RoutesTaken;
pub use crate::verify::Verifier;

#[cfg(test)]
mod tests {
    /// Errors cross threads (rayon, async callers) and live in `anyhow`-style boxes.
    #[test]
    fn errors_are_send_sync_and_static() {
        fn check<E: std::error::Error + Send + Sync + 'static>() {}
        check::<crate::Error>();
    }

    /// One verifier is shared by every thread of a process, or held by a binding object.
    #[test]
    fn inputs_reports_and_the_verifier_are_send_and_sync() {
        fn check<T: Send + Sync + 'static>() {}
        check::<crate::Invocation>();
        check::<crate::Policy>();
        check::<crate::Report>();
        check::<crate::Verifier>();
    }
}
