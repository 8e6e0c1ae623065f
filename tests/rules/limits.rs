//! Limits (docs/verification.md#limits): each limit at its edge.

use super::*;

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
    let policy = policy_with(Limits::default().with(Limit::Depth, 2).unwrap());
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

#[test]
fn limit_output_size() {
    let policy = policy_with(Limits::default().with(Limit::OutputSize, 10).unwrap());
    // 10 bytes, 11 bytes, and 11 bytes that are not JSON.
    assert_eq!(one_with("$", "abc", Some(r#"["abcdef"]"#), policy).outcome, RefOutcome::Verified);
    assert_eq!(one_with("$", "abc", Some(r#"["abcdefg"]"#), policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$", "abc", Some("abcdefghijk"), policy).outcome, RefOutcome::LimitExceeded);
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
    let policy = policy_with(Limits::default().with(Limit::TextLength, 5).unwrap());
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
    let policy = policy_with(Limits::default().with(Limit::PathLength, 6).unwrap());
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
    let policy = policy_with(Limits::default().with(Limit::Nodes, 2).unwrap());
    assert_eq!(one_with("$[*]", "b", Some(r#"["a","b"]"#), policy).outcome, RefOutcome::Verified);
    assert_eq!(one_with("$[*]", "b", Some(r#"["a","b","c"]"#), policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$..*", "b", Some(r#"[["a","b"]]"#), policy).outcome, RefOutcome::LimitExceeded);
    assert_eq!(one_with("$[*]", "b", Some("[]"), policy).outcome, RefOutcome::PathNotFound);
    // One selected node with many leaves is one node.
    assert_eq!(one_with("$", "c", Some(r#"["a","b","c"]"#), policy).outcome, RefOutcome::Verified);
}

#[test]
fn limit_refs_per_invocation() {
    let policy = policy_with(Limits::default().with(Limit::Refs, 2).unwrap());
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
