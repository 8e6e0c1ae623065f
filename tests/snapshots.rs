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

/// Each ref of the near-miss fixture under the default policy: `id/index | outcome | nearest`,
/// the nearest leaf as `score path "text"` (its text quoted, to keep its spaces) or `-`.
/// Paths are written with dots (`data.result[0].values[1][1]`), as [`report_path`] reads them.
const NEAREST: &str = r#"
2501/0 | text_not_found | 0.941 data.result[0].values[0][1] "connection refused"
2501/1 | text_not_found | 0.888 data.result[0].values[0][1] "connection refused"
2501/2 | text_not_found | 0.982 data.result[0].values[1][1] "connection is not available, request timed out after 3000ms"
2501/3 | text_not_found | 0.916 data.result[0].values[2][1] "支付服务数据库连接池耗尽"
2501/4 | text_not_found | 0.916 data.result[0].values[3][1] "took 1500 ms"
2502/0 | text_not_found | 0.977 data.result[1].values[2][1] "upstream payment-gateway timed out, giving up"
2502/1 | text_not_found | 1.000 data.result[0].values[0][1] "timed out after 300"
2502/2 | text_not_found | 0.750 data.result[1].values[0][1] "150"
2503/0 | text_not_found | 0.800 data.result[0].value[1] "0.95"
2503/1 | text_not_found | 1.000 data.result[1].value[1] "0.99"
2504/0 | text_not_found | 0.972 alerts[0].annotations.description "availability of payment-svc is 0.95"
2504/1 | text_not_found | 0.800 alerts[0].annotations.description "0.95"
2504/2 | verified       | -
2505/0 | text_not_found | 0.800 data[0].spans[1].logs[0].fields[1].value "eway timed out after 3000ms"
2505/1 | path_not_found | -
2505/2 | text_not_found | 0.666 data[0].spans[1].tags[0].value "50"
2505/3 | verified       | -
2506/0 | text_not_found | 0.750 items[1].message "restarting failed container"
2506/1 | text_not_found | 0.880 items[2].message "memory cgroup out of memory: killed process "
2506/2 | text_not_found | 0.416 items[0].message "stopping container"
2506/3 | text_not_found | -
2507/0 | text_not_found | 0.740 content[0].text.items[1].message "pool "payment-db" at"
2507/1 | text_not_found | 0.925 content[0].text "pool \"payment-db\" exhausted"
2507/2 | path_not_found | -
2507/3 | verified       | -
"#;

/// The refs of [`NEAREST`] with an `elsewhere` under the default policy (`id/index | path`);
/// every other ref has none.
const ELSEWHERE: &str = "
2505/0 | data[0].spans[2].logs[0].fields[1].value
2505/1 | data[0].spans[2].logs[0].fields[1].value
2506/2 | items[1].message
2507/0 | content[0].text.items[2].message
2507/1 | content[0].text.items[2].message
2507/2 | content[0].text.items[2].message
";

/// The refs the fuzzy rung verifies at each `--min-score`, in report order:
/// `threshold | id/index | score | matched path` (the *first* selected leaf reaching the
/// threshold, not the best: 2502/0). A threshold without a row verifies none.
const FUZZY: &str = "
0.800 | 2501/0 | 0.941 | data.result[0].values[0][1]
0.800 | 2501/1 | 0.888 | data.result[0].values[0][1]
0.800 | 2501/2 | 0.982 | data.result[0].values[1][1]
0.800 | 2501/3 | 0.916 | data.result[0].values[2][1]
0.800 | 2501/4 | 0.916 | data.result[0].values[3][1]
0.800 | 2502/0 | 0.818 | data.result[0].values[0][1]
0.800 | 2503/0 | 0.800 | data.result[0].value[1]
0.800 | 2505/0 | 0.800 | data[0].spans[1].logs[0].fields[1].value
0.800 | 2506/1 | 0.880 | items[2].message
0.800 | 2507/1 | 0.925 | content[0].text
0.900 | 2501/0 | 0.941 | data.result[0].values[0][1]
0.900 | 2501/2 | 0.982 | data.result[0].values[1][1]
0.900 | 2501/3 | 0.916 | data.result[0].values[2][1]
0.900 | 2501/4 | 0.916 | data.result[0].values[3][1]
0.900 | 2502/0 | 0.931 | data.result[0].values[1][1]
0.900 | 2507/1 | 0.925 | content[0].text
0.950 | 2501/2 | 0.982 | data.result[0].values[1][1]
0.950 | 2502/0 | 0.977 | data.result[1].values[2][1]
";

/// The verdict of each invocation, by policy: the default, then `--match fuzzy` at each
/// `--min-score`. 2501 is all light edits, so it is supported from 0.800; nothing else ever
/// is (each holds a ref that only a split number, an invention or a wrong path gives).
const STATUSES: &str = "
policy  | 2501      | 2502   | 2503   | 2504   | 2505   | 2506   | 2507
default | not       | not    | not    | partly | partly | not    | partly
0.800   | supported | partly | partly | partly | partly | partly | partly
0.900   | partly    | partly | not    | partly | partly | not    | partly
0.950   | partly    | partly | not    | partly | partly | not    | partly
1.000   | not       | not    | not    | partly | partly | not    | partly
";

