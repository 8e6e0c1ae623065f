//! The claim (docs/verification.md#the-claim): the no-evidence marker, and the claimed status.

use super::*;

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
        let v = check(
            &details,
            Some(LOGS),
            (Status::NoEvidence, Reason::NoEvidenceMarker, &[RefOutcome::NoEvidenceMarker]),
        );
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
