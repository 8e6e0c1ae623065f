//! The failed refs of a `reverify` job, counted by how close they came (found elsewhere, near
//! miss, far, no candidate), on every engine: as `verify` reports each ref, kept across
//! `--resume`, and the fuzzy policy's key, threshold included, on what `--write` stores.

use groundcheck_core::Rung;
use groundcheck_store::Store;
use serde_json::Value;

use super::{checkpoint, gc, import_corpus, json, kill_mid_job, transitions};
use crate::engines::{self, block_on};
use crate::harness::run;

/// `[total, found_elsewhere, near_misses, far, no_candidate]` of a report's failed refs,
/// counted here from each ref as the report gives it: the first bucket that fits, in that order.
fn expected_buckets(report: &Value) -> Value {
    let mut counts = [0u64; 5];
    let runs = report["runs"].as_array().unwrap();
    let invocations = runs.iter().flat_map(|r| r["invocations"].as_array().unwrap());
    for r in invocations.flat_map(|inv| inv["refs"].as_array().unwrap()) {
        if r["outcome"] != "text_not_found" && r["outcome"] != "path_not_found" {
            continue;
        }
        counts[0] += 1;
        let bucket = match (r.get("elsewhere"), r["nearest"]["score"].as_f64()) {
            (Some(_), _) => 1,
            (None, Some(score)) if score >= 0.8 => 2,
            (None, Some(_)) => 3,
            (None, None) => 4,
        };
        counts[bucket] += 1;
    }
    let [total, found_elsewhere, near_misses, far, no_candidate] = counts;
    serde_json::json!({"total": total, "found_elsewhere": found_elsewhere, "near_misses": near_misses,
           "far": far, "no_candidate": no_candidate})
}

#[test]
fn failed_refs_are_counted_by_how_close_they_came() {
    let reference = json(&run(["verify", "--format", "json", "fixtures"]));
    let expected = expected_buckets(&reference);
    for bucket in ["found_elsewhere", "near_misses", "far", "no_candidate"] {
        assert!(expected[bucket].as_u64() > Some(0), "the fixtures hold every kind: {expected}");
    }
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        assert_eq!(gc(url, &["migrate"]).code, 0);
        assert_eq!(gc(url, &["import", "fixtures"]).code, 0);
        let summary = json(&gc(url, &["reverify", "--format", "json"]));
        assert_eq!(summary["summary"]["failed_refs"], expected, "{name}");
        let members: Vec<&String> = summary["summary"].as_object().unwrap().keys().collect();
        let at = members.iter().position(|m| *m == "claim_mismatches").unwrap();
        assert_eq!(members[at + 1], "failed_refs", "{name}: right after claim_mismatches");
        let order: Vec<&String> = summary["summary"]["failed_refs"].as_object().unwrap().keys().collect();
        assert_eq!(order, ["total", "found_elsewhere", "near_misses", "far", "no_candidate"], "{name}");

        // For people: one line right after the counts by status.
        let human = gc(url, &["reverify"]);
        assert_eq!(human.code, 0, "{name}: {}", human.stderr);
        let lines: Vec<&str> = human.stdout.lines().collect();
        let n = |bucket: &str| expected[bucket].as_u64().unwrap();
        let line = format!(
            "  failed refs: {} — {} found elsewhere (mis-pointed), {} near misses (score ≥ 0.8, misquoted), \
             {} far, {} with no candidate (probably invented)",
            n("total"),
            n("found_elsewhere"),
            n("near_misses"),
            n("far"),
            n("no_candidate")
        );
        assert!(lines[1].contains(" no_evidence (no evidence found by this tool); "), "{name}: {}", lines[1]);
        assert_eq!(lines[2], line, "{name}");
    }
}

