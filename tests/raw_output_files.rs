//! Raw outputs in files beside the session: what the engine does with what a file lookup
//! found (docs/verification.md, "Raw outputs in files"). The lookup itself, the template and
//! the reading are `groundcheck-files`' (`crates/groundcheck-files/`), tested through the real program below.

use groundcheck_core::{
    Invocation, Json, Policy, RawOutput, RawOutputFile, RefOutcome, Source, Verdict, Verifier, Warning,
};

const DETAILS: &str =
    r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.logs[0].message","text":"refused"}]}"#;
const OUTPUT: &str = r#"{"logs":[{"message":"dial tcp: connection refused"}]}"#;

fn row(file: Option<RawOutputFile>) -> Invocation {
    Invocation {
        id: 7,
        tool_name: "query_logs".into(),
        retrieval_details: Some(Json::parse(DETAILS).unwrap()),
        raw_output_file: file,
        ..Invocation::default()
    }
}

fn verify(inv: &Invocation) -> Verdict {
    let verdict = Verifier::default().verify(inv);
    let general = Verifier::new(Policy::default()).tree_route_only().verify(inv);
    assert_eq!(verdict, general, "the routes disagree");
    verdict
}

#[test]
fn a_file_that_was_read_is_the_document_with_source_file() {
    let verdict = verify(&row(Some(RawOutputFile::Read(OUTPUT.into()))));
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::File, RefOutcome::Verified));
    assert!(verdict.warnings.is_empty());
    // Read exactly like raw_output_text: text that is not JSON is one string.
    let verdict = verify(&row(Some(RawOutputFile::Read("connection refused".into()))));
    assert_eq!(verdict.refs[0].outcome, RefOutcome::PathNotFound);
}

#[test]
fn a_file_over_the_size_limit_is_limit_exceeded() {
    let verdict = verify(&row(Some(RawOutputFile::OverLimit)));
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::File, RefOutcome::LimitExceeded));
}

#[test]
fn the_row_s_own_raw_output_wins_and_the_file_is_ignored() {
    let inv =
        Invocation { raw_output: Some(RawOutput::Text(OUTPUT.into())), ..row(Some(RawOutputFile::Missing)) };
    let verdict = verify(&inv);
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::RawOutput, RefOutcome::Verified));
    assert!(verdict.warnings.is_empty());
}

#[test]
fn a_file_not_found_or_unsafe_or_unreadable_is_a_warning_and_the_preview_rule_applies() {
    for (file, warning) in [
        (RawOutputFile::PathUnsafe, Warning::RawOutputPathUnsafe),
        (RawOutputFile::Missing, Warning::RawOutputMissing),
        (RawOutputFile::Unreadable, Warning::RawOutputUnreadable),
    ] {
        let verdict = verify(&row(Some(file.clone())));
        assert_eq!(
            (verdict.source, verdict.refs[0].outcome),
            (Source::None, RefOutcome::RawOutputUnavailable)
        );
        assert_eq!(verdict.warnings, [warning]);
        // A complete preview still stands in.
        let inv = Invocation {
            output_preview: Some(OUTPUT.into()),
            output_length: Some(OUTPUT.chars().count() as i64),
            is_truncated: Some(false),
            ..row(Some(file))
        };
        let verdict = verify(&inv);
        assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::Preview, RefOutcome::Verified));
        assert_eq!(verdict.warnings, [warning]);
    }
}

#[test]
fn file_warnings_sit_between_invalid_utf8_and_marker_with_refs() {
    let details =
        r#"{"evidence_refs":[{"raw_path":"$.a","text":"x"},{"raw_path":"$.no_evidence","text":""}]}"#;
    let inv = Invocation {
        invalid_utf8: true,
        retrieval_details: Some(Json::parse(details).unwrap()),
        ..row(Some(RawOutputFile::Missing))
    };
    assert_eq!(
        verify(&inv).warnings,
        [Warning::InvalidUtf8, Warning::RawOutputMissing, Warning::MarkerWithRefs]
    );
}

// ---------------------------------------------------------------------------------------------
// Through the real program: `--raw-outputs TEMPLATE`
// ---------------------------------------------------------------------------------------------

pub(crate) mod through_the_binary {
    use std::io::Write;
    use std::path::Path;

    use serde_json::{json, Value};

    use crate::harness::{run_in, Outcome};

