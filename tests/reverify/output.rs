//! What `reverify` says to people: its help names its own schema, and one of a
//! thing is singular.

use crate::harness::{run, temp_dir};

#[test]
fn reverify_help_names_its_own_schema() {
    let help = run(["reverify", "--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(help.stdout.contains("`groundcheck.reverify/v1`"), "{}", help.stdout);
    assert!(!help.stdout.contains("groundcheck.report/v1"), "reverify prints no report: {}", help.stdout);
    assert!(help.stdout.contains("--compare-with <POLICY>"), "{}", help.stdout);
}

#[test]
fn one_invocation_in_one_run_is_singular() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("one.db").display());
    assert_eq!(super::gc(&url, &["import", "fixtures"]).code, 0);
    let one = super::gc(&url, &["reverify", "--run", "run-20261130-order-5xx", "--tool", "query_logs"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    let first = one.stdout.lines().next().unwrap_or_default();
    assert!(first.contains(", nothing written): 1 invocation in 1 run, "), "{first}");
    assert!(one.stdout.contains("; 0 claim mismatches\n"), "{}", one.stdout);
}
