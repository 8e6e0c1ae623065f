//! Classification (docs/verification.md#classification): the rows of its table, one test or
//! more per row, and the claim as it is read.

use super::*;

/// Checks that `details` are malformed (row 1: no refs are read) and claim `claimed`.
fn malformed(details: &str, claimed: Option<&str>) -> Verdict {
    let verdict = check(details, Some(LOGS), (Status::Unsupported, Reason::MalformedDetails, &[]));
    assert_eq!(verdict.claimed_status.as_deref(), claimed);
    verdict
}

#[test]
fn row1_malformed_details_string_not_json() {
    malformed(&as_string_details("{not json"), None);
    malformed(&as_string_details(""), None);
    malformed(&as_string_details("{\"evidence_status\":\"supported\""), None);
}

#[test]
fn row1_malformed_details_array() {
    malformed(r#"[{"raw_path":"$.logs[0]","text":"refused"}]"#, None);
    // ...also when the array arrives as JSON text in a string.
    malformed(&as_string_details("[]"), None);
}

#[test]
fn row1_malformed_details_number() {
    malformed("3", None);
    malformed(&as_string_details(" 3.5 "), None);
}

#[test]
fn row1_malformed_details_boolean() {
    malformed("true", None);
    malformed("false", None);
}

#[test]
fn row1_malformed_details_evidence_refs_not_an_array() {
    let object =
        r#"{"evidence_status":"supported","evidence_refs":{"raw_path":"$.logs[0]","text":"refused"}}"#;
    malformed(object, Some("supported"));
    malformed(r#"{"evidence_refs":"$.logs[0]"}"#, None);
    malformed(r#"{"evidence_refs":0}"#, None);
}

#[test]
fn row1_malformed_details_keep_the_claimed_status_of_the_object() {
    let v = malformed(r#"{"evidence_status":"supported","evidence_refs":{}}"#, Some("supported"));
    assert_eq!(v.claim_agrees, Some(false));
    // From a string holding the object too, and verbatim.
    let v = malformed(
        &as_string_details(r#" {"evidence_status":"unsupported","evidence_refs":true} "#),
        Some("unsupported"),
    );
    assert_eq!(v.claim_agrees, Some(true));
    // A non-string evidence_status is no claim.
    let v = malformed(r#"{"evidence_status":["supported"],"evidence_refs":7}"#, None);
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
    let v = check(&details, Some(LOGS), (Status::Supported, Reason::Verified, &[RefOutcome::Verified]));
    assert_eq!(v.claimed_status.as_deref(), Some("supported"));
}

#[test]
fn row2_claimed_supported_without_real_refs() {
    let marker = [RefOutcome::NoEvidenceMarker];
    for (details, refs) in [
        (r#"{"evidence_status":"supported"}"#, &[][..]),
        (r#"{"evidence_status":"supported","evidence_refs":[]}"#, &[]),
        (r#"{"evidence_status":"supported","evidence_refs":null}"#, &[]),
        (r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.no_evidence"}]}"#, &marker),
    ] {
        let v = check(details, Some(LOGS), (Status::Unsupported, Reason::ClaimedWithoutRefs, refs));
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
    let v = check(
        &details,
        Some(LOGS),
        (Status::NoEvidence, Reason::NoEvidenceMarker, &[RefOutcome::NoEvidenceMarker]),
    );
    assert_eq!(v.claim_agrees, Some(true));
    assert!(v.warnings.is_empty());
}

#[test]
fn row5_no_refs_at_all() {
    let no_refs = (Status::NoEvidence, Reason::NoRefs, &[][..]);
    let v = check(r#"{"evidence_status":"no_evidence","evidence_refs":[]}"#, Some(LOGS), no_refs);
    assert_eq!(v.claim_agrees, Some(true));
    let v = check(r#"{}"#, None, no_refs);
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
    let policy = policy_with(Limits::default().with(Limit::TextLength, 5).unwrap());
    let details = claim(&[("$.logs[0].message", "refused"), ("$.logs[0].message", "dial")]);
    let v = verify_with(&Invocation { success: Some(false), ..inv(&details, Some(LOGS)) }, policy);
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::ToolFailed));
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded, RefOutcome::NotChecked]);
}

#[test]
fn row7_every_real_ref_verified() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "retry 3/5")]);
    let v = check(
        &details,
        Some(LOGS),
        (Status::Supported, Reason::Verified, &[RefOutcome::Verified, RefOutcome::Verified]),
    );
    assert_eq!(v.claim_agrees, Some(true));
    assert_eq!(v.source, Source::RawOutput);
}

#[test]
fn row8_some_but_not_all_real_refs_verified() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "disk full")]);
    let v = check(
        &details,
        Some(LOGS),
        (Status::Unsupported, Reason::PartiallyVerified, &[RefOutcome::Verified, RefOutcome::TextNotFound]),
    );
    assert_eq!(v.claim_agrees, Some(false));
}

#[test]
fn row8_under_require_any_is_supported() {
    let details = claim(&[("$.logs[0].message", "connection refused"), ("$.logs[1]", "disk full")]);
    let any = Policy::default().with_require(Require::Any);
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
    check(
        &details,
        Some(LOGS),
        (Status::Unsupported, Reason::PartiallyVerified, &[RefOutcome::Verified, RefOutcome::MalformedRef]),
    );
}

#[test]
fn row9_no_real_ref_verified() {
    let details = claim(&[("$.logs[0].message", "disk full"), ("$.nowhere", "x"), ("$.logs[0]", "")]);
    check(
        &details,
        Some(LOGS),
        (
            Status::Unsupported,
            Reason::NotVerified,
            &[RefOutcome::TextNotFound, RefOutcome::PathNotFound, RefOutcome::EmptyText],
        ),
    );
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
