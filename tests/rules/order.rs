//! What leaves are (docs/verification.md#the-ladder) and their order (docs/verification.md#order),
//! and determinism: parallel equals sequential, byte for byte.

use super::*;

#[test]
fn numbers_match_by_their_text_as_written() {
    let doc = r#"{"p95": 0.950, "p50": 0.95, "n": 1e3, "m": 1000, "k": 3E2, "huge": 1E+400, "neg": -0.0}"#;
    assert_eq!(hit("$.p95", "0.950", doc), Some((Rung::Exact, "$['p95']".into())));
    assert_eq!(hit("$.p50", "0.950", doc), None, "0.95 is not 0.950");
    assert_eq!(hit("$.n", "1e3", doc), Some((Rung::Exact, "$['n']".into())));
    assert_eq!(hit("$.n", "1000", doc), None, "1e3 is not 1000");
    assert_eq!(hit("$.n", "1e+3", doc), None, "the text is not serde_json's rewrite");
    assert_eq!(hit("$.m", "1e3", doc), None, "1000 is not 1e3");
    assert_eq!(hit("$.k", "3E2", doc), Some((Rung::Exact, "$['k']".into())));
    assert_eq!(hit("$.huge", "1E+400", doc), Some((Rung::Exact, "$['huge']".into())));
    assert_eq!(hit("$.neg", "-0.0", doc), Some((Rung::Exact, "$['neg']".into())));
}

#[test]
fn numbers_match_by_their_text_through_general_paths_too() {
    let doc = r#"{"m": [1000, 1e3, 3E2, 0.950, 1E+400]}"#;
    assert_eq!(hit("$.m[*]", "1e3", doc), Some((Rung::Exact, "$['m'][1]".into())));
    assert_eq!(hit("$..m[1:]", "3E2", doc), Some((Rung::Exact, "$['m'][2]".into())));
    assert_eq!(hit("$.m[*]", "1e+3", doc), None, "the text is not serde_json's rewrite");
    assert_eq!(hit("$.m[?@ > 999]", "0.950", doc), None);
    assert_eq!(hit("$[?@[3] == 0.95]", "0.950", doc), Some((Rung::Exact, "$['m'][3]".into())));
}

#[test]
fn huge_numbers_compare_with_nothing() {
    // serde_json gives a number beyond f64 no value, and serde_json_path defines `>` as "not
    // `<` and not `==`": so `==`, `<`, `<=` are false and `!=`, `>`, `>=` true, either sign.
    let doc = r#"{"m": [{"v": 1E+400, "n": "huge"}, {"v": 5, "n": "five"}, {"v": -1e999, "n": "tiny"}]}"#;
    for (path, text, expected) in [
        ("$.m[?@.v == 1E+400].n", "huge", None),
        ("$.m[?@.v < 1].n", "tiny", None),
        ("$.m[?@.v <= 1].n", "tiny", None),
        ("$.m[?@.v > 1].n", "five", Some("$['m'][1]['n']")),
        ("$.m[?@.v > 1].n", "tiny", Some("$['m'][2]['n']")),
        ("$.m[?@.v >= 1].n", "huge", Some("$['m'][0]['n']")),
        ("$.m[?@.v != 5].n", "huge", Some("$['m'][0]['n']")),
    ] {
        assert_eq!(one(path, text, Some(doc)).matched_path, expected.map(String::from), "{path} {text}");
    }
}

