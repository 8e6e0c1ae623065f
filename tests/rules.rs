//! The verification rules of docs/verification.md#checking-a-ref, one small test per rule, against the
//! library (`groundcheck_core`) directly.
//!
//! Every test builds a row with the helpers below, so that it reads like the rule it checks.

use groundcheck_core::{
    resolve, ErrorKind, Invocation, Json, Limits, Policy, RawOutput, Reason, RefOutcome, RefReport, Report,
    Require, Run, RunReport, RunSet, Rung, Source, Status, Summary, Verdict, Verifier, Warning,
};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

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

fn verify(invocation: &Invocation) -> Verdict {
    Verifier::default().verify(invocation)
}

fn verify_with(invocation: &Invocation, policy: Policy) -> Verdict {
    Verifier::new(policy).verify(invocation)
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
    let r = one_with(path, text, Some(raw), Policy { max_rung, ..Policy::default() });
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
    Policy { limits, ..Policy::default() }
}

fn outcomes(verdict: &Verdict) -> Vec<RefOutcome> {
    verdict.refs.iter().map(|r| r.outcome).collect()
}

fn status_reason(verdict: &Verdict) -> (Status, Reason) {
    (verdict.status, verdict.reason)
}

const LOGS: &str = r#"{"logs":[{"ts":"2026-11-30T10:00:00Z","message":"dial tcp 10.0.0.7:5432: connection refused"},
                               {"ts":"2026-11-30T10:00:05Z","message":"retry 3/5 failed"}]}"#;

// ---------------------------------------------------------------------------------------------
// docs/verification.md#classification rows 1-9, and docs/verification.md#the-claim reading the claim
// ---------------------------------------------------------------------------------------------

fn assert_malformed(verdict: &Verdict, claimed: Option<&str>) {
    assert_eq!(status_reason(verdict), (Status::Unsupported, Reason::MalformedDetails), "{verdict:?}");
    assert!(verdict.refs.is_empty(), "refs must be empty with malformed_details: {verdict:?}");
    assert_eq!(verdict.claimed_status.as_deref(), claimed);
}

#[test]
fn row1_malformed_details_string_not_json() {
    assert_malformed(&verify(&inv(&as_string_details("{not json"), Some(LOGS))), None);
    assert_malformed(&verify(&inv(&as_string_details(""), Some(LOGS))), None);
    assert_malformed(
        &verify(&inv(&as_string_details("{\"evidence_status\":\"supported\""), Some(LOGS))),
        None,
    );
}

#[test]
fn row1_malformed_details_array() {
    assert_malformed(&verify(&inv(r#"[{"raw_path":"$.logs[0]","text":"refused"}]"#, Some(LOGS))), None);
    // ...also when the array arrives as JSON text in a string.
    assert_malformed(&verify(&inv(&as_string_details("[]"), Some(LOGS))), None);
}

#[test]
fn row1_malformed_details_number() {
    assert_malformed(&verify(&inv("3", Some(LOGS))), None);
    assert_malformed(&verify(&inv(&as_string_details(" 3.5 "), Some(LOGS))), None);
}

#[test]
fn row1_malformed_details_boolean() {
    assert_malformed(&verify(&inv("true", Some(LOGS))), None);
    assert_malformed(&verify(&inv("false", Some(LOGS))), None);
}

#[test]
fn row1_malformed_details_evidence_refs_not_an_array() {
    let object =
        r#"{"evidence_status":"supported","evidence_refs":{"raw_path":"$.logs[0]","text":"refused"}}"#;
    assert_malformed(&verify(&inv(object, Some(LOGS))), Some("supported"));
    assert_malformed(&verify(&inv(r#"{"evidence_refs":"$.logs[0]"}"#, Some(LOGS))), None);
    assert_malformed(&verify(&inv(r#"{"evidence_refs":0}"#, Some(LOGS))), None);
}

#[test]
fn row1_malformed_details_keep_the_claimed_status_of_the_object() {
    let v = verify(&inv(r#"{"evidence_status":"supported","evidence_refs":{}}"#, Some(LOGS)));
    assert_malformed(&v, Some("supported"));
    assert_eq!(v.claim_agrees, Some(false));
    // From a string holding the object too, and verbatim.
    let v = verify(&inv(
        &as_string_details(r#" {"evidence_status":"unsupported","evidence_refs":true} "#),
        Some(LOGS),
    ));
    assert_malformed(&v, Some("unsupported"));
    assert_eq!(v.claim_agrees, Some(true));
    // A non-string evidence_status is no claim.
    let v = verify(&inv(r#"{"evidence_status":["supported"],"evidence_refs":7}"#, Some(LOGS)));
    assert_malformed(&v, None);
    assert_eq!(v.claim_agrees, None);
}

#[test]
fn details_absent_null_or_string_null_are_no_claim() {
    for v in [
        verify(&inv_without_details(Some(LOGS))),
        verify(&inv("null", Some(LOGS))),
        verify(&inv(&as_string_details("null"), Some(LOGS))),
        verify(&inv(&as_string_details(" \n null\t "), Some(LOGS))),
        verify(&inv(r#"{"evidence_refs":null}"#, Some(LOGS))),
    ] {
        assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoRefs), "{v:?}");
        assert_eq!((v.claimed_status.as_deref(), v.claim_agrees), (None, None));
        assert!(v.refs.is_empty());
    }
}

#[test]
fn details_string_holding_an_object_is_read_like_the_object() {
    let details =
        as_string_details(&format!("  {}\n", claim(&[("$.logs[0].message", "connection refused")])));
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified), "{v:?}");
    assert_eq!(v.claimed_status.as_deref(), Some("supported"));
}

#[test]
fn row2_claimed_supported_without_real_refs() {
    for details in [
        r#"{"evidence_status":"supported"}"#,
        r#"{"evidence_status":"supported","evidence_refs":[]}"#,
        r#"{"evidence_status":"supported","evidence_refs":null}"#,
        r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.no_evidence"}]}"#,
    ] {
        let v = verify(&inv(details, Some(LOGS)));
        assert_eq!(status_reason(&v), (Status::Unsupported, Reason::ClaimedWithoutRefs), "{details}");
        assert_eq!(v.claim_agrees, Some(false));
    }
    // Row 2 comes before row 3: a failed call claiming support without refs.
    let failed = Invocation { success: Some(false), ..inv(r#"{"evidence_status":"supported"}"#, None) };
    assert_eq!(status_reason(&verify(&failed)), (Status::Unsupported, Reason::ClaimedWithoutRefs));
}

#[test]
fn row3_no_real_refs_and_the_call_failed() {
    let failed = Invocation { success: Some(false), ..inv(r#"{"evidence_status":"no_evidence"}"#, None) };
    let v = verify(&failed);
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::ToolFailed));
    assert_eq!(v.claim_agrees, Some(true));
    // Row 3 comes before row 4: a marker in a failed call.
    let marker = claim_values(json!("no_evidence"), vec![json!({"raw_path": "$.no_evidence", "text": ""})]);
    let v = verify(&Invocation { success: Some(false), ..inv(&marker, None) });
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::ToolFailed));
    assert_eq!(outcomes(&v), [RefOutcome::NoEvidenceMarker]);
    // Absent details in a failed call.
    let v = verify(&Invocation { success: Some(false), ..inv_without_details(None) });
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::ToolFailed));
}

#[test]
fn row4_only_a_no_evidence_marker() {
    let details =
        claim_values(json!("no_evidence"), vec![json!({"raw_path": "$.no_evidence", "text": "nothing"})]);
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoEvidenceMarker));
    assert_eq!(outcomes(&v), [RefOutcome::NoEvidenceMarker]);
    assert_eq!(v.claim_agrees, Some(true));
    assert!(v.warnings.is_empty());
}

#[test]
fn row5_no_refs_at_all() {
    let v = verify(&inv(r#"{"evidence_status":"no_evidence","evidence_refs":[]}"#, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoRefs));
    assert_eq!(v.claim_agrees, Some(true));
    let v = verify(&inv(r#"{}"#, None));
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoRefs));
    assert_eq!(v.claim_agrees, None);
}

#[test]
fn row6_real_refs_of_a_failed_call() {
    let details = claim_values(
        json!("supported"),
        vec![
            json!({"raw_path": "$.logs[0].message", "text": "connection refused"}), // would verify
            json!({"raw_path": "$.logs[0].message", "text": "   "}),                // blank
            json!({"raw_path": "not a path", "text": "x"}),                         // invalid path
            json!({"raw_path": "$.logs[0].message", "text": 5}),                    // malformed
            json!("just a string"),                                                 // malformed
            json!({"raw_path": " $.no_evidence "}),                                 // marker
        ],
    );
    let v = verify(&Invocation { success: Some(false), ..inv(&details, Some(LOGS)) });
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::ToolFailed));
    assert_eq!(
        outcomes(&v),
        [
            RefOutcome::NotChecked,
            RefOutcome::NotChecked,
            RefOutcome::NotChecked,
            RefOutcome::MalformedRef,
            RefOutcome::MalformedRef,
            RefOutcome::NoEvidenceMarker,
        ]
    );
    assert_eq!(v.warnings, [Warning::MarkerWithRefs]);
    assert_eq!(v.claim_agrees, Some(false));
    // Without any raw output the refs are still not_checked, not raw_output_unavailable.
    let v = verify(&Invocation { success: Some(false), ..inv(&claim(&[("$.a", "x")]), None) });
    assert_eq!(outcomes(&v), [RefOutcome::NotChecked]);
    assert_eq!(v.refs[0].in_preview, None);
}

#[test]
fn row6_text_over_the_length_limit_is_limit_exceeded_even_in_a_failed_call() {
    let policy = policy_with(Limits { max_text_chars: 5, ..Limits::default() });
    let details = claim(&[("$.logs[0].message", "refused"), ("$.logs[0].message", "dial")]);
    let v = verify_with(&Invocation { success: Some(false), ..inv(&details, Some(LOGS)) }, policy);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::ToolFailed));
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded, RefOutcome::NotChecked]);
}

#[test]
fn row7_every_real_ref_verified() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "retry 3/5")]);
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified));
    assert_eq!(outcomes(&v), [RefOutcome::Verified, RefOutcome::Verified]);
    assert_eq!(v.claim_agrees, Some(true));
    assert_eq!(v.source, Source::RawOutput);
}

