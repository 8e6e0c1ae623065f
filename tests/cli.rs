//! The `groundcheck` binary end to end: exit codes, formats, error lines, determinism.

use crate::harness::{fixture_files, repo, run, run_with, temp_dir, write};

const ONE_RUN: &str = r#"{"run_id":"r1","session_id":"s1","invocations":[
  {"id":2,"tool_name":"query_logs","success":true,
   "retrieval_details":{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.logs[0].message","text":"timeout"}]},
   "raw_output":{"logs":[{"message":"upstream timeout after 3s"}]}},
  {"id":1,"tool_name":"query_metrics",
   "retrieval_details":{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.data.result[0].value[1]","text":"0.950"}]},
   "raw_output_text":"{\"data\":{\"result\":[{\"value\":[1700000000,0.95]}]}}"}]}"#;

#[test]
fn verify_prints_a_json_report_and_exits_zero() {
    let dir = temp_dir();
    let file = write(dir.path(), "run.json", ONE_RUN);
    let out = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.is_empty());
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["schema"], "groundcheck.report/v1");
    let ids: Vec<_> =
        report["runs"][0]["invocations"].as_array().unwrap().iter().map(|v| v["id"].clone()).collect();
    assert_eq!(ids, [1, 2], "invocations are ordered by id");
    assert_eq!(report["runs"][0]["summary"]["supported"], 1);
    assert_eq!(report["runs"][0]["summary"]["unsupported"], 1);
    assert_eq!(
        report["runs"][0]["invocations"][0]["refs"][0]["outcome"], "text_not_found",
        "0.950 is not 0.95"
    );
}

#[test]
fn fail_on_sets_exit_code_one_but_still_prints() {
    let dir = temp_dir();
    let file = write(dir.path(), "run.json", ONE_RUN);
    for (flag, code) in [("unsupported", 1), ("claim-mismatch", 1), ("never", 0)] {
        let out = run(["verify".as_ref(), "--fail-on".as_ref(), flag.as_ref(), file.as_os_str()]);
        assert_eq!(out.code, code, "--fail-on {flag}");
        assert!(out.stdout.contains("run r1"), "{}", out.stdout);
    }
    let supported_only = write(dir.path(), "ok.json", ONE_RUN.replace("0.950", "0.95"));
    let out =
        run(["verify".as_ref(), "--fail-on".as_ref(), "unsupported".as_ref(), supported_only.as_os_str()]);
    assert_eq!(out.code, 0);
}

#[test]
fn jsonl_has_one_invocation_a_line_with_its_run_id_first() {
    let dir = temp_dir();
    let file = write(dir.path(), "run.json", ONE_RUN);
    let out = run(["verify".as_ref(), "--format".as_ref(), "jsonl".as_ref(), file.as_os_str()]);
    let lines: Vec<_> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(r#"{"run_id":"r1","id":1,"tool_name":"query_metrics""#), "{}", lines[0]);
}

#[test]
fn human_output_has_no_colour_off_a_terminal() {
    let out = run(["verify", "fixtures"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains('\x1b'));
    assert!(out.stdout.contains("no evidence found by this tool"));
}

#[test]
fn policy_flags_change_verdicts() {
    let dir = temp_dir();
    let bundle = r#"{"run_id":"p","invocations":[{"id":1,"tool_name":"t",
      "retrieval_details":{"evidence_refs":[{"raw_path":"$.m","text":"CONNECTION REFUSED"},{"raw_path":"$.m","text":"absent"}]},
      "raw_output":{"m":"connection refused"}}]}"#;
    let file = write(dir.path(), "p.json", bundle);
    let status = |args: &[&str]| {
        let mut all = vec!["verify", "--format", "jsonl"];
        all.extend_from_slice(args);
        all.push(file.to_str().unwrap());
        let line: serde_json::Value = serde_json::from_str(run(all).stdout.trim()).unwrap();
        format!("{}/{}", line["status"].as_str().unwrap(), line["reason"].as_str().unwrap())
    };
    assert_eq!(status(&[]), "unsupported/partially_verified");
    assert_eq!(status(&["--require", "any"]), "supported/verified");
    assert_eq!(status(&["--require", "any", "--match", "exact"]), "unsupported/not_verified");
}

