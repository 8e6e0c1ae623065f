//! Near misses (docs/verification.md#near-misses): the score, `nearest` and its tie rule,
//! `elsewhere`, the cost bound and the fuzzy rung, one small test per rule, against the
//! library. Every case is checked on all three routes (located, `Value`, tree) and with the
//! raw output given as parsed JSON, which must agree.

use groundcheck_core::{
    Invocation, Json, Limit, Limits, Nearest, Policy, RefOutcome, RefReport, Rung, Score, Verifier,
};
use serde_json::json;

use crate::json_in_strings::verify_all;

/// The reports of `refs` against `raw` under `policy`, the same on every route.
fn check(raw: &str, refs: &[(&str, &str)], policy: &Policy) -> Vec<RefReport> {
    verify_all(raw, refs, policy).refs
}

fn one(raw: &str, path: &str, text: &str) -> RefReport {
    one_with(raw, path, text, &Policy::default())
}

fn one_with(raw: &str, path: &str, text: &str, policy: &Policy) -> RefReport {
    check(raw, &[(path, text)], policy).remove(0)
}

fn nearest(raw: &str, path: &str, text: &str) -> Option<(String, String, String)> {
    let r = one(raw, path, text);
    assert_eq!(r.outcome, RefOutcome::TextNotFound, "{r:?}");
    r.nearest.map(|Nearest { score, path, text }| (score.to_string(), path, text))
}

fn some(score: &str, path: &str, text: &str) -> Option<(String, String, String)> {
    Some((score.into(), path.into(), text.into()))
}

fn fuzzy(min_score: u16) -> Policy {
    Policy::default()
        .with_max_rung(Rung::Fuzzy)
        .with_min_score(Score::from_thousandths(min_score).unwrap())
        .unwrap()
}

/// `(match, matched_path, score)` of a ref, `None` when it is not verified.
fn verified(r: &RefReport) -> Option<(Rung, &str, Option<String>)> {
    Some((r.rung?, r.matched_path.as_deref()?, r.score.map(|s| s.to_string())))
}