#[test]
fn row8_some_but_not_all_real_refs_verified() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "disk full")]);
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::PartiallyVerified));
    assert_eq!(outcomes(&v), [RefOutcome::Verified, RefOutcome::TextNotFound]);
    assert_eq!(v.claim_agrees, Some(false));
}

#[test]
fn row8_under_require_any_is_supported() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "disk full")]);
    let any = Policy { require: Require::Any, ..Policy::default() };
    let v = verify_with(&inv(&details, Some(LOGS)), any);
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified));
    assert_eq!(outcomes(&v), [RefOutcome::Verified, RefOutcome::TextNotFound]);
    // `any` still needs one verified ref: row 9 stays row 9.
    let v = verify_with(&inv(&claim(&[("$.logs[1]", "disk full")]), Some(LOGS)), any);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
}

#[test]
fn row8_counts_malformed_refs_as_real_refs() {
    let details = claim_values(
        json!("supported"),
        vec![json!({"raw_path": "$.logs[0].message", "text": "refused"}), json!({"raw_path": "$.logs[1]"})],
    );
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::PartiallyVerified));
    assert_eq!(outcomes(&v), [RefOutcome::Verified, RefOutcome::MalformedRef]);
}

#[test]
fn row9_no_real_ref_verified() {
    let details = claim(&[("$.logs[0].message", "disk full"), ("$.nowhere", "x"), ("$.logs[0]", "")]);
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
    assert_eq!(outcomes(&v), [RefOutcome::TextNotFound, RefOutcome::PathNotFound, RefOutcome::EmptyText]);
}

#[test]
fn success_null_counts_as_success() {
    let details = claim(&[("$.logs[0].message", "connection refused")]);
    for success in [None, Some(true)] {
        let v = verify(&Invocation { success, ..inv(&details, Some(LOGS)) });
        assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified), "success = {success:?}");
    }
    let v = verify(&Invocation { success: None, ..inv_without_details(None) });
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoRefs));
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#checking-a-ref the outcome of one real ref, in the order of its steps
// ---------------------------------------------------------------------------------------------

#[test]
fn step1_empty_text() {
    for text in ["", " ", "\t\n\r ", "\u{3000}", "\u{3000}\u{3000}", "\u{a0}\u{2028}\u{85}"] {
        assert_eq!(outcome("$.logs[0]", text, Some(LOGS)), RefOutcome::EmptyText, "{text:?}");
    }
}

#[test]
fn step1_empty_text_comes_before_raw_output_unavailable() {
    assert_eq!(outcome("$.logs[0]", "  ", None), RefOutcome::EmptyText);
    assert_eq!(outcome("$.logs[0]", "\u{3000}", None), RefOutcome::EmptyText);
    assert_eq!(outcome("not a path", "", None), RefOutcome::EmptyText);
}

#[test]
fn step2_raw_output_unavailable() {
    let r = one("$.logs[0]", "refused", None);
    assert_eq!(r.outcome, RefOutcome::RawOutputUnavailable);
    assert_eq!(r.in_preview, None, "no preview, no in_preview");
    let v = verify(&inv(&claim(&[("$.logs[0]", "refused")]), None));
    assert_eq!(v.source, Source::None);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
}

#[test]
fn step2_raw_output_unavailable_comes_before_invalid_path() {
    assert_eq!(outcome("logs[0", "refused", None), RefOutcome::RawOutputUnavailable);
}

#[test]
fn step3_invalid_path() {
    for path in ["logs[0]", "$.logs[0", "$[", "$.logs[?(@.x]", "", "  ", "/a~2", "/a~", "$$"] {
        assert_eq!(outcome(path, "refused", Some(LOGS)), RefOutcome::InvalidPath, "{path:?}");
    }
}

#[test]
fn step3_json_pointer_fallback() {
    let doc = r#"{"logs":[{"message":"connection refused"}],"a/b":{"t~":"slash tilde"},"":"empty key"}"#;
    assert_eq!(hit("/logs/0/message", "refused", doc), Some((Rung::Exact, "$['logs'][0]['message']".into())));
    assert_eq!(hit("/a~1b/t~0", "tilde", doc), Some((Rung::Exact, "$['a/b']['t~']".into())));
    assert_eq!(hit("/", "empty key", doc), Some((Rung::Exact, "$['']".into())));
    assert_eq!(outcome("/logs/01/message", "refused", Some(doc)), RefOutcome::PathNotFound);
    assert_eq!(outcome("/logs/-", "refused", Some(doc)), RefOutcome::PathNotFound);
    assert_eq!(outcome("/logs/0/nope", "refused", Some(doc)), RefOutcome::PathNotFound);
}

#[test]
fn step3_raw_path_is_trimmed_before_use() {
    let r = one("  \n$.logs[0].message\t ", "refused", Some(LOGS));
    assert_eq!(r.outcome, RefOutcome::Verified);
    assert_eq!(r.raw_path.as_deref(), Some("  \n$.logs[0].message\t "), "echoed as given");
    assert_eq!(r.matched_path.as_deref(), Some("$['logs'][0]['message']"));
    assert_eq!(outcome(" /logs/0/message ", "refused", Some(LOGS)), RefOutcome::Verified);
}

#[test]
fn step4_path_not_found() {
    assert_eq!(outcome("$.nowhere", "refused", Some(LOGS)), RefOutcome::PathNotFound);
    assert_eq!(outcome("$.logs[7]", "refused", Some(LOGS)), RefOutcome::PathNotFound);
    assert_eq!(outcome("$.logs[?@.level == 'ERROR']", "refused", Some(LOGS)), RefOutcome::PathNotFound);
}

#[test]
fn step5_text_not_found_and_verified() {
    assert_eq!(outcome("$.logs[1]", "connection refused", Some(LOGS)), RefOutcome::TextNotFound);
    let r = one("$.logs[*]", "connection refused", Some(LOGS));
    assert_eq!(r.outcome, RefOutcome::Verified);
    assert_eq!((r.rung, r.matched_path.as_deref()), (Some(Rung::Exact), Some("$['logs'][0]['message']")));
    assert_eq!(r.in_preview, None);
}

