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