#[test]
fn numbers_beyond_f64_keep_their_text_in_resolve() {
    let doc = Json::parse(r#"{"huge": 1E+400, "p": 0.950, "big": 123456789012345678901234567890}"#).unwrap();
    let values: Vec<String> = resolve("$.*", &doc).unwrap().into_iter().map(|n| n.value).collect();
    assert_eq!(values, ["1E+400", "0.950", "123456789012345678901234567890"]);
    assert_eq!(doc.to_json_string(), r#"{"huge":1E+400,"p":0.950,"big":123456789012345678901234567890}"#);
}

#[test]
fn true_false_null_match_by_those_words() {
    let doc = r#"{"ok": true, "failed": false, "error": null}"#;
    assert_eq!(hit("$", "true", doc), Some((Rung::Exact, "$['ok']".into())));
    assert_eq!(hit("$", "false", doc), Some((Rung::Exact, "$['failed']".into())));
    assert_eq!(hit("$", "null", doc), Some((Rung::Exact, "$['error']".into())));
    assert_eq!(hit("$", "TRUE", doc), Some((Rung::Normalized, "$['ok']".into())));
    assert_eq!(hit("$", "1", doc), None);
}

#[test]
fn object_keys_are_never_searched() {
    let doc = r#"{"connection refused": 1, "message": {"timeout": "x"}}"#;
    assert_eq!(hit("$", "connection refused", doc), None);
    assert_eq!(hit("$", "message", doc), None);
    assert_eq!(hit("$", "timeout", doc), None);
    assert_eq!(hit("$.message", "timeout", doc), None);
}

#[test]
fn matched_path_of_a_nested_leaf() {
    let doc = r#"{"a":{"b":[{"c":"nope"},{"d":[1,{"e":"the needle here"}]}]}}"#;
    assert_eq!(hit("$", "needle", doc), Some((Rung::Exact, "$['a']['b'][1]['d'][1]['e']".into())));
    assert_eq!(hit("$.a.b[1]", "needle", doc), Some((Rung::Exact, "$['a']['b'][1]['d'][1]['e']".into())));
    let doc = r#"{"it's":{"a\\b\n":"needle"}}"#;
    assert_eq!(hit("$", "needle", doc), Some((Rung::Exact, r"$['it\'s']['a\\b\n']".into())));
}

#[test]
fn descendant_segment_selects_in_pre_order() {
    // A node's own selections come before its descendants': `$['m']` of the root comes
    // before the deeper `m`, although the deeper one comes first in the document.
    let doc = r#"{"x":{"y":{"m":"hit deep"}},"m":"hit shallow"}"#;
    assert_eq!(hit("$..m", "hit", doc), Some((Rung::Exact, "$['m']".into())));
    let parsed = Json::parse(doc).unwrap();
    let paths: Vec<String> = resolve("$..m", &parsed).unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, ["$['m']", "$['x']['y']['m']"]);
    let doc = Json::parse(r#"{"a":{"b":1},"c":[2,{"d":3}]}"#).unwrap();
    let paths: Vec<String> = resolve("$..*", &doc).unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, ["$['a']", "$['c']", "$['a']['b']", "$['c'][0]", "$['c'][1]", "$['c'][1]['d']"]);
}

#[test]
fn leaves_within_a_node_are_visited_depth_first_in_document_order() {
    let doc = r#"{"z":{"y":["no",{"x":"hit one"}]},"a":"hit two"}"#;
    assert_eq!(hit("$", "hit", doc), Some((Rung::Exact, "$['z']['y'][1]['x']".into())));
}

#[test]
fn members_keep_document_order_and_duplicates_keep_last_value_at_first_position() {
    let doc = r#"{"z":"hit z","a":"hit a"}"#;
    assert_eq!(hit("$.*", "hit", doc), Some((Rung::Exact, "$['z']".into())));
    let doc = r#"{"a":"first hit","b":"second hit","a":"third hit"}"#;
    assert_eq!(hit("$.*", "hit", doc), Some((Rung::Exact, "$['a']".into())));
    assert_eq!(hit("$.*", "third", doc), Some((Rung::Exact, "$['a']".into())));
    assert_eq!(hit("$", "first", doc), None, "the earlier value of a repeated key is gone");
    let parsed = Json::parse(doc).unwrap();
    let nodes: Vec<(String, String)> =
        resolve("$.*", &parsed).unwrap().into_iter().map(|n| (n.path, n.value)).collect();
    assert_eq!(
        nodes,
        [
            ("$['a']".to_string(), "\"third hit\"".to_string()),
            ("$['b']".to_string(), "\"second hit\"".to_string())
        ]
    );
}

/// The report built one invocation at a time, with no parallelism at all.
fn sequential_report(runs: &[Run], policy: &Policy) -> Report {
    Report::new(
        runs.iter()
            .map(|run| {
                let mut verdicts: Vec<Verdict> =
                    run.invocations.iter().map(|i| Verifier::new(*policy).verify(i)).collect();
                verdicts.sort_by_key(|v| v.id);
                RunReport {
                    run_id: run.run_id.clone(),
                    session_id: run.session_id.clone(),
                    summary: Summary::of(&verdicts),
                    invocations: verdicts,
                }
            })
            .collect(),
    )
}

#[test]
fn determinism_parallel_equals_sequential_byte_for_byte() {
    let runs = vec![generated_run("run-a", 200), generated_run("run-b", 37)];
    let policy = Policy::default();
    let expected = serde_json::to_string(&sequential_report(&runs, &policy)).unwrap();
    assert_eq!(serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap(), expected);
    // Many callers at once (the Verifier stage calls the library from several threads).
    let got: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for g in got {
        assert_eq!(g, expected);
    }
    // Every row got a verdict.
    let report = Verifier::new(policy).verify_runs(&runs);
    assert_eq!(report.runs[0].invocations.len(), 200);
    assert_eq!(report.runs[1].invocations.len(), 37);
}

#[test]
fn determinism_one_thread_equals_four_threads() {
    let runs = vec![generated_run("run-a", 200)];
    let policy = Policy::default();
    let in_pool = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| serde_json::to_string(&Verifier::new(policy).verify_runs(&runs)).unwrap())
    };
    assert_eq!(in_pool(1), in_pool(4));
}