#[test]
fn step5_filters_select_nodes() {
    let doc = r#"{"logs":[{"level":"INFO","message":"ok"},{"level":"ERROR","message":"boom at 10:00"}]}"#;
    assert_eq!(
        hit("$.logs[?@.level == 'ERROR']", "boom", doc),
        Some((Rung::Exact, "$['logs'][1]['message']".into()))
    );
    assert_eq!(
        hit("$.logs[?match(@.level, 'ERR.*')].message", "boom", doc).map(|h| h.1),
        Some("$['logs'][1]['message']".into())
    );
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#the-ladder: the ladder
// ---------------------------------------------------------------------------------------------

#[test]
fn rung_exact() {
    assert_eq!(
        hit("$", "connection refused", r#"{"m":"dial: connection refused"}"#),
        Some((Rung::Exact, "$['m']".into()))
    );
    // Exact is byte-for-byte: surrounding white space in the quote must be there too.
    assert_eq!(
        hit_with("$", " connection refused ", r#"{"m":"dial: connection refused"}"#, Rung::Exact),
        None
    );
}

#[test]
fn rung_normalized_nfkc_full_width() {
    let doc = r#"{"m":"ＣＯＮＮＥＣＴＩＯＮ ＲＥＦＵＳＥＤ by ｐｅｅｒ"}"#;
    assert_eq!(hit("$", "connection refused", doc), Some((Rung::Normalized, "$['m']".into())));
    // Both sides are normalised.
    assert_eq!(hit("$", "ｒｅｆｕｓｅｄ", r#"{"m":"refused"}"#), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "x²", r#"{"m":"x2 squared"}"#), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_typographic_quotes() {
    let doc = r#"{"m":"he said “stop” and ‘it’s’ «fine» 「ok」 『yes』 „low‟ ‚a‛ 5′"}"#;
    assert_eq!(hit("$", r#"he said "stop" and 'it's'"#, doc), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", r#""fine" "ok" "yes" "low" 'a' 5'"#, doc), Some((Rung::Normalized, "$['m']".into())));
    // And the other way round.
    assert_eq!(
        hit("$", "“quoted”", r#"{"m":"a \"quoted\" word"}"#),
        Some((Rung::Normalized, "$['m']".into()))
    );
}

#[test]
fn rung_normalized_dashes_and_minus() {
    let doc =
        "{\"m\":\"range 1\u{2013}5, delta \u{2212}3 ms, re\u{2010}try, a\u{2014}b, c\u{2015}d, e\u{2011}f\"}";
    assert_eq!(
        hit("$", "range 1-5, delta -3 ms, re-try, a-b, c-d, e-f", doc),
        Some((Rung::Normalized, "$['m']".into()))
    );
}

#[test]
fn rung_normalized_case() {
    assert_eq!(
        hit("$", "Connection REFUSED", r#"{"m":"connection refused"}"#),
        Some((Rung::Normalized, "$['m']".into()))
    );
    // Full Unicode lower casing, not ASCII only.
    assert_eq!(hit("$", "ΣΦΑΛΜΑ", r#"{"m":"σφαλμα δικτύου"}"#), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "ÉCHEC", r#"{"m":"échec de connexion"}"#), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_white_space() {
    let doc = "{\"m\":\"connection\\n\\t  refused\u{3000}by\u{a0}peer  \"}";
    assert_eq!(hit("$", "connection refused by peer", doc), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "  connection   refused\n", doc), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_quote_of_only_invisible_characters_proves_nothing() {
    // U+200B is not white space (so not empty_text) but is no visible evidence either.
    let r = one("$", "\u{200b}", Some(r#"{"m":"anything"}"#));
    assert_ne!(r.outcome, RefOutcome::EmptyText);
    assert_ne!(r.outcome, RefOutcome::Verified, "{r:?}");
}

#[test]
fn rung_elided() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "dial tcp ... connection refused", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "dial tcp…refused", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "Dial TCP … 5432 … REFUSED", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "... dial tcp ... refused ...", doc), Some((Rung::Elided, "$['m']".into())));
}

#[test]
fn rung_elided_lone_trailing_ellipsis_does_not_elide() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "dial tcp 10.0.0.7...", doc), None);
    assert_eq!(hit("$", "dial tcp 10.0.0.7…", doc), None);
    assert_eq!(hit("$", "dial tcp ... ", doc), None);
}

#[test]
fn rung_elided_pieces_in_order_without_overlap() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "refused ... dial tcp", doc), None, "order matters");
    assert_eq!(hit("$", "abca ... abc", r#"{"m":"abcabc"}"#), None, "pieces must not overlap");
    assert_eq!(hit("$", "abc ... abc", r#"{"m":"abcabc"}"#), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "abc ... abc", r#"{"m":"abc"}"#), None);
}

#[test]
fn rung_elided_pieces_must_be_in_one_leaf() {
    let doc = r#"{"a":"dial tcp 10.0.0.7","b":"connection refused","c":"dial tcp then refused"}"#;
    assert_eq!(hit("$['a','b']", "dial tcp ... refused", doc), None);
    assert_eq!(hit("$", "dial tcp ... refused", doc), Some((Rung::Elided, "$['c']".into())));
}

#[test]
fn each_rung_is_tried_on_every_leaf_before_the_next() {
    // Exact in a later leaf beats normalized in an earlier one.
    let doc = r#"[{"m":"Connection Refused"},{"m":"xx connection refused xx"}]"#;
    assert_eq!(hit("$[*]", "connection refused", doc), Some((Rung::Exact, "$[1]['m']".into())));
    assert_eq!(hit("$", "connection refused", doc), Some((Rung::Exact, "$[1]['m']".into())));
    // Normalized in a later leaf beats elided in an earlier one.
    let doc = r#"{"a":"dial tcp to db refused","b":"DIAL TCP ... REFUSED"}"#;
    assert_eq!(hit("$", "dial tcp ... refused", doc), Some((Rung::Normalized, "$['b']".into())));
    // Within one rung, the first leaf in order wins.
    let doc = r#"{"a":"Refused once","b":"REFUSED twice"}"#;
    assert_eq!(hit("$", "refused", doc), Some((Rung::Normalized, "$['a']".into())));
}

#[test]
fn match_exact_makes_looser_hits_text_not_found() {
    let doc = r#"{"m":"Dial TCP: connection refused"}"#;
    assert_eq!(hit_with("$", "Dial TCP", doc, Rung::Exact), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit_with("$", "dial tcp", doc, Rung::Exact), None);
    assert_eq!(hit_with("$", "Dial ... refused", doc, Rung::Exact), None);
    let v = verify_with(
        &inv(&claim(&[("$", "dial tcp")]), Some(doc)),
        Policy { max_rung: Rung::Exact, ..Policy::default() },
    );
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
    assert_eq!(outcomes(&v), [RefOutcome::TextNotFound]);
}

#[test]
fn match_normalized_makes_elided_hits_text_not_found() {
    let doc = r#"{"m":"Dial TCP: connection refused"}"#;
    assert_eq!(hit_with("$", "Dial TCP", doc, Rung::Normalized), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit_with("$", "dial tcp", doc, Rung::Normalized), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit_with("$", "dial ... refused", doc, Rung::Normalized), None);
    assert_eq!(hit_with("$", "dial ... refused", doc, Rung::Elided), Some((Rung::Elided, "$['m']".into())));
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#the-ladder: what leaves are, and docs/verification.md#order order
// ---------------------------------------------------------------------------------------------

#[test]
fn numbers_match_by_their_text_as_written() {
    let doc = r#"{"p95": 0.950, "p50": 0.95, "n": 1e3, "m": 1000, "k": 3E2, "huge": 1E+400, "neg": -0.0}"#;
    assert_eq!(hit("$.p95", "0.950", doc), Some((Rung::Exact, "$['p95']".into())));
    assert_eq!(hit("$.p50", "0.950", doc), None, "0.95 is not 0.950");
    assert_eq!(hit("$.n", "1e3", doc), Some((Rung::Exact, "$['n']".into())));
    assert_eq!(hit("$.n", "1000", doc), None, "1e3 is not 1000");
    assert_eq!(hit("$.n", "1e+3", doc), None, "the text is not serde_json's rewrite");
    assert_eq!(hit("$.m", "1e3", doc), None, "1000 is not 1e3");
    assert_eq!(hit("$.k", "3E2", doc), Some((Rung::Exact, "$['k']".into())));
    assert_eq!(hit("$.huge", "1E+400", doc), Some((Rung::Exact, "$['huge']".into())));
    assert_eq!(hit("$.neg", "-0.0", doc), Some((Rung::Exact, "$['neg']".into())));
}

#[test]
fn numbers_match_by_their_text_through_general_paths_too() {
    let doc = r#"{"m": [1000, 1e3, 3E2, 0.950, 1E+400]}"#;
    assert_eq!(hit("$.m[*]", "1e3", doc), Some((Rung::Exact, "$['m'][1]".into())));
    assert_eq!(hit("$..m[1:]", "3E2", doc), Some((Rung::Exact, "$['m'][2]".into())));
    assert_eq!(hit("$.m[*]", "1e+3", doc), None, "the text is not serde_json's rewrite");
    assert_eq!(hit("$.m[?@ > 999]", "0.950", doc), None);
    assert_eq!(hit("$[?@[3] == 0.95]", "0.950", doc), Some((Rung::Exact, "$['m'][3]".into())));
}

#[test]
fn huge_numbers_compare_with_nothing() {
    // serde_json gives a number beyond f64 no value, and serde_json_path defines `>` as "not
    // `<` and not `==`": so `==`, `<`, `<=` are false and `!=`, `>`, `>=` true, either sign.
    let doc = r#"{"m": [{"v": 1E+400, "n": "huge"}, {"v": 5, "n": "five"}, {"v": -1e999, "n": "tiny"}]}"#;
    for (path, text, expected) in [
        ("$.m[?@.v == 1E+400].n", "huge", None),
        ("$.m[?@.v < 1].n", "tiny", None),
        ("$.m[?@.v <= 1].n", "tiny", None),
        ("$.m[?@.v > 1].n", "five", Some("$['m'][1]['n']")),
        ("$.m[?@.v > 1].n", "tiny", Some("$['m'][2]['n']")),
        ("$.m[?@.v >= 1].n", "huge", Some("$['m'][0]['n']")),
        ("$.m[?@.v != 5].n", "huge", Some("$['m'][0]['n']")),
    ] {
        assert_eq!(one(path, text, Some(doc)).matched_path, expected.map(String::from), "{path} {text}");
    }
}

#[test]
fn numbers_beyond_f64_keep_their_text_in_resolve() {
    let doc = Json::parse(r#"{"huge": 1E+400, "p": 0.950, "big": 123456789012345678901234567890}"#).unwrap();
    let values: Vec<String> = resolve("$.*", &doc).unwrap().into_iter().map(|n| n.value).collect();
    assert_eq!(values, ["1E+400", "0.950", "123456789012345678901234567890"]);
    assert_eq!(doc.to_json_string(), r#"{"huge":1E+400,"p":0.950,"big":123456789012345678901234567890}"#);
}

#[test]
fn true_false_null_match_by_those_words() {
    let doc = r#"{"ok": true, "failed": false, "error": null}"#;
    assert_eq!(hit("$", "true", doc), Some((Rung::Exact, "$['ok']".into())));
    assert_eq!(hit("$", "false", doc), Some((Rung::Exact, "$['failed']".into())));
    assert_eq!(hit("$", "null", doc), Some((Rung::Exact, "$['error']".into())));
    assert_eq!(hit("$", "TRUE", doc), Some((Rung::Normalized, "$['ok']".into())));
    assert_eq!(hit("$", "1", doc), None);
}

#[test]
fn object_keys_are_never_searched() {
    let doc = r#"{"connection refused": 1, "message": {"timeout": "x"}}"#;
    assert_eq!(hit("$", "connection refused", doc), None);
    assert_eq!(hit("$", "message", doc), None);
    assert_eq!(hit("$", "timeout", doc), None);
    assert_eq!(hit("$.message", "timeout", doc), None);
}

#[test]
fn matched_path_of_a_nested_leaf() {
    let doc = r#"{"a":{"b":[{"c":"nope"},{"d":[1,{"e":"the needle here"}]}]}}"#;
    assert_eq!(hit("$", "needle", doc), Some((Rung::Exact, "$['a']['b'][1]['d'][1]['e']".into())));
    assert_eq!(hit("$.a.b[1]", "needle", doc), Some((Rung::Exact, "$['a']['b'][1]['d'][1]['e']".into())));
    let doc = r#"{"it's":{"a\\b\n":"needle"}}"#;
    assert_eq!(hit("$", "needle", doc), Some((Rung::Exact, r"$['it\'s']['a\\b\n']".into())));
}

#[test]
fn descendant_segment_selects_in_pre_order() {
    // A node's own selections come before its descendants': `$['m']` of the root comes
    // before the deeper `m`, although the deeper one comes first in the document.
    let doc = r#"{"x":{"y":{"m":"hit deep"}},"m":"hit shallow"}"#;
    assert_eq!(hit("$..m", "hit", doc), Some((Rung::Exact, "$['m']".into())));
    let parsed = Json::parse(doc).unwrap();
    let paths: Vec<String> = resolve("$..m", &parsed).unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, ["$['m']", "$['x']['y']['m']"]);
    let doc = Json::parse(r#"{"a":{"b":1},"c":[2,{"d":3}]}"#).unwrap();
    let paths: Vec<String> = resolve("$..*", &doc).unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, ["$['a']", "$['c']", "$['a']['b']", "$['c'][0]", "$['c'][1]", "$['c'][1]['d']"]);
}

#[test]
fn leaves_within_a_node_are_visited_depth_first_in_document_order() {
    let doc = r#"{"z":{"y":["no",{"x":"hit one"}]},"a":"hit two"}"#;
    assert_eq!(hit("$", "hit", doc), Some((Rung::Exact, "$['z']['y'][1]['x']".into())));
}

#[test]
fn members_keep_document_order_and_duplicates_keep_last_value_at_first_position() {
    let doc = r#"{"z":"hit z","a":"hit a"}"#;
    assert_eq!(hit("$.*", "hit", doc), Some((Rung::Exact, "$['z']".into())));
    let doc = r#"{"a":"first hit","b":"second hit","a":"third hit"}"#;
    assert_eq!(hit("$.*", "hit", doc), Some((Rung::Exact, "$['a']".into())));
    assert_eq!(hit("$.*", "third", doc), Some((Rung::Exact, "$['a']".into())));
    assert_eq!(hit("$", "first", doc), None, "the earlier value of a repeated key is gone");
    let parsed = Json::parse(doc).unwrap();
    let nodes: Vec<(String, String)> =
        resolve("$.*", &parsed).unwrap().into_iter().map(|n| (n.path, n.value)).collect();
    assert_eq!(
        nodes,
        [
            ("$['a']".to_string(), "\"third hit\"".to_string()),
            ("$['b']".to_string(), "\"second hit\"".to_string())
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#the-raw-document the raw document
// ---------------------------------------------------------------------------------------------

#[test]
fn raw_output_text_not_json_is_one_string_leaf() {
    let raw = "2026-11-30 ERROR dial tcp: connection refused";
    assert_eq!(hit("$", "connection refused", raw), Some((Rung::Exact, "$".into())));
    assert_eq!(outcome("$.logs", "connection refused", Some(raw)), RefOutcome::PathNotFound);
    assert_eq!(outcome("$[0]", "connection refused", Some(raw)), RefOutcome::PathNotFound);
    let v = verify(&inv(&claim(&[("$", "refused")]), Some(raw)));
    assert_eq!(v.source, Source::RawOutput);
    // Whitespace and escapes are kept: the text is the leaf.
    assert_eq!(hit("$", r#"{"a":\u0041"#, r#"{"a":\u0041}"#), Some((Rung::Exact, "$".into())));
}

#[test]
fn raw_output_text_with_a_lone_surrogate_escape_is_not_json() {
    let raw = r#"{"m":"bad \ud800 connection refused"}"#;
    assert_eq!(outcome("$.m", "connection refused", Some(raw)), RefOutcome::PathNotFound);
    assert_eq!(hit("$", r#""bad \ud800 connection"#, raw), Some((Rung::Exact, "$".into())));
    // A low surrogate alone, or a high one followed by a non-surrogate escape.
    for raw in [r#"["\udc00 x"]"#, r#"["\ud800\u0041 x"]"#] {
        assert_eq!(outcome("$[0]", "x", Some(raw)), RefOutcome::PathNotFound, "{raw}");
    }
    // A proper pair is fine.
    assert_eq!(hit("$[0]", "fire 🔥", r#"["fire \ud83d\udd25"]"#), Some((Rung::Exact, "$[0]".into())));
}

#[test]
fn raw_output_text_with_nan_is_not_json() {
    let raw = r#"{"v": NaN, "m": "p95 latency"}"#;
    assert_eq!(outcome("$.m", "latency", Some(raw)), RefOutcome::PathNotFound);
    assert_eq!(hit("$", "NaN", raw), Some((Rung::Exact, "$".into())));
}

#[test]
fn raw_output_text_with_a_bom_is_not_json() {
    let raw = "\u{feff}{\"m\":\"connection refused\"}";
    assert_eq!(outcome("$.m", "refused", Some(raw)), RefOutcome::PathNotFound);
    assert_eq!(hit("$", r#"{"m":"connection refused"}"#, raw), Some((Rung::Exact, "$".into())));
}

#[test]
fn raw_output_text_with_trailing_bytes_is_not_json() {
    for raw in [r#"{"m":"connection refused"} trailing"#, r#"{"m":"connection refused"}{}"#, "[1] 2"] {
        assert_eq!(outcome("$.m", "refused", Some(raw)), RefOutcome::PathNotFound, "{raw}");
        assert_eq!(outcome("$[0]", "1", Some(raw)), RefOutcome::PathNotFound, "{raw}");
        assert_eq!(outcome("$", raw, Some(raw)), RefOutcome::Verified, "{raw}");
    }
    // Trailing white space is allowed.
    assert_eq!(
        hit("$.m", "refused", "{\"m\":\"connection refused\"} \n\t\r"),
        Some((Rung::Exact, "$['m']".into()))
    );
}

#[test]
fn raw_output_text_with_noncharacters_is_json() {
    assert_eq!(hit("$.m", "a\u{ffff}b", r#"{"m":"a\uffffb"}"#), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit("$.m", "a\u{fdd0}b", "{\"m\":\"a\u{fdd0}b\"}"), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit("$.m", "x\u{10ffff}", r#"{"m":"x\udbff\udfff"}"#), Some((Rung::Exact, "$['m']".into())));
}

#[test]
fn raw_output_json_is_the_document() {
    let invocation = Invocation {
        raw_output: Some(RawOutput::Json(Json::parse(LOGS).unwrap())),
        ..inv(&claim(&[("$.logs[0].message", "connection refused")]), None)
    };
    let v = verify(&invocation);
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified));
    assert_eq!(v.source, Source::RawOutput);
}

/// An invocation with only a preview.
fn with_preview(details: &str, preview: &str, length: Option<i64>, truncated: Option<bool>) -> Invocation {
    Invocation {
        output_preview: Some(preview.to_string()),
        output_length: length,
        is_truncated: truncated,
        ..inv(details, None)
    }
}

#[test]
fn complete_preview_stands_in_for_the_raw_output() {
    let preview = r#"{"logs":[{"message":"connection refused"}]}"#;
    let chars = preview.chars().count() as i64;
    let v =
        verify(&with_preview(&claim(&[("$.logs[0].message", "refused")]), preview, Some(chars), Some(false)));
    assert_eq!(v.source, Source::Preview);
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified));
    assert_eq!(v.refs[0].matched_path.as_deref(), Some("$['logs'][0]['message']"));
    // A complete preview that is not JSON is one string leaf.
    let text = "ERROR connection refused";
    let v = verify(&with_preview(&claim(&[("$", "refused")]), text, Some(text.len() as i64), Some(false)));
    assert_eq!(v.source, Source::Preview);
    assert_eq!(v.refs[0].matched_path.as_deref(), Some("$"));
}

#[test]
fn preview_length_may_count_scalar_values_or_utf16_units() {
    let preview = r#"{"m":"fire 🔥 in été"}"#;
    let chars = preview.chars().count() as i64;
    let utf16 = preview.encode_utf16().count() as i64;
    let bytes = preview.len() as i64;
    assert!(chars != utf16 && utf16 != bytes && chars != bytes);
    let details = claim(&[("$.m", "fire 🔥")]);
    for length in [chars, utf16] {
        let v = verify(&with_preview(&details, preview, Some(length), Some(false)));
        assert_eq!(v.source, Source::Preview, "output_length {length}");
        assert_eq!(outcomes(&v), [RefOutcome::Verified]);
    }
    for length in [bytes, chars - 1, utf16 + 1, 0, -1] {
        let v = verify(&with_preview(&details, preview, Some(length), Some(false)));
        assert_eq!(v.source, Source::None, "output_length {length}");
        assert_eq!(outcomes(&v), [RefOutcome::RawOutputUnavailable]);
    }
}

#[test]
fn preview_not_provably_complete_is_never_the_document() {
    let preview = r#"{"m":"connection refused"}"#;
    let n = preview.len() as i64;
    let details = claim(&[("$.m", "refused")]);
    for (length, truncated) in [(Some(n), None), (Some(n), Some(true)), (None, Some(false)), (None, None)] {
        let v = verify(&with_preview(&details, preview, length, truncated));
        assert_eq!(v.source, Source::None, "{length:?} {truncated:?}");
        assert_eq!(outcomes(&v), [RefOutcome::RawOutputUnavailable]);
    }
}

#[test]
fn raw_output_wins_over_a_complete_preview() {
    let preview = r#"{"m":"from the preview"}"#;
    let invocation = Invocation {
        raw_output: Some(RawOutput::Text(r#"{"m":"from the raw output"}"#.into())),
        ..with_preview(&claim(&[("$.m", "preview")]), preview, Some(preview.len() as i64), Some(false))
    };
    let v = verify(&invocation);
    assert_eq!(v.source, Source::RawOutput);
    assert_eq!(outcomes(&v), [RefOutcome::TextNotFound]);
    assert_eq!(v.refs[0].in_preview, None);
}

#[test]
fn in_preview_tells_could_not_check_from_probably_invented() {
    let preview = r#"{"logs":[{"message":"dial tcp 10.0.0.7:5432: connection ref"#;
    let details = claim(&[
        ("$.logs[0].message", "dial tcp"),
        ("$.logs[0].message", "disk full"),
        ("$.logs[0].message", "DIAL TCP"),
        ("$.logs[0].message", "dial tcp ... 5432"),
        ("$.logs[0].message", " "),
        ("not a path", "dial tcp"),
    ]);
    let v = verify(&with_preview(&details, preview, Some(2048), Some(true)));
    assert_eq!(v.source, Source::None);
    let got: Vec<(RefOutcome, Option<bool>)> = v.refs.iter().map(|r| (r.outcome, r.in_preview)).collect();
    assert_eq!(
        got,
        [
            (RefOutcome::RawOutputUnavailable, Some(true)),
            (RefOutcome::RawOutputUnavailable, Some(false)),
            (RefOutcome::RawOutputUnavailable, Some(true)),
            (RefOutcome::RawOutputUnavailable, Some(true)),
            (RefOutcome::EmptyText, None),
            (RefOutcome::RawOutputUnavailable, Some(true)),
        ]
    );
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
}

#[test]
fn in_preview_takes_the_preview_as_text_not_parsed() {
    // The preview holds `\"hi\"`, with backslashes: it is not decoded.
    let preview = r#"{"m":"say \"hi\" to"#;
    let v = verify(&with_preview(
        &claim(&[("$.m", r#"say "hi""#), ("$.m", r#"say \"hi\""#)]),
        preview,
        None,
        None,
    ));
    let got: Vec<Option<bool>> = v.refs.iter().map(|r| r.in_preview).collect();
    assert_eq!(got, [Some(false), Some(true)]);
}

#[test]
fn in_preview_respects_the_policy_max_rung() {
    let preview = "Dial TCP: connection refused";
    let details = claim(&[("$.m", "dial tcp"), ("$.m", "Dial TCP"), ("$.m", "dial ... refused")]);
    let invocation = with_preview(&details, preview, None, Some(true));
    let in_preview = |max_rung| -> Vec<Option<bool>> {
        verify_with(&invocation, Policy { max_rung, ..Policy::default() })
            .refs
            .iter()
            .map(|r| r.in_preview)
            .collect()
    };
    assert_eq!(in_preview(Rung::Exact), [Some(false), Some(true), Some(false)]);
    assert_eq!(in_preview(Rung::Normalized), [Some(true), Some(true), Some(false)]);
    assert_eq!(in_preview(Rung::Elided), [Some(true), Some(true), Some(true)]);
}

#[test]
fn in_preview_is_absent_without_a_preview_string_and_in_the_json() {
    let v = verify(&inv(&claim(&[("$.m", "x")]), None));
    assert_eq!(v.refs[0].in_preview, None);
    let json = serde_json::to_value(&v.refs[0]).unwrap();
    assert!(json.get("in_preview").is_none(), "{json}");
    let v = verify(&with_preview(&claim(&[("$.m", "x")]), "x", None, None));
    let json = serde_json::to_value(&v.refs[0]).unwrap();
    assert_eq!(json.get("in_preview"), Some(&json!(true)), "{json}");
}

// ---------------------------------------------------------------------------------------------
// Markers and claims
// ---------------------------------------------------------------------------------------------

#[test]
fn marker_all_three_spellings_with_surrounding_white_space() {
    for path in [
        "$.no_evidence",
        "$['no_evidence']",
        "$[\"no_evidence\"]",
        "  $.no_evidence\n",
        "\t$['no_evidence'] ",
        " $[\"no_evidence\"]\u{3000}",
    ] {
        let details = claim_values(json!("no_evidence"), vec![json!({"raw_path": path, "text": "n/a"})]);
        let v = verify(&inv(&details, Some(LOGS)));
        assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoEvidenceMarker), "{path:?}");
        assert_eq!(outcomes(&v), [RefOutcome::NoEvidenceMarker]);
        assert_eq!(v.refs[0].raw_path.as_deref(), Some(path), "echoed as given");
    }
}

#[test]
fn marker_whatever_else_it_holds() {
    let details = claim_values(
        json!("no_evidence"),
        vec![
            json!({"raw_path": "$.no_evidence"}),
            json!({"raw_path": "$.no_evidence", "text": 5, "junk": [1, {"a": null}]}),
            json!({"raw_path": "$['no_evidence']", "text": "   "}),
        ],
    );
    let v = verify(&inv(&details, None));
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoEvidenceMarker));
    assert_eq!(outcomes(&v), [RefOutcome::NoEvidenceMarker; 3]);
    assert_eq!(v.refs[1].text, None, "a non-string text is echoed as null");
    assert!(v.warnings.is_empty());
}

#[test]
fn lookalikes_of_the_marker_are_real_refs() {
    for path in
        ["$.No_Evidence", "$.no_evidence.x", "$..no_evidence", "$.no_evidence[0]", "$['no_evidence ']"]
    {
        let details = claim_values(json!("no_evidence"), vec![json!({"raw_path": path, "text": "x"})]);
        let v = verify(&inv(&details, Some(LOGS)));
        assert_ne!(outcomes(&v), [RefOutcome::NoEvidenceMarker], "{path}");
        assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified), "{path}");
    }
}

#[test]
fn marker_with_refs_is_ignored_for_the_status_and_warned_once() {
    let details = claim_values(
        json!("supported"),
        vec![
            json!({"raw_path": "$.no_evidence"}),
            json!({"raw_path": "$.logs[0].message", "text": "connection refused"}),
            json!({"raw_path": "$['no_evidence']"}),
        ],
    );
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Supported, Reason::Verified));
    assert_eq!(
        outcomes(&v),
        [RefOutcome::NoEvidenceMarker, RefOutcome::Verified, RefOutcome::NoEvidenceMarker]
    );
    assert_eq!(v.warnings, [Warning::MarkerWithRefs]);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["warnings"], json!(["marker_with_refs"]));
    // Beside a malformed real ref too.
    let details = claim_values(json!("no_evidence"), vec![json!({"raw_path": "$.no_evidence"}), json!(42)]);
    let v = verify(&inv(&details, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
    assert_eq!(v.warnings, [Warning::MarkerWithRefs]);
}

#[test]
fn claim_agrees_true_false_or_null() {
    let refs =
        |status: Value| claim_values(status, vec![json!({"raw_path": "$.logs[0]", "text": "refused"})]);
    let agrees = |status: Value| verify(&inv(&refs(status), Some(LOGS))).claim_agrees;
    assert_eq!(agrees(json!("supported")), Some(true));
    assert_eq!(agrees(json!("unsupported")), Some(false));
    assert_eq!(agrees(json!("no_evidence")), Some(false));
    assert_eq!(agrees(json!("Supported")), None, "not one of the statuses");
    assert_eq!(agrees(json!("verified")), None);
    assert_eq!(agrees(json!(" supported")), None);
    assert_eq!(agrees(json!(null)), None);
    assert_eq!(agrees(json!(true)), None);
    let v = verify(&inv(&refs(json!("Supported")), Some(LOGS)));
    assert_eq!(v.claimed_status.as_deref(), Some("Supported"), "kept verbatim");
    assert!(!v.is_claim_mismatch());
    // A non-string evidence_status is no claim at all.
    for status in [json!(1), json!(["supported"]), json!({"s": "supported"}), json!(false)] {
        let v = verify(&inv(&refs(status.clone()), Some(LOGS)));
        assert_eq!((v.claimed_status.as_deref(), v.claim_agrees), (None, None), "{status}");
    }
    // A claimed `Supported` without refs is not row 2.
    let v = verify(&inv(r#"{"evidence_status":"Supported"}"#, Some(LOGS)));
    assert_eq!(status_reason(&v), (Status::NoEvidence, Reason::NoRefs));
    assert_eq!(v.claim_agrees, None);
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#limits limits
// ---------------------------------------------------------------------------------------------

fn nested(depth: usize, inner: &str) -> String {
    format!("{}{}{}", "[".repeat(depth), inner, "]".repeat(depth))
}

#[test]
fn limit_depth_512_is_fine_513_is_limit_exceeded() {
    let ok = nested(512, "\"needle\"");
    let r = one("$", "needle", Some(&ok));
    assert_eq!(r.outcome, RefOutcome::Verified);
    assert_eq!(r.matched_path, Some(format!("${}", "[0]".repeat(512))));
    assert_eq!(one("$", "needle", Some(&nested(513, "\"needle\""))).outcome, RefOutcome::LimitExceeded);
    // Objects count like arrays; scalars and names add nothing.
    let obj = format!("{}\"needle\"{}", "{\"a\":".repeat(512), "}".repeat(512));
    assert_eq!(outcome("$", "needle", Some(&obj)), RefOutcome::Verified);
    let obj = format!("{}\"needle\"{}", "{\"a\":".repeat(513), "}".repeat(513));
    assert_eq!(outcome("$", "needle", Some(&obj)), RefOutcome::LimitExceeded);
    // An inline raw_output counts too.
    let deep = Invocation {
        raw_output: Some(RawOutput::Json(Json::parse(&nested(513, "1")).unwrap())),
        ..inv(&claim(&[("$", "1")]), None)
    };
    assert_eq!(outcomes(&verify(&deep)), [RefOutcome::LimitExceeded]);
}

#[test]
fn limit_depth_from_the_policy_and_at_step_2() {
    let policy = policy_with(Limits { max_depth: 2, ..Limits::default() });
    assert_eq!(one_with("$", "1", Some("[[1]]"), policy).outcome, RefOutcome::Verified);
    assert_eq!(one_with("$", "1", Some("[[[1]]]"), policy).outcome, RefOutcome::LimitExceeded);
    // Step 1 comes first; invalid paths come after step 2.
    assert_eq!(one_with("$", " ", Some("[[[1]]]"), policy).outcome, RefOutcome::EmptyText);
    assert_eq!(one_with("bad path", "1", Some("[[[1]]]"), policy).outcome, RefOutcome::LimitExceeded);
    // Every ref that reaches step 2 gets it.
    let details = claim(&[("$", "1"), ("$[0]", "1"), ("$", "")]);
    let v = verify_with(&inv(&details, Some("[[[1]]]")), policy);
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded, RefOutcome::LimitExceeded, RefOutcome::EmptyText]);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
}

#[test]
fn limit_depth_text_too_deep_and_not_json_judged_by_the_first_problem() {
    // Too deep first, broken later: limit_exceeded.
    let deep_then_broken = format!("{}x", "[".repeat(600));
    assert_eq!(outcome("$", "x", Some(&deep_then_broken)), RefOutcome::LimitExceeded);
    // Broken first, too deep later: not JSON, so one string leaf.
    let broken_then_deep = format!("[x{}", "[".repeat(600));
    assert_eq!(hit("$", "[x[[[", &broken_then_deep), Some((Rung::Exact, "$".into())));
    let broken_then_deep = format!("x{}", nested(600, ""));
    assert_eq!(hit("$", "x[[[", &broken_then_deep), Some((Rung::Exact, "$".into())));
}

#[test]
fn limit_depth_ten_thousand_deep_is_an_ordinary_input() {
    let deep = nested(10_000, "1");
    assert_eq!(outcome("$", "1", Some(&deep)), RefOutcome::LimitExceeded);
    let unterminated = "[".repeat(10_000);
    assert_eq!(outcome("$", "1", Some(&unterminated)), RefOutcome::LimitExceeded);
    let inline = Invocation {
        raw_output: Some(RawOutput::Json(Json::parse(&deep).unwrap())),
        ..inv(&claim(&[("$..*", "1")]), None)
    };
    assert_eq!(outcomes(&verify(&inline)), [RefOutcome::LimitExceeded]);
}

#[test]
fn limit_depth_512_with_descendant_queries_needs_no_big_stack() {
    // The deepest document the default policy lets through, walked by `..`, on an ordinary
    // 2 MiB thread and on rayon's workers.
    let doc = nested(512, "\"needle\"");
    let details = claim(&[("$..*", "needle"), ("$..x", "needle"), ("$", "needle")]);
    let invocation = inv(&details, Some(&doc));
    let verdict = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || verify(&invocation))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(outcomes(&verdict), [RefOutcome::Verified, RefOutcome::PathNotFound, RefOutcome::Verified]);
    let run = Run {
        run_id: Some("deep".into()),
        session_id: None,
        invocations: vec![inv(&details, Some(&doc)); 4],
    };
    let report = Verifier::default().verify_run(&run);
    assert!(report.invocations.iter().all(|v| v.reason == Reason::PartiallyVerified));
}

#[test]
fn heavy_filter_regexes_run_in_linear_time() {
    let long = format!("[\"{}\"]", "a".repeat(20_000));
    for path in ["$[?match(@, '(a|a)*b')]", "$[?search(@, '(a*)*b')]", "$[?match(@, '(a|aa)+c')]"] {
        let started = std::time::Instant::now();
        assert_eq!(outcome(path, "a", Some(&long)), RefOutcome::PathNotFound, "{path}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{path} took {:?}",
            started.elapsed()
        );
    }
}

/// Regression: serde_json_path evaluates `..` recursively, so a 10,000-deep document used to
/// abort `resolve` with a stack overflow (docs/verification.md#limits: never a stack overflow). JSONPath now stops
/// at `Limits::QUERY_DEPTH_CEILING` with an error; JSON Pointers, evaluated without
/// recursion, still resolve at any depth.
#[test]
fn resolve_on_a_ten_thousand_deep_document_refuses_jsonpath_and_runs_pointers() {
    let doc = Json::parse(&nested(10_000, "1")).unwrap();
    let (jsonpath, pointer) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || (resolve("$..x", &doc), resolve(&"/0".repeat(10_000), &doc)))
        .unwrap()
        .join()
        .expect("resolve must not overflow the stack");
    let err = jsonpath.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooDeep);
    assert!(err.message().starts_with("the document is nested 10000 deep"), "{err}");
    let pointer = pointer.unwrap();
    assert_eq!(pointer.len(), 1);
    assert_eq!(pointer[0].value, "1");
}

/// Regression: under a policy whose depth limit was raised past a 10,000-deep raw output, a
/// `..` query used to abort the process. Past `Limits::QUERY_DEPTH_CEILING` a JSONPath ref is
/// `limit_exceeded`; a JSON Pointer ref is still checked.
#[test]
fn raised_depth_limit_stops_jsonpath_at_the_query_ceiling() {
    let pointer = "/0".repeat(10_000);
    let invocation = inv(&claim(&[("$..x", "1"), (pointer.as_str(), "1")]), Some(&nested(10_000, "1")));
    let policy = policy_with(Limits { max_depth: 20_000, max_path_chars: 30_000, ..Limits::default() });
    let outcomes = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || verify_with(&invocation, policy).refs.iter().map(|r| r.outcome).collect::<Vec<_>>())
        .unwrap()
        .join()
        .expect("verification must not overflow the stack");
    assert_eq!(outcomes, [RefOutcome::LimitExceeded, RefOutcome::Verified]);
    let at_ceiling = inv(&claim(&[("$..*", "1")]), Some(&nested(Limits::QUERY_DEPTH_CEILING, "1")));
    let policy = policy_with(Limits { max_depth: 20_000, ..Limits::default() });
    assert_eq!(verify_with(&at_ceiling, policy).refs[0].outcome, RefOutcome::Verified);
}

#[test]
fn limit_output_size() {
    let policy = policy_with(Limits { max_output_bytes: 10, ..Limits::default() });
    assert_eq!(one_with("$", "abc", Some(r#"["abcdef"]"#), policy).outcome, RefOutcome::Verified); // 10 bytes
    assert_eq!(one_with("$", "abc", Some(r#"["abcdefg"]"#), policy).outcome, RefOutcome::LimitExceeded); // 11 bytes
    assert_eq!(one_with("$", "abc", Some("abcdefghijk"), policy).outcome, RefOutcome::LimitExceeded); // not JSON
                                                                                                      // Bytes, not characters: 9 characters, 14 bytes.
    assert_eq!(one_with("$", "é", Some(r#"["ééééé"]"#), policy).outcome, RefOutcome::LimitExceeded);
    // At step 2: after empty text, before paths.
    assert_eq!(one_with("$", " ", Some(r#"["abcdefg"]"#), policy).outcome, RefOutcome::EmptyText);
    assert_eq!(one_with("bad", "abc", Some(r#"["abcdefg"]"#), policy).outcome, RefOutcome::LimitExceeded);
    // A complete preview is text too.
    let preview = r#"["abcdefg"]"#;
    let v = verify_with(
        &with_preview(&claim(&[("$", "abc")]), preview, Some(preview.len() as i64), Some(false)),
        policy,
    );
    assert_eq!(v.source, Source::Preview);
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded]);
}

#[test]
fn limit_text_length_in_characters_before_step_1() {
    let policy = policy_with(Limits { max_text_chars: 5, ..Limits::default() });
    let raw = Some(r#"["ééééé abcde abcdef"]"#);
    assert_eq!(one_with("$", "abcde", raw, policy).outcome, RefOutcome::Verified);
    assert_eq!(one_with("$", "ééééé", raw, policy).outcome, RefOutcome::Verified, "5 characters, 10 bytes");
    assert_eq!(one_with("$", "abcdef", raw, policy).outcome, RefOutcome::LimitExceeded);
    // Before step 1 (blank text), step 2 (no document) and step 3 (bad path).
    assert_eq!(one_with("$", "      ", raw, policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$", "abcdef", None, policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("bad", "abcdef", raw, policy).outcome, RefOutcome::LimitExceeded);
    // The default is 65,536 characters.
    let long = "a".repeat(65_536);
    let raw = format!("[\"{long}\"]");
    assert_eq!(outcome("$", &long, Some(&raw)), RefOutcome::Verified);
    assert_eq!(outcome("$", &format!("{long}a"), Some(&raw)), RefOutcome::LimitExceeded);
}

#[test]
fn limit_raw_path_length_after_trimming() {
    let policy = policy_with(Limits { max_path_chars: 6, ..Limits::default() });
    let raw = Some(r#"{"abcd":"x","abcde":"x","ééé":"x"}"#);
    assert_eq!(one_with("$.abcd", "x", raw, policy).outcome, RefOutcome::Verified);
    assert_eq!(
        one_with("   $.abcd \n\t ", "x", raw, policy).outcome,
        RefOutcome::Verified,
        "measured after trimming"
    );
    assert_eq!(one_with("$.abcde", "x", raw, policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$.ééé", "x", raw, policy).outcome, RefOutcome::Verified, "5 characters, 8 bytes");
    // Before parsing: a long invalid path is limit_exceeded, not invalid_path.
    assert_eq!(one_with("not a path", "x", raw, policy).outcome, RefOutcome::LimitExceeded);
    // At step 3: after step 1 and step 2.
    assert_eq!(one_with("$.abcdefgh", " ", raw, policy).outcome, RefOutcome::EmptyText);
    assert_eq!(one_with("$.abcdefgh", "x", None, policy).outcome, RefOutcome::RawOutputUnavailable);
}

#[test]
fn limit_nodes_selected() {
    let policy = policy_with(Limits { max_nodes: 2, ..Limits::default() });
    assert_eq!(one_with("$[*]", "b", Some(r#"["a","b"]"#), policy).outcome, RefOutcome::Verified);
    assert_eq!(one_with("$[*]", "b", Some(r#"["a","b","c"]"#), policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$..*", "b", Some(r#"[["a","b"]]"#), policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$[*]", "b", Some("[]"), policy).outcome, RefOutcome::PathNotFound);
    // One selected node with many leaves is one node.
    assert_eq!(one_with("$", "c", Some(r#"["a","b","c"]"#), policy).outcome, RefOutcome::Verified);
}

#[test]
fn limit_refs_per_invocation() {
    let policy = policy_with(Limits { max_refs: 2, ..Limits::default() });
    let details = claim_values(
        json!("supported"),
        vec![
            json!({"raw_path": "$.logs[0].message", "text": "connection refused"}),
            json!({"raw_path": "$.logs[1]", "text": "retry"}),
            json!({"raw_path": " $.logs[1] ", "text": "retry"}),
            json!({"raw_path": 7, "text": "x"}),
            json!({"raw_path": "$.no_evidence"}),
        ],
    );
    let v = verify_with(&inv(&details, Some(LOGS)), policy);
    assert_eq!(
        outcomes(&v),
        [
            RefOutcome::Verified,
            RefOutcome::Verified,
            RefOutcome::LimitExceeded,
            RefOutcome::LimitExceeded,
            RefOutcome::LimitExceeded,
        ]
    );
    // Unread refs are echoed as given, and count as real refs that are not verified.
    assert_eq!(
        (v.refs[2].index, v.refs[2].raw_path.as_deref(), v.refs[2].text.as_deref()),
        (2, Some(" $.logs[1] "), Some("retry"))
    );
    assert_eq!((v.refs[3].raw_path.as_deref(), v.refs[3].text.as_deref()), (None, Some("x")));
    assert_eq!((v.refs[4].raw_path.as_deref(), v.refs[4].text.as_deref()), (Some("$.no_evidence"), None));
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::PartiallyVerified));
    assert!(v.warnings.is_empty(), "an unread marker is not read as a marker: {:?}", v.warnings);
    assert!(v.refs.iter().all(|r| r.rung.is_none() || r.outcome == RefOutcome::Verified));
}

#[test]
fn limit_refs_default_is_1000() {
    let refs: Vec<(&str, &str)> = vec![("$.logs[0].message", "refused"); 1001];
    let v = verify(&inv(&claim(&refs), Some(LOGS)));
    assert_eq!(v.refs.len(), 1001);
    assert!(v.refs[..1000].iter().all(|r| r.outcome == RefOutcome::Verified));
    assert_eq!(v.refs[1000].outcome, RefOutcome::LimitExceeded);
    assert_eq!(v.refs[1000].index, 1000);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::PartiallyVerified));
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#the-report report shape
// ---------------------------------------------------------------------------------------------

/// The invocation of the bundle example in docs/verification.md#bundles.
fn spec_example() -> Invocation {
    Invocation {
        id: 101,
        session_id: Some("sess-01".into()),
        run_id: Some("run-001".into()),
        step_id: Some(7),
        tool_name: "query_logs".into(),
        input_params: Some(Json::parse(r#"{"service": "order-svc", "level": "ERROR"}"#).unwrap()),
        output_preview: Some(r#"{"logs":[{"ts":"2026-11-30T10:00:00Z","message":"connection ref"#.into()),
        output_length: Some(2048),
        is_truncated: Some(true),
        retrieval_details: Some(
            Json::parse(
                r#"{"evidence_status": "supported",
                    "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection refused"}]}"#,
            )
            .unwrap(),
        ),
        duration_ms: Some(35),
        success: Some(true),
        created_at: Some("2026-11-30T10:00:01Z".into()),
        raw_output: Some(RawOutput::Json(
            Json::parse(
                r#"{"logs": [{"ts": "2026-11-30T10:00:00Z", "message": "dial tcp 10.0.0.7:5432: connection refused"}]}"#,
            )
            .unwrap(),
        )),
        ..Invocation::default()
    }
}

#[test]
fn report_of_the_spec_example_byte_for_byte() {
    let run = Run {
        run_id: Some("run-001".into()),
        session_id: Some("sess-01".into()),
        invocations: vec![spec_example()],
    };
    let report = Verifier::default().verify_runs(&[run]);
    let expected: Value = serde_json::from_str(
        r#"{"schema": "groundcheck.report/v1",
 "runs": [
  {"run_id": "run-001", "session_id": "sess-01",
   "summary": {"invocations": 1, "supported": 1, "unsupported": 0, "no_evidence": 0,
               "claim_mismatches": 0},
   "invocations": [
    {"id": 101, "tool_name": "query_logs", "status": "supported", "reason": "verified",
     "claimed_status": "supported", "claim_agrees": true, "source": "raw_output",
     "refs": [{"index": 0, "raw_path": "$.logs[0].message", "text": "connection refused",
               "outcome": "verified", "match": "exact",
               "matched_path": "$['logs'][0]['message']"}],
     "warnings": []}]}]}"#,
    )
    .unwrap();
    // serde_json keeps member order here, so the strings compare field order too.
    assert_eq!(serde_json::to_string(&report).unwrap(), serde_json::to_string(&expected).unwrap());
}

#[test]
fn report_refs_are_echoed_as_given() {
    let details = claim_values(
        json!("supported"),
        vec![
            json!({"raw_path": "  $.logs[0].message\n", "text": "  connection refused  "}),
            json!({"raw_path": 5, "text": ["x"]}),
            json!({"text": "only text"}),
            json!({"raw_path": "$.logs[1]", "text": null}),
            json!(null),
        ],
    );
    let v = verify(&inv(&details, Some(LOGS)));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(
        json["refs"],
        json!([
            {"index": 0, "raw_path": "  $.logs[0].message\n", "text": "  connection refused  ", "outcome": "verified",
             "match": "normalized", "matched_path": "$['logs'][0]['message']"},
            {"index": 1, "raw_path": null, "text": null, "outcome": "malformed_ref"},
            {"index": 2, "raw_path": null, "text": "only text", "outcome": "malformed_ref"},
            {"index": 3, "raw_path": "$.logs[1]", "text": null, "outcome": "malformed_ref"},
            {"index": 4, "raw_path": null, "text": null, "outcome": "malformed_ref"},
        ])
    );
    // Key order of each ref.
    let keys: Vec<&str> = json["refs"][0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["index", "raw_path", "text", "outcome", "match", "matched_path"]);
}

#[test]
fn report_match_and_matched_path_only_when_verified() {
    let details = claim(&[
        ("$.logs[0].message", "connection refused"),
        ("$.logs[1]", "nope"),
        ("$.x", "y"),
        ("bad", "z"),
    ]);
    let v = verify(&inv(&details, Some(LOGS)));
    for r in &v.refs {
        let json = serde_json::to_value(r).unwrap();
        let verified = r.outcome == RefOutcome::Verified;
        assert_eq!(json.get("match").is_some(), verified, "{json}");
        assert_eq!(json.get("matched_path").is_some(), verified, "{json}");
        assert!(json.get("in_preview").is_none());
        assert!(json.get("rung").is_none(), "the field is serialized as `match`: {json}");
    }
    let json = serde_json::to_value(&v.refs[0]).unwrap();
    assert_eq!(
        (json["match"].as_str(), json["matched_path"].as_str()),
        (Some("exact"), Some("$['logs'][0]['message']"))
    );
}

#[test]
fn report_verdict_field_order_and_null_claim() {
    let v = verify(&inv_without_details(None));
    let json = serde_json::to_value(&v).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "tool_name",
            "status",
            "reason",
            "claimed_status",
            "claim_agrees",
            "source",
            "refs",
            "warnings"
        ]
    );
    assert_eq!(json["claimed_status"], Value::Null);
    assert_eq!(json["claim_agrees"], Value::Null);
    assert_eq!(json["source"], json!("none"));
    assert_eq!(json["status"], json!("no_evidence"));
    assert_eq!(json["reason"], json!("no_refs"));
}

#[test]
fn report_warnings_in_fixed_order() {
    let details = claim_values(
        json!("supported"),
        vec![json!({"raw_path": "$.no_evidence"}), json!({"raw_path": "$.logs[1]", "text": "retry"})],
    );
    let v = verify(&Invocation { invalid_utf8: true, ..inv(&details, Some(LOGS)) });
    assert_eq!(v.warnings, [Warning::InvalidUtf8, Warning::MarkerWithRefs]);
    assert_eq!(serde_json::to_value(&v).unwrap()["warnings"], json!(["invalid_utf8", "marker_with_refs"]));
    // invalid_utf8 is reported whatever the claim, even a malformed one.
    let v = verify(&Invocation { invalid_utf8: true, ..inv("[]", None) });
    assert_eq!(v.warnings, [Warning::InvalidUtf8]);
}

#[test]
fn report_refs_empty_with_malformed_details() {
    let v = verify(&inv(r#"{"evidence_status":"supported","evidence_refs":"$.logs"}"#, Some(LOGS)));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["refs"], json!([]));
    assert_eq!(json["reason"], json!("malformed_details"));
    assert_eq!(json["source"], json!("raw_output"));
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

#[test]
fn report_summary_counts_add_up() {
    let report = Verifier::default().verify_run(&generated_run("r", 60));
    let s = report.summary;
    assert_eq!(s.invocations, 60);
    assert_eq!(s.invocations, report.invocations.len());
    assert_eq!(s.supported + s.unsupported + s.no_evidence, s.invocations);
    let count = |st: Status| report.invocations.iter().filter(|v| v.status == st).count();
    assert_eq!(
        (s.supported, s.unsupported, s.no_evidence),
        (count(Status::Supported), count(Status::Unsupported), count(Status::NoEvidence))
    );
    assert_eq!(
        s.claim_mismatches,
        report.invocations.iter().filter(|v| v.claim_agrees == Some(false)).count()
    );
    assert!(s.supported > 0 && s.unsupported > 0 && s.no_evidence > 0 && s.claim_mismatches > 0, "{s:?}");
    assert_eq!(s, Summary::of(&report.invocations));
    let json = serde_json::to_value(s).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["invocations", "supported", "unsupported", "no_evidence", "claim_mismatches"]);
}

#[test]
fn verify_run_sorts_invocations_by_id() {
    let mk = |id| Invocation { id, ..inv_without_details(None) };
    let run =
        Run { run_id: Some("r".into()), session_id: None, invocations: vec![mk(30), mk(-2), mk(7), mk(1)] };
    let report = Verifier::default().verify_run(&run);
    let ids: Vec<i64> = report.invocations.iter().map(|v| v.id).collect();
    assert_eq!(ids, [-2, 1, 7, 30]);
    assert_eq!((report.run_id.as_deref(), report.session_id.as_deref()), (Some("r"), None));
}

#[test]
fn run_set_groups_by_run_then_session_in_order_of_first_appearance() {
    let mk = |id: i64, run: Option<&str>, session: Option<&str>| Invocation {
        id,
        run_id: run.map(str::to_string),
        session_id: session.map(str::to_string),
        ..inv_without_details(None)
    };
    let mut set = RunSet::default();
    for i in [
        mk(5, Some("a"), Some("s9")),
        mk(1, None, Some("s1")),
        mk(3, Some("b"), Some("s2")),
        mk(2, Some("a"), Some("s1")),
        mk(9, None, Some("s2")),
        mk(4, None, Some("s1")),
        mk(8, None, None),
        mk(1, Some("b"), None), // same id as in run a and session s1: fine, another run
    ] {
        set.push(i).expect("no duplicate yet");
    }
    // A repeated id within one run is refused.
    let err = set.push(mk(2, Some("a"), Some("s7"))).unwrap_err();
    assert_eq!((err.kind(), err.to_string()), (ErrorKind::DuplicateId, "id 2 appears twice in run a".into()));
    assert!(set.push(mk(4, None, Some("s1"))).is_err());
    let runs = set.into_runs();
    let shape: Vec<(Option<&str>, Option<&str>, Vec<i64>)> = runs
        .iter()
        .map(|r| (r.run_id.as_deref(), r.session_id.as_deref(), r.invocations.iter().map(|i| i.id).collect()))
        .collect();
    assert_eq!(
        shape,
        [
            (Some("a"), Some("s9"), vec![2, 5]),
            (None, Some("s1"), vec![1, 4]),
            (Some("b"), Some("s2"), vec![1, 3]),
            (None, Some("s2"), vec![9]),
            (None, None, vec![8]),
        ]
    );
    // The report keeps that order, with run_id null for the session groups.
    let report = Verifier::default().verify_runs(&runs);
    let json = serde_json::to_value(&report).unwrap();
    let heads: Vec<(Value, Value)> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["run_id"].clone(), r["session_id"].clone()))
        .collect();
    assert_eq!(
        heads,
        [
            (json!("a"), json!("s9")),
            (Value::Null, json!("s1")),
            (json!("b"), json!("s2")),
            (Value::Null, json!("s2")),
            (Value::Null, Value::Null),
        ]
    );
    assert_eq!(json["schema"], json!("groundcheck.report/v1"));
}

// ---------------------------------------------------------------------------------------------
// docs/verification.md#classification determinism: parallel equals sequential, byte for byte
// ---------------------------------------------------------------------------------------------

/// The report built one invocation at a time, with no parallelism at all.
fn sequential_report(runs: &[Run], policy: &Policy) -> Report {
    Report::new(
        runs.iter()
            .map(|run| {
                let mut verdicts: Vec<Verdict> =
                    run.invocations.iter().map(|i| Verifier::new(*policy).verify(i)).collect();
                verdicts.sort_by_key(|v| v.id);
                RunReport {
                    run_id: run.run_id.clone(),
                    session_id: run.session_id.clone(),
                    summary: Summary::of(&verdicts),
                    invocations: verdicts,
                }
            })
            .collect(),
    )
}

#[test]
fn determinism_parallel_equals_sequential_byte_for_byte() {
    let runs = vec![generated_run("run-a", 200), generated_run("run-b", 37)];
    let policy = Policy::default();
    let expected = serde_json::to_string(&sequential_report(&runs, &policy)).unwrap();
    assert_eq!(serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap(), expected);
    // Many callers at once (the Verifier stage calls the library from several threads).
    let got: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for g in got {
        assert_eq!(g, expected);
    }
    // Every row got a verdict.
    let report = Verifier::new(policy).verify_runs(&runs);
    assert_eq!(report.runs[0].invocations.len(), 200);
    assert_eq!(report.runs[1].invocations.len(), 37);
}

#[test]
fn determinism_one_thread_equals_four_threads() {
    let runs = vec![generated_run("run-a", 200)];
    let policy = Policy::default();
    let in_pool = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap())
    };
    assert_eq!(in_pool(1), in_pool(4));
}

/// Issue #10: RFC 9535's grammar is ABNF, whose quoted letters are case-insensitive, so a
/// surrogate pair written in lower-case hex selects 🔥 exactly as the upper-case one does,
/// in `verify` and in `resolve`.
#[test]
fn a_surrogate_pair_in_lower_case_hex_selects_the_character() {
    let raw = r#"{"🔥":"disk on fire"}"#;
    for path in [r"$['\ud83d\udd25']", r"$['\uD83D\uDD25']", r#"$["\ud83d\udd25"]"#] {
        assert_eq!(hit(path, "on fire", raw), Some((Rung::Exact, "$['🔥']".to_string())), "{path}");
        let doc = Json::parse(raw).unwrap();
        let paths: Vec<String> = resolve(path, &doc).unwrap().into_iter().map(|n| n.path).collect();
        assert_eq!(paths, ["$['🔥']"], "{path}");
    }
    assert_eq!(outcome(r"$['\ud83d']", "on fire", Some(raw)), RefOutcome::InvalidPath);
}

/// Issue #13 item 0: a match never splits a number — on every rung, for every elided piece
/// and in `in_preview` — and an occurrence that splits one does not count while a later one
/// may. One assertion per example of the rule (docs/verification.md#the-ladder).
#[test]
fn a_match_never_splits_a_number() {
    let leaf = |text: &str| json!({"m": text}).to_string();
    // `500` is found in `code 5000, then 500` at the second occurrence...
    assert_eq!(hit("$.m", "500", &leaf("code 5000, then 500")), Some((Rung::Exact, "$['m']".into())));
    // ...and never in `1500 ms`, `0.500` or `1,500`.
    for text in ["1500 ms", "0.500", "1,500"] {
        assert_eq!(hit("$.m", "500", &leaf(text)), None, "{text}");
    }
    // Numbers as written: `0.95` is not in `0.950`, `9` is not in `0.950`, `0.27` not in `0.274`.
    assert_eq!(hit("$.p", "0.95", r#"{"p":0.950}"#), None);
    assert_eq!(hit("$.p", "9", r#"{"p":0.950}"#), None);
    assert_eq!(hit("$.p", "0.27", r#"{"p":0.274}"#), None);
    assert_eq!(hit("$.p", "0.950", r#"{"p":0.950}"#), Some((Rung::Exact, "$['p']".into())));
    // The normalized rung: full-width digits fold to 0-9 and then count as digits.
    assert_eq!(hit("$.m", "500 MS", &leaf("１５００ ms")), None);
    assert_eq!(hit("$.m", "500 MS", &leaf("took ５００ ms")), Some((Rung::Normalized, "$['m']".into())));
    // The elided rung: every piece is a match of its own.
    assert_eq!(hit("$.m", "took ... 500 ms", &leaf("took 1500 ms")), None);
    assert_eq!(
        hit("$.m", "took ... 500 ms", &leaf("took 1500 ms, then 500 ms")),
        Some((Rung::Elided, "$['m']".into()))
    );
    // A later leaf that splits no number wins over an earlier one that does.
    assert_eq!(hit("$[*]", "500", r#"["HTTP 5003", "HTTP 500"]"#), Some((Rung::Exact, "$[1]".into())));
    // in_preview follows the same rule.
    let preview = |text: &str| Invocation {
        output_preview: Some(text.into()),
        ..inv(&claim(&[("$.m", "500 ms")]), None)
    };
    assert_eq!(verify(&preview("latency 1500 ms")).refs[0].in_preview, Some(false));
    assert_eq!(verify(&preview("latency 500 ms")).refs[0].in_preview, Some(true));
}