#[test]
fn the_score_is_three_decimals_rounded_down_over_normalised_scalar_values() {
    // "refused" (7) vs the leaf's "refuse" + "d" missing: d = 1, 6/7 = 0.857142… → 0.857.
    let doc = r#"{"m":"connection refuse"}"#;
    assert_eq!(nearest(doc, "$.m", "REFUSED"), some("0.857", "$['m']", "refuse"));
    // Two of three: 0.666, not 0.667.
    assert_eq!(nearest(r#"{"m":"abx"}"#, "$.m", "abc"), some("0.666", "$['m']", "ab"));
    // CJK counts characters, not bytes: 4 characters, 1 substituted → 3/4.
    assert_eq!(nearest(r#"{"m":"日志: 死销检测"}"#, "$.m", "死锁检测"), some("0.750", "$['m']", "死销检测"));
    // Full width and case are normalised away before measuring: "pool exhaustex" (14) is one
    // edit from "pool exhauste", which ends before "pool exhausted" (also one edit): 13/14.
    assert_eq!(
        nearest(r#"{"m":"pool exhausted"}"#, "$", "ＰＯＯＬ　EXHAUSTEX"),
        some("0.928", "$['m']", "pool exhauste")
    );
}

#[test]
fn nearest_text_ends_first_then_is_shortest() {
    // "abc" vs "abXc": "ab" (end 2) and "abXc" (end 4) are both at distance 1 (insert c /
    // delete X); the smallest end wins, so the closest text is "ab", not "abXc".
    assert_eq!(nearest(r#"{"m":"abXc"}"#, "$.m", "abc"), some("0.666", "$['m']", "ab"));
    // "abcd" vs "abxd": at ends 1..4 the distances are 3, 2, 2, 1; ending at 4, "d" is 3,
    // "xd" 2, "bxd" 2 and "abxd" 1: the shortest reaching 1 is all of it.
    assert_eq!(nearest(r#"{"m":"abxd"}"#, "$.m", "abcd"), some("0.750", "$['m']", "abxd"));
    // "ba" vs "xaay": end 2 ("xa") first reaches 1; ending at 2, "a" is 1 already ("" is 2).
    assert_eq!(nearest(r#"{"m":"xaay"}"#, "$.m", "ba"), some("0.500", "$['m']", "a"));
}

#[test]
fn nearest_is_the_best_leaf_and_the_first_of_equals() {
    let doc = r#"{"logs":[{"m":"conection reset"},{"m":"connection refusd"},{"m":"connection refusd"}]}"#;
    // Leaf 0: "connection refused" vs "conection reset": far. Leaves 1 and 2 tie (1 edit in
    // 18 → 0.944); the first in document order is reported.
    assert_eq!(
        nearest(doc, "$.logs[*]", "connection refused"),
        some("0.944", "$['logs'][1]['m']", "connection refusd")
    );
    // Leaves are visited depth-first in document order: a.b.m before m; both are one edit
    // from the quote (16/17 = 0.941), so a.b.m is reported.
    let nested = r#"{"a":{"b":{"m":"timeout aftr 30s"}},"m":"timeout after 3s"}"#;
    assert_eq!(
        nearest(nested, "$", "timeout after 30s"),
        some("0.941", "$['a']['b']['m']", "timeout aftr 30s")
    );
}

#[test]
fn nearest_only_on_text_not_found_and_absent_without_a_candidate() {
    let doc = r#"{"m":"connection refused","empty":{},"none":[],"n":"xyz"}"#;
    let found = one(doc, "$.m", "connection refused");
    assert_eq!((found.outcome, found.nearest.is_none()), (RefOutcome::Verified, true));
    let missing = one(doc, "$.nope", "connection refusd");
    assert_eq!((missing.outcome, missing.nearest), (RefOutcome::PathNotFound, None));
    // A selection without leaves: nothing to be near.
    assert_eq!(nearest(doc, "$.empty", "abc"), None);
    assert_eq!(nearest(doc, "$.none", "abc"), None);
    // No character in common: the best score is 0.000, so there is no nearest.
    assert_eq!(nearest(doc, "$.n", "abc"), None);
    // An over-long text is limit_exceeded, never measured.
    let policy = Policy::default().with_limits(Limits::default().with(Limit::TextLength, 3).unwrap());
    assert_eq!(one_with(doc, "$.m", "connection refusd", &policy).nearest, None);
}

#[test]
fn nearest_is_measured_on_every_rung_policy_and_reported_even_when_it_splits_a_number() {
    let doc = r#"{"m":"latency 1500 ms"}"#;
    // "500" is in the leaf only by splitting 1500: not found, but it is as near as can be.
    assert_eq!(nearest(doc, "$.m", "500 ms"), some("1.000", "$['m']", "500 ms"));
    let exact = Policy::default().with_max_rung(Rung::Exact);
    let r = one_with(r#"{"m":"Connection Refused"}"#, "$.m", "connection refused", &exact);
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    assert_eq!(r.nearest.map(|n| n.score), Some(Score::ONE), "measured on the normalised texts");
}

#[test]
fn the_cost_bound_is_m_times_the_selected_leaves_length() {
    // m = 2^8 and leaves of 2^24 characters in total: m · total = 2^32, at the bound.
    let quote = "ab".repeat(128);
    let leaf = format!("{}ab", "x".repeat((1 << 24) - 2));
    let doc = json!({ "m": leaf, "n": "y" }).to_string();
    let at = one(&doc, "$.m", &quote);
    assert_eq!(at.outcome, RefOutcome::TextNotFound);
    assert_eq!(at.nearest.map(|n| (n.score.to_string(), n.text)), Some(("0.007".into(), "ab".into())));
    // One character more, past the bound: nothing is measured.
    let past = one(&doc, "$", &quote);
    assert_eq!((past.outcome, past.nearest), (RefOutcome::TextNotFound, None));
    // Nor does the fuzzy rung hold past it, even at the lowest threshold.
    let r = one_with(&doc, "$", &quote, &fuzzy(1));
    assert_eq!((r.outcome, r.rung), (RefOutcome::TextNotFound, None));
    assert!(verified(&one_with(&doc, "$.m", &quote, &fuzzy(1))).is_some(), "at the bound it does");
}

#[test]
fn elsewhere_is_the_first_leaf_of_the_whole_document_that_holds_the_text() {
    let doc = r#"{"logs":[{"m":"retry 3/5 failed"},{"m":"dial tcp: Connection Refused"},{"m":"connection refused"}]}"#;
    // The wrong index: the text is two nodes on; the first leaf holding it on any rung is
    // logs[1] (normalized), though logs[2] holds it exactly — elsewhere is leaf by leaf.
    let r = one(doc, "$.logs[0].m", "connection refused");
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    assert_eq!(r.elsewhere.as_deref(), Some("$['logs'][1]['m']"));
    assert_eq!(r.nearest.map(|n| n.score.to_string()), Some("0.166".into()));
    // A path that selects nothing gets it too.
    assert_eq!(one(doc, "$.logs[7].m", "connection refused").elsewhere.as_deref(), Some("$['logs'][1]['m']"));
    // Up to the policy's rung: under `--match exact` only logs[2] holds it.
    let exact = Policy::default().with_max_rung(Rung::Exact);
    assert_eq!(
        one_with(doc, "$.logs[0]", "connection refused", &exact).elsewhere.as_deref(),
        Some("$['logs'][2]['m']")
    );
    // A text that is nowhere, and a verified ref, have none.
    assert_eq!(one(doc, "$.logs[0]", "deadlock detected").elsewhere, None);
    assert_eq!(one(doc, "$.logs[2]", "connection refused").elsewhere, None);
    // The digit rule holds: "3/5" is in the document, "3/50" is not, "/5" is (retry 3/5).
    assert_eq!(one(doc, "$.logs[1]", "3/50").elsewhere, None);
    assert_eq!(one(doc, "$.logs[1]", "5 failed").elsewhere.as_deref(), Some("$['logs'][0]['m']"));
}

#[test]
fn elsewhere_looks_in_the_expanded_view_only_when_the_document_as_written_has_nothing() {
    let inner = json!({"items":[{"message":"ok"},{"message":"disk pressure on node-7"}]}).to_string();
    let doc = json!({"content":[{"type":"text","text": inner}], "note": "see below"}).to_string();
    // The text is inside the JSON held by a string: the string itself holds it as written
    // (its text contains the words), so the document as written answers first.
    let r = one(&doc, "$.note", "disk pressure on node-7");
    assert_eq!(r.elsewhere.as_deref(), Some("$['content'][0]['text']"));
    // A quote only the decoded view holds (the escaped quote marks differ) is found there.
    let quoted =
        json!({"content":[{"type":"text","text": json!({"items":[{"m":"say \"hi\""}]}).to_string()}]})
            .to_string();
    let r = one(&quoted, "$.content[0].type", "say \"hi\"");
    assert_eq!(r.elsewhere.as_deref(), Some("$['content'][0]['text']['items'][0]['m']"));
}

#[test]
fn elsewhere_follows_the_documents_order_when_a_key_repeats() {
    // A repeated key keeps its last value at its first position: `a` holds the text and
    // comes before `b`, which the text as written would not say.
    let doc = r#"{"a":"first","b":"connection refused","a":"connection refused","c":"x"}"#;
    let refs = [("$.c", "connection refused"), ("$.zz", "connection refused")];
    for r in check(doc, &refs, &Policy::default()) {
        assert_eq!(r.elsewhere.as_deref(), Some("$['a']"), "{r:?}");
    }
    // The first value of a repeated key is no leaf at all.
    let doc = r#"{"a":"connection refused","b":"y","a":"z"}"#;
    assert_eq!(one(doc, "$.b", "connection refused").elsewhere, None);
}

#[test]
fn elsewhere_reads_a_string_that_only_looks_like_json_as_text() {
    let doc = r#"{"a":"x","b":"{not json: connection refused","c":["[\"disk full\"]","y"]}"#;
    assert_eq!(one(doc, "$.a", "connection refused").elsewhere.as_deref(), Some("$['b']"));
    assert_eq!(one(doc, "$.a", "deadlock").elsewhere, None);
    // The string holding JSON holds the words as written: the document as written answers.
    assert_eq!(one(doc, "$.a", "disk full").elsewhere.as_deref(), Some("$['c'][0]"));
}

#[test]
fn elsewhere_is_not_looked_for_in_a_document_past_the_node_limit() {
    let doc = r#"{"a":"x","b":["y","connection refused"]}"#; // 5 nodes: the root, a, b, b[0], b[1]
    let at = Policy::default().with_limits(Limits::default().with(Limit::Nodes, 5).unwrap());
    assert_eq!(one_with(doc, "$.a", "connection refused", &at).elsewhere.as_deref(), Some("$['b'][1]"));
    let below = Policy::default().with_limits(Limits::default().with(Limit::Nodes, 4).unwrap());
    let r = one_with(doc, "$.a", "connection refused", &below);
    assert_eq!((r.outcome, r.elsewhere), (RefOutcome::TextNotFound, None));
}

#[test]
fn the_fuzzy_rung_takes_the_first_leaf_reaching_the_threshold() {
    let doc = r#"{"logs":[{"m":"connection refusd by peer"},{"m":"connection refused by peer"},{"m":"conection refusd"}]}"#;
    // Exact on logs[1] wins: the fuzzy rung only runs when every other rung failed.
    assert_eq!(
        verified(&one_with(doc, "$.logs[*]", "connection refused", &fuzzy(900))),
        Some((Rung::Exact, "$['logs'][1]['m']", None))
    );
    // "connection refused!" is nowhere; logs[0] scores 17/19 = 0.894, logs[1] 18/19 = 0.947.
    let text = "connection refused!";
    assert_eq!(
        verified(&one_with(doc, "$.logs[*]", text, &fuzzy(894))),
        Some((Rung::Fuzzy, "$['logs'][0]['m']", Some("0.894".into())))
    );
    assert_eq!(
        verified(&one_with(doc, "$.logs[*]", text, &fuzzy(900))),
        Some((Rung::Fuzzy, "$['logs'][1]['m']", Some("0.947".into())))
    );
    let r = one_with(doc, "$.logs[*]", text, &fuzzy(948));
    assert_eq!(
        (r.outcome, r.nearest.map(|n| n.score.to_string())),
        (RefOutcome::TextNotFound, Some("0.947".into()))
    );
    // Not tried unless the policy names it.
    assert_eq!(one(doc, "$.logs[*]", text).outcome, RefOutcome::TextNotFound);
}

#[test]
fn the_fuzzy_rung_never_splits_a_number() {
    // "p99 0.95" is in "p99 0.950 s" only by splitting 0.950: its closest substring there
    // (distance 0) is not evidence. In "p99 0.9 s" the closest substring is "p99 0.9"
    // (insert 5: 7/8 = 0.875), followed by a space: it splits nothing.
    let doc = r#"{"a":"p99 0.950 s","b":"p99 0.9 s","c":"p99 0.96 s"}"#;
    let r = one_with(doc, "$.*", "p99 0.95", &fuzzy(800));
    assert_eq!(verified(&r), Some((Rung::Fuzzy, "$['b']", Some("0.875".into()))));
    let only_split = one_with(doc, "$.a", "p99 0.95", &fuzzy(800));
    assert_eq!(only_split.outcome, RefOutcome::TextNotFound);
    assert_eq!(
        only_split.nearest.map(|n| (n.score.to_string(), n.text)),
        Some(("1.000".into(), "p99 0.95".into()))
    );
    // The substring is the one docs/verification.md#near-misses chooses, not any that reaches the score: in
    // "p99 0.96 s", "p99 0.9" (ending first, one edit) is chosen over "p99 0.96" (also one
    // edit), and it splits 0.96.
    let chosen = one_with(doc, "$.c", "p99 0.95", &fuzzy(800));
    assert_eq!(chosen.outcome, RefOutcome::TextNotFound);
    assert_eq!(chosen.nearest.map(|n| n.text), Some("p99 0.9".into()));
}

#[test]
fn in_preview_and_elsewhere_never_use_the_fuzzy_rung() {
    let doc = r#"{"a":"x","b":"connection refusd"}"#;
    let r = one_with(doc, "$.a", "connection refused", &fuzzy(500));
    assert_eq!((r.outcome, r.elsewhere), (RefOutcome::TextNotFound, None));
    let inv = Invocation {
        id: 1,
        tool_name: "t".into(),
        retrieval_details: Some(
            Json::parse(r#"{"evidence_refs":[{"raw_path":"$.a","text":"connection refused"}]}"#).unwrap(),
        ),
        output_preview: Some("connection refusd".into()),
        is_truncated: Some(true),
        ..Invocation::default()
    };
    let r = &Verifier::new(fuzzy(500)).verify(&inv).refs[0];
    assert_eq!((r.outcome, r.in_preview), (RefOutcome::RawOutputUnavailable, Some(false)));
}

#[test]
fn an_empty_normalised_quote_has_no_nearest() {
    // U+00AD (soft hyphen) is not white space, so the ref is checked, but NFKC keeps it:
    // only an invisible quote made of characters normalisation drops has m = 0. A
    // zero-width joiner survives too; this pins that such quotes measure as written.
    let r = one(r#"{"m":"a\u00adb"}"#, "$.m", "\u{00ad}\u{00ad}");
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    assert_eq!(r.nearest.map(|n| n.score.to_string()), Some("0.500".into()));
}

#[test]
fn elsewhere_in_the_expanded_view_reaches_json_encoded_twice_and_a_document_that_is_one_string() {
    // The decoded quote marks exist only once the strings are read as JSON.
    let inner = json!({"m": "say \"hi\""}).to_string();
    let twice = json!({"a": "x", "b": json!([inner]).to_string()}).to_string();
    assert_eq!(one(&twice, "$.a", "say \"hi\"").elsewhere.as_deref(), Some("$['b'][0]['m']"));
    // The whole output is a string holding JSON: the root itself is replaced.
    let whole = json!(inner).to_string();
    let r = one(&whole, "$.x", "say \"hi\"");
    assert_eq!((r.outcome, r.elsewhere.as_deref()), (RefOutcome::PathNotFound, Some("$['m']")));
}

#[test]
fn elsewhere_is_not_looked_for_in_an_expanded_view_past_the_node_limit() {
    // As written: the root, a, b (a string) — 3 nodes. Expanded, b holds [x, y, quote]:
    // the root, a, b, b[0], b[1], b[2] — 6.
    let doc = json!({"a": "x", "b": json!(["x", "y", "say \"hi\""]).to_string()}).to_string();
    let at = Policy::default().with_limits(Limits::default().with(Limit::Nodes, 6).unwrap());
    assert_eq!(one_with(&doc, "$.a", "say \"hi\"", &at).elsewhere.as_deref(), Some("$['b'][2]"));
    let below = Policy::default().with_limits(Limits::default().with(Limit::Nodes, 5).unwrap());
    let r = one_with(&doc, "$.a", "say \"hi\"", &below);
    assert_eq!(
        (r.outcome, r.elsewhere),
        (RefOutcome::TextNotFound, None),
        "3 nodes as written fit, 6 expanded do not"
    );
}
