//! The `groundcheck` binary end to end: exit codes, formats, error lines, determinism.

use std::path::Path;

use crate::harness::{
    fixture_files, repo, run, run_in, run_shell, run_with, temp_dir, temp_dir_with_fixtures, write,
};

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

/// Every jsonl line carries its run's session_id beside run_id, so lines of
/// rows without a run_id can still be grouped.
#[test]
fn jsonl_has_one_invocation_a_line_with_its_run_id_and_session_first() {
    let dir = temp_dir();
    let file = write(dir.path(), "run.json", ONE_RUN);
    let out = run(["verify".as_ref(), "--format".as_ref(), "jsonl".as_ref(), file.as_os_str()]);
    let lines: Vec<_> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with(r#"{"run_id":"r1","session_id":"s1","id":1,"tool_name":"query_metrics""#),
        "{}",
        lines[0]
    );
    let sessions = write(
        dir.path(),
        "sessions.json",
        r#"{"invocations":[{"id":1,"tool_name":"t","session_id":"a"},{"id":2,"tool_name":"t","session_id":"b"}]}"#,
    );
    let out = run(["verify".as_ref(), "--format".as_ref(), "jsonl".as_ref(), sessions.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let starts: Vec<_> = out.stdout.lines().map(|l| &l[..l.find(r#","id""#).unwrap()]).collect();
    assert_eq!(starts, [r#"{"run_id":null,"session_id":"a""#, r#"{"run_id":null,"session_id":"b""#]);
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

/// Every docs/verification.md#limits limit is settable on the command line, and each one bites where
/// the spec says. One bundle, one invocation per limit, each just over its lowered limit.
#[test]
fn limit_flags_change_verdicts_where_each_limit_bites() {
    let bundle = r#"{"run_id":"r","invocations":[
      {"id":1,"tool_name":"t","raw_output_text":"{\"m\":\"rst-456-uv\"}",
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
        // One mark is dropped (Windows editors write one); a second is the error it always was.
        (
            "bom.json",
            b"\xef\xbb\xbf\xef\xbb\xbf{\"invocations\":[]}",
            "line 1, column 1: byte order mark is not allowed",
        ),
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

/// Every file of `tests/broken` is rejected with one line naming the place its README's table
/// gives (`where`) and the problem as the program words it, and the table, the folder and
/// this test name the same 13 files.
#[test]
fn shipped_broken_bundles_are_all_rejected() {
    let problems = [
        ("01_not_json.json", "unexpected character ','"),
        ("02_bom.json", "byte order mark is not allowed"),
        ("03_trailing_bytes.json", "trailing characters after the value"),
        ("04_lone_surrogate_in_raw_output.json", "lone surrogate escape"),
        (
            "05_unknown_top_level_key.json",
            "unknown key (a bundle has only run_id, session_id and invocations)",
        ),
        (
            "06_unknown_invocation_key_raw_ouput.json",
            "unknown key (expected a tool_invocation column, raw_output or raw_output_text)",
        ),
        ("07_missing_id.json", "required integer is missing"),
        ("08_id_string.json", "must be an integer within BIGINT (i64) or null, not a string"),
        ("09_id_beyond_i64.json", "9223372036854775808 is not an integer within BIGINT (i64)"),
        ("10_missing_tool_name.json", "required string is missing"),
        ("11_both_raw_outputs.json", "raw_output and raw_output_text are both given; keep one"),
        ("12_duplicate_id_in_run.json", "id 9001 appears twice in run run-broken"),
        ("13_is_truncated_string.json", "must be true, false or null, not a string"),
    ];
    let dir = repo("tests/broken");
    // The README's table: `| `FILE` | problem | where |`, `where` with or without backticks.
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let places: std::collections::BTreeMap<String, String> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|row| {
            let (file, rest) = row.split_once('`')?;
            let place = rest.trim_end().strip_suffix('|')?.rsplit_once(" | ")?.1.trim();
            Some((file.to_string(), place.trim_matches('`').to_string()))
        })
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/broken exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    let named: Vec<&str> = problems.iter().map(|(file, _)| *file).collect();
    assert_eq!(files, named, "tests/broken holds other files than this test names");
    assert_eq!(places.keys().collect::<Vec<_>>(), named.iter().collect::<Vec<_>>(), "the README's table");
    for (file, problem) in problems {
        let path = dir.join(file);
        let out = run(["verify".as_ref(), path.as_os_str()]);
        assert_eq!(out.code, 2, "{file} must be rejected");
        assert!(out.stdout.is_empty(), "{file}: {}", out.stdout);
        assert_eq!(out.stderr, format!("{}: {}: {problem}\n", path.display(), places[file]), "{file}");
    }
}

/// `verify -` reads the bundle from standard input (not `<stdin>: no such file or
/// directory`); `-` twice cannot work and says so.
#[test]
fn verify_reads_a_bundle_from_standard_input() {
    let out = run_with(["verify", "--format", "json", "-"], &[], Some(ONE_RUN.as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["runs"][0]["run_id"], "r1");
    assert_eq!(report["runs"][0]["summary"]["invocations"], 2);

    let broken = run_with(["verify", "-"], &[], Some(b"{\"invocations\": 1}"));
    assert_eq!(
        (broken.code, broken.stdout.as_str(), broken.stderr.as_str()),
        (2, "", "<stdin>: $.invocations: must be an array of invocations, not a number\n")
    );
    let twice = run_with(["verify", "-", "-"], &[], Some(ONE_RUN.as_bytes()));
    assert_eq!(
        (twice.code, twice.stderr.as_str()),
        (2, "<stdin>: named twice, but standard input can be read only once\n")
    );
}

/// A PATH that yields no bundle (the wrong folder) is exit 2 with one line, which names the
/// subfolders that were not read and how to read them, not exit 0 with `no invocations
/// found`, even under `--fail-on`.
#[test]
fn a_path_that_yields_no_bundle_is_exit_two() {
    let dir = temp_dir();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    write(&empty, "notes.txt", "not a bundle");
    let out = run(["verify".as_ref(), "--fail-on".as_ref(), "unsupported".as_ref(), empty.as_os_str()]);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr,
        format!("{}: no bundle files (*.json) directly in this folder\n", empty.display())
    );

    let parent = dir.path().join("parent");
    std::fs::create_dir_all(parent.join("run-a")).unwrap();
    write(&parent.join("run-a"), "a.json", ONE_RUN);
    let out = run(["verify".as_ref(), parent.as_os_str()]);
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert_eq!(
        out.stderr,
        format!(
            "{0}: no bundle files (*.json) directly in this folder; 1 subfolder not read: run-a (only the \
             *.json files directly in a folder are read; give a subfolder as a PATH to read it, e.g. {1})\n",
            parent.display(),
            parent.join("run-a").display()
        )
    );
    // A good PATH beside it does not hide it.
    let good = write(dir.path(), "good.json", ONE_RUN);
    let out = run(["verify".as_ref(), good.as_os_str(), empty.as_os_str()]);
    assert_eq!(out.code, 2, "{}", out.stdout);

    let import = run_in(dir.path(), ["import".as_ref(), empty.as_os_str()], &[], None);
    assert_eq!(import.code, 2);
    assert!(
        import.stderr.ends_with("no bundle files (*.json) directly in this folder\n"),
        "{}",
        import.stderr
    );
    assert!(!dir.path().join("groundcheck.db").exists(), "nothing was opened, let alone written");
}

/// `verify` and `import` of a folder name the subfolders they did not read
/// (a note on stderr, after the output), and the human summary says how many files were read.
#[test]
fn subfolders_that_are_not_read_are_named() {
    let dir = temp_dir();
    write(dir.path(), "a.json", ONE_RUN);
    for sub in ["nested", "more"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        write(&dir.path().join(sub), "b.json", r#"{"invocations":[]}"#);
    }
    let note = format!(
        "{}: 2 subfolders not read: more, nested (only the *.json files directly in a folder are \
         read; give a subfolder as a PATH to read it, e.g. {})\n",
        dir.path().display(),
        dir.path().join("more").display()
    );
    let out = run(["verify".as_ref(), dir.path().as_os_str()]);
    assert_eq!((out.code, out.stderr.as_str()), (0, note.as_str()));
    assert!(out.stdout.ends_with("; 1 claim mismatch\n1 bundle file read\n"), "{}", out.stdout);
    let json = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), dir.path().as_os_str()]);
    assert_eq!(json.stderr, note, "the note never goes into a report a pipeline reads");
    serde_json::from_str::<serde_json::Value>(&json.stdout).unwrap();

    let db = temp_dir();
    let bundle =
        r#"{"session_id":"s","invocations":[{"id":1,"tool_name":"t","created_at":"2026-11-30T10:00:00Z"}]}"#;
    write(dir.path(), "a.json", bundle);
    let import = run_in(db.path(), ["import".as_ref(), dir.path().as_os_str()], &[], None);
    assert_eq!(import.code, 0, "{}", import.stderr);
    assert_eq!(
        import.stdout,
        format!("{}: 1 imported, 0 already present\n", dir.path().join("a.json").display())
    );
    assert_eq!(import.stderr, note);

    // A subfolder given as a PATH too is read, so it is not named.
    let nested = dir.path().join("nested");
    let out = run(["verify".as_ref(), dir.path().as_os_str(), nested.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains(": 1 subfolder not read: more ("), "{}", out.stderr);
}

/// Paths in the human output are printed exactly as given (no escaped
/// quotes, never cut short), so one can be pasted into `resolve`; control characters are
/// shown as `<U+XXXX>` and nothing else changes.
#[test]
fn human_output_prints_paths_as_given() {
    let long = "$.data.result[0].values[0][1].deeply.nested.field.with.a.rather.long.name";
    let bundle = serde_json::json!({"run_id": "r", "invocations": [{
        "id": 1, "tool_name": "get\ttraces",
        "retrieval_details": {"evidence_status": "supported", "evidence_refs": [
            {"raw_path": "$[0].tags['kafka.topic']", "text": "orders"},
            {"raw_path": long, "text": "x"},
            {"raw_path": "$[0][\"a\\b\"]\n", "text": "line one\nline two"}]},
        "raw_output": [{"tags": {"kafka.topic": "payments"}}]}]});
    let dir = temp_dir();
    let file = write(dir.path(), "paths.json", bundle.to_string());
    let out = run(["verify".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let refs: Vec<&str> = out.stdout.lines().filter(|l| l.trim_start().starts_with("ref ")).collect();
    assert_eq!(
        refs,
        [
            r#"      ref 0  text_not_found  "orders"  $[0].tags['kafka.topic']"#.to_string(),
            format!(r#"      ref 1  path_not_found  "x"  {long}"#),
            r#"      ref 2  path_not_found  "line one<U+000A>line two"  $[0]["a\b"]<U+000A>"#.to_string(),
        ]
    );
    assert!(out.stdout.contains("  get<U+0009>traces  "), "{}", out.stdout);

    // The printed path, pasted into resolve, selects what verification searched.
    let printed = refs[0].rsplit("  ").next().unwrap();
    let doc = br#"[{"tags":{"kafka.topic":"payments"}}]"#;
    let resolved = run_with(["resolve", "--path", printed, "-"], &[], Some(doc));
    assert_eq!(
        resolved.stdout,
        "[\n  {\"path\": \"$[0]['tags']['kafka.topic']\", \"value\": \"payments\"}\n]\n"
    );
}

/// The README's example of the human output is what `verify` prints.
#[test]
fn readme_human_example_is_what_verify_prints() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let command = "$ groundcheck verify fixtures/07_pod_status_bracket_keys.json\n";
    let start = readme.find(command).expect("the README shows the human output") + command.len();
    let shown = &readme[start..start + readme[start..].find("```").unwrap()];
    let out = run(["verify", "fixtures/07_pod_status_bracket_keys.json"]);
    assert_eq!(out.stdout, shown);
}

/// Warnings appear under their row, and an `invalid_path` ref says why its
/// path is not one, as `resolve` would, counting characters in the path as given.
#[test]
fn human_output_shows_warnings_and_why_a_path_is_invalid() {
    let bundle = r#"{"run_id":"r","invocations":[{"id":7,"tool_name":"t",
      "retrieval_details":{"evidence_refs":[
        {"raw_path":"  logs[0]","text":"x"},{"raw_path":"$.logs[0","text":"x"},
        {"raw_path":"$.logs[0]","text":"boom"},{"raw_path":"$.no_evidence","text":"n/a"}]},
      "raw_output":{"logs":["boom"]}}]}"#;
    let dir = temp_dir();
    let file = write(dir.path(), "w.json", bundle);
    let out = run(["verify".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let under: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("      ")).collect();
    assert_eq!(
        under,
        [
            r#"      ref 0  invalid_path  "x"    logs[0]"#,
            "             invalid path at character 3: a JSONPath starts with `$`, a JSON Pointer with `/`",
            r#"      ref 1  invalid_path  "x"  $.logs[0"#,
            "             invalid path at character 9: in long-hand segment, expected closing ']'",
            r#"      ref 3  no_evidence_marker  "n/a"  $.no_evidence"#,
            "      warning marker_with_refs: no-evidence markers beside real refs were ignored",
        ]
    );
    let resolve = run_with(["resolve", "--path", "$.logs[0"], &[], Some(b"{}"));
    assert!(
        resolve.stderr.trim_end().ends_with(under[3].trim_start()),
        "as resolve says: {}",
        resolve.stderr
    );
}

/// `invalid_utf8` (only a database can produce it) is shown too.
#[test]
fn human_output_of_run_shows_invalid_utf8() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("w.db").display());
    let bundle = r#"{"run_id":"r","session_id":"s","invocations":[{"id":1,"tool_name":"t",
      "created_at":"2026-11-30T10:00:00Z","error_message":"x"}]}"#;
    let file = write(dir.path(), "w.json", bundle);
    assert_eq!(run(["import", "--database", &url, file.to_str().unwrap()]).code, 0);
    crate::engines::block_on(async {
        let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url).await.unwrap();
        sqlx::query("UPDATE tool_invocation SET error_message = CAST(X'ff' AS TEXT) WHERE id = 1")
            .execute(&mut conn)
            .await
            .unwrap();
    });
    let out = run(["run", "--database", &url, "r"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "\n      warning invalid_utf8: a text column or raw-output file was not valid UTF-8 and was read with U+FFFD replacements\n"
        ),
        "{}",
        out.stdout
    );
}

/// Counts are singular or plural as they should be, and a report of more
/// than one run ends with a grand total.
#[test]
fn human_counts_read_as_english_with_a_grand_total() {
    let dir = temp_dir();
    let one = r#"{"run_id":"a","invocations":[{"id":1,"tool_name":"t",
      "retrieval_details":{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.m","text":"no"}]},
      "raw_output":{"m":"yes"}}]}"#;
    let file = write(dir.path(), "one.json", one);
    let out = run(["verify".as_ref(), file.as_os_str()]);
    let tail: Vec<&str> = out.stdout.lines().rev().take(2).collect();
    assert_eq!(
        tail,
        [
            "1 bundle file read",
            "1 invocation: 0 supported, 1 unsupported, 0 no_evidence (no evidence found by this tool); 1 claim mismatch",
        ]
    );
    assert!(!out.stdout.contains("total"), "one run needs no total: {}", out.stdout);

    write(dir.path(), "two.json", ONE_RUN);
    let out = run(["verify".as_ref(), dir.path().as_os_str()]);
    assert!(
        out.stdout.ends_with(
            "\n\ntotal: 2 runs, 3 invocations: 1 supported, 2 unsupported, 0 no_evidence (no evidence found \
             by this tool); 2 claim mismatches\n2 bundle files read\n"
        ),
        "{}",
        out.stdout
    );
    let empty = write(dir.path(), "empty.json", r#"{"invocations":[]}"#);
    let out = run(["verify".as_ref(), empty.as_os_str()]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "no invocations found in 1 bundle file\n"));
}

