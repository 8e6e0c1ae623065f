//! JSON inside strings: a path that selects nothing in the raw output is run again on its
//! expanded view, where every string holding JSON (an object or array) is replaced by what
//! it holds. One small test per rule (docs/verification.md, "JSON inside strings"), each on
//! every verification route.

use groundcheck_core::{
    resolve, Invocation, Json, Limit, Limits, Policy, RawOutput, RefOutcome, RefReport, Rung, Verdict,
    Verifier, Warning,
};
use serde_json::json;

/// An MCP `CallToolResult` whose text block holds the tool's JSON.
const MCP: &str = r#"{"content":[{"type":"text","text":"{\"items\":[{\"level\":\"info\",\"message\":\"started\"},{\"level\":\"error\",\"message\":\"disk full on /var\"}]}"}],"isError":false}"#;

/// Verifies `refs` against `raw` (as text) under `policy` on every route, which must agree,
/// and, when `raw` is JSON, with the raw output given parsed too. Shared with `near_misses`.
pub(crate) fn verify_all(raw: &str, refs: &[(&str, &str)], policy: &Policy) -> Verdict {
    let refs: Vec<_> = refs.iter().map(|(p, t)| json!({"raw_path": p, "text": t})).collect();
    let details = json!({"evidence_status": "supported", "evidence_refs": refs}).to_string();
    let inv = Invocation {
        id: 1,
        tool_name: "mcp".into(),
        retrieval_details: Some(Json::parse(&details).unwrap()),
        raw_output: Some(RawOutput::Text(raw.to_string())),
        ..Invocation::default()
    };
    let fast = Verifier::new(*policy).verify(&inv);
    let general = Verifier::new(*policy).tree_route_only().verify(&inv);
    assert_eq!(fast, general, "the routes disagree on {raw}");
    if let Ok(doc) = Json::parse(raw) {
        let as_json = Invocation { raw_output: Some(RawOutput::Json(doc)), ..inv };
        let as_json = Verifier::new(*policy).verify(&as_json);
        assert_eq!(fast, as_json, "raw_output and raw_output_text disagree");
    }
    fast
}

fn one(raw: &str, path: &str, text: &str) -> (RefReport, Vec<Warning>) {
    let verdict = verify_all(raw, &[(path, text)], &Policy::default());
    (verdict.refs[0].clone(), verdict.warnings)
}

fn verified_at(report: &RefReport) -> Option<&str> {
    (report.outcome == RefOutcome::Verified).then_some(report.matched_path.as_deref()).flatten()
}

#[test]
fn a_path_into_a_string_holding_json_is_run_on_the_expanded_view() {
    let (r, warnings) = one(MCP, "$.content[0].text.items[1].message", "disk full");
    assert_eq!(verified_at(&r), Some("$['content'][0]['text']['items'][1]['message']"));
    assert_eq!(r.rung, Some(Rung::Exact));
    assert_eq!(warnings, [Warning::DescendedIntoString]);
}

#[test]
fn json_pointers_descend_too() {
    let (r, warnings) = one(MCP, "/content/0/text/items/1/message", "disk full");
    assert_eq!(verified_at(&r), Some("$['content'][0]['text']['items'][1]['message']"));
    assert_eq!(warnings, [Warning::DescendedIntoString]);
}

#[test]
fn wildcard_descendant_and_filter_segments_see_the_expanded_view() {
    for path in
        ["$.content[*].text.items[*].message", "$..message", "$.content[0].text.items[?@.level=='error']"]
    {
        let (r, warnings) = one(MCP, path, "disk full");
        assert_eq!(verified_at(&r), Some("$['content'][0]['text']['items'][1]['message']"), "{path}");
        assert_eq!(warnings, [Warning::DescendedIntoString], "{path}");
    }
}

#[test]
fn the_document_as_written_comes_first() {
    // `$..message` selects the plain `message`, so the one inside the string is never seen.
    let raw = r#"{"message":"ok","data":"{\"message\":\"disk full\"}"}"#;
    let (r, warnings) = one(raw, "$..message", "disk full");
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    assert!(warnings.is_empty());
    // A path to the string itself searches the string as written.
    let (r, warnings) = one(MCP, "$.content[0].text", "disk full");
    assert_eq!(verified_at(&r), Some("$['content'][0]['text']"));
    assert!(warnings.is_empty());
}

#[test]
fn only_objects_and_arrays_are_held_json() {
    let raw = r#"{"a":"42","b":"true","c":"\"x\"","d":"{}","e":" [ ] ","f":"{broken","g":"[1] trailing"}"#;
    for path in ["$.a[0]", "$.b.x", "$.c.x", "$.f.x", "$.g[0]"] {
        assert_eq!(one(raw, path, "1").0.outcome, RefOutcome::PathNotFound, "{path}");
    }
    let doc = Json::parse(raw).unwrap();
    let found: Vec<_> = resolve("$.*[*]", &doc).unwrap().into_iter().map(|n| (n.path, n.descended)).collect();
    assert_eq!(found, [], "`{{}}` and `[ ]` hold JSON, but nothing in them");
    let found: Vec<_> = resolve("$.e", &doc).unwrap().into_iter().map(|n| n.descended).collect();
    assert_eq!(found, [false], "the string itself is selected as written");
}

#[test]
fn json_encoded_twice_is_expanded_twice() {
    let inner = json!({"logs": [{"line": "{\"msg\":\"OOMKilled\",\"pod\":\"api-7\"}"}]}).to_string();
    let raw = json!({"data": inner}).to_string();
    let (r, warnings) = one(&raw, "$.data.logs[0].line.msg", "OOMKilled");
    assert_eq!(verified_at(&r), Some("$['data']['logs'][0]['line']['msg']"));
    assert_eq!(warnings, [Warning::DescendedIntoString]);
}

