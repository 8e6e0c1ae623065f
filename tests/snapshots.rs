//! Insta snapshots of the report of every fixture, and of the `human` output.
//!
//! Every `fixtures/**/*.json` is a bundle except what lies under `fixtures/sessions/`: the
//! raw-output files a `--raw-outputs` template reads (tool outputs, not bundles).
//!
//! Reports hold nothing time- or machine-dependent, so a changed snapshot is a changed
//! verdict. Review changes with `cargo insta review`; under `CI=true` insta never writes.

use crate::harness::{repo, run};

#[test]
fn every_fixture_json_report() {
    let sessions = repo("fixtures/sessions").canonicalize().expect("fixtures/sessions exists");
    insta::glob!("../fixtures", "**/*.json", |path| {
        if path.starts_with(&sessions) {
            return;
        }
        let out = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), path.as_os_str()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        insta::assert_snapshot!(out.stdout);
    });
}

#[test]
fn human_output_of_all_fixtures() {
    let out = run(["verify", "fixtures"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn strictest_policy_over_all_fixtures() {
    let out = run(["verify", "--format", "jsonl", "--require", "any", "--match", "exact", "fixtures"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

/// Fixture 24 with its session folder (`fixtures/sessions/README.md` gives every verdict):
/// files plain, `.gz` (found beside the name the template gives) and `.zst`; one missing, one
/// a folder, one row whose `session_id` would leave the folder, one row whose own raw output
/// wins over its file.
#[test]
fn fixture_24_with_its_raw_output_files() {
    let out = run([
        "verify",
        "--format",
        "json",
        "--raw-outputs",
        "fixtures/sessions/{session_id}/tools/{id}.json",
        "fixtures/24_raw_output_files.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let invocations = report["runs"][0]["invocations"].as_array().unwrap();
    let seen: Vec<(i64, &str, &str, Vec<&str>)> = invocations
        .iter()
        .map(|inv| {
            let warnings = inv["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
            (
                inv["id"].as_i64().unwrap(),
                inv["source"].as_str().unwrap(),
                inv["status"].as_str().unwrap(),
                warnings,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (2401, "file", "supported", vec![]),
            (2402, "file", "supported", vec![]),
            (2403, "file", "supported", vec!["descended_into_string"]),
            (2404, "file", "supported", vec![]),
            (2405, "file", "unsupported", vec![]),
            (2406, "none", "unsupported", vec!["raw_output_missing"]),
            (2407, "preview", "supported", vec!["raw_output_unreadable"]),
            (2408, "none", "unsupported", vec!["raw_output_path_unsafe"]),
            (2409, "raw_output", "supported", vec![]),
        ]
    );
    insta::assert_snapshot!(out.stdout);
}

/// The near-miss fixture, one `jsonl` report per `--min-score` of the fuzzy rung. The refs
/// that flip at each threshold are checked by hand in `near_miss_flips_by_threshold`.
#[test]
fn near_misses_under_the_fuzzy_rung() {
    for min_score in NEAR_MISS_THRESHOLDS {
        let out =
            run(["verify", "--format", "jsonl", "--match", "fuzzy", "--min-score", min_score, NEAR_MISSES]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        insta::with_settings!({ snapshot_suffix => min_score }, {
            insta::assert_snapshot!(out.stdout);
        });
    }
}

const NEAR_MISSES: &str = "fixtures/25_near_misses.json";
const NEAR_MISS_THRESHOLDS: [&str; 4] = ["0.800", "0.900", "0.950", "1.000"];

/// Each ref of the near-miss fixture as `(id, index)` with what the report says about it.
fn near_miss_refs(args: &[&str]) -> Vec<((i64, u64), serde_json::Value)> {
    let out = run([&["verify", "--format", "jsonl"][..], args, &[NEAR_MISSES]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut refs = Vec::new();
    for line in out.stdout.lines() {
        let inv: serde_json::Value = serde_json::from_str(line).unwrap();
        for r in inv["refs"].as_array().unwrap() {
            refs.push(((inv["id"].as_i64().unwrap(), r["index"].as_u64().unwrap()), r.clone()));
        }
    }
    refs
}

/// `(id, status/reason)` of every invocation of the near-miss fixture.
fn near_miss_statuses(args: &[&str]) -> Vec<(i64, String)> {
    let out = run([&["verify", "--format", "jsonl"][..], args, &[NEAR_MISSES]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .map(|line| {
            let inv: serde_json::Value = serde_json::from_str(line).unwrap();
            let status = format!("{}/{}", inv["status"].as_str().unwrap(), inv["reason"].as_str().unwrap());
            (inv["id"].as_i64().unwrap(), status)
        })
        .collect()
}

/// A score as the report writes it: three decimals, as written (`arbitrary_precision`).
fn score_text(v: &serde_json::Value) -> String {
    v.as_number().map(|n| n.to_string()).unwrap_or_else(|| format!("not a number: {v}"))
}

/// A ref (invocation id, index) with its outcome, `nearest` (score, path, text) and `elsewhere`.
type Expected =
    ((i64, u64), &'static str, Option<(&'static str, String, &'static str)>, Option<&'static str>);

/// A ref the fuzzy rung verifies: invocation id, index, score and matched path.
type Flip = (i64, u64, &'static str, String);

/// Scores computed by hand in fixtures/README.md (`25_near_misses.json`: m, d and the
/// substring of each): `nearest` under the default policy, which refs the fuzzy rung verifies
/// at each threshold (with their score and the leaf: the *first* selected leaf reaching the
/// threshold, not the best), and the invocation verdicts that follow.
#[test]
fn near_miss_flips_by_threshold() {
    let lines = |s: usize, v: usize| format!("$['data']['result'][{s}]['values'][{v}][1]");
    let hikari = "$['data'][0]['spans'][2]['logs'][0]['fields'][1]['value']";
    let items2 = "$['content'][0]['text']['items'][2]['message']";

    // Default policy: (id, index) -> (outcome, nearest score / path / text, elsewhere).
    let nearest: Vec<Expected> = vec![
        ((2501, 0), "text_not_found", Some(("0.941", lines(0, 0), "connection refused")), None),
        ((2501, 1), "text_not_found", Some(("0.888", lines(0, 0), "connection refused")), None),
        (
            (2501, 2),
            "text_not_found",
            Some(("0.982", lines(0, 1), "connection is not available, request timed out after 3000ms")),
            None,
        ),
        ((2501, 3), "text_not_found", Some(("0.916", lines(0, 2), "支付服务数据库连接池耗尽")), None),
        ((2501, 4), "text_not_found", Some(("0.916", lines(0, 3), "took 1500 ms")), None),
        (
            (2502, 0),
            "text_not_found",
            Some(("0.977", lines(1, 2), "upstream payment-gateway timed out, giving up")),
            None,
        ),
        ((2502, 1), "text_not_found", Some(("1.000", lines(0, 0), "timed out after 300")), None),
        ((2502, 2), "text_not_found", Some(("0.750", lines(1, 0), "150")), None),
        (
            (2503, 0),
            "text_not_found",
            Some(("0.800", "$['data']['result'][0]['value'][1]".into(), "0.95")),
            None,
        ),
        (
            (2503, 1),
            "text_not_found",
            Some(("1.000", "$['data']['result'][1]['value'][1]".into(), "0.99")),
            None,
        ),
        (
            (2504, 0),
            "text_not_found",
            Some((
                "0.972",
                "$['alerts'][0]['annotations']['description']".into(),
                "availability of payment-svc is 0.95",
            )),
            None,
        ),
        (
            (2504, 1),
            "text_not_found",
            Some(("0.800", "$['alerts'][0]['annotations']['description']".into(), "0.95")),
            None,
        ),
        ((2504, 2), "verified", None, None),
        (
            (2505, 0),
            "text_not_found",
            Some((
                "0.800",
                "$['data'][0]['spans'][1]['logs'][0]['fields'][1]['value']".into(),
                "eway timed out after 3000ms",
            )),
            Some(hikari),
        ),
        ((2505, 1), "path_not_found", None, Some(hikari)),
        (
            (2505, 2),
            "text_not_found",
            Some(("0.666", "$['data'][0]['spans'][1]['tags'][0]['value']".into(), "50")),
            None,
        ),
        ((2505, 3), "verified", None, None),
        (
            (2506, 0),
            "text_not_found",
            Some(("0.750", "$['items'][1]['message']".into(), "restarting failed container")),
            None,
        ),
        (
            (2506, 1),
            "text_not_found",
            Some((
                "0.880",
                "$['items'][2]['message']".into(),
                "memory cgroup out of memory: killed process ",
            )),
            None,
        ),
        (
            (2506, 2),
            "text_not_found",
            Some(("0.416", "$['items'][0]['message']".into(), "stopping container")),
            Some("$['items'][1]['message']"),
        ),
        ((2506, 3), "text_not_found", None, None),
        (
            (2507, 0),
            "text_not_found",
            Some((
                "0.740",
                "$['content'][0]['text']['items'][1]['message']".into(),
                "pool \"payment-db\" at",
            )),
            Some(items2),
        ),
        (
            (2507, 1),
            "text_not_found",
            Some(("0.925", "$['content'][0]['text']".into(), r#"pool \"payment-db\" exhausted"#)),
            Some(items2),
        ),
        ((2507, 2), "path_not_found", None, Some(items2)),
        ((2507, 3), "verified", None, None),
    ];
    let default = near_miss_refs(&[]);
    let keys: Vec<_> = default.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, nearest.iter().map(|(k, ..)| *k).collect::<Vec<_>>(), "every ref, in order");
    for ((key, r), (_, outcome, near, elsewhere)) in default.iter().zip(&nearest) {
        assert_eq!(r["outcome"], *outcome, "{key:?}");
        match near {
            Some((score, path, text)) => {
                assert_eq!(score_text(&r["nearest"]["score"]), *score, "{key:?} nearest score");
                assert_eq!(r["nearest"]["path"], path.as_str(), "{key:?} nearest path");
                assert_eq!(r["nearest"]["text"], *text, "{key:?} nearest text");
            }
            None => assert!(r.get("nearest").is_none(), "{key:?} has no nearest: {r}"),
        }
        match elsewhere {
            Some(path) => assert_eq!(r["elsewhere"], *path, "{key:?} elsewhere"),
            None => assert!(r.get("elsewhere").is_none(), "{key:?} has no elsewhere: {r}"),
        }
    }

    // The fuzzy rung: the refs it verifies at each threshold, (id, index, score, matched_path).
    let spans1 = "$['data'][0]['spans'][1]['logs'][0]['fields'][1]['value']".to_string();
    let flips: [(&str, Vec<Flip>); 4] = [
        (
            "0.800",
            vec![
                (2501, 0, "0.941", lines(0, 0)),
                (2501, 1, "0.888", lines(0, 0)),
                (2501, 2, "0.982", lines(0, 1)),
                (2501, 3, "0.916", lines(0, 2)),
                (2501, 4, "0.916", lines(0, 3)),
                (2502, 0, "0.818", lines(0, 0)),
                (2503, 0, "0.800", "$['data']['result'][0]['value'][1]".into()),
                (2505, 0, "0.800", spans1.clone()),
                (2506, 1, "0.880", "$['items'][2]['message']".into()),
                (2507, 1, "0.925", "$['content'][0]['text']".into()),
            ],
        ),
        (
            "0.900",
            vec![
                (2501, 0, "0.941", lines(0, 0)),
                (2501, 2, "0.982", lines(0, 1)),
                (2501, 3, "0.916", lines(0, 2)),
                (2501, 4, "0.916", lines(0, 3)),
                (2502, 0, "0.931", lines(0, 1)),
                (2507, 1, "0.925", "$['content'][0]['text']".into()),
            ],
        ),
        ("0.950", vec![(2501, 2, "0.982", lines(0, 1)), (2502, 0, "0.977", lines(1, 2))]),
        ("1.000", vec![]),
    ];
    for (min_score, expected) in &flips {
        let refs = near_miss_refs(&["--match", "fuzzy", "--min-score", min_score]);
        let fuzzy: Vec<(i64, u64, String, String)> = refs
            .iter()
            .filter(|(_, r)| r["match"] == "fuzzy")
            .map(|((id, index), r)| {
                assert_eq!(r["outcome"], "verified", "{id}/{index}");
                let path = r["matched_path"].as_str().unwrap().to_string();
                (*id, *index, score_text(&r["score"]), path)
            })
            .collect();
        let expected: Vec<(i64, u64, String, String)> =
            expected.iter().map(|(id, i, s, p)| (*id, *i, s.to_string(), p.clone())).collect();
        assert_eq!(fuzzy, expected, "fuzzy rung at --min-score {min_score}");
        // Everything else reads as under the default policy: `nearest` and `elsewhere` do
        // not depend on the threshold, and no other rung is affected.
        for ((key, r), (_, d)) in refs.iter().zip(&default) {
            if r["match"] != "fuzzy" {
                assert_eq!(r, d, "{key:?} at --min-score {min_score}");
            } else {
                assert!(r.get("nearest").is_none() && r.get("elsewhere").is_none(), "{key:?}: {r}");
            }
        }
    }

    // The verdicts: 2501 is all light edits, so it is supported from 0.800; nothing else
    // ever is (each holds a ref that only a split number, an invention or a wrong path gives).
    let partly = "unsupported/partially_verified";
    let not = "unsupported/not_verified";
    let default_statuses = [not, not, not, partly, partly, not, partly];
    let by_threshold = [
        ("0.800", ["supported/verified", partly, partly, partly, partly, partly, partly]),
        ("0.900", [partly, partly, not, partly, partly, not, partly]),
        ("0.950", [partly, partly, not, partly, partly, not, partly]),
        ("1.000", default_statuses),
    ];
    let ids = [2501, 2502, 2503, 2504, 2505, 2506, 2507];
    let with =
        |statuses: [&str; 7]| ids.iter().zip(statuses).map(|(i, s)| (*i, s.to_string())).collect::<Vec<_>>();
    assert_eq!(near_miss_statuses(&[]), with(default_statuses), "default policy");
    for (min_score, statuses) in by_threshold {
        assert_eq!(
            near_miss_statuses(&["--match", "fuzzy", "--min-score", min_score]),
            with(statuses),
            "--min-score {min_score}"
        );
    }
    // The default threshold is 0.900.
    assert_eq!(
        near_miss_refs(&["--match", "fuzzy"]),
        near_miss_refs(&["--match", "fuzzy", "--min-score", "0.900"])
    );
}

/// The HTML evidence page of a few fixtures, byte for byte: a run with every tool kind (01),
/// the match ladder (12), near misses and mis-pointed refs (25), refs decided on the YAML and
/// JSON Lines views of texts (26: shown inside the view), and the hostile payloads (all
/// escaped). The page is also the same bytes with one thread or several.
#[test]
fn evidence_pages() {
    for name in [
        "01_order_svc_5xx_spike.json",
        "12_match_ladder.json",
        "25_near_misses.json",
        "26_yaml_and_json_lines.json",
        "hostile/16_html_payloads.json",
    ] {
        let path = format!("fixtures/{name}");
        let out = run(["verify", "--format", "html", &path]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        for threads in ["1", "2"] {
            let again = crate::harness::run_with(
                ["verify", "--format", "html", &path],
                &[("RAYON_NUM_THREADS", threads)],
                None,
            );
            assert!(again.stdout == out.stdout, "{name}: the page differs on {threads} thread(s)");
        }
        insta::with_settings!({ snapshot_suffix => name.replace('/', "__") }, {
            insta::assert_snapshot!(out.stdout);
        });
    }
}
