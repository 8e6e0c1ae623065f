//! A bundle's size limit (`--max-bundle-bytes`): `verify /dev/zero`, or a `-` fed by a
//! process that writes for ever, stops one byte past the limit with one line and exit code 2,
//! instead of reading until memory runs out. Each command runs under an address-space limit
//! of 1 GiB (`ulimit -v`), four times the default limit: reading to the end fails there.

use crate::harness::{run_shell, temp_dir, write, Outcome};

/// The default limit, as the line names it.
const DEFAULT: &str =
    "larger than 268435456 bytes, the most a bundle may hold (raise it with --max-bundle-bytes)";

/// `script` run by `sh` with memory bounded to 1 GiB and time to 5 minutes (a command that
/// read for ever would end with `timeout`'s 124, failing the test, not hang it).
fn bounded(dir: &std::path::Path, script: &str) -> Outcome {
    run_shell(dir, &format!("ulimit -v 1048576; exec timeout 300 sh -c '{script}'"))
}

fn assert_refused(what: &str, out: &Outcome, says: &str) {
    assert_eq!(out.code, 2, "{what}: {out:?}");
    assert!(out.stdout.is_empty(), "{what}: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{what}: one line: {}", out.stderr);
    assert!(out.stderr.contains(says), "{what}: {}", out.stderr);
}

#[test]
fn an_endless_file_or_standard_input_is_one_line_and_exit_two() {
    let dir = temp_dir();
    let out = bounded(dir.path(), "groundcheck verify /dev/zero");
    assert_refused("verify /dev/zero", &out, &format!("/dev/zero: {DEFAULT}"));
    // `yes` writes until its pipe closes: standard input never ends.
    let out = bounded(dir.path(), "yes | groundcheck verify -");
    assert_refused("yes | verify -", &out, &format!("<stdin>: {DEFAULT}"));
    let out = bounded(dir.path(), "yes | groundcheck verify --format html -");
    assert_refused("yes | verify --format html -", &out, &format!("<stdin>: {DEFAULT}"));
    // `import` reads its bundles before it opens the database: nothing is created.
    let out = bounded(dir.path(), "yes | groundcheck import --database sqlite://gc.db -");
    assert_refused("yes | import -", &out, &format!("<stdin>: {DEFAULT}"));
    assert!(!dir.path().join("gc.db").exists(), "import opened no database");
    // `resolve` reads its document the same way, at the default limit.
    let out = bounded(dir.path(), "groundcheck resolve --path \\$ /dev/zero");
    assert_refused("resolve /dev/zero", &out, "/dev/zero: larger than 268435456 bytes");
}

#[test]
fn the_limit_is_settable_and_a_file_at_it_is_read() {
    let dir = temp_dir();
    let bundle = r#"{"invocations":[{"id":1,"session_id":"s","run_id":"r","tool_name":"t","created_at":"2026-11-30T10:00:00Z"}]}"#;
    write(dir.path(), "b.json", bundle);
    let n = bundle.len();
    let at =
        run_shell(dir.path(), &format!("groundcheck verify --max-bundle-bytes {n} --format json b.json"));
    assert_eq!(at.code, 0, "{at:?}");
    let over = run_shell(dir.path(), &format!("groundcheck verify --max-bundle-bytes {} b.json", n - 1));
    let says = format!("b.json: larger than {} bytes, the most a bundle may hold", n - 1);
    assert_refused("a file one byte over", &over, &says);
    let out = run_shell(dir.path(), &format!("groundcheck import --max-bundle-bytes {} b.json", n - 1));
    assert_refused("import, one byte over", &out, &says);
    let out = bounded(dir.path(), "yes | groundcheck verify --max-bundle-bytes 1000 -");
    assert_refused("yes | verify with a small limit", &out, "<stdin>: larger than 1000 bytes");
    let zero = run_shell(dir.path(), "groundcheck verify --max-bundle-bytes 0 b.json");
    assert_eq!(zero.code, 2, "{zero:?}");
    assert!(zero.stderr.contains("must be at least 1"), "{}", zero.stderr);
}
