//! The small conveniences people expect of a command-line tool: shell completions and a man page,
//! plain dates for `--since`/`--until`, a `--tool` that matches nothing said so, and bundles
//! written with a UTF-8 byte order mark read. (A `tool_invocation` without a column
//! groundcheck reads, named with what to do, is in `agent_schema`, on every engine.)

use std::process::Command;

use serde_json::Value;

use crate::harness::{run, run_with, temp_dir, write, Outcome};

/// Every shell's script names the commands and flags; bash's parses (`bash -n`).
#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _groundcheck"),
        ("zsh", "#compdef groundcheck"),
        ("fish", "complete -c groundcheck"),
    ] {
        let out = run(["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(out.stdout.contains(marker), "{shell}");
        for word in ["reverify", "otlp-header", "raw-outputs", "claim-mismatch"] {
            assert!(out.stdout.contains(word), "{shell}: {word}");
        }
    }
    let dir = temp_dir();
    let script = write(dir.path(), "groundcheck.bash", run(["completions", "bash"]).stdout);
    let checked = Command::new("bash").arg("-n").arg(&script).output().expect("bash runs");
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    let refused = run(["completions", "tcsh"]);
    assert_eq!(refused.code, 2);
}

/// `groundcheck man` is roff for groundcheck(1), listing every command; `man COMMAND` is
/// that command's page; an unknown one is one line naming the ones there are.
#[test]
fn man_pages_for_the_program_and_each_command() {
    let page = run(["man"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert!(page.stdout.contains(".TH groundcheck 1"), "{}", &page.stdout[..200]);
    for command in ["verify", "resolve", "run", "import", "export", "reverify", "migrate", "completions"] {
        assert!(page.stdout.contains(command), "{command}");
    }
    let verify = run(["man", "verify"]);
    assert_eq!(verify.code, 0, "{}", verify.stderr);
    assert!(verify.stdout.contains(".TH groundcheck-verify 1"));
    assert!(verify.stdout.contains("otlp\\-header"), "the flags are in the page");
    let unknown = run(["man", "verfiy"]);
    assert_eq!((unknown.code, unknown.stdout.as_str()), (2, ""));
    assert_eq!(
        unknown.stderr,
        "man verfiy: no such command (one of: verify, resolve, run, import, export, reverify, migrate, completions, man, mcp)\n"
    );
}

/// Rows of one session at the edges of 30 November 2026 (UTC, with an offset on one),
/// imported into `url` (a SQLite file in `dir` when `None`); the URL.
fn dated_database(dir: &std::path::Path, url: Option<&str>) -> String {
    let rows: Vec<String> = [
        (1, "query_logs", "2026-11-29T23:59:59Z"),
        (2, "query_logs", "2026-11-30T00:00:00Z"),
        (3, "get_alerts", "2026-11-30T13:00:00+01:00"),
        (4, "get_alerts", "2026-12-01T00:00:00Z"),
    ]
    .iter()
    .map(|(id, tool, at)| {
        format!(
            r#"{{"id":{id},"run_id":"r{id}","tool_name":"{tool}","created_at":"{at}","input_params":{{}}}}"#
        )
    })
    .collect();
    let bundle = format!(r#"{{"session_id":"s1","invocations":[{}]}}"#, rows.join(","));
    let file = write(dir, "dated.json", bundle);
    let url = url.map_or_else(|| format!("sqlite://{}", dir.join("dated.db").display()), str::to_string);
    assert_eq!(run(["migrate", "--database", &url]).code, 0, "servers are migrated by `migrate` only");
    let imported = run(["import", "--database", &url, file.to_str().unwrap()]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    url
}

fn invocations(out: &Outcome) -> i64 {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary: Value = serde_json::from_str(&out.stdout).expect("the JSON summary");
    summary["summary"]["invocations"].as_i64().expect("a count")
}

/// A plain date is that day's start in UTC: `--since 2026-11-30 --until 2026-12-01` is the
/// 30th exactly, as the RFC 3339 times say; a date that is not one is refused.
#[test]
fn since_and_until_take_a_plain_date_meaning_its_start_in_utc() {
    let dir = temp_dir();
    let url = dated_database(dir.path(), None);
    let count = |since: &str, until: &str| {
        invocations(&run([
            "reverify",
            "--database",
            &url,
            "--format",
            "json",
            "--since",
            since,
            "--until",
            until,
        ]))
    };
    assert_eq!(count("2026-11-30", "2026-12-01"), 2);
    assert_eq!(count("2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z"), 2);
    assert_eq!(count("2026-11-29", "2026-11-30"), 1);
    let bad = run(["reverify", "--database", &url, "--since", "2026-11-31"]);
    assert_eq!((bad.code, bad.stdout.as_str()), (2, ""));
    assert!(bad.stderr.starts_with("--since: \"2026-11-31\" is not a date-time"), "{}", bad.stderr);
    assert!(bad.stderr.contains("or a date, 2026-11-30, meaning its start in UTC"), "{}", bad.stderr);
}

/// A `--tool` no row has is one stderr line naming it and the tools there are, on every
/// engine; the job still runs (another `--tool` may match).
#[test]
fn a_tool_that_matches_no_row_is_named() {
    for engine in crate::engines::all() {
        let dir = temp_dir();
        let url = dated_database(dir.path(), Some(&engine.url));
        let tools = ["--tool", "query_log", "--tool", "get_alerts"];
        let out = run([&["reverify", "--database", &url, "--format", "json"][..], &tools].concat());
        assert_eq!(invocations(&out), 2, "{}", engine.name);
        assert_eq!(
            out.stderr,
            "--tool query_log: no row of tool_invocation has this tool, so none is verified for it \
             (did you mean query_logs? its tools: get_alerts, query_logs)\n",
            "{}",
            engine.name
        );
        let quiet = run(["reverify", "--database", &url, "--format", "json", "--tool", "query_logs"]);
        assert_eq!((invocations(&quiet), quiet.stderr.as_str()), (2, ""), "{}", engine.name);
    }
}

/// A bundle that starts with a UTF-8 byte order mark (Notepad, PowerShell) is read like the
/// same bundle without it, from a file, from standard input and by `import`.
#[test]
fn a_bundle_with_a_byte_order_mark_is_read() {
    let fixture = std::fs::read(crate::harness::repo("fixtures/01_order_svc_5xx_spike.json")).unwrap();
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), &fixture].concat();
    let dir = temp_dir();
    let file = write(dir.path(), "bom.json", &with_bom);
    let plain = run(["verify", "--format", "json", "fixtures/01_order_svc_5xx_spike.json"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let from_file = run(["verify", "--format", "json", file.to_str().unwrap()]);
    assert_eq!((from_file.code, &from_file.stdout), (0, &plain.stdout), "{}", from_file.stderr);
    let from_stdin = run_with(["verify", "--format", "json", "-"], &[], Some(&with_bom));
    assert_eq!((from_stdin.code, &from_stdin.stdout), (0, &plain.stdout), "{}", from_stdin.stderr);
    let url = format!("sqlite://{}", dir.path().join("bom.db").display());
    let imported = run(["import", "--database", &url, file.to_str().unwrap()]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    // Only at the start: a mark further in is still the error it was.
    let inside = write(dir.path(), "inside.json", [b" ".as_slice(), &with_bom].concat());
    assert_eq!(run(["verify", inside.to_str().unwrap()]).code, 2);
}