/// A row the tool_invocation table cannot hold says which column is
/// missing and where to give it, without database jargon.
#[test]
fn import_names_the_missing_column_the_table_requires() {
    let dir = temp_dir();
    let cases = [
        (r#"{"invocations":[{"id":1,"tool_name":"t","created_at":"2026-11-30T10:00:00Z"}]}"#,
         "$.invocations[0].session_id: missing, and the tool_invocation table requires it (give it on the invocation or at the top of the bundle)"),
        (r#"{"session_id":"s","invocations":[{"id":1,"tool_name":"t"}]}"#,
         "$.invocations[0].created_at: missing, and the tool_invocation table requires it (give it on the invocation, as an RFC 3339 time)"),
    ];
    for (bundle, expected) in cases {
        let file = write(dir.path(), "row.json", bundle);
        let out = run_in(dir.path(), ["import".as_ref(), file.as_os_str()], &[], None);
        assert_eq!(out.code, 2);
        assert_eq!(out.stderr, format!("{}: {expected}\n", file.display()));
    }
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

/// A path that selects nothing as written is resolved on the expanded view (JSON
/// inside strings), and each node found there says so after its value.
#[test]
fn resolve_marks_nodes_selected_inside_strings_as_descended() {
    let doc = br#"{"content":[{"type":"text","text":"{\"items\":[{\"message\":\"disk full\"}]}"}],"isError":false}"#;
    let out = run_with(["resolve", "--path", "$..message", "-"], &[], Some(doc));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "[\n  {\"path\": \"$['content'][0]['text']['items'][0]['message']\", \"value\": \"disk full\", \"descended\": true}\n]\n"
    );
    let plain = run_with(["resolve", "--path", "$.isError"], &[], Some(doc));
    assert_eq!(plain.stdout, "[\n  {\"path\": \"$['isError']\", \"value\": false}\n]\n");
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
    // Neither JSON nor YAML (an unclosed flow sequence): no view to resolve on.
    let not_json = run_with(["resolve", "--path", "$"], &[], Some(b"{\"a\": [NaN"));
    assert_eq!(
        (not_json.code, not_json.stderr.as_str()),
        (2, "<stdin>: line 1, column 8: unexpected character 'N'\n")
    );
    assert!(not_json.stdout.is_empty());
}

