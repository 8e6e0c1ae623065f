//! The verification rules of docs/verification.md, one small test per rule, against the library
//! (`groundcheck_core`) directly: one file per section of that page, in its order (the claim,
//! the raw document, checking a ref, the ladder, classification, limits, order, the report),
//! and `regression` for the tests that guard a bug once found.
//!
//! Every test builds a row with the helpers below, so that it reads like the rule it checks;
//! most end in [`check`]. Every verification here runs on the fast routes and on the tree
//! route, which must agree.

use groundcheck_core::{
    resolve, ErrorKind, Invocation, Json, Limit, Limits, Policy, RawOutput, Reason, RefOutcome, RefReport,
    Report, Require, Run, RunReport, RunSet, Rung, Source, Status, Summary, Verdict, Verifier, Warning,
};
use serde_json::{json, Value};

mod checking_a_ref;
mod classification;
mod limits;
mod order;
mod regression;
mod the_claim;
mod the_ladder;
mod the_raw_document;
mod the_report;
mod yaml_and_json_lines;

/// An invocation with `retrieval_details` given as JSON text and the raw output as
/// `raw_output_text` (`None`: no raw output at all).
fn inv(details: &str, raw: Option<&str>) -> Invocation {
    Invocation {
        id: 1,
        tool_name: "query_logs".into(),
        retrieval_details: Some(Json::parse(details).expect("test details must be JSON")),
        raw_output: raw.map(|r| RawOutput::Text(r.to_string())),
        ..Invocation::default()
    }
}

/// An invocation without `retrieval_details`.
fn inv_without_details(raw: Option<&str>) -> Invocation {
    Invocation { retrieval_details: None, ..inv("null", raw) }
}

/// `retrieval_details` claiming `supported` with the given `(raw_path, text)` refs.
fn claim(refs: &[(&str, &str)]) -> String {
    let refs: Vec<Value> = refs.iter().map(|(p, t)| json!({"raw_path": p, "text": t})).collect();
    json!({"evidence_status": "supported", "evidence_refs": refs}).to_string()
}

/// `retrieval_details` with arbitrary ref values (markers, malformed refs...).
fn claim_values(status: Value, refs: Vec<Value>) -> String {
    json!({"evidence_status": status, "evidence_refs": refs}).to_string()
}

/// `retrieval_details` as a JSON string value holding `text` (the database's text column).
fn as_string_details(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// Verifies `details` (JSON text) against `raw` (as `raw_output_text`; `None`: no raw output)
/// under the default policy, and asserts the verdict's status, reason and each ref's outcome,
/// in order. Returns the verdict for what a test checks besides.
fn check(details: &str, raw: Option<&str>, expected: (Status, Reason, &[RefOutcome])) -> Verdict {
    let verdict = verify(&inv(details, raw));
    let (status, reason, refs) = expected;
    assert_eq!(
        (verdict.status, verdict.reason, outcomes(&verdict).as_slice()),
        (status, reason, refs),
        "{verdict:?}"
    );
    verdict
}

fn verify(invocation: &Invocation) -> Verdict {
    verify_with(invocation, Policy::default())
}

/// The verdict of `invocation` under `policy`, the same on the fast routes and the tree route.
fn verify_with(invocation: &Invocation, policy: Policy) -> Verdict {
    let fast = Verifier::new(policy).verify(invocation);
    let tree = Verifier::new(policy).tree_route_only().verify(invocation);
    assert_eq!(fast, tree, "the routes disagree");
    fast
}

/// The report of a single ref `(raw_path, text)` against `raw` under the default policy.
fn one(path: &str, text: &str, raw: Option<&str>) -> RefReport {
    one_with(path, text, raw, Policy::default())
}

fn one_with(path: &str, text: &str, raw: Option<&str>, policy: Policy) -> RefReport {
    let verdict = verify_with(&inv(&claim(&[(path, text)]), raw), policy);
    assert_eq!(verdict.refs.len(), 1, "{verdict:?}");
    verdict.refs.into_iter().next().unwrap()
}

fn outcome(path: &str, text: &str, raw: Option<&str>) -> RefOutcome {
    one(path, text, raw).outcome
}

/// `(rung, matched_path)` of a verified ref, `None` when it is not verified.
fn hit(path: &str, text: &str, raw: &str) -> Option<(Rung, String)> {
    hit_with(path, text, raw, Rung::Elided)
}

fn hit_with(path: &str, text: &str, raw: &str, max_rung: Rung) -> Option<(Rung, String)> {
    let r = one_with(path, text, Some(raw), Policy::default().with_max_rung(max_rung));
    match r.outcome {
        RefOutcome::Verified => {
            Some((r.rung.expect("verified without rung"), r.matched_path.expect("no matched_path")))
        }
        other => {
            assert_eq!(other, RefOutcome::TextNotFound, "{r:?}");
            assert_eq!((r.rung, r.matched_path.as_ref()), (None, None));
            None
        }
    }
}

fn policy_with(limits: Limits) -> Policy {
    Policy::default().with_limits(limits)
}

fn outcomes(verdict: &Verdict) -> Vec<RefOutcome> {
    verdict.refs.iter().map(|r| r.outcome).collect()
}

fn status_reason(verdict: &Verdict) -> (Status, Reason) {
    (verdict.status, verdict.reason)
}

const LOGS: &str = r#"{"logs":[{"ts":"2026-11-30T10:00:00Z","message":"dial tcp 10.0.0.7:5432: connection refused"},
                               {"ts":"2026-11-30T10:00:05Z","message":"retry 3/5 failed"}]}"#;