/// The rows of a table: each non-empty line's cells, split at ` | ` and trimmed.
fn rows(table: &str) -> Vec<Vec<&str>> {
    table.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(" | ").map(str::trim).collect()).collect()
}

/// A ref's `id/index` as the key [`near_miss_refs`] gives it.
fn ref_key(cell: &str) -> (i64, u64) {
    let (id, index) = cell.split_once('/').expect("id/index");
    (id.parse().unwrap(), index.parse().unwrap())
}

/// The normalized path the report writes for a dotted one: `data.result[0].value[1]` is
/// `$['data']['result'][0]['value'][1]`.
fn report_path(dotted: &str) -> String {
    let mut path = String::from("$");
    for segment in dotted.split('.') {
        let (name, indexes) = segment.split_at(segment.find('[').unwrap_or(segment.len()));
        path.push_str(&format!("['{name}']{indexes}"));
    }
    path
}

/// Scores computed by hand in fixtures/README.md (`25_near_misses.json`: m, d and the
/// substring of each), held in the tables above: `nearest` and `elsewhere` under the default
/// policy, which refs the fuzzy rung verifies at each threshold, and the invocation verdicts
/// that follow. Under the fuzzy rung every other ref reads as under the default policy.
#[test]
fn near_miss_flips_by_threshold() {
    let default = near_miss_refs(&[]);
    let nearest = rows(NEAREST);
    let keys: Vec<_> = default.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, nearest.iter().map(|row| ref_key(row[0])).collect::<Vec<_>>(), "every ref, in order");
    let elsewhere: Vec<((i64, u64), String)> =
        rows(ELSEWHERE).iter().map(|row| (ref_key(row[0]), report_path(row[1]))).collect();
    for ((key, r), row) in default.iter().zip(&nearest) {
        assert_eq!(r["outcome"], row[1], "{key:?}");
        match row[2].split_once(' ') {
            Some((score, rest)) => {
                let (path, text) = rest.split_once(' ').expect("score path \"text\"");
                let text = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).expect("a quoted text");
                assert_eq!(score_text(&r["nearest"]["score"]), score, "{key:?} nearest score");
                assert_eq!(r["nearest"]["path"], report_path(path), "{key:?} nearest path");
                assert_eq!(r["nearest"]["text"], text, "{key:?} nearest text");
            }
            None => assert!(row[2] == "-" && r.get("nearest").is_none(), "{key:?} has no nearest: {r}"),
        }
        match elsewhere.iter().find(|(k, _)| k == key) {
            Some((_, path)) => assert_eq!(r["elsewhere"], path.as_str(), "{key:?} elsewhere"),
            None => assert!(r.get("elsewhere").is_none(), "{key:?} has no elsewhere: {r}"),
        }
    }
    assert!(elsewhere.iter().all(|(k, _)| keys.contains(k)), "ELSEWHERE names refs of the fixture");

    let fuzzy_rows = rows(FUZZY);
    assert!(fuzzy_rows.iter().all(|row| NEAR_MISS_THRESHOLDS.contains(&row[0])), "{FUZZY}");
    for min_score in NEAR_MISS_THRESHOLDS {
        let refs = near_miss_refs(&["--match", "fuzzy", "--min-score", min_score]);
        let fuzzy: Vec<((i64, u64), String, String)> = refs
            .iter()
            .filter(|(_, r)| r["match"] == "fuzzy")
            .map(|(key, r)| {
                assert_eq!(r["outcome"], "verified", "{key:?}");
                (*key, score_text(&r["score"]), r["matched_path"].as_str().unwrap().to_string())
            })
            .collect();
        let expected: Vec<((i64, u64), String, String)> = fuzzy_rows
            .iter()
            .filter(|row| row[0] == min_score)
            .map(|row| (ref_key(row[1]), row[2].to_string(), report_path(row[3])))
            .collect();
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

    let statuses = rows(STATUSES);
    let ids: Vec<i64> = statuses[0][1..].iter().map(|id| id.parse().unwrap()).collect();
    let policies: Vec<&str> = statuses[1..].iter().map(|row| row[0]).collect();
    assert_eq!(policies, [&["default"][..], &NEAR_MISS_THRESHOLDS].concat(), "a row per policy");
    for row in &statuses[1..] {
        let args: &[&str] = match row[0] {
            "default" => &[],
            min_score => &["--match", "fuzzy", "--min-score", min_score],
        };
        let expected: Vec<(i64, String)> = ids
            .iter()
            .zip(&row[1..])
            .map(|(id, status)| {
                let status = match *status {
                    "supported" => "supported/verified",
                    "partly" => "unsupported/partially_verified",
                    "not" => "unsupported/not_verified",
                    other => panic!("not a status of the table: {other}"),
                };
                (*id, status.to_string())
            })
            .collect();
        assert_eq!(near_miss_statuses(args), expected, "{}", row[0]);
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
