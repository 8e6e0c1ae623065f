//! What a database command says when the user can fix something: a raw output larger than
//! MariaDB's `max_allowed_packet` (the server drops the connection: the driver said only
//! "connection reset"), a `--tool` or `--run` that no row has, and a password with an
//! un-encoded `/` (the URL parser read it as the end of the host: "invalid port number").

use serde_json::json;

use crate::engines::{self, integers};
use crate::harness::{run_in, temp_dir, write, Outcome};

fn assert_one_line(what: &str, out: &Outcome) -> String {
    assert_eq!(out.code, 2, "{what}: {out:?}");
    assert!(out.stdout.is_empty(), "{what}: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{what}: {}", out.stderr);
    out.stderr.trim_end().to_string()
}

#[test]
fn a_raw_output_over_max_allowed_packet_names_the_variable_and_the_size_needed() {
    for engine in engines::all().into_iter().filter(|e| e.name == "mariadb") {
        let url = engine.url.as_str();
        let dir = temp_dir();
        let max = integers(url, "SELECT CAST(@@max_allowed_packet AS SIGNED)")[0] as usize;
        let text = format!("{{\"logs\":[\"{}\"]}}", "x".repeat(max + 1024));
        let bundle = json!({"invocations": [{"id": 1, "session_id": "s", "run_id": "r", "tool_name": "t",
            "created_at": "2026-11-30T10:00:00Z", "raw_output_text": text}]});
        write(dir.path(), "big.json", bundle.to_string());
        assert_eq!(run_in(dir.path(), ["migrate", "--database", url], &[], None).code, 0);
        let out = run_in(dir.path(), ["import", "--database", url, "big.json"], &[], None);
        let line = assert_one_line("import", &out);
        let needed = (max + 1024 + 64 * 1024 + 20).div_ceil(1 << 20) << 20;
        for says in [
            "big.json: $.invocations[0]: its raw output takes".to_string(),
            format!("more than the server's max_allowed_packet ({max} bytes)"),
            format!("SET GLOBAL max_allowed_packet = {needed}"),
            "nothing was imported".to_string(),
        ] {
            assert!(line.contains(&says), "{says}: {line}");
        }
        assert!(!line.contains("groundcheck-test-pw"), "{line}");
        assert_eq!(integers(url, "SELECT COUNT(*) FROM tool_invocation"), [0]);
    }
}

#[test]
fn a_tool_or_run_no_row_has_is_named_with_the_closest_ones() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("gc.db").display());
    let fixtures = crate::harness::repo("fixtures/01_order_svc_5xx_spike.json");
    let out = run_in(dir.path(), ["import", "--database", &url, fixtures.to_str().unwrap()], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let reverify = |args: &[&str]| {
        let out = run_in(dir.path(), [&["reverify", "--database", &url][..], args].concat(), &[], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stderr
    };
    let said = reverify(&["--tool", "query_log"]);
    assert!(said.contains("--tool query_log: no row of tool_invocation has this tool"), "{said}");
    assert!(said.contains("did you mean query_logs?"), "{said}");
    let said = reverify(&["--run", "run-20261130-order-5xy"]);
    assert!(
        said.contains(
            "--run run-20261130-order-5xy: no row of tool_invocation has this run_id, so none is verified"
        ),
        "{said}"
    );
    assert!(said.contains("did you mean run-20261130-order-5xx?"), "{said}");
    let said = reverify(&["--run", "run-20261130-order-5xx"]);
    assert!(!said.contains("--run"), "a run that exists is not named: {said}");
}

#[test]
fn a_password_with_an_unencoded_slash_says_to_percent_encode_it() {
    for (url, port) in [
        ("mysql://groundcheck:pa/ss-w0rd@127.0.0.1:33306/groundcheck_test", "33306"),
        ("postgres://groundcheck:pa/ss-w0rd@127.0.0.1:55432/groundcheck_test", "55432"),
        ("mariadb://gc:a/b/c@db.internal/agent", ""),
    ] {
        let dir = temp_dir();
        let out = run_in(dir.path(), ["run", "--database", url, "run-1"], &[], None);
        let line = assert_one_line(url, &out);
        assert!(line.contains("the password holds a `/`"), "{line}");
        assert!(line.contains("write it percent-encoded, `/` as %2F"), "{line}");
        assert!(!line.contains("invalid port"), "{line}");
        assert!(!line.contains("ss-w0rd") && !line.contains("a/b/c"), "never the password: {line}");
        assert!(line.contains(port), "{line}");
    }
}
