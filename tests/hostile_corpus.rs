//! The hostile-input corpus (`fixtures/hostile/`): every file is verified by the real
//! binary, which must exit 0 with a report whose counts add up and whose every value comes
//! from the report's sets; a few key verdicts are pinned here, beside the full snapshots of
//! `snapshots::every_fixture_json_report`; the report is the same on one thread or two; and
//! the cases too large to snapshot (a 1 MiB quote, the 1,000-ref boundary) are generated.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use groundcheck_core::Bundle;
use serde_json::{json, Value};

use crate::harness::{repo, run, run_with, temp_dir, write};

/// Every status, reason, outcome, rung and source docs/verification.md#checking-a-ref
/// define, so a report holding anything else (a typo, a new value nobody documented) fails here.
const STATUSES: [&str; 3] = ["supported", "unsupported", "no_evidence"];
const OUTCOMES: [&str; 10] = [
    "verified",
    "empty_text",
    "raw_output_unavailable",
    "invalid_path",
    "path_not_found",
    "text_not_found",
    "limit_exceeded",
    "malformed_ref",
    "not_checked",
    "no_evidence_marker",
];
const RUNGS: [&str; 4] = ["exact", "normalized", "elided", "fuzzy"];
const SOURCES: [&str; 3] = ["raw_output", "preview", "none"];
const WARNINGS: [&str; 3] = ["invalid_utf8", "marker_with_refs", "read_as_yaml"];

/// The reasons each status may carry (docs/verification.md#classification's table), so a
/// reason paired with the wrong status is caught too.
fn reasons_of(status: &str) -> &'static [&'static str] {
    match status {
        "supported" => &["verified"],
        "unsupported" => &[
            "malformed_details",
            "claimed_without_refs",
            "tool_failed",
            "partially_verified",
            "not_verified",
        ],
        "no_evidence" => &["tool_failed", "no_evidence_marker", "no_refs"],
        other => panic!("unknown status {other}"),
    }
}

/// The bundle files of `fixtures/hostile/`, in name order; the corpus must not silently
/// shrink, hence the count check.
fn hostile_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("fixtures/hostile"))
        .expect("fixtures/hostile exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "the hostile corpus has its 15 files: {files:?}");
    files
}

/// Verifies `file` with `--format json`, requiring exit code 0 and a JSON report.
fn report(file: &Path) -> Value {
    let out = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}: {}", file.display(), out.stderr);
    assert!(out.stderr.is_empty(), "{}: {}", file.display(), out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{}: report is JSON: {e}", file.display()))
}

/// All invocation objects of a report, by id (ids are unique across the corpus).
fn by_id(report: &Value) -> BTreeMap<i64, &Value> {
    let mut all = BTreeMap::new();
    for run in report["runs"].as_array().expect("runs") {
        for inv in run["invocations"].as_array().expect("invocations") {
            assert!(all.insert(inv["id"].as_i64().expect("integer id"), inv).is_none(), "id repeated: {inv}");
        }
    }
    all
}

/// The refs array of the invocation `id`.
fn refs(report: &Value, id: i64) -> Vec<Value> {
    by_id(report)[&id]["refs"].as_array().expect("refs").clone()
}

/// How many times each ref outcome occurs in `refs`.
fn tally(refs: &[Value]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for r in refs {
        *counts.entry(r["outcome"].as_str().expect("outcome").to_string()).or_insert(0) += 1;
    }
    counts
}

/// The number of refs the bundle gives an invocation, when its `retrieval_details` is an
/// object holding an `evidence_refs` array (the other shapes are covered by the reason check).
/// Deep claims are skipped: serde_json stops at 128 levels.
fn claimed_ref_count(inv: &groundcheck_core::Invocation) -> Option<usize> {
    let details = inv.retrieval_details.as_ref()?;
    if details.depth() > 100 {
        return None;
    }
    let value: Value = serde_json::from_str(&details.to_json_string()).expect("bundle JSON re-reads");
    value.get("evidence_refs")?.as_array().map(Vec::len)
}

