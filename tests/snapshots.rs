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