    /// `printf '{"logs":[{"message":"zstd: connection refused"}]}' | zstd -c`
    const ZSTD: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x89, 0x01, 0x00, 0x7b, 0x22, 0x6c, 0x6f, 0x67, 0x73, 0x22, 0x3a,
        0x5b, 0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0x7a, 0x73, 0x74, 0x64,
        0x3a, 0x20, 0x63, 0x6f, 0x6e, 0x6e, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x20, 0x72, 0x65, 0x66, 0x75,
        0x73, 0x65, 0x64, 0x22, 0x7d, 0x5d, 0x7d, 0x00, 0x1d, 0xa7, 0x39,
    ];

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn output(message: &str) -> String {
        json!({"logs": [{"message": message}]}).to_string()
    }

    /// A row without a raw output, claiming `refused` at `$.logs[0].message`.
    fn row(id: i64, session: Value) -> Value {
        json!({"id": id, "session_id": session, "run_id": "run-files", "step_id": id, "tool_name": "query_logs",
               "retrieval_details": {"evidence_status": "supported",
                                     "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "refused"}]}})
    }

    /// A session folder under `dir/sessions/s1/tools/` with one file per case, and the bundle.
    fn session(dir: &Path) -> Vec<Value> {
        let tools = dir.join("sessions/s1/tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(tools.join("1.json"), output("plain: connection refused")).unwrap();
        std::fs::write(tools.join("2.json.gz"), gzip(output("gzip: connection refused").as_bytes())).unwrap();
        std::fs::write(tools.join("3.json.zst"), ZSTD).unwrap();
        // 4: missing. 5: a folder where the file should be.
        std::fs::create_dir(tools.join("5.json")).unwrap();
        std::fs::write(tools.join("6.json"), b"{\"logs\":[{\"message\":\"caf\xe9 refused\"}]}").unwrap();
        std::fs::write(tools.join("7.json"), "not JSON: connection refused").unwrap();
        let mut rows: Vec<Value> = (1..=7).map(|id| row(id, json!("s1"))).collect();
        // Values that would leave the folder.
        for (id, session) in
            [(11, ".."), (12, "s1/../s1"), (13, "s1\\tools"), (14, "s1\u{0}x"), (15, "."), (16, "")]
        {
            rows.push(row(id, json!(session)));
        }
        // The row's own raw output wins over its file.
        let mut own = row(1, json!("s1"));
        own["run_id"] = json!("run-own");
        own["raw_output_text"] = json!(output("own output, nothing to see"));
        rows.push(own);
        rows
    }

    fn write_bundle(dir: &Path, rows: Vec<Value>) {
        std::fs::write(dir.join("bundle.json"), json!({"invocations": rows}).to_string()).unwrap();
    }

    fn verify(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Outcome {
        let mut args = vec!["verify", "--format", "json"];
        args.extend_from_slice(extra);
        args.push("bundle.json");
        run_in(dir, args, env, None)
    }

    /// `id → (source, outcome, warnings)` of a report (also `host_safety`'s).
    pub(crate) fn verdicts(out: &Outcome) -> Vec<(i64, String, String, Vec<String>)> {
        assert_eq!(out.code, 0, "{}", out.stderr);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        let mut all = Vec::new();
        for run in report["runs"].as_array().unwrap() {
            for inv in run["invocations"].as_array().unwrap() {
                let warnings =
                    inv["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string());
                all.push((
                    inv["id"].as_i64().unwrap(),
                    inv["source"].as_str().unwrap().to_string(),
                    inv["refs"][0]["outcome"].as_str().unwrap().to_string(),
                    warnings.collect(),
                ));
            }
        }
        all
    }

    pub(crate) fn case(
        id: i64,
        source: &str,
        outcome: &str,
        warnings: &[&str],
    ) -> (i64, String, String, Vec<String>) {
        (id, source.into(), outcome.into(), warnings.iter().map(|w| w.to_string()).collect())
    }

    /// A `kubectl get -o yaml` answer and a gzipped JSON Lines log kept as files: read like
    /// `raw_output_text`, so a path that selects nothing in the text is decided on its view.
    #[test]
    fn yaml_and_json_lines_files_are_read_as_their_views() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let pod = "kind: Pod\r\nstatus:\r\n  containerStatuses:\r\n  - lastState:\r\n      terminated:\r\n        exitCode: 137\r\n        reason: OOMKilled\r\n";
        std::fs::write(out.join("1.yaml"), pod).unwrap();
        let logs =
            "{\"level\":\"INFO\",\"msg\":\"start\"}\n{\"level\":\"ERROR\",\"msg\":\"connection refused\"}\n";
        std::fs::write(out.join("2.jsonl.gz"), gzip(logs.as_bytes())).unwrap();
        let claim = |id: i64, tool: &str, path: &str, text: &str| {
            json!({"id": id, "session_id": "s1", "run_id": "run-files", "tool_name": tool,
                   "retrieval_details": {"evidence_status": "supported",
                                         "evidence_refs": [{"raw_path": path, "text": text}]}})
        };
        let rows = vec![
            claim(1, "yaml", "$.status.containerStatuses[0].lastState.terminated.reason", "OOMKilled"),
            claim(2, "jsonl.gz", "$[1].msg", "connection refused"),
        ];
        write_bundle(dir.path(), rows);
        let out = verify(dir.path(), &["--raw-outputs", "out/{id}.{tool_name}"], &[]);
        assert_eq!(
            verdicts(&out),
            [
                case(1, "file", "verified", &["read_as_yaml"]),
                case(2, "file", "verified", &["read_as_json_lines"])
            ]
        );
    }

    #[test]
    fn every_file_case_gets_its_verdict_and_nothing_escapes_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        write_bundle(dir.path(), session(dir.path()));
        let template = "sessions/{session_id}/tools/{id}.json";
        let out = verify(dir.path(), &["--raw-outputs", template], &[]);
        let unsafe_ = |id| case(id, "none", "raw_output_unavailable", &["raw_output_path_unsafe"]);
        assert_eq!(
            verdicts(&out),
            [
                case(1, "file", "verified", &[]),
                case(2, "file", "verified", &[]),
                case(3, "file", "verified", &[]),
                case(4, "none", "raw_output_unavailable", &["raw_output_missing"]),
                case(5, "none", "raw_output_unavailable", &["raw_output_unreadable"]),
                case(6, "file", "verified", &["invalid_utf8"]),
                case(7, "file", "path_not_found", &[]),
                unsafe_(11),
                unsafe_(12),
                unsafe_(13),
                unsafe_(14),
                unsafe_(15),
                unsafe_(16),
                case(1, "raw_output", "text_not_found", &[]),
            ]
        );
        // Without the template every row but the last has no raw output.
        let plain = verdicts(&verify(dir.path(), &[], &[]));
        assert!(plain[..13].iter().all(|(_, source, _, w)| source == "none" && w.is_empty()), "{plain:?}");
        // The environment variable does the same as the flag; the flag wins over it.
        assert_eq!(verify(dir.path(), &[], &[("GROUNDCHECK_RAW_OUTPUTS", template)]).stdout, out.stdout);
        let flag_wins =
            verify(dir.path(), &["--raw-outputs", template], &[("GROUNDCHECK_RAW_OUTPUTS", "x/{id}")]);
        assert_eq!(flag_wins.stdout, out.stdout);
    }

    #[test]
    fn the_size_limit_applies_after_decompression_and_a_bomb_costs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        std::fs::create_dir(&tools).unwrap();
        // 1 GiB of zeros on 1 MB of disk: 1,024 gzip members of 1 MiB each, of which only the
        // first 65 are gzip; the rest is garbage, which a reader going on past the 64 MiB limit
        // would reach (and call the file unreadable, not over the limit).
        let member = gzip(&vec![0u8; 1 << 20]);
        let mut bomb = member.repeat(65);
        bomb.resize(member.len() * 1024, 0xff);
        std::fs::write(tools.join("1.json.gz"), bomb).unwrap();
        let text = output("connection refused");
        std::fs::write(tools.join("2.json.gz"), gzip(text.as_bytes())).unwrap();
        // 1,025 bytes, then garbage: read up to one byte past a limit of 1,024, it is over the
        // limit; with a limit of 1,025 the byte past it is in the garbage.
        let mut exact = gzip(&[b' '; 1025]);
        exact.extend([0xff; 64]);
        std::fs::write(tools.join("3.json.gz"), exact).unwrap();
        write_bundle(dir.path(), vec![row(1, json!("s")), row(2, json!("s")), row(3, json!("s"))]);
        let template = ["--raw-outputs", "tools/{id}.json.gz"];
        let with_limit = |limit: usize| {
            let limit = limit.to_string();
            verdicts(&verify(dir.path(), &[&template[..], &["--max-output-bytes", &limit]].concat(), &[]))
        };
        let unreadable = case(3, "none", "raw_output_unavailable", &["raw_output_unreadable"]);
        assert_eq!(
            verdicts(&verify(dir.path(), &template, &[])),
            [case(1, "file", "limit_exceeded", &[]), case(2, "file", "verified", &[]), unreadable.clone()]
        );
        assert_eq!(with_limit(text.len())[1], case(2, "file", "verified", &[]));
        assert_eq!(with_limit(text.len() - 1)[1], case(2, "file", "limit_exceeded", &[]));
        assert_eq!(with_limit(1024)[2], case(3, "file", "limit_exceeded", &[]));
        assert_eq!(with_limit(1025)[2], unreadable);
    }

    /// `ln /etc/passwd sessions/s1/tools/5.json`: a hard link is a second name of the same file,
    /// which no walk can tell from an original. A file with more than one link is
    /// `raw_output_path_unsafe` (never read) for `verify` and `reverify` alike, unless
    /// `--allow-hard-links`; a file with one link is read as before.
    #[test]
    fn a_hard_link_is_unsafe_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("sessions/s1/tools");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::write(tools.join("1.json"), output("plain: connection refused")).unwrap();
        // The secret sits outside the root, on the same filesystem (a test may not link /etc).
        let secret = dir.path().join("secret.json");
        std::fs::write(&secret, output("secret: connection refused")).unwrap();
        std::fs::hard_link(&secret, tools.join("5.json")).unwrap();
        let mut rows = vec![row(1, json!("s1")), row(5, json!("s1"))];
        for row in &mut rows {
            row["created_at"] = json!("2026-11-30T10:00:00Z");
        }
        write_bundle(dir.path(), rows);
        let template = "sessions/{session_id}/tools/{id}.json";
        let unsafe_5 = case(5, "none", "raw_output_unavailable", &["raw_output_path_unsafe"]);
        let out = verify(dir.path(), &["--raw-outputs", template], &[]);
        assert_eq!(verdicts(&out), [case(1, "file", "verified", &[]), unsafe_5]);
        assert!(!out.stdout.contains("secret"), "{}", out.stdout);
        let human = run_in(dir.path(), ["verify", "--raw-outputs", template, "bundle.json"], &[], None);
        assert!(human.stdout.contains("--allow-hard-links"), "{}", human.stdout);
        assert!(!human.stdout.contains("secret"), "{}", human.stdout);
        let allowed = verify(dir.path(), &["--raw-outputs", template, "--allow-hard-links"], &[]);
        assert_eq!(verdicts(&allowed)[1], case(5, "file", "verified", &[]));

        // reverify reads files through the same lookup: counted unsafe, stored as such.
        let db = format!("sqlite://{}", dir.path().join("gc.db").display());
        let import = run_in(dir.path(), ["import", "--database", &db, "bundle.json"], &[], None);
        assert_eq!(import.code, 0, "{}", import.stderr);
        let reverify = |extra: &[&str]| {
            let mut args = vec!["reverify", "--database", &db, "--format", "json", "--raw-outputs", template];
            args.extend_from_slice(extra);
            let out = run_in(dir.path(), args, &[], None);
            assert_eq!(out.code, 0, "{}", out.stderr);
            let summary: Value = serde_json::from_str(&out.stdout).unwrap();
            let files = &summary["summary"]["raw_output_files"];
            (files["found"].as_u64().unwrap(), files["unsafe"]["count"].as_u64().unwrap())
        };
        assert_eq!(reverify(&[]), (1, 1));
        assert_eq!(reverify(&["--allow-hard-links"]), (2, 0));
    }

    #[test]
    fn a_bad_template_is_one_line_and_exit_two() {
        let dir = tempfile::tempdir().unwrap();
        write_bundle(dir.path(), vec![row(1, json!("s"))]);
        for (template, says) in [
            ("s/{session}/{id}.json", "character 3: unknown placeholder `{session}`"),
            ("s/{id.json", "character 3: a `{` that is never closed"),
            ("s/}{id}", "character 3: a lone `}`"),
        ] {
            let out = verify(dir.path(), &["--raw-outputs", template], &[]);
            assert_eq!(out.code, 2, "{template}");
            assert!(out.stdout.is_empty());
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
            assert!(out.stderr.starts_with("--raw-outputs \""), "{}", out.stderr);
            assert!(out.stderr.contains(says), "{template}: {}", out.stderr);
        }
        // Literal braces are fine.
        assert_eq!(verify(dir.path(), &["--raw-outputs", "s/{{x}}/{id}"], &[]).code, 0);
    }
}

/// `export --raw-outputs`: a run whose outputs live in files, imported, exported with and
/// without the template and verified from the exported bundle. With it the bundle holds the
/// evidence and its verdicts are those of `run --raw-outputs` (bar `source`: the text is now
/// the row's own); without it every ref is `raw_output_unavailable`. A row whose file is
/// missing is counted on stderr, as `run` counts it.
#[test]
fn export_with_raw_outputs_freezes_a_run_with_its_evidence() {
    use crate::harness::{run, temp_dir, write};
    use serde_json::Value;

    let dir = temp_dir();
    let d = dir.path();
    let fixture =
        std::fs::read_to_string(crate::harness::repo("fixtures/01_order_svc_5xx_spike.json")).unwrap();
    let mut bundle: Value = serde_json::from_str(&fixture).unwrap();
    std::fs::create_dir_all(d.join("tools/sess-7f3a9c01")).unwrap();
    for inv in bundle["invocations"].as_array_mut().unwrap() {
        let inv = inv.as_object_mut().unwrap();
        let text = match (inv.remove("raw_output"), inv.remove("raw_output_text")) {
            (Some(value), _) if !value.is_null() => value.to_string(),
            (_, Some(Value::String(text))) => text,
            other => panic!("fixture 01 has a raw output on every row: {other:?}"),
        };
        let id = inv["id"].as_i64().unwrap();
        if id != 105 {
            write(&d.join("tools/sess-7f3a9c01"), &format!("{id}.json"), text);
        }
    }
    write(d, "files.json", bundle.to_string());
    let db = format!("sqlite://{}", d.join("g.db").display());
    assert_eq!(run(["import", "--database", &db, d.join("files.json").to_str().unwrap()]).code, 0);
    let template = format!("{}/tools/{{session_id}}/{{id}}.json", d.display());
    let id = "run-20261130-order-5xx";
    let invocations = |out: &crate::harness::Outcome| -> Vec<Value> {
        assert_eq!(out.code, 0, "{}", out.stderr);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        report["runs"][0]["invocations"].as_array().unwrap().clone()
    };
    let reference =
        invocations(&run(["run", "--database", &db, "--format", "json", "--raw-outputs", &template, id]));

    let export = |out: &str, raw: &[&str]| {
        let folder = d.join(out);
        let args =
            [&["export", "--database", &db][..], raw, &[id, "--out", folder.to_str().unwrap()]].concat();
        let done = run(args);
        assert_eq!(done.code, 0, "{}", done.stderr);
        (done, folder.join(format!("{id}.json")))
    };
    let (with, frozen) = export("with", &["--raw-outputs", &template]);
    assert_eq!(
        with.stderr.trim_end(),
        format!(
            "raw-output files (--raw-outputs {template}): 4 found, 1 missing (first tried: {}), 0 unreadable, 0 unsafe",
            d.join("tools/sess-7f3a9c01/105.json").display()
        )
    );
    let verified = invocations(&run(["verify", "--format", "json", frozen.to_str().unwrap()]));
    assert_eq!(verified.len(), 5);
    for (mut frozen, mut live) in verified.into_iter().zip(reference) {
        let row = frozen["id"].clone();
        if row != 105 {
            assert_eq!(
                (&frozen["source"], &live["source"]),
                (&"raw_output".into(), &"file".into()),
                "row {row}"
            );
            assert_eq!(frozen["status"], "supported", "row {row}: the evidence travelled with the bundle");
        } else {
            assert_eq!(live["warnings"], serde_json::json!(["raw_output_missing"]));
        }
        for field in ["source", "warnings"] {
            frozen.as_object_mut().unwrap().remove(field);
            live.as_object_mut().unwrap().remove(field);
        }
        assert_eq!(frozen, live, "row {row}");
    }

    let (without, previews) = export("without", &[]);
    assert_eq!(without.stderr, "");
    for inv in invocations(&run(["verify", "--format", "json", previews.to_str().unwrap()])) {
        for r in inv["refs"].as_array().unwrap() {
            assert_eq!(r["outcome"], "raw_output_unavailable", "{inv}");
        }
    }
}
