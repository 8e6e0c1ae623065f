//! Storage on every engine (SQLite always; MariaDB and PostgreSQL when their servers are
//! configured, and always in CI): import, run, export and stored verdicts, through the real
//! binary.

use std::path::{Path, PathBuf};

use groundcheck_core::Bundle;
use groundcheck_store::{Store, StoredRow};
use serde_json::Value;

use crate::engines::{self, block_on};
use crate::harness::{fixture_files, repo, run, run_in, temp_dir, write};

fn gc(url: &str, args: &[&str]) -> crate::harness::Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    run(all)
}

fn migrate(engine: &engines::Engine) {
    let out = gc(&engine.url, &["migrate"]);
    assert_eq!(out.code, 0, "{}: {}", engine.name, out.stderr);
}

fn import_fixtures(engine: &engines::Engine) {
    migrate(engine);
    let out = gc(&engine.url, &["import", "fixtures"]);
    assert_eq!(out.code, 0, "{}: {}", engine.name, out.stderr);
    assert_eq!(out.stdout.lines().count(), fixture_files().len(), "{}: a line per file", engine.name);
}

/// The arguments that make `run`/`export` select the runs of a `verify` report, in its order.
fn selectors(report: &Value) -> Vec<String> {
    let mut args = Vec::new();
    for run in report["runs"].as_array().unwrap() {
        match run["run_id"].as_str() {
            Some(id) => args.push(id.to_string()),
            None => args.extend(["--session".to_string(), run["session_id"].as_str().unwrap().to_string()]),
        }
    }
    args
}

/// The one documented difference between a file and a database: a database has no file
/// order, so a run's `session_id` is that of its lowest `id` (docs/rules.md). Returns the
/// report `run` must print, and how many runs the rule changed.
fn in_database_order(report: &str, fixture: &Path) -> (String, usize) {
    let bundle = Bundle::parse(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let mut report: Value = serde_json::from_str(report).unwrap();
    let mut changed = 0;
    for run in report["runs"].as_array_mut().unwrap() {
        let run_id = run["run_id"].as_str().map(str::to_string);
        let lowest = bundle
            .invocations
            .iter()
            .filter(|i| {
                i.run_id == run_id
                    && (run_id.is_some() || i.session_id.as_deref() == run["session_id"].as_str())
            })
            .min_by_key(|i| i.id)
            .unwrap();
        let session = Value::from(lowest.session_id.clone());
        if run["session_id"] != session {
            run["session_id"] = session;
            changed += 1;
        }
    }
    (serde_json::to_string_pretty(&report).unwrap() + "\n", changed)
}

#[test]
fn import_then_run_gives_the_verify_report_on_every_engine() {
    for engine in engines::all() {
        import_fixtures(&engine);
        let mut reordered = Vec::new();
        for fixture in fixture_files() {
            let expected =
                run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), fixture.as_os_str()]);
            let report: Value = serde_json::from_str(&expected.stdout).unwrap();
            let (expected, changed) = in_database_order(&expected.stdout, &fixture);
            if changed > 0 {
                reordered.push(fixture.file_name().unwrap().to_string_lossy().to_string());
            }
            let mut args = vec!["run".to_string(), "--format".into(), "json".into()];
            args.extend(selectors(&report));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let got = gc(&engine.url, &args);
            assert_eq!(got.code, 0, "{} {}: {}", engine.name, fixture.display(), got.stderr);
            assert_eq!(
                got.stdout,
                expected,
                "{}: run differs from verify for {}",
                engine.name,
                fixture.display()
            );
        }
        assert_eq!(
            reordered,
            ["14_sessions_without_run_id.json"],
            "{}: only fixture 14 orders a run's ids against file order",
            engine.name
        );
    }
}