/// docs/verification.md#the-report "counts always add up", checked on one file's report against its bundle.
fn assert_invariants(file: &Path, report: &Value) {
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(report["schema"], "groundcheck.report/v1", "{name}");
    let bundle = Bundle::parse(&std::fs::read_to_string(file).unwrap()).expect("a valid bundle");
    let ids: Vec<i64> = bundle.invocations.iter().map(|inv| inv.id).collect();
    let found = by_id(report);
    let expected: BTreeSet<i64> = ids.iter().copied().collect();
    assert_eq!(found.keys().copied().collect::<BTreeSet<i64>>(), expected, "{name}: ids");
    assert_eq!(found.len(), ids.len(), "{name}: every invocation exactly once");

    for run in report["runs"].as_array().unwrap() {
        let invocations = run["invocations"].as_array().unwrap();
        let summary = &run["summary"];
        assert_eq!(summary["invocations"], invocations.len(), "{name}: summary.invocations");
        let mut total = 0;
        for status in STATUSES {
            let n = invocations.iter().filter(|i| i["status"] == status).count();
            assert_eq!(summary[status], n, "{name}: summary.{status}");
            total += n;
        }
        assert_eq!(total, invocations.len(), "{name}: statuses add up");
        let mismatches = invocations.iter().filter(|i| i["claim_agrees"] == false).count();
        assert_eq!(summary["claim_mismatches"], mismatches, "{name}: claim_mismatches");
        let ordered: Vec<i64> = invocations.iter().map(|i| i["id"].as_i64().unwrap()).collect();
        assert!(ordered.windows(2).all(|w| w[0] < w[1]), "{name}: invocations by id");
    }

    for inv in &bundle.invocations {
        let out = found[&inv.id];
        let what = format!("{name}: id {}", inv.id);
        let status = out["status"].as_str().unwrap_or_else(|| panic!("{what}: status"));
        let reason = out["reason"].as_str().unwrap_or_else(|| panic!("{what}: reason"));
        assert!(STATUSES.contains(&status), "{what}: status {status}");
        assert!(reasons_of(status).contains(&reason), "{what}: reason {reason} with {status}");
        assert!(SOURCES.contains(&out["source"].as_str().unwrap()), "{what}: source");
        for w in out["warnings"].as_array().unwrap() {
            assert!(WARNINGS.contains(&w.as_str().unwrap()), "{what}: warning {w}");
        }
        let claimed = &out["claimed_status"];
        let expected_agrees = match claimed.as_str() {
            Some(c) if STATUSES.contains(&c) => json!(c == status),
            _ => Value::Null,
        };
        assert_eq!(out["claim_agrees"], expected_agrees, "{what}: claim_agrees");
        let refs = out["refs"].as_array().unwrap();
        if reason == "malformed_details" {
            assert!(refs.is_empty(), "{what}: malformed details have no refs");
        } else if let Some(n) = claimed_ref_count(inv) {
            assert_eq!(refs.len(), n, "{what}: every ref appears");
        }
        for (i, r) in refs.iter().enumerate() {
            assert_eq!(r["index"], i, "{what}: ref indexes in input order");
            let outcome = r["outcome"].as_str().unwrap();
            assert!(OUTCOMES.contains(&outcome), "{what}: ref {i} outcome {outcome}");
            let verified = outcome == "verified";
            assert_eq!(r.get("match").is_some(), verified, "{what}: ref {i} match only when verified");
            assert_eq!(r.get("matched_path").is_some(), verified, "{what}: ref {i} matched_path");
            if verified {
                assert!(RUNGS.contains(&r["match"].as_str().unwrap()), "{what}: ref {i} rung");
                assert!(r["matched_path"].as_str().unwrap().starts_with('$'), "{what}: ref {i} path");
            }
            if r.get("in_preview").is_some() {
                assert_eq!(outcome, "raw_output_unavailable", "{what}: ref {i} in_preview");
            }
            assert_eq!(
                r.get("score").is_some(),
                r.get("match") == Some(&json!("fuzzy")),
                "{what}: ref {i} score"
            );
            if let Some(nearest) = r.get("nearest") {
                assert_eq!(outcome, "text_not_found", "{what}: ref {i} nearest");
                let score = nearest["score"].as_f64().unwrap();
                assert!(score > 0.0 && score <= 1.0, "{what}: ref {i} nearest score {score}");
                assert!(nearest["path"].as_str().unwrap().starts_with('$'), "{what}: ref {i} nearest path");
                assert!(!nearest["text"].as_str().unwrap().is_empty(), "{what}: ref {i} nearest text");
            }
            if r.get("elsewhere").is_some() {
                assert!(matches!(outcome, "text_not_found" | "path_not_found"), "{what}: ref {i} elsewhere");
                assert!(r["elsewhere"].as_str().unwrap().starts_with('$'), "{what}: ref {i} elsewhere path");
            }
        }
        let real: Vec<&str> = refs
            .iter()
            .map(|r| r["outcome"].as_str().unwrap())
            .filter(|o| *o != "no_evidence_marker")
            .collect();
        let verified = real.iter().filter(|o| **o == "verified").count();
        match reason {
            "verified" => assert!(!real.is_empty() && verified == real.len(), "{what}: row 7"),
            "partially_verified" => assert!(verified > 0 && verified < real.len(), "{what}: row 8"),
            "not_verified" => assert!(!real.is_empty() && verified == 0, "{what}: row 9"),
            "claimed_without_refs" | "no_evidence_marker" | "no_refs" => {
                assert!(real.is_empty(), "{what}: rows 2, 4, 5 have no real refs")
            }
            _ => {}
        }
    }
}