#[test]
fn resolve_reads_a_text_that_is_not_json_as_yaml_or_json_lines() {
    let pod = b"kind: Pod\nstatus:\n  phase: Running\n  restarts: 0.950\n";
    let out = run_with(["resolve", "--path", "$.status.restarts"], &[], Some(pod));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "[\n  {\"path\": \"$['status']['restarts']\", \"value\": \"0.950\", \"read_as\": \"yaml\"}\n]\n"
    );
    // `$` is the whole text, as verification reads it.
    let whole = run_with(["resolve", "--path", "$"], &[], Some(pod));
    assert_eq!(whole.stdout, "[\n  {\"path\": \"$\", \"value\": \"kind: Pod\\nstatus:\\n  phase: Running\\n  restarts: 0.950\\n\"}\n]\n");
    let logs = b"{\"msg\":\"start\"}\n{\"msg\":\"{\\\"code\\\":503}\"}\n";
    let out = run_with(["resolve", "--path", "$[1].msg.code"], &[], Some(logs));
    assert_eq!(
        out.stdout,
        "[\n  {\"path\": \"$[1]['msg']['code']\", \"value\": 503, \"read_as\": \"json_lines\", \"descended\": true}\n]\n"
    );
}

#[test]
fn every_command_has_help_with_an_example() {
    for command in ["verify", "resolve", "import", "run", "export", "reverify", "migrate", "mcp"] {
        let out = run([command, "--help"]);
        assert_eq!(out.code, 0);
        assert!(out.stdout.contains("Examples:"), "{command} --help: {}", out.stdout);
        assert!(!out.stdout.contains("SPEC") && !out.stdout.contains("seed"), "{command}: jargon");
    }
    assert_eq!(run(["verify"]).code, 2, "a missing PATH is bad usage");
    assert_eq!(run(["verify", "--match", "fuzzy", "x"]).code, 2);
}

