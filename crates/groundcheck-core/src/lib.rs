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
//! The crate is pure: no I/O, no async. [`verify_run`] and [`verify_runs`] use rayon and give
//! exactly the result of a sequential run; reports ([`Report`]) contain nothing time- or
//! machine-dependent, so their bytes are stable for snapshot tests.
//!
//! ```
//! use groundcheck_core::{verify_invocation, Invocation, Json, Policy, RawOutput, Status};
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
//! let verdict = verify_invocation(&invocation, &Policy::default());
//! assert_eq!(verdict.status, Status::Supported);
//! assert_eq!(verdict.refs[0].matched_path.as_deref(), Some("$['logs'][0]['message']"));
//! # Ok::<(), groundcheck_core::JsonError>(())
//! ```
//!
//! Bundle files (the fixture format) are read by [`Bundle::parse`] and grouped into runs by
//! [`RunSet`]; [`resolve`] shows what a path selects.
//!
//! # Panics
//!
//! Never, on any input: the Verifier calls this crate in-process on whatever an agent and its
//! tools wrote. Every [`Invocation`] gets a [`Verdict`] — hostile rows (10,000-deep nesting,
//! lone surrogate escapes, numbers beyond f64, 100 KB paths, 1 MB quotes, heavy filter
//! regexes, `$..*` over large documents, thousands of refs) get the verdicts docs/verification.md#limits defines,
//! in bounded time and memory set by [`Limits`] — and every unreadable file a typed error
//! ([`BundleError`], [`JsonError`], [`PathError`]). No operation recurses once per nesting
//! level of a document beyond [`Limits::QUERY_DEPTH_CEILING`], so deep input cannot overflow
//! a thread's stack. The evidence is the fuzz targets in the repository's `fuzz/` (bundle
//! parsing; every verification route compared with the tree route; `resolve`), the hostile
//! corpus in `fixtures/hostile/`, and the rule tests. A panic is a bug: please report the
//! input.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod address;
mod boundary;
mod bundle;
mod cache;
mod claim;
mod distance;
mod document;
mod elsewhere;
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
mod pretty;
mod report;
mod resolve;
mod run;
mod score;
mod verify;

pub use crate::bundle::{Bundle, BundleError, INVOCATION_KEYS};
pub use crate::claim::EvidenceRef;
pub use crate::document::{expanded_document, raw_document};
pub use crate::invocation::{Invocation, RawOutput, RawOutputFile};
pub use crate::json::{Json, JsonError, JsonErrorKind};
pub use crate::names::UnknownName;
pub use crate::path::{EvidencePath, PathError};
pub use crate::policy::{Limits, Policy, Require, Rung};
pub use crate::pretty::{exact_span, pretty, LeafKind, Line, Piece, Pretty};
pub use crate::report::{
    Nearest, Reason, RefOutcome, RefReport, Report, RunReport, Source, Status, Summary, Verdict, Warning,
    SCHEMA,
};
pub use crate::resolve::{resolve, ResolveError, ResolvedNode};
pub use crate::run::{DuplicateId, Run, RunSet, VerdictSet};
pub use crate::score::{Score, ScoreError};
pub use crate::verify::{verify_invocation, verify_invocation_general, verify_run, verify_runs, Verifier};

#[cfg(test)]
mod tests {
    /// Errors cross threads (rayon, async callers) and live in `anyhow`-style boxes.
    #[test]
    fn errors_are_send_sync_and_static() {
        fn check<E: std::error::Error + Send + Sync + 'static>() {}
        check::<crate::JsonError>();
        check::<crate::PathError>();
        check::<crate::BundleError>();
        check::<crate::ResolveError>();
        check::<crate::DuplicateId>();
        check::<crate::UnknownName>();
    }

    /// The Verifier shares one policy and its invocations across threads.
    #[test]
    fn inputs_and_reports_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<crate::Invocation>();
        check::<crate::Policy>();
        check::<crate::Report>();
    }
}