#[test]
fn every_hostile_file_verifies_with_counts_that_add_up() {
    let mut ids = BTreeSet::new();
    for file in hostile_files() {
        let report = report(&file);
        assert_invariants(&file, &report);
        for id in by_id(&report).keys() {
            assert!(ids.insert(*id), "id {id} is unique across fixtures/hostile ({})", file.display());
            assert!(*id >= 9000, "hostile ids are 9000 and up");
        }
    }
}

#[test]
fn reports_are_identical_on_one_thread_or_two() {
    let files: Vec<String> = hostile_files().iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["verify".to_string(), "--format".into(), "json".into()];
    args.extend(files);
    let one = run_with(&args, &[("RAYON_NUM_THREADS", "1")], None);
    let two = run_with(&args, &[("RAYON_NUM_THREADS", "2")], None);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(two.code, 0, "{}", two.stderr);
    assert!(one.stdout.len() > 100_000);
    assert!(one.stdout == two.stdout, "reports differ between 1 and 2 threads");
}

/// docs/verification.md#limits: a `raw_path` over 4,096 characters (after trimming) is
/// `limit_exceeded`, checked before parsing, but only once steps 1 and 2 pass.
#[test]
fn long_paths_hit_the_length_limit_at_step_three() {
    let report = report(&repo("fixtures/hostile/08_long_paths.json"));
    let outcome = |id: i64| refs(&report, id)[0]["outcome"].clone();
    let hundred_kb = refs(&report, 90801);
    assert_eq!(hundred_kb[0]["raw_path"].as_str().unwrap().len(), 100_001, "echoed in full");
    assert_eq!(hundred_kb[0]["outcome"], "limit_exceeded");
    assert_eq!(outcome(90802), "verified", "60,000 spaces around `$.a` are trimmed first");
    assert_eq!(outcome(90803), "verified", "4,096 characters is allowed");
    assert_eq!(outcome(90804), "limit_exceeded", "4,097 is not");
    assert_eq!(outcome(90806), "limit_exceeded", "length before syntax");
    assert_eq!(outcome(90807), "not_checked", "a failed call runs no step 3");
    assert_eq!(outcome(90808), "empty_text", "step 1 first");
    assert_eq!(outcome(90809), "raw_output_unavailable", "step 2 first");
}

/// docs/verification.md#limits: refs from index 1,000 on are not read, get `limit_exceeded`
/// whatever they hold, and count as real refs that are not verified.
#[test]
fn refs_past_the_first_thousand_are_limit_exceeded() {
    let report = report(&repo("fixtures/hostile/12_thousands_of_refs.json"));
    let all = refs(&report, 91201);
    assert_eq!(all.len(), 1_500);
    assert!(all[..1_000].iter().all(|r| r["outcome"] == "verified"));
    assert!(all[1_000..].iter().all(|r| r["outcome"] == "limit_exceeded"));
    assert_eq!(all[1_000]["raw_path"], "$.no_evidence", "an unread marker is echoed, not a marker");
    assert_eq!((all[1_001]["raw_path"].clone(), all[1_001]["text"].clone()), (Value::Null, Value::Null));
    let inv = by_id(&report)[&91201].clone();
    assert_eq!(
        (inv["status"].as_str(), inv["reason"].as_str()),
        (Some("unsupported"), Some("partially_verified"))
    );
    assert_eq!(inv["warnings"], json!([]));
}

