//! Verification under the work budget: a path whose evaluation would visit more nodes than
//! the budget allows (descendant segments nested in filters, each run once per node its
//! filter tests) is `limit_exceeded` with the node limit, decided before it runs; each
//! command runs under `timeout 60` in a child, so a path the budget misses fails the test
//! (exit 124) instead of hanging it.

use serde_json::{json, Value};

use crate::harness::{run_shell, temp_dir, write};

/// A chain of `depth` containers (`{"a":{"a":…}}` or `[[…]]`) around `{"b":"needle"}`.
fn chain(depth: usize, objects: bool) -> String {
    let (open, close) = if objects { ("{\"a\":", "}") } else { ("[", "]") };
    format!("{}{{\"b\":\"needle\"}}{}", open.repeat(depth), close.repeat(depth))
}

/// Verifies one ref (`path`, text `needle`) over `raw` with `flags`: the ref's outcome and
/// limit.
fn verify(raw: &str, path: &str, flags: &str) -> (Value, Value) {
    let dir = temp_dir();
    let bundle = json!({"run_id": "run-work", "invocations": [{
        "id": 1, "tool_name": "query_logs", "success": true, "raw_output_text": raw,
        "retrieval_details": {"evidence_status": "supported",
            "evidence_refs": [{"raw_path": path, "text": "needle"}]}}]});
    write(dir.path(), "bundle.json", bundle.to_string());
    let out = run_shell(
        dir.path(),
        &format!("exec timeout 60 groundcheck verify --format json {flags} bundle.json"),
    );
    assert_eq!(out.code, 0, "{path}: {}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let reference = &report["runs"][0]["invocations"][0]["refs"][0];
    (reference["outcome"].clone(), reference["limit"].clone())
}

/// `$..[?@..[?@..[?@..b]]]` on a chain 1,000 deep would visit about the depth to the fourth
/// power over 24 nodes (before: it never ended); eight nested descendant filters on a
/// 512-deep document, more still. Both are `limit_exceeded` (nodes) at once, for a chain of
/// objects and of arrays; one descendant filter on the same chain verifies.
#[test]
fn descendant_segments_nested_in_filters_are_limit_exceeded() {
    for objects in [true, false] {
        let deep = chain(998, objects);
        let raised = "--max-depth 1000";
        let nested = "$..[?@..[?@..[?@..b]]]";
        assert_eq!(verify(&deep, nested, raised), (json!("limit_exceeded"), json!("nodes")), "{objects}");
        assert_eq!(verify(&deep, "$..[?@..b]", raised).0, json!("verified"), "{objects}");
        let eight = format!("$..{}b{}", "[?@..".repeat(8), "]".repeat(8));
        let shallower = chain(510, objects);
        assert_eq!(verify(&shallower, &eight, ""), (json!("limit_exceeded"), json!("nodes")), "{objects}");
    }
}

/// A general path runs on a tree of the whole document, whose memory grows with its values,
/// not its bytes: an array of 4,000,000 zeros (8 MB of text) built about 800 MB of tree for
/// `$[?@ == 1]`. A text of more than 16 times `--max-nodes` values is `limit_exceeded`
/// (nodes) for a general path, before any tree is built (the command runs in an address space
/// of 512 MiB here, where the tree could not be built); a singular path on the same text is
/// located without a tree and verifies.
#[test]
fn a_general_path_on_a_text_of_more_values_than_the_budget_is_limit_exceeded() {
    let zeros = format!("[{}1]", "0,".repeat(4_000_000));
    let dir = temp_dir();
    let bundle = json!({"run_id": "run-values", "invocations": [{
        "id": 1, "tool_name": "query_metrics", "success": true, "raw_output_text": zeros,
        "retrieval_details": {"evidence_status": "supported",
            "evidence_refs": [{"raw_path": "$[?@ == 1]", "text": "1"}, {"raw_path": "$[4000000]", "text": "1"}]}}]});
    write(dir.path(), "bundle.json", bundle.to_string());
    let refs = |flags: &str| {
        let script =
            format!("ulimit -v 524288; exec timeout 60 groundcheck verify --format json {flags} bundle.json");
        let out = run_shell(dir.path(), &script);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let refs = report["runs"][0]["invocations"][0]["refs"].as_array().unwrap().clone();
        refs.iter().map(|r| (r["outcome"].clone(), r["limit"].clone())).collect::<Vec<_>>()
    };
    // Both refs reach the one document, loaded for the general path: the node limit is theirs.
    let over = (json!("limit_exceeded"), json!("nodes"));
    assert_eq!(refs(""), [over.clone(), over]);

    let single = json!({"run_id": "run-values", "invocations": [{
        "id": 1, "tool_name": "query_metrics", "success": true,
        "raw_output_text": format!("[{}1]", "0,".repeat(4_000_000)),
        "retrieval_details": {"evidence_status": "supported",
            "evidence_refs": [{"raw_path": "$[4000000]", "text": "1"}]}}]});
    write(dir.path(), "bundle.json", single.to_string());
    assert_eq!(refs(""), [(json!("verified"), Value::Null)]);
}
