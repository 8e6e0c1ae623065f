//! The raw document (docs/verification.md#the-raw-document): raw output as JSON or text, and a
//! complete preview standing in for it.

use super::*;

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

/// Not JSON, so one string; `$.m` selects nothing in it and is decided on the text's YAML
/// view (docs/verification.md#yaml-and-json-lines), where `NaN` is the string `"NaN"`.
#[test]
fn raw_output_text_with_nan_is_not_json() {
    let raw = r#"{"v": NaN, "m": "p95 latency"}"#;
    assert_eq!(hit("$", "NaN", raw), Some((Rung::Exact, "$".into())));
    let verdict = verify(&inv(&claim(&[("$.m", "latency"), ("$.v", "NaN")]), Some(raw)));
    let paths: Vec<_> = verdict.refs.iter().map(|r| r.matched_path.as_deref()).collect();
    assert_eq!(paths, [Some("$['m']"), Some("$['v']")]);
    assert_eq!(verdict.warnings, [Warning::ReadAsYaml]);
}

/// A byte-order mark makes the text not JSON; YAML reads past it, so `$.m` is decided on
/// the YAML view.
#[test]
fn raw_output_text_with_a_bom_is_not_json() {
    let raw = "\u{feff}{\"m\":\"connection refused\"}";
    assert_eq!(hit("$", r#"{"m":"connection refused"}"#, raw), Some((Rung::Exact, "$".into())));
    assert_eq!(hit("$.m", "refused", raw), Some((Rung::Exact, "$['m']".into())));
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
        verify_with(&invocation, Policy::default().with_max_rung(max_rung))
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