/// Issue #6 item 1: every §6 limit is settable on the command line, and each one bites where
/// the spec says. One bundle, one invocation per limit, each just over its lowered limit.
#[test]
fn limit_flags_change_verdicts_where_each_limit_bites() {
    let bundle = r#"{"run_id":"r","invocations":[
      {"id":1,"tool_name":"t","raw_output_text":"{\"m\":\"0123456789\"}",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$.m","text":"456"}]}},
      {"id":2,"tool_name":"t","raw_output_text":"[[[\"deep\"]]]",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$[0][0][0]","text":"deep"}]}},
      {"id":3,"tool_name":"t","raw_output_text":"{\"m\":\"abcdef\"}",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$.m","text":"abcdef"}]}},
      {"id":4,"tool_name":"t","raw_output_text":"{\"mmmm\":\"x\"}",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$.mmmm","text":"x"}]}},
      {"id":5,"tool_name":"t","raw_output_text":"[\"a\",\"b\",\"c\"]",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$[*]","text":"c"}]}},
      {"id":6,"tool_name":"t","raw_output_text":"[\"a\",\"b\"]",
       "retrieval_details":{"evidence_refs":[{"raw_path":"$[0]","text":"a"},{"raw_path":"$[1]","text":"b"}]}}]}"#;
    let dir = temp_dir();
    let file = write(dir.path(), "limits.json", bundle);
    let outcomes = |flags: &[&str]| -> Vec<String> {
        let mut args = vec!["verify", "--format", "jsonl"];
        args.extend_from_slice(flags);
        args.push(file.to_str().unwrap());
        let out = run(args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
            .lines()
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let refs =
                    v["refs"].as_array().unwrap().iter().map(|r| r["outcome"].as_str().unwrap().to_string());
                refs.collect::<Vec<_>>().join(",")
            })
            .collect()
    };
    let defaults = outcomes(&[]);
    assert!(defaults.iter().all(|o| o.split(',').all(|o| o == "verified")), "{defaults:?}");
    let limited = outcomes(&[
        "--max-output-bytes=15",
        "--max-depth=2",
        "--max-text-chars=5",
        "--max-path-chars=5",
        "--max-nodes=2",
        "--max-refs=1",
    ]);
    assert_eq!(
        limited,
        [
            "limit_exceeded",          // 1: 18 bytes of output > 15
            "limit_exceeded",          // 2: depth 3 > 2
            "limit_exceeded",          // 3: 6 characters of text > 5
            "limit_exceeded",          // 4: `$.mmmm` is 6 characters > 5
            "limit_exceeded",          // 5: 3 nodes selected > 2
            "verified,limit_exceeded"  // 6: the second ref is not read
        ]
    );
    for bad in ["--max-depth=0", "--max-nodes=-1", "--max-refs=many"] {
        let out = run(["verify", bad, file.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{bad}");
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains(bad.split('=').next().unwrap()), "{bad}: {}", out.stderr);
    }
}

#[test]
fn a_folder_merges_runs_across_files_in_name_order() {
    let dir = temp_dir();
    write(dir.path(), "b.json", r#"{"run_id":"r","invocations":[{"id":5,"tool_name":"late"}]}"#);
    write(
        dir.path(),
        "a.json",
        r#"{"run_id":"r","session_id":"first","invocations":[{"id":9,"tool_name":"early"}]}"#,
    );
    write(dir.path(), "notes.txt", "not a bundle");
    let out = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), dir.path().as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    assert_eq!(report["runs"][0]["session_id"], "first", "a run's session is its first invocation's");
    assert_eq!(report["runs"][0]["invocations"][0]["tool_name"], "late", "ordered by id");
}

#[test]
fn a_repeated_id_in_a_run_rejects_the_command_naming_the_file() {
    let dir = temp_dir();
    write(dir.path(), "a.json", r#"{"run_id":"r","invocations":[{"id":1,"tool_name":"t"}]}"#);
    let b = write(
        dir.path(),
        "b.json",
        r#"{"run_id":"r","invocations":[{"id":2,"tool_name":"t"},{"id":1,"tool_name":"t"}]}"#,
    );
    let out = run(["verify".as_ref(), dir.path().as_os_str()]);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert_eq!(out.stderr, format!("{}: $.invocations[1].id: id 1 appears twice in run r\n", b.display()));
    // The same id in another run is fine.
    write(dir.path(), "b.json", r#"{"run_id":"other","invocations":[{"id":1,"tool_name":"t"}]}"#);
    assert_eq!(run(["verify".as_ref(), dir.path().as_os_str()]).code, 0);
}

#[test]
fn broken_bundles_give_one_line_and_exit_two() {
    let dir = temp_dir();
    let cases: [(&str, &[u8], &str); 5] = [
        (
            "syntax.json",
            b"{\"invocations\": [\n  {\"id\": 1,,}\n]}",
            "line 2, column 12: unexpected character ','",
        ),
        ("bom.json", b"\xef\xbb\xbf{\"invocations\":[]}", "line 1, column 1: byte order mark is not allowed"),
        (
            "latin1.json",
            b"{\"invocations\":[{\"id\":1,\"tool_name\":\"caf\xe9\"}]}",
            "byte 40: not valid UTF-8",
        ),
        (
            "typo.json",
            br#"{"invocations":[{"id":1,"tool_name":"t","raw_ouput":{}}]}"#,
            "$.invocations[0].raw_ouput: unknown key",
        ),
        (
            "surrogate.json",
            br#"{"invocations":[{"id":1,"tool_name":"t","raw_output":"\udc00"}]}"#,
            "lone surrogate escape",
        ),
    ];
    for (name, bytes, expected) in cases {
        let file = write(dir.path(), name, bytes);
        let out = run(["verify".as_ref(), file.as_os_str()]);
        assert_eq!(out.code, 2, "{name}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert_eq!(out.stderr.lines().count(), 1, "{name}: one line: {}", out.stderr);
        assert!(out.stderr.starts_with(&format!("{}: ", file.display())), "{name}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{name}: {}", out.stderr);
    }
}

#[test]
fn shipped_broken_bundles_are_all_rejected() {
    let dir = repo("tests/broken");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/broken exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            seen += 1;
            let out = run(["verify".as_ref(), path.as_os_str()]);
            assert_eq!(out.code, 2, "{} must be rejected", path.display());
            assert!(out.stdout.is_empty());
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
            assert!(out.stderr.starts_with(&path.display().to_string()), "{}", out.stderr);
        }
    }
    assert!(seen >= 8, "tests/broken holds the invalid-bundle corpus");
}

#[test]
fn a_missing_path_is_exit_two() {
    let out = run(["verify", "no/such/bundle.json"]);
    assert_eq!((out.code, out.stderr.as_str()), (2, "no/such/bundle.json: no such file or directory\n"));
}

#[test]
fn reports_are_identical_with_one_thread_or_many() {
    let files: Vec<String> = fixture_files().iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["verify".to_string(), "--format".into(), "json".into()];
    args.extend(files);
    let one = run_with(&args, &[("RAYON_NUM_THREADS", "1")], None);
    let many = run_with(&args, &[("RAYON_NUM_THREADS", "8")], None);
    let again = run_with(&args, &[("RAYON_NUM_THREADS", "8")], None);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(one.stdout.len() > 1000);
    assert_eq!(one.stdout, many.stdout);
    assert_eq!(many.stdout, again.stdout);
}

#[test]
fn resolve_prints_nodes_with_numbers_as_written() {
    let doc = br#"{"data":{"result":[{"metric":{"pod":"order-svc-7f9"},"value":[1.7e9,"0.950"]},{"metric":{"pod":"pay-1"},"value":[1700000000,1E+400]}]}}"#;
    let out = run_with(["resolve", "--path", "$.data.result[*].value[1]", "-"], &[], Some(doc));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "[\n  {\"path\": \"$['data']['result'][0]['value'][1]\", \"value\": \"0.950\"},\n  {\"path\": \"$['data']['result'][1]['value'][1]\", \"value\": 1E+400}\n]\n"
    );
    let pointer = run_with(["resolve", "--path", "/data/result/0/value/0"], &[], Some(doc));
    assert_eq!(
        pointer.stdout,
        "[\n  {\"path\": \"$['data']['result'][0]['value'][0]\", \"value\": 1.7e9}\n]\n"
    );
    let nothing = run_with(["resolve", "--path", "$.nope"], &[], Some(doc));
    assert_eq!((nothing.code, nothing.stdout.as_str()), (0, "[]\n"));
}

#[test]
fn resolve_does_not_trim_the_path() {
    let out = run_with(["resolve", "--path", " $.a"], &[], Some(br#"{"a":1}"#));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("invalid path at character 1"), "{}", out.stderr);
}

#[test]
fn resolve_rejects_bad_paths_and_non_json_with_exit_two() {
    let bad_path = run_with(["resolve", "--path", "$.logs[0"], &[], Some(b"{}"));
    assert_eq!(bad_path.code, 2);
    assert_eq!(
        bad_path.stderr,
        "--path \"$.logs[0\": invalid path at character 9: in long-hand segment, expected closing ']'\n"
    );
    let not_json = run_with(["resolve", "--path", "$"], &[], Some(b"{\"a\": NaN}"));
    assert_eq!(
        (not_json.code, not_json.stderr.as_str()),
        (2, "<stdin>: line 1, column 7: unexpected character 'N'\n")
    );
    assert!(not_json.stdout.is_empty());
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in ["verify", "resolve"] {
        let out = run([command, "--help"]);
        assert_eq!(out.code, 0);
        assert!(out.stdout.contains("Examples:"), "{command} --help: {}", out.stdout);
    }
    assert_eq!(run(["verify"]).code, 2, "a missing PATH is bad usage");
    assert_eq!(run(["verify", "--match", "fuzzy", "x"]).code, 2);
}

/// Regression: a 10,000-deep output is an ordinary input (SPEC §6). `verify` gives its refs
/// `limit_exceeded`; `resolve` refuses JSONPath on it with one line but follows a JSON Pointer.
#[test]
fn ten_thousand_deep_documents_neither_crash_verify_nor_resolve() {
    let dir = temp_dir();
    let deep = format!("{}\"bottom\"{}", "[".repeat(10_000), "]".repeat(10_000));
    let bundle = format!(
        r#"{{"run_id":"deep","invocations":[{{"id":1,"tool_name":"t","raw_output":{deep},
            "retrieval_details":{{"evidence_refs":[{{"raw_path":"$..*","text":"bottom"}}]}}}}]}}"#
    );
    let file = write(dir.path(), "deep.json", bundle);
    let out = run(["verify".as_ref(), "--format".as_ref(), "jsonl".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(r#""outcome":"limit_exceeded""#), "{}", out.stdout);

    let doc = write(dir.path(), "deep-doc.json", &deep);
    let out = run(["resolve".as_ref(), "--path".as_ref(), "$..*".as_ref(), doc.as_os_str()]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        format!("{}: the document is nested 10000 deep; JSONPath queries run on documents up to 1000 deep (JSON Pointers run at any depth)\n", doc.display())
    );
    let pointer = "/0".repeat(9_999);
    let out = run(["resolve".as_ref(), "--path".as_ref(), pointer.as_ref(), doc.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.ends_with("\"value\": [\"bottom\"]}\n]\n"),
        "{}",
        &out.stdout[out.stdout.len() - 60..]
    );
}