/// The examples in the help of `groundcheck`, `verify`, `resolve` and `import` run as shown,
/// from a clone of the repository (here a folder whose `fixtures` is the repository's, so
/// `import` writes its groundcheck.db there), and each prints something: a `resolve` example
/// selects at least one node. The `jq` example needs jq (scripts/test.sh installs it).
#[test]
fn help_examples_run_as_shown() {
    assert_eq!(run_shell(Path::new("."), "command -v jq").code, 0, "jq not found: install Debian's jq");
    let mut ran_jq = false;
    for command in [None, Some("verify"), Some("resolve"), Some("import")] {
        let help = run(command.into_iter().chain(Some("--help")));
        let examples = help.stdout.split_once("Examples:\n").or_else(|| help.stdout.split_once("Start here"));
        let (_, examples) = examples.unwrap_or_else(|| panic!("{command:?}: examples"));
        let script = examples.replace("\\\n", " ");
        let lines: Vec<&str> = script
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("groundcheck") || l.contains("| groundcheck"))
            .collect();
        assert!(lines.len() >= 2, "{command:?}: {lines:?}");
        for line in lines {
            let dir = temp_dir_with_fixtures();
            let out = run_shell(dir.path(), line);
            assert_eq!(out.code, 0, "{line}: {}", out.stderr);
            assert!(!matches!(out.stdout.trim(), "" | "[]"), "{line} printed nothing: {:?}", out.stdout);
            if line.contains("groundcheck resolve") {
                assert!(out.stdout.contains(r#"{"path": "$"#), "{line} selected nothing: {}", out.stdout);
            }
            ran_jq |= line.starts_with("jq ");
        }
    }
    assert!(ran_jq, "no example runs jq");
}

/// Regression: a 10,000-deep output is an ordinary input (docs/verification.md#limits).
/// `verify` gives its refs `limit_exceeded`; `resolve` refuses JSONPath on it with one line but
/// follows a JSON Pointer.
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
    // 2,000 steps: twice the query ceiling, within the path length limit (4,096 characters).
    let pointer = "/0".repeat(2_000);
    let out = run(["resolve".as_ref(), "--path".as_ref(), pointer.as_ref(), doc.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.ends_with(&format!("\"bottom\"{}}}\n]\n", "]".repeat(8_000))),
        "{}",
        &out.stdout[out.stdout.len() - 60..]
    );
}

/// One invocation whose refs fail in each way a person needs to tell apart: a misquote (one
/// character wrong), a ref pointed at the wrong array element (the quote is in another one),
/// the same past the end of the array, and an invented quote, under a path that selects a
/// value and under one that selects nothing.
const NEAR_MISSES: &str = r#"{"run_id":"r-near","session_id":"s-near","invocations":[
  {"id":1,"tool_name":"query_logs","created_at":"2026-11-30T10:00:00Z",
   "retrieval_details":{"evidence_status":"supported","evidence_refs":[
     {"raw_path":"$.logs[0].message","text":"Connection refused by pear"},
     {"raw_path":"$.logs[1].message","text":"disk quota exceeded"},
     {"raw_path":"$.logs[5].message","text":"disk quota exceeded"},
     {"raw_path":"$.status","text":"kernel panic"},
     {"raw_path":"$.logs[7].message","text":"kernel panic"},
     {"raw_path":"$.logs[3].message","text":"upstream request timeout while calling payment-svc after 3000ms, retries exhausted"}]},
   "raw_output":{"status":200,"logs":[{"message":"dial tcp: connection refused by peer"},
     {"message":"pool exhausted"},{"message":"disk quota exceeded on /var"},
     {"message":"Upstream request timeout while calling payment-svc after 3000 ms, retries exhausted"}]}}]}"#;