#[test]
fn import_then_export_gives_back_equivalent_bundles_on_every_engine() {
    for engine in engines::all() {
        import_fixtures(&engine);
        let out_dir = temp_dir();
        for fixture in fixture_files() {
            let original = Bundle::parse(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
            let report = run(["verify".as_ref(), "--format".as_ref(), "json".as_ref(), fixture.as_os_str()]);
            let report_json: Value = serde_json::from_str(&report.stdout).unwrap();
            let mut args = vec!["export".to_string(), "--out".into(), out_dir.path().display().to_string()];
            args.extend(selectors(&report_json));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let exported = gc(&engine.url, &args);
            assert_eq!(exported.code, 0, "{}: {}", engine.name, exported.stderr);
            let files: Vec<PathBuf> = exported.stdout.lines().map(PathBuf::from).collect();

            // Same rows, in their stored form (created_at as an instant, raw output as text).
            let mut back: Vec<StoredRow> = files
                .iter()
                .flat_map(|f| Bundle::parse(&std::fs::read_to_string(f).unwrap()).unwrap().invocations)
                .map(|i| StoredRow::from_invocation(&i).unwrap())
                .collect();
            let mut want: Vec<StoredRow> =
                original.invocations.iter().map(|i| StoredRow::from_invocation(i).unwrap()).collect();
            back.sort_by_key(|r| r.columns.id);
            want.sort_by_key(|r| r.columns.id);
            assert_eq!(back, want, "{}: export of {} differs", engine.name, fixture.display());

            // And `verify` accepts the exported files, with the database's run order rule.
            let mut verify_args = vec!["verify".to_string(), "--format".into(), "json".into()];
            verify_args.extend(files.iter().map(|f| f.display().to_string()));
            let reverified = run(&verify_args);
            assert_eq!(reverified.code, 0, "{}: {}", engine.name, reverified.stderr);
            let (expected, _) = in_database_order(&report.stdout, &fixture);
            assert_eq!(
                reverified.stdout,
                expected,
                "{}: exported {} verifies differently",
                engine.name,
                fixture.display()
            );
        }
    }
}

const SMALL: &str = r#"{"run_id":"r-small","session_id":"s-small","invocations":[
  {"id":9001,"tool_name":"query_logs","created_at":"2026-11-30T10:00:00+08:00","input_params":{"limit":10.50},
   "retrieval_details":{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.logs[0]","text":"超时"}]},
   "raw_output":{"logs":["订单服务 order-svc 调用超时"]}},
  {"id":9002,"tool_name":"query_metrics","created_at":"2026-11-30T02:00:01Z",
   "raw_output_text":"not json at all"}]}"#;

/// An import goes in statements of many rows each, bounded in rows and bytes: 300 rows, half
/// with a raw output, three of those larger than a statement carries, read back exactly (a
/// second import finds every row present and equal), and a file that overlaps them adds only
/// what is new.
#[test]
fn a_large_import_goes_in_many_statements_and_reads_back_exactly() {
    let invocation = |id: u64| {
        let mut row = serde_json::json!({"id": id, "tool_name": format!("tool_{}", id % 7), "step_id": id,
            "created_at": "2026-11-30T10:00:00Z", "input_params": {"query": format!("q{id}")}});
        if id.is_multiple_of(2) {
            let big = [2, 150, 298].contains(&id);
            let line = format!("line {id} ");
            row["raw_output_text"] = line.repeat(if big { 150_000 } else { 3 }).into();
        }
        row
    };
    let bundle = |ids: std::ops::RangeInclusive<u64>| {
        let invocations: Vec<Value> = ids.map(invocation).collect();
        serde_json::json!({"session_id": "s-large", "run_id": "r-large", "invocations": invocations})
            .to_string()
    };
    let dir = temp_dir();
    let first = write(dir.path(), "first.json", bundle(1..=300));
    let overlap = write(dir.path(), "overlap.json", bundle(251..=350));
    for engine in engines::all() {
        migrate(&engine);
        let import = |file: &Path| gc(&engine.url, &["import", file.to_str().unwrap()]);
        let said = |file: &Path, new: u32, present: u32| {
            format!("{}: {new} imported, {present} already present\n", file.display())
        };
        let out = import(&first);
        assert_eq!((out.code, out.stdout), (0, said(&first, 300, 0)), "{}: {}", engine.name, out.stderr);
        let out = import(&first);
        assert_eq!((out.code, out.stdout), (0, said(&first, 0, 300)), "{}: {}", engine.name, out.stderr);
        let out = import(&overlap);
        assert_eq!((out.code, out.stdout), (0, said(&overlap, 50, 50)), "{}: {}", engine.name, out.stderr);
        let rows = engines::integers(&engine.url, "SELECT COUNT(*) FROM tool_invocation");
        let outputs = engines::integers(&engine.url, "SELECT COUNT(*) FROM tool_invocation_output");
        assert_eq!((rows, outputs), (vec![350], vec![175]), "{}", engine.name);
    }
}

