//! Tests that guard a bug once found, each naming the case it guards; the rule each case
//! belongs to is in docs/verification.md.

use super::*;

/// Guards: `resolve` of a `..` query on a 10,000-deep document overflowing the stack
/// (serde_json_path evaluates `..` recursively; docs/verification.md#limits: never a stack
/// overflow). JSONPath stops at `Limits::QUERY_DEPTH_CEILING` with an error; JSON Pointers,
/// evaluated without recursion, resolve at any depth (a pointer 10,000 steps long under a
/// path length limit raised past its 20,000 characters, as verification needs too).
#[test]
fn resolve_on_a_ten_thousand_deep_document_refuses_jsonpath_and_runs_pointers() {
    let doc = Json::parse(&nested(10_000, "1")).unwrap();
    let long_paths = Limits::default().with(Limit::PathLength, 30_000).unwrap();
    let (jsonpath, pointer) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            (resolve("$..x", &doc), groundcheck_core::resolve_with(&"/0".repeat(10_000), &doc, &long_paths))
        })
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

/// Guards: a `..` ref aborting the process on a 10,000-deep raw output under a policy whose
/// depth limit is raised past it. Past `Limits::QUERY_DEPTH_CEILING` a JSONPath ref is
/// `limit_exceeded`; a JSON Pointer ref is still checked.
#[test]
fn raised_depth_limit_stops_jsonpath_at_the_query_ceiling() {
    let pointer = "/0".repeat(10_000);
    let invocation = inv(&claim(&[("$..x", "1"), (pointer.as_str(), "1")]), Some(&nested(10_000, "1")));
    let policy = policy_with(
        Limits::default().with(Limit::Depth, 20_000).unwrap().with(Limit::PathLength, 30_000).unwrap(),
    );
    let outcomes = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || verify_with(&invocation, policy).refs.iter().map(|r| r.outcome).collect::<Vec<_>>())
        .unwrap()
        .join()
        .expect("verification must not overflow the stack");
    assert_eq!(outcomes, [RefOutcome::LimitExceeded, RefOutcome::Verified]);
    let at_ceiling = inv(&claim(&[("$..*", "1")]), Some(&nested(Limits::QUERY_DEPTH_CEILING, "1")));
    let policy = policy_with(Limits::default().with(Limit::Depth, 20_000).unwrap());
    assert_eq!(verify_with(&at_ceiling, policy).refs[0].outcome, RefOutcome::Verified);
}

/// Guards: a surrogate pair written in lower-case hex (`\ud83d\udd25`) rejected as an invalid
/// path. RFC 9535's grammar is ABNF, whose quoted letters are case-insensitive, so it selects
/// 🔥 exactly as the upper-case one does, in `verify` and in `resolve`.
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

/// Guards: a quote verified inside a longer number (`500` in `1500 ms`). A match never splits
/// a number — on every rung, for every elided piece and in `in_preview` — and an occurrence
/// that splits one does not count while a later one may. One assertion per example of the
/// rule (docs/verification.md#the-ladder).
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
