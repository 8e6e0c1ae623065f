//! The report (docs/verification.md#the-report): its shape, field by field, and run grouping.

use super::*;

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
            {"index": 1, "raw_path": null, "text": null, "outcome": "malformed_ref",
             "malformed": "raw_path is a number, not a string"},
            {"index": 2, "raw_path": null, "text": "only text", "outcome": "malformed_ref",
             "malformed": "raw_path is missing"},
            {"index": 3, "raw_path": "$.logs[1]", "text": null, "outcome": "malformed_ref",
             "malformed": "text is null, not a string"},
            {"index": 4, "raw_path": null, "text": null, "outcome": "malformed_ref",
             "malformed": "the ref is null, not an object with raw_path and text"},
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