/// An invocation with only a preview.
fn with_preview(details: &str, preview: &str, length: Option<i64>, truncated: Option<bool>) -> Invocation {
    Invocation {
        output_preview: Some(preview.to_string()),
        output_length: length,
        is_truncated: truncated,
        ..inv(details, None)
    }
}

fn nested(depth: usize, inner: &str) -> String {
    format!("{}{}{}", "[".repeat(depth), inner, "]".repeat(depth))
}

/// A run mixing every row of docs/verification.md#classification (and then some), `n` invocations long.
fn generated_run(run_id: &str, n: i64) -> Run {
    let mut invocations = Vec::new();
    for k in 0..n {
        let id = (k * 7919) % 1009 + 1; // distinct ids, not in order
        let (value, line) = (format!("value {k}"), format!("line {k}"));
        let preview = format!("{{\"m\":\"{value}\"}}");
        let base = match k % 12 {
            0 => inv(&claim(&[("$.logs[0].message", "connection refused")]), Some(LOGS)),
            1 => inv(&claim(&[("$.logs[*]", "CONNECTION refused"), ("$.logs[1]", "disk")]), Some(LOGS)),
            2 => inv(r#"{"evidence_status":"supported","evidence_refs":{}}"#, Some(LOGS)),
            3 => inv(r#"{"evidence_status":"supported"}"#, Some(LOGS)),
            4 => Invocation { success: Some(false), ..inv_without_details(None) },
            5 => inv(&claim_values(json!("no_evidence"), vec![json!({"raw_path": "$.no_evidence"})]), None),
            6 => inv_without_details(Some(LOGS)),
            7 => Invocation { success: Some(false), ..inv(&claim(&[("$.logs[0]", "x")]), Some(LOGS)) },
            8 => inv(&claim(&[("$..message", "dial … refused"), ("bad", "x")]), Some(LOGS)),
            9 => with_preview(&claim(&[("$.m", value.as_str())]), &preview, None, Some(true)),
            10 => with_preview(
                &claim(&[("$.m", value.as_str())]),
                &preview,
                Some(preview.len() as i64),
                Some(false),
            ),
            _ => inv(&claim(&[("$", line.as_str())]), Some(format!("plain {line} text").as_str())),
        };
        invocations.push(Invocation {
            id,
            run_id: Some(run_id.to_string()),
            session_id: Some(format!("sess-{}", k % 3)),
            tool_name: format!("tool_{}", k % 5),
            ..base
        });
    }
    Run { run_id: Some(run_id.to_string()), session_id: Some("sess-0".into()), invocations }
}