/// docs/verification.md#limits: depth beyond 512 is `limit_exceeded` at step 2 for every ref
/// reaching it, pointers included; 130 and 512 levels verify; the first problem met decides
/// between "not JSON" and "too deep".
#[test]
fn deep_documents_are_limit_exceeded_or_verified_never_a_crash() {
    let report = report(&repo("fixtures/hostile/13_deep_nesting.json"));
    let outcomes = |id: i64| refs(&report, id).iter().map(|r| r["outcome"].clone()).collect::<Vec<_>>();
    assert_eq!(outcomes(91301), ["limit_exceeded", "limit_exceeded", "empty_text", "malformed_ref"]);
    assert_eq!(outcomes(91302), ["limit_exceeded"]);
    assert_eq!(outcomes(91303), ["limit_exceeded"]);
    assert_eq!(outcomes(91306), ["limit_exceeded"], "inline 10,000-deep raw_output reads");
    assert_eq!(outcomes(91309), ["limit_exceeded"]);
    assert_eq!(outcomes(91308), ["verified"], "syntax error before depth 513: one string leaf");
    let deep130 = format!("${}", "[0]".repeat(130));
    assert!(refs(&report, 91304).iter().all(|r| r["matched_path"] == deep130.as_str()));
    let deep512 = format!("${}", "[0]".repeat(512));
    assert!(refs(&report, 91305).iter().all(|r| r["matched_path"] == deep512.as_str()));
}

/// A bundle of one invocation holding `refs` over the raw text `"x"`; for the cases whose
/// reports are too large to keep as snapshots.
fn one_invocation(refs: Vec<Value>, success: bool) -> String {
    one_invocation_over(refs, success, "\"x\"")
}

/// [`one_invocation`] over the raw output text `raw`.
fn one_invocation_over(refs: Vec<Value>, success: bool, raw: &str) -> String {
    json!({"run_id": "run-hostile-generated", "invocations": [{
        "id": 9001, "tool_name": "query_logs", "success": success, "raw_output_text": raw,
        "retrieval_details": {"evidence_status": "supported", "evidence_refs": refs}}]})
    .to_string()
}

/// Outcome counts of the one invocation of a generated bundle, with its status and reason.
fn verify_generated(bundle: &str) -> (String, String, BTreeMap<String, usize>) {
    let (status, reason, refs) = verify_generated_refs(bundle);
    (status, reason, tally(&refs))
}

/// The status, reason and refs of the one invocation of a generated bundle.
fn verify_generated_refs(bundle: &str) -> (String, String, Vec<Value>) {
    let dir = temp_dir();
    let file = write(dir.path(), "generated.json", bundle);
    let report = report(&file);
    assert_invariants(&file, &report);
    let inv = by_id(&report)[&9001].clone();
    let refs = inv["refs"].as_array().unwrap().clone();
    (inv["status"].as_str().unwrap().into(), inv["reason"].as_str().unwrap().into(), refs)
}

/// An 8 MB Loki-like output: `lines` log lines of about 100 bytes in one array (one node
/// each, so the document stays within the node limit and `elsewhere` is looked for).
fn log_lines(lines: usize) -> Vec<String> {
    let words =
        ["connection", "refused", "timeout", "pool", "exhausted", "retry", "upstream", "超时", "数据库"];
    (0..lines)
        .map(|i| {
            let tail: Vec<&str> = (0..8).map(|k| words[(i * 7 + k * 3) % words.len()]).collect();
            format!(
                "2026-11-30T10:{:02}:{:02}Z level=error req=r{i:06} {}",
                i / 60 % 60,
                i % 60,
                tail.join(" ")
            )
        })
        .collect()
}

/// Counts of outcomes, for comparing with `tally`.
fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// docs/verification.md#limits boundaries that need 1,000 echoed refs: exactly 1,000 are
/// all read; in a failed call, "limits aside" means the 1,001st is still `limit_exceeded`
/// (docs/rules.md).
#[test]
fn the_thousandth_ref_is_read_and_the_next_is_not_even_in_a_failed_call() {
    let x = json!({"raw_path": "$", "text": "x"});
    let (status, reason, outcomes) = verify_generated(&one_invocation(vec![x.clone(); 1_000], true));
    assert_eq!((status.as_str(), reason.as_str()), ("supported", "verified"));
    assert_eq!(outcomes, counts(&[("verified", 1_000)]));
    let (status, reason, outcomes) = verify_generated(&one_invocation(vec![x; 1_001], false));
    assert_eq!((status.as_str(), reason.as_str()), ("unsupported", "tool_failed"));
    assert_eq!(outcomes, counts(&[("not_checked", 1_000), ("limit_exceeded", 1)]));
}

