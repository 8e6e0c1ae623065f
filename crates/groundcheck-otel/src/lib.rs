//! groundcheck-otel turns verdicts into OpenTelemetry events, so they land in the pipeline
//! that already holds an agent's traces (any OTLP collector or LLM-observability backend).
//!
//! Each [`Verdict`](groundcheck_core::Verdict) becomes one `gen_ai.evaluation.result` event
//! ([`EVENT_NAME`]) of the GenAI semantic conventions: an OTLP log record
//! ([`evaluation_record`]) with `gen_ai.evaluation.name` = [`EVALUATION_NAME`], the status as
//! `gen_ai.evaluation.score.label`, the share of real refs verified as
//! `gen_ai.evaluation.score.value` ([`RefCounts::share`]), the reason and the failed refs as
//! `gen_ai.evaluation.explanation` (the core's `explain::verdict`, the words the `human` table
//! and the HTML page use), and groundcheck's own attributes. A [`Batcher`] groups records
//! into bounded `LogsData` messages; [`json_line`] and [`export_request`] encode them. The
//! types are the official ones of the `opentelemetry-proto` crate, re-exported as [`proto`].
//!
//! The crate is pure: no I/O, no clock (the caller gives the time in [`Context`]).
//!
//! ```
//! use groundcheck_core::{Invocation, Json, Limits, Policy, RawOutput, Verifier};
//! use groundcheck_otel::{evaluation_record, json_line, Batcher, Context, Origin, RunIds};
//!
//! let invocation = Invocation {
//!     id: 101,
//!     tool_name: "query_logs".into(),
//!     retrieval_details: Some(Json::parse(
//!         r#"{"evidence_refs": [{"raw_path": "$.logs[0]", "text": "connection refused"}]}"#,
//!     )?),
//!     raw_output: Some(RawOutput::Text(r#"{"logs": ["dial: connection refused"]}"#.into())),
//!     ..Invocation::default()
//! };
//! let verdict = Verifier::new(Policy::default()).verify(&invocation);
//! let limits = Limits::default();
//! let context = Context {
//!     time_unix_nano: 1_700_000_000_000_000_000,
//!     policy: "require=all;match=elided",
//!     limits: &limits,
//! };
//! let record = evaluation_record(&verdict, RunIds::default(), context);
//! assert_eq!(record.event_name, "gen_ai.evaluation.result");
//!
//! let mut batcher = Batcher::new(Origin { service_name: "groundcheck", version: "0.1.0" });
//! assert!(batcher.push(record).is_none());
//! let line = json_line(&batcher.take().expect("one record"));
//! assert!(line.contains(r#""timeUnixNano":"1700000000000000000""#));
//! assert!(line.contains(r#"{"key":"gen_ai.evaluation.score.value","value":{"doubleValue":1.0}}"#));
//! # Ok::<(), groundcheck_core::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attribute;
mod batch;
mod encode;
mod explanation;
mod record;
mod score;

/// The official OTLP message types (prost, with serde for the JSON mapping), so callers and
/// tests use exactly the types these records are built from.
pub use opentelemetry_proto as proto;

pub use crate::batch::{record_count, Batcher, Origin, MAX_LINE_BYTES, MAX_RECORDS};
pub use crate::encode::{export_request, json_line, rejected_records};
pub use crate::explanation::{explain, ECHO_CHARS, FAILED_REFS_SHOWN};
pub use crate::record::{evaluation_record, Context, RunIds, EVALUATION_NAME, EVENT_NAME};
pub use crate::score::RefCounts;
