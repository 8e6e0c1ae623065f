//! One verdict as one `gen_ai.evaluation.result` event: a log record with that event name and
//! the GenAI evaluation attributes, plus groundcheck's own under `groundcheck.*`. The table
//! of attributes, their sources and why each name was chosen is docs/opentelemetry.md.

use groundcheck_core::{explain, Limits, Reason, Status, Verdict};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, SeverityNumber};

use crate::attribute::{bool, double, int, string};
use crate::score::RefCounts;

/// The event name of the OpenTelemetry GenAI semantic conventions for an evaluation result.
pub const EVENT_NAME: &str = "gen_ai.evaluation.result";

/// `gen_ai.evaluation.name` of every groundcheck record: what was evaluated — the evidence
/// an agent cited for a tool call.
pub const EVALUATION_NAME: &str = "groundcheck.evidence";

/// What a record says beyond the verdict itself: when, and under which policy.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The verification's time, in nanoseconds since the Unix epoch: both `timeUnixNano` (the
    /// evaluation is the event) and `observedTimeUnixNano`.
    pub time_unix_nano: u64,
    /// The policy key the verdict was decided under, e.g. `require=all;match=elided`.
    pub policy: &'a str,
    /// The limits the verdict was decided under, which the explanation of a `limit_exceeded`
    /// ref names (`--max-nodes 10000`); they are not part of the policy key.
    pub limits: &'a Limits,
}

/// The run a verdict belongs to, as the report names it.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunIds<'a> {
    /// The run, when the rows have one.
    pub run_id: Option<&'a str>,
    /// The run's session (its first invocation's).
    pub session_id: Option<&'a str>,
}

/// The event of one verdict.
pub fn evaluation_record(verdict: &Verdict, run: RunIds<'_>, context: Context<'_>) -> LogRecord {
    let counts = RefCounts::of(verdict);
    let mut attributes = vec![
        string("gen_ai.evaluation.name", EVALUATION_NAME),
        string("gen_ai.evaluation.score.label", verdict.status.as_str()),
    ];
    if let Some(share) = counts.share() {
        attributes.push(double("gen_ai.evaluation.score.value", share));
    }
    attributes.push(string("gen_ai.evaluation.explanation", &explain::verdict(verdict, context.limits)));
    if verdict.reason == Reason::MalformedDetails {
        // The one verdict reached without evaluating anything: the claim could not be read.
        attributes.push(string("error.type", Reason::MalformedDetails.as_str()));
    }
    attributes.push(string("gen_ai.tool.name", &verdict.tool_name));
    if let Some(session) = run.session_id {
        attributes.push(string("gen_ai.conversation.id", session));
    }
    if let Some(run_id) = run.run_id {
        attributes.push(string("groundcheck.run.id", run_id));
    }
    attributes.push(int("groundcheck.invocation.id", verdict.id));
    attributes.push(string("groundcheck.reason", verdict.reason.as_str()));
    if let Some(claimed) = &verdict.claimed_status {
        attributes.push(string("groundcheck.claimed_status", claimed));
    }
    if let Some(agrees) = verdict.claim_agrees {
        attributes.push(bool("groundcheck.claim_agrees", agrees));
    }
    attributes.push(string("groundcheck.source", verdict.source.as_str()));
    attributes.push(int("groundcheck.refs.real", i64::try_from(counts.real).unwrap_or(i64::MAX)));
    attributes.push(int("groundcheck.refs.verified", i64::try_from(counts.verified).unwrap_or(i64::MAX)));
    attributes.push(string("groundcheck.policy", context.policy));
    let (severity, severity_text) = severity(verdict.status);
    LogRecord {
        time_unix_nano: context.time_unix_nano,
        observed_time_unix_nano: context.time_unix_nano,
        severity_number: severity as i32,
        severity_text: severity_text.to_string(),
        attributes,
        event_name: EVENT_NAME.to_string(),
        ..LogRecord::default()
    }
}

/// `unsupported` is a warning a log view should make stand out; the other two are information
/// (`no_evidence` is not a negative finding).
fn severity(status: Status) -> (SeverityNumber, &'static str) {
    match status {
        Status::Unsupported => (SeverityNumber::Warn, "WARN"),
        Status::Supported | Status::NoEvidence => (SeverityNumber::Info, "INFO"),
    }
}