/// The lines under the rows of a human report.
fn under_rows(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("      ")).collect()
}

/// A failed ref says, under it, what a reader needs to tell a misquote (`nearest` with a
/// high score), a mis-pointed ref (`found elsewhere`) and an invention (neither) apart; the
/// closest text is clipped like a quote, and every path is last on its line. `run` prints the
/// same.
#[test]
fn human_output_tells_misquotes_mis_pointed_refs_and_inventions_apart() {
    let dir = temp_dir();
    let file = write(dir.path(), "near.json", NEAR_MISSES);
    let out = run(["verify".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = [
        r#"      ref 0  text_not_found  "Connection refused by pear"  $.logs[0].message"#,
        r#"             nearest 0.961  "connection refused by peer"  $['logs'][0]['message']"#,
        r#"      ref 1  text_not_found  "disk quota exceeded"  $.logs[1].message"#,
        "             found elsewhere  $['logs'][2]['message']",
        r#"             nearest 0.263  "ol exhausted"  $['logs'][1]['message']"#,
        r#"      ref 2  path_not_found  "disk quota exceeded"  $.logs[5].message"#,
        "             found elsewhere  $['logs'][2]['message']",
        r#"      ref 3  text_not_found  "kernel panic"  $.status"#,
        "             nothing under the path comes close, and the text is nowhere else in the output \
         (probably invented)",
        r#"      ref 4  path_not_found  "kernel panic"  $.logs[7].message"#,
        "             the text is nowhere in the output (probably invented)",
        r#"      ref 5  text_not_found  "upstream request timeout while calling payment-…"  $.logs[3].message"#,
        r#"             nearest 0.987  "upstream request timeout while calling payment-…"  $['logs'][3]['message']"#,
    ];
    assert_eq!(under_rows(&out.stdout), expected, "{}", out.stdout);

    // The same lines from the database.
    let url = format!("sqlite://{}", dir.path().join("near.db").display());
    assert_eq!(run(["import", "--database", &url, file.to_str().unwrap()]).code, 0);
    let from_db = run(["run", "--database", &url, "r-near"]);
    assert_eq!(from_db.code, 0, "{}", from_db.stderr);
    assert_eq!(under_rows(&from_db.stdout), expected, "{}", from_db.stdout);
}

/// Under `--match fuzzy` a ref only a near miss verified is shown, with its score, since its
/// quote is not the output's text; refs that failed still say how close they came.
#[test]
fn human_output_shows_the_score_of_a_fuzzy_match() {
    let dir = temp_dir();
    let file = write(dir.path(), "near.json", NEAR_MISSES);
    let out = run(["verify".as_ref(), "--match".as_ref(), "fuzzy".as_ref(), file.as_os_str()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = under_rows(&out.stdout);
    assert_eq!(
        lines[0],
        r#"      ref 0  verified (fuzzy, score 0.961)  "Connection refused by pear"  $.logs[0].message"#
    );
    assert_eq!(lines[1], r#"      ref 1  text_not_found  "disk quota exceeded"  $.logs[1].message"#);
    assert_eq!(
        lines.last().copied(),
        Some(
            r#"      ref 5  verified (fuzzy, score 0.987)  "upstream request timeout while calling payment-…"  $.logs[3].message"#
        )
    );
    assert!(out.stdout.contains("  1   query_logs  unsupported  partially_verified  "), "{}", out.stdout);
    // A higher threshold: the misquote fails again, and says how close it came.
    let strict = run(["verify", "--match", "fuzzy", "--min-score", "0.97", file.to_str().unwrap()]);
    let lines = under_rows(&strict.stdout);
    assert_eq!(
        lines[1],
        r#"             nearest 0.961  "connection refused by peer"  $['logs'][0]['message']"#
    );
    // Exact and normalised matches stay off the listing, as before.
    let plain = write(dir.path(), "plain.json", NEAR_MISSES.replace("pear", "peer"));
    let out = run(["verify", "--match", "fuzzy", plain.to_str().unwrap()]);
    assert!(!out.stdout.contains("ref 0"), "{}", out.stdout);
}

/// `--min-score` outside (0, 1] or with more than three decimals is bad usage on every
/// command that takes it: exit 2, one line naming the flag, nothing on stdout, nothing opened.
#[test]
fn a_bad_min_score_is_one_line_and_exit_two_on_every_command() {
    let dir = temp_dir();
    let db = dir.path().join("never.db");
    let url = format!("sqlite://{}", db.display());
    let commands: [&[&str]; 3] = [
        &["verify", "--match", "fuzzy", "fixtures/01_order_svc_5xx_spike.json"],
        &["run", "--database", &url, "--match", "fuzzy", "r"],
        &["reverify", "--database", &url, "--match", "fuzzy", "--write"],
    ];
    for command in commands {
        for bad in ["0", "1.5", "0.9001", "x"] {
            let out = run(command.iter().copied().chain(["--min-score", bad]));
            let what = format!("{} --min-score {bad}", command[0]);
            assert_eq!(out.code, 2, "{what}: {}", out.stderr);
            assert!(out.stdout.is_empty(), "{what}: {}", out.stdout);
            assert_eq!(out.stderr.lines().count(), 1, "{what}: {}", out.stderr);
            assert!(out.stderr.contains("'--min-score <S>'"), "{what}: {}", out.stderr);
            assert!(out.stderr.contains(&format!("'{bad}'")), "{what}: names the value: {}", out.stderr);
        }
    }
    assert!(!db.exists(), "no database was opened, let alone created");
    // The bounds themselves are fine.
    for good in ["1", "0.001", "0.85"] {
        let out = run(["verify", "--match", "fuzzy", "--min-score", good, "fixtures/12_match_ladder.json"]);
        assert_eq!(out.code, 0, "--min-score {good}: {}", out.stderr);
    }
}

/// The case that brought the structured views: a pod in YAML and `kubectl logs` JSON Lines,
/// each cited by a path into its structure. Both refs verify, decided on the text's view,
/// with its warning; the human table and the HTML page say so, the page showing each ref
/// inside the view.
#[test]
fn the_issue_s_yaml_and_json_lines_example_verifies() {
    let pod = "apiVersion: v1\nkind: Pod\nstatus:\n  containerStatuses:\n  - name: app\n    lastState:\n      terminated:\n        exitCode: 137\n        reason: OOMKilled\n";
    let logs = "{\"level\":\"info\",\"msg\":\"starting\"}\n{\"level\":\"error\",\"msg\":\"dial tcp 10.0.0.7:5432: connection refused\"}\n";
    let row = |id: i64, tool: &str, path: &str, text: &str, raw: &str| {
        serde_json::json!({"id": id, "run_id": "run-27", "session_id": "s27", "tool_name": tool,
            "retrieval_details": {"evidence_status": "supported", "evidence_refs": [{"raw_path": path, "text": text}]},
            "raw_output_text": raw})
    };
    let bundle = serde_json::json!({"invocations": [
        row(1, "pods_get", "$.status.containerStatuses[0].lastState.terminated.reason", "OOMKilled", pod),
        row(2, "kubectl_logs", "$[1].msg", "connection refused", logs),
    ]});
    let dir = temp_dir();
    write(dir.path(), "yaml.json", bundle.to_string());
    let human = run_in(dir.path(), ["verify", "yaml.json"], &[], None);
    assert_eq!(human.code, 0, "{}", human.stderr);
    let lines: Vec<&str> = human.stdout.lines().collect();
    assert!(
        lines[2].starts_with("  1   pods_get      supported  verified  supported  1/1"),
        "{}",
        human.stdout
    );
    assert!(lines[3].starts_with("      warning read_as_yaml: "), "{}", human.stdout);
    assert!(
        lines[4].starts_with("  2   kubectl_logs  supported  verified  supported  1/1"),
        "{}",
        human.stdout
    );
    assert!(lines[5].starts_with("      warning read_as_json_lines: "), "{}", human.stdout);
    let page = run_in(dir.path(), ["verify", "--format", "html", "yaml.json"], &[], None).stdout;
    for (view, mark) in [
        ("YAML", "data-ref=\"1:0\" data-mark=\"quote\">OOMKilled</mark>"),
        ("JSON Lines", "data-ref=\"2:0\" data-mark=\"quote\">connection refused</mark>"),
    ] {
        let shown = format!("<p class=\"why\">In the output read as {view}:</p>");
        let at = page.find(&shown).unwrap_or_else(|| panic!("{view}: {page}"));
        assert!(page[at..].contains(mark), "{view}");
    }
}