#[test]
fn importing_twice_changes_nothing_and_collisions_change_nothing_either() {
    for engine in engines::all() {
        migrate(&engine);
        let dir = temp_dir();
        let file = write(dir.path(), "small.json", SMALL);
        let file = file.to_str().unwrap();
        let first = gc(&engine.url, &["import", file]);
        assert_eq!(
            (first.code, first.stdout.trim_end()),
            (0, format!("{file}: 2 imported, 0 already present").as_str()),
            "{}: {}",
            engine.name,
            first.stderr
        );
        let before = gc(&engine.url, &["run", "--format", "json", "r-small"]).stdout;

        let again = gc(&engine.url, &["import", file]);
        assert_eq!(
            (again.code, again.stdout.trim_end()),
            (0, format!("{file}: 0 imported, 2 already present").as_str()),
            "{}",
            engine.name
        );

        let changed = write(dir.path(), "changed.json", SMALL.replace("调用超时", "调用成功"));
        let refused = gc(&engine.url, &["import", changed.to_str().unwrap()]);
        assert_eq!(refused.code, 2, "{}", engine.name);
        assert!(refused.stdout.is_empty());
        assert!(
            refused.stderr.contains("$.invocations[0].id: id 9001 already exists in"),
            "{}: {}",
            engine.name,
            refused.stderr
        );
        assert!(refused.stderr.contains("with different content"), "{}", refused.stderr);

        // Ids repeated across the input: refused before anything is written.
        let a = write(
            dir.path(),
            "a.json",
            r#"{"session_id":"s","invocations":[{"id":9100,"tool_name":"t","created_at":"2026-11-30T00:00:00Z"}]}"#,
        );
        let b = write(
            dir.path(),
            "b.json",
            r#"{"session_id":"s","invocations":[{"id":9100,"tool_name":"u","created_at":"2026-11-30T00:00:00Z"}]}"#,
        );
        let dup = gc(&engine.url, &["import", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(dup.code, 2, "{}", engine.name);
        assert_eq!(
            dup.stderr.trim_end(),
            format!(
                "{}: $.invocations[0].id: id 9100 is also used at {}: $.invocations[0]",
                b.display(),
                a.display()
            )
        );
        let missing = gc(&engine.url, &["run", "--session", "s"]);
        assert_eq!(missing.code, 2, "{}: nothing of the refused import was written", engine.name);

        // Rows the tool_invocation table cannot hold.
        let no_session = write(
            dir.path(),
            "ns.json",
            r#"{"invocations":[{"id":9200,"tool_name":"t","created_at":"2026-11-30T00:00:00Z"}]}"#,
        );
        let out = gc(&engine.url, &["import", no_session.to_str().unwrap()]);
        assert_eq!(out.code, 2);
        assert!(
            out.stderr.ends_with(
                "$.invocations[0].session_id: missing, and the tool_invocation table requires it \
                 (give it on the invocation or at the top of the bundle)\n"
            ),
            "{}",
            out.stderr
        );
        let bad_time = write(
            dir.path(),
            "bt.json",
            r#"{"session_id":"s","invocations":[{"id":9300,"tool_name":"t","created_at":"yesterday"}]}"#,
        );
        let out = gc(&engine.url, &["import", bad_time.to_str().unwrap()]);
        assert_eq!(out.code, 2);
        assert!(out.stderr.contains("\"yesterday\" is not a date-time"), "{}", out.stderr);

        assert_eq!(
            gc(&engine.url, &["run", "--format", "json", "r-small"]).stdout,
            before,
            "{}: unchanged",
            engine.name
        );
    }
}

#[test]
fn stored_values_keep_their_text() {
    for engine in engines::all() {
        migrate(&engine);
        let dir = temp_dir();
        let file = write(dir.path(), "small.json", SMALL);
        assert_eq!(gc(&engine.url, &["import", file.to_str().unwrap()]).code, 0);
        let rows = block_on(async {
            let store = Store::connect(&engine.url).await.unwrap();
            let rows = store.read_run("r-small").await.unwrap();
            store.close().await;
            rows
        });
        assert_eq!(rows.len(), 2, "{}", engine.name);
        assert_eq!(rows[0].input_params, r#"{"limit":10.50}"#, "{}: JSON keeps number text", engine.name);
        assert_eq!(
            rows[0].raw_output.as_deref(),
            Some(r#"{"logs":["订单服务 order-svc 调用超时"]}"#),
            "{}",
            engine.name
        );
        assert_eq!(
            rows[0].columns.created_at.as_deref(),
            Some("2026-11-30 02:00:00.000000"),
            "{}: stored in UTC",
            engine.name
        );
        assert_eq!(rows[1].raw_output.as_deref(), Some("not json at all"), "{}", engine.name);
        assert!(!rows[0].columns.invalid_utf8);
    }
}

#[test]
fn run_write_stores_one_verdict_per_invocation_and_policy() {
    for engine in engines::all() {
        import_fixtures(&engine);
        let run_id = "run-20261130-paydb-pool";
        let first = gc(&engine.url, &["run", "--write", "--format", "json", run_id]);
        assert_eq!(first.code, 0, "{}: {}", engine.name, first.stderr);
        let again = gc(&engine.url, &["run", "--write", "--format", "json", run_id]);
        assert_eq!(again.stdout, first.stdout);
        let any = gc(&engine.url, &["run", "--write", "--require", "any", run_id]);
        assert_eq!(any.code, 0);

        let report: Value = serde_json::from_str(&first.stdout).unwrap();
        let verdicts: Vec<groundcheck_core::Verdict> =
            serde_json::from_value(report["runs"][0]["invocations"].clone()).unwrap();
        let (stored, other_policy) = block_on(async {
            let store = Store::connect(&engine.url).await.unwrap();
            let stored = store.read_verdicts("require=all;match=elided", run_id).await.unwrap();
            let other = store.read_verdicts("require=any;match=elided", run_id).await.unwrap();
            store.close().await;
            (stored, other)
        });
        assert_eq!(
            stored.iter().map(|s| s.verdict.clone()).collect::<Vec<_>>(),
            verdicts,
            "{}: written twice, stored once, read back equal",
            engine.name
        );
        assert!(stored
            .iter()
            .all(|s| s.run_id.as_deref() == Some(run_id) && s.engine_version == env!("CARGO_PKG_VERSION")));
        assert_eq!(other_policy.len(), verdicts.len(), "{}: a second policy gets its own rows", engine.name);
    }
}

#[test]
fn a_run_that_is_not_there_is_exit_two() {
    for engine in engines::all() {
        migrate(&engine);
        let out = gc(&engine.url, &["run", "no-such-run"]);
        assert_eq!(out.code, 2, "{}", engine.name);
        assert!(
            out.stderr.ends_with(": run no-such-run: no invocations found\n"),
            "{}: {}",
            engine.name,
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn servers_that_were_never_migrated_say_so() {
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        let out = gc(&engine.url, &["run", "r"]);
        assert_eq!(out.code, 2, "{}", engine.name);
        assert!(
            out.stderr.contains("(run `groundcheck migrate` against this database first)"),
            "{}: {}",
            engine.name,
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1);
    }
}

/// docs/rules.md (storage): text that is not UTF-8 (possible in SQLite) is decoded with U+FFFD and the
/// invocation is flagged `invalid_utf8`.
#[test]
fn invalid_utf8_in_sqlite_becomes_a_warning() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("bad.db").display());
    let file = write(dir.path(), "small.json", SMALL);
    assert_eq!(gc(&url, &["import", file.to_str().unwrap()]).code, 0);
    block_on(async {
        let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url).await.unwrap();
        sqlx::query(
            "UPDATE tool_invocation SET error_message = CAST(X'74696d656f7574ff' AS TEXT) WHERE id = 9002",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query("UPDATE tool_invocation_output SET raw_output = CAST(X'7b226c6f6773223a5b22e8b685e697b6ff225d7d' AS TEXT) WHERE invocation_id = 9001")
            .execute(&mut conn)
            .await
            .unwrap();
    });
    let out = gc(&url, &["run", "--format", "jsonl", "r-small"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<Value> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["warnings"], serde_json::json!(["invalid_utf8"]));
    assert_eq!(lines[0]["refs"][0]["outcome"], "verified", "超时 survives beside the bad byte");
    assert_eq!(lines[1]["warnings"], serde_json::json!(["invalid_utf8"]));
    let rows = block_on(async {
        let store = Store::connect(&url).await.unwrap();
        let rows = store.read_run("r-small").await.unwrap();
        store.close().await;
        rows
    });
    assert_eq!(rows[1].columns.error_message.as_deref(), Some("timeout\u{fffd}"));
}

#[test]
fn the_default_database_is_groundcheck_db_in_the_working_folder() {
    let dir = temp_dir();
    let fixture = repo("fixtures/01_order_svc_5xx_spike.json");
    let out = run_in(dir.path(), ["import".as_ref(), fixture.as_os_str()], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(dir.path().join("groundcheck.db").is_file(), "created on first use");
    let out = run_in(dir.path(), ["run", "run-20261130-order-5xx"], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("5 invocations"), "{}", out.stdout);
    // $DATABASE_URL wins over the default.
    let out =
        run_in(dir.path(), ["run", "run-20261130-order-5xx"], &[("DATABASE_URL", "sqlite://other.db")], None);
    assert_eq!(out.code, 2, "other.db is empty");
    assert!(out.stderr.contains("no such database file"), "{}", out.stderr);
    assert!(!dir.path().join("other.db").exists(), "a reader creates no file");
}

#[test]
fn a_database_password_never_reaches_the_output() {
    let secret = "Sup3rS3cret-pw";
    for url in [
        format!("mysql://groundcheck:{secret}@127.0.0.1:9/groundcheck_test"),
        format!("postgres://groundcheck:{secret}@127.0.0.1:9/groundcheck_test"),
    ] {
        for out in [
            gc(&url, &["run", "r"]),
            gc(&url, &["migrate"]),
            crate::harness::run_with(["run", "r"], &[("DATABASE_URL", url.as_str())], None),
        ] {
            assert_eq!(out.code, 2);
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
            assert!(!out.stderr.contains(secret) && !out.stdout.contains(secret), "{}", out.stderr);
            assert!(out.stderr.contains("groundcheck:***@127.0.0.1:9"), "{}", out.stderr);
        }
    }
    // Real servers, wrong database name: the error names the URL, never the password.
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        let password = engine.url.split(':').nth(2).unwrap().split('@').next().unwrap().to_string();
        let wrong = engines::with_database(&engine.url, "no_such_db");
        let out = gc(&wrong, &["run", "r"]);
        assert_eq!(out.code, 2);
        assert!(!out.stderr.contains(&password), "{}: {}", engine.name, out.stderr);
    }
}

/// `--match fuzzy` names its threshold in the policy key, so verdicts under two thresholds
/// are stored apart, and a fuzzy match keeps its score through the database.
#[test]
fn run_write_stores_fuzzy_verdicts_under_a_key_naming_the_threshold() {
    let run_id = "run-20261130-order-ladder";
    for engine in engines::all() {
        import_fixtures(&engine);
        let default = gc(&engine.url, &["run", "--write", "--match", "fuzzy", run_id]);
        assert_eq!(default.code, 0, "{}: {}", engine.name, default.stderr);
        let lower = gc(
            &engine.url,
            &["run", "--write", "--match", "fuzzy", "--min-score", "0.85", "--format", "json", run_id],
        );
        assert_eq!(lower.code, 0, "{}: {}", engine.name, lower.stderr);
        let keys =
            engines::texts(&engine.url, "SELECT DISTINCT policy FROM evidence_verification ORDER BY policy");
        assert_eq!(
            keys,
            ["require=all;match=fuzzy;min_score=0.850", "require=all;match=fuzzy;min_score=0.900"],
            "{}",
            engine.name
        );
        let report: Value = serde_json::from_str(&lower.stdout).unwrap();
        let verdicts: Vec<groundcheck_core::Verdict> =
            serde_json::from_value(report["runs"][0]["invocations"].clone()).unwrap();
        let stored = block_on(async {
            let store = Store::connect(&engine.url).await.unwrap();
            let stored =
                store.read_verdicts("require=all;match=fuzzy;min_score=0.850", run_id).await.unwrap();
            store.close().await;
            stored
        });
        let stored: Vec<_> = stored.into_iter().map(|s| s.verdict).collect();
        assert_eq!(stored, verdicts, "{}: read back as reported", engine.name);
        let fuzzy: Vec<String> = stored
            .iter()
            .flat_map(|v| &v.refs)
            .filter(|r| r.rung == Some(groundcheck_core::Rung::Fuzzy))
            .map(|r| r.score.map(|s| s.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(fuzzy, ["0.857", "0.857"], "{}: 1202's two elisions of `connection refused`", engine.name);
    }
}

/// `reverify` reads a list of runs per statement (`Store::read_keys`): for every run and
/// run-less session of the fixtures, listed more than `MAX_KEYS` at a time, in and out of a
/// `created_at` window, the rows, and the outcomes of the stored verdicts (what `reverify`
/// compares with), are exactly what reading each key alone gives.
#[test]
fn reading_many_runs_at_once_gives_what_reading_each_gives() {
    for engine in engines::all() {
        import_fixtures(&engine);
        let out = gc(&engine.url, &["reverify", "--write", "--format", "json"]);
        assert_eq!(out.code, 0, "{}: {}", engine.name, out.stderr);
        block_on(async {
            let store = Store::connect(&engine.url).await.unwrap();
            let all = groundcheck_store::Window::default();
            let since = groundcheck_store::to_stored("2026-11-30T10:00:30Z").unwrap();
            let window = groundcheck_store::Window { since: Some(since), until: None };
            let keys = store.list_keys(&all).await.unwrap();
            assert!(
                keys.iter().any(|k| matches!(k, groundcheck_store::RunKey::Session(_))),
                "{}",
                engine.name
            );
            // Runs that do not exist among them, so that the list is longer than one statement takes.
            let mut listed = keys.clone();
            let absent = (0..=groundcheck_store::MAX_KEYS)
                .map(|i| groundcheck_store::RunKey::Run(format!("absent-{i}")));
            listed.splice(1..1, absent);
            for window in [&all, &window] {
                let together = store.read_keys(&listed, window).await.unwrap();
                let mut rows = 0;
                for (key, found) in listed.iter().zip(&together) {
                    assert_eq!(*found, store.read_key(key, window).await.unwrap(), "{}: {key}", engine.name);
                    rows += found.len();
                }
                assert!(rows > 0, "{}: the window holds rows", engine.name);
            }
            let policy = "require=all;match=elided";
            let mut each = Vec::new();
            for key in &keys {
                each.extend(store.read_key_verdicts(policy, key).await.unwrap());
            }
            each.sort_by_key(|v| v.verdict.id);
            assert!(!each.is_empty(), "{}: verdicts were stored", engine.name);
            // What `reverify` compares with: the status and reason of each of those verdicts,
            // once each, read for the longer list (absent runs, padding repeats) too.
            let mut outcomes = store.read_keys_outcomes(policy, &listed).await.unwrap();
            outcomes.sort_by_key(|o| o.id);
            let expected: Vec<groundcheck_store::StoredOutcome> = each
                .iter()
                .map(|v| groundcheck_store::StoredOutcome {
                    id: v.verdict.id,
                    status: v.verdict.status,
                    reason: v.verdict.reason,
                })
                .collect();
            assert_eq!(outcomes, expected, "{}", engine.name);
            store.close().await;
        });
    }
}
