//! Checking a ref (docs/verification.md#checking-a-ref): the outcome of one real ref, in the
//! order of its steps.

use super::*;

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