#[test]
fn a_replaced_string_is_no_longer_a_leaf() {
    // The quote is a piece of the string's JSON syntax: on the expanded view it is nowhere.
    let (r, warnings) = one(MCP, "$.content[0].text.items", "\"message\":\"disk");
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    assert_eq!(warnings, [Warning::DescendedIntoString], "decided on the expanded view");
}

#[test]
fn a_path_that_selects_nothing_in_either_view_is_path_not_found_without_the_warning() {
    let (r, warnings) = one(MCP, "$.content[0].text.nope", "disk full");
    assert_eq!(r.outcome, RefOutcome::PathNotFound);
    assert!(warnings.is_empty());
}

#[test]
fn the_depth_limit_counts_through_replaced_strings() {
    // The string sits two containers deep and holds two more: the expanded view is 4 deep.
    let raw = r#"{"a":["[[\"deep\"]]"]}"#;
    let at = |max_depth| {
        let policy =
            Policy::default().with_limits(Limits::default().with(Limit::Depth, max_depth as i128).unwrap());
        verify_all(raw, &[("$.a[0][0][0]", "deep")], &policy)
    };
    assert_eq!(at(4).refs[0].outcome, RefOutcome::Verified);
    let over = at(3);
    assert_eq!(over.refs[0].outcome, RefOutcome::LimitExceeded);
    assert_eq!(over.warnings, [Warning::DescendedIntoString]);
    // The document as written is 2 deep: a ref that does not need the view is unaffected.
    assert_eq!(
        verify_all(raw, &[("$.a[0]", "deep")], &Policy::default()).refs[0].outcome,
        RefOutcome::Verified
    );
}

#[test]
fn the_node_limit_applies_to_what_the_expanded_view_selects() {
    let raw = json!({"data": json!({"rows": (0..10).collect::<Vec<_>>()}).to_string()}).to_string();
    let policy = |max_nodes| {
        Policy::default().with_limits(Limits::default().with(Limit::Nodes, max_nodes as i128).unwrap())
    };
    let refs = [("$.data.rows[*]", "9")];
    assert_eq!(verify_all(&raw, &refs, &policy(10)).refs[0].outcome, RefOutcome::Verified);
    assert_eq!(verify_all(&raw, &refs, &policy(9)).refs[0].outcome, RefOutcome::LimitExceeded);
}

#[test]
fn warnings_keep_their_order() {
    let details = json!({"evidence_refs": [
        {"raw_path": "$.content[0].text.items[1].message", "text": "disk full"},
        {"raw_path": "$.no_evidence", "text": ""}]});
    let inv = Invocation {
        id: 1,
        tool_name: "mcp".into(),
        invalid_utf8: true,
        retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
        raw_output: Some(RawOutput::Text(MCP.into())),
        ..Invocation::default()
    };
    let verdict = Verifier::default().verify(&inv);
    assert_eq!(
        verdict.warnings,
        [Warning::InvalidUtf8, Warning::MarkerWithRefs, Warning::DescendedIntoString]
    );
}

#[test]
fn many_refs_share_one_expanded_view() {
    // Each string is parsed once per invocation: 1,000 refs into a stringified output load
    // its document once and build its expanded view once, on every route.
    let items: Vec<_> = (0..20_000).map(|i| json!({"id": i, "message": format!("event {i}")})).collect();
    let raw = json!({"content": [{"type": "text", "text": json!({"items": items}).to_string()}]}).to_string();
    let refs: Vec<_> = (0..1_000)
        .map(|i| json!({"raw_path": format!("$.content[0].text.items[{}].message", i * 20), "text": "event"}))
        .collect();
    let details = json!({"evidence_status": "supported", "evidence_refs": refs}).to_string();
    let inv = Invocation {
        id: 1,
        tool_name: "mcp".into(),
        retrieval_details: Some(Json::parse(&details).unwrap()),
        raw_output: Some(RawOutput::Text(raw)),
        ..Invocation::default()
    };
    for verifier in [Verifier::default(), Verifier::default().tree_route_only()] {
        let verdict = verifier.verify(&inv);
        assert_eq!(verdict.refs.len(), 1_000);
        assert!(verdict.refs.iter().all(|r| r.outcome == RefOutcome::Verified));
        let taken = verifier.route_counts();
        assert_eq!(
            taken.located + taken.value + taken.tree,
            1,
            "the document loaded more than once: {taken:?}"
        );
        assert_eq!(taken.expanded, 1, "the expanded view built more than once: {taken:?}");
    }
}

#[test]
fn resolve_marks_the_nodes_it_selected_on_the_expanded_view() {
    let doc = Json::parse(MCP).unwrap();
    let found = resolve("$..message", &doc).unwrap();
    let found: Vec<_> = found.into_iter().map(|n| (n.path, n.value, n.descended)).collect();
    assert_eq!(
        found,
        [
            ("$['content'][0]['text']['items'][0]['message']".to_string(), "\"started\"".to_string(), true),
            (
                "$['content'][0]['text']['items'][1]['message']".to_string(),
                "\"disk full on /var\"".to_string(),
                true
            ),
        ]
    );
    let plain: Vec<_> = resolve("$.isError", &doc).unwrap().into_iter().map(|n| n.descended).collect();
    assert_eq!(plain, [false]);
}