/// docs/verification.md#limits: a 1 MiB quote (over 65,536 characters) is `limit_exceeded`
/// before step 1. Kept out of fixtures/hostile because the report echoes the text in full
/// (docs/verification.md#the-report): its snapshot would be over a megabyte.
#[test]
fn a_one_mebibyte_quote_is_limit_exceeded() {
    let text = "connection refused ".repeat(55_189); // 1,048,591 characters
    let refs = vec![json!({"raw_path": "$", "text": text}), json!({"raw_path": "$", "text": "x"})];
    let (status, reason, outcomes) = verify_generated(&one_invocation(refs, true));
    assert_eq!((status.as_str(), reason.as_str()), ("unsupported", "partially_verified"));
    assert_eq!(outcomes, counts(&[("limit_exceeded", 1), ("verified", 1)]));
}

/// docs/verification.md#near-misses, at the cost bound: a quote of the longest text allowed
/// (65,536 characters) against a large output. Over the whole document `m` times its length
/// passes 2^32, so nothing is measured (no `nearest`); against one log line it is measured.
/// One character more is `limit_exceeded` before anything.
#[test]
fn a_quote_of_the_longest_text_allowed_is_measured_only_within_the_cost_bound() {
    let lines = log_lines(80_000);
    let raw = json!({ "logs": lines }).to_string();
    let quote: String = "connection refused by upstream ".chars().cycle().take(65_536).collect();
    let over: String = quote.chars().chain(['!']).collect();
    let refs = vec![
        json!({"raw_path": "$", "text": quote}),
        json!({"raw_path": "$.logs[0]", "text": quote}),
        json!({"raw_path": "$.logs[0]", "text": over}),
    ];
    let (status, reason, refs) = verify_generated_refs(&one_invocation_over(refs, true, &raw));
    assert_eq!((status.as_str(), reason.as_str()), ("unsupported", "not_verified"));
    let summary: Vec<(&str, bool, bool)> = refs
        .iter()
        .map(|r| (r["outcome"].as_str().unwrap(), r.get("nearest").is_some(), r.get("elsewhere").is_some()))
        .collect();
    assert_eq!(
        summary,
        [("text_not_found", false, false), ("text_not_found", true, false), ("limit_exceeded", false, false)]
    );
    // 100 characters of one line can match at most 100 of the 65,536: a score near 0.001.
    assert_eq!(refs[1]["nearest"]["score"], json!(0.001));
}

/// docs/verification.md#near-misses, many failing refs: a thousand refs, all failing, over
/// one 8 MB output — half point at the wrong line (found `elsewhere`, at the line holding
/// it), half quote what no line says (a low `nearest`, no `elsewhere`). Each view's leaves
/// are read once for all of them; the test bounds what is reported, benches/ the time.
#[test]
fn a_thousand_failing_refs_against_an_eight_megabyte_output() {
    let lines = log_lines(80_000);
    let raw = json!({ "logs": lines }).to_string();
    assert!(raw.len() > 8_000_000, "{}", raw.len());
    let refs: Vec<Value> = (0..1_000)
        .map(|k| {
            let line = k * 79;
            if k % 2 == 0 {
                json!({"raw_path": format!("$.logs[{}]", line + 1), "text": format!("req=r{line:06}")})
            } else {
                json!({"raw_path": format!("$.logs[{line}]"), "text": format!("deadlock detected on shard {k}")})
            }
        })
        .collect();
    let (status, reason, refs) = verify_generated_refs(&one_invocation_over(refs, true, &raw));
    assert_eq!((status.as_str(), reason.as_str()), ("unsupported", "not_verified"));
    for (k, r) in refs.iter().enumerate() {
        assert_eq!(r["outcome"], "text_not_found", "{r}");
        let score = r["nearest"]["score"].as_f64().unwrap_or_else(|| panic!("a line is always near: {r}"));
        if k % 2 == 0 {
            assert_eq!(r["elsewhere"], format!("$['logs'][{}]", k * 79), "{r}");
            assert!(score >= 0.8, "one digit off: {r}");
        } else {
            assert!(r.get("elsewhere").is_none(), "{r}");
            assert!(score < 0.8, "{r}");
        }
    }
}