/// A resumed job's failed refs are the whole job's: those counted before the kill come back
/// with the checkpoint, and the total equals one uninterrupted job's.
#[test]
fn a_resumed_job_keeps_the_failed_refs_counted_before() {
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        let total = import_corpus(url, 3_000);
        let whole = json(&gc(url, &["reverify", "--format", "json"]))["summary"]["failed_refs"].clone();
        assert!(whole["total"].as_u64() > Some(0), "{name}: the corpus has failed refs: {whole}");
        kill_mid_job(url, &["reverify", "--database", url, "--write", "--batch-rows", "20"], 0, total, name);
        let (rows_before, _) = checkpoint(url).unwrap();
        let saved = engines::texts(url, "SELECT totals FROM reverify_checkpoint");
        let saved: Value = serde_json::from_str(&saved[0]).unwrap();
        assert!(
            saved["failed_refs"]["total"].as_u64() > Some(0),
            "{name}: stored with the checkpoint: {saved}"
        );

        let args = ["reverify", "--write", "--resume", "--batch-rows", "20", "--format", "json"];
        let resumed = json(&gc(url, &args));
        assert_eq!(resumed["resumed"]["invocations"].as_i64(), Some(rows_before), "{name}: it resumed");
        assert_eq!(resumed["summary"]["failed_refs"], whole, "{name}: the whole job's failed refs");
        // Resuming the finished job repeats them.
        let again = json(&gc(url, &args));
        assert_eq!(again["resumed"]["already_complete"], true, "{name}");
        assert_eq!(again["summary"]["failed_refs"], whole, "{name}");
    }
}

/// `reverify --write --match fuzzy` stores its verdicts, and finds them again, under a key that
/// names the threshold: two thresholds are two policies.
#[test]
fn reverify_write_stores_fuzzy_verdicts_under_a_key_naming_the_threshold() {
    const DEFAULT: &str = "require=all;match=fuzzy;min_score=0.900";
    const LOWER: &str = "require=all;match=fuzzy;min_score=0.850";
    let fixtures = super::fixture_statuses(&[]).len() as i64;
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        assert_eq!(gc(url, &["migrate"]).code, 0);
        assert_eq!(gc(url, &["import", "fixtures"]).code, 0);
        let first = json(&gc(url, &["reverify", "--write", "--match", "fuzzy", "--format", "json"]));
        assert_eq!(first["policy"], DEFAULT, "{name}");
        let lower = ["reverify", "--write", "--match", "fuzzy", "--min-score", "0.85", "--format", "json"];
        assert_eq!(json(&gc(url, &lower))["policy"], LOWER, "{name}");
        let keys = engines::texts(url, "SELECT DISTINCT policy FROM evidence_verification ORDER BY policy");
        assert_eq!(keys, [LOWER, DEFAULT], "{name}");
        let per_key = engines::integers(
            url,
            "SELECT COUNT(*) FROM evidence_verification GROUP BY policy ORDER BY policy",
        );
        assert_eq!(per_key, [fixtures, fixtures], "{name}: every invocation once per key");
        // Run again, each job finds its own verdicts: nothing changed.
        let again =
            json(&gc(url, &["reverify", "--match", "fuzzy", "--min-score", "0.85", "--format", "json"]));
        assert!(transitions(&again).iter().all(|(from, to, _)| from == to), "{name}: {again}");
        // 1202 elides `connection refused` twice, each scoring 0.857: fuzzy under one key only.
        let fuzzy_in_1202 = |key: &str| {
            let stored = block_on(async {
                let store = Store::connect(url).await.unwrap();
                let stored = store.read_verdicts(key, "run-20261130-order-ladder").await.unwrap();
                store.close().await;
                stored
            });
            let ladder = stored.into_iter().find(|s| s.verdict.id == 1202).expect("1202 is stored");
            ladder.verdict.refs.iter().filter(|r| r.rung == Some(Rung::Fuzzy)).count()
        };
        assert_eq!((fuzzy_in_1202(LOWER), fuzzy_in_1202(DEFAULT)), (2, 0), "{name}");
    }
}

/// Stored totals that do not read back stop `--resume` in one line instead of silently
/// restarting the counts from zero (SQLite: the column is written directly).
#[test]
fn unreadable_stored_totals_stop_a_resumed_job() {
    let engine = engines::all().remove(0);
    let url = engine.url.as_str();
    // As many rows as the other killed jobs: with 200 the job could finish between the check
    // that it had committed 60 rows and the kill, once verification got faster.
    let total = import_corpus(url, 3_000);
    kill_mid_job(
        url,
        &["reverify", "--database", url, "--write", "--batch-rows", "20"],
        0,
        total,
        engine.name,
    );
    engines::execute(
        url,
        "UPDATE reverify_checkpoint SET totals = ?",
        "UPDATE reverify_checkpoint SET totals = $1",
        &["{\"runs\": \"many\"}"],
    );
    let out = gc(url, &["reverify", "--write", "--resume", "--batch-rows", "20"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("--resume: the stored totals"), "{}", out.stderr);
}
