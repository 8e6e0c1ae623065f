//! `groundcheck reverify` on every engine: change reports, filters, crash and resume with
//! `kill -9`, and concurrent shard workers whose union equals one worker.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use groundcheck_store::{RunKey, Store};
use serde_json::Value;

use crate::engines::{self, block_on, execute, integers};
use crate::harness::{self, run, temp_dir};

fn gc(url: &str, args: &[&str]) -> crate::harness::Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    run(all)
}

fn json(out: &crate::harness::Outcome) -> Value {
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// Imports a seeded corpus of `n` invocations; returns how many there are.
fn import_corpus(url: &str, n: u64) -> i64 {
    assert_eq!(gc(url, &["migrate"]).code, 0);
    harness::import_corpus(url, 11, n, 1);
    n as i64
}

fn stored_count(url: &str) -> i64 {
    integers(url, "SELECT COUNT(*) FROM evidence_verification")[0]
}

/// `(rows_done, done)` of the only job in the table, if any.
fn checkpoint(url: &str) -> Option<(i64, bool)> {
    let rows = integers(url, "SELECT rows_done FROM reverify_checkpoint");
    let done = integers(url, "SELECT COUNT(*) FROM reverify_checkpoint WHERE done");
    rows.first().map(|&r| (r, done[0] == 1))
}

fn transitions(report: &Value) -> Vec<(String, String, u64)> {
    report["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["from"].as_str().unwrap().into(),
                t["to"].as_str().unwrap().into(),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Each shipped fixture invocation's `(id, status)` under the policy `flags` give, as `verify`
/// reports it: what a job over the imported fixtures must find (the fixtures grow; the tests
/// follow them instead of hard-coding their counts).
fn fixture_statuses(flags: &[&str]) -> Vec<(i64, String)> {
    let report = json(&run([&["verify", "--format", "json"][..], flags, &["fixtures"]].concat()));
    let runs = report["runs"].as_array().unwrap();
    let invocations = runs.iter().flat_map(|r| r["invocations"].as_array().unwrap());
    invocations
        .map(|inv| (inv["id"].as_i64().unwrap(), inv["status"].as_str().unwrap().to_string()))
        .collect()
}

/// Runs `args` (with `--resume` after the first attempt) and kills it (SIGKILL) once the job
/// has visibly committed 60 more rows, so the kill lands mid-job whatever the machine's speed;
/// then checks that the verdicts and the checkpoint, committed together, agree.
fn kill_mid_job(url: &str, args: &[&str], attempt: usize, total: i64, engine: &str) {
    let mut args = args.to_vec();
    if attempt > 0 {
        args.push("--resume");
    }
    let before = checkpoint(url).map_or(0, |(rows, _)| rows);
    let mut child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    // Polled on one connection: connecting for every poll (`checkpoint`) took PostgreSQL's
    // SCRAM exchange, in a debug build longer than a resumed job of a few batches ran, and the
    // job could end between two polls.
    macro_rules! poll_on {
        ($connection:ty) => {{
            let mut conn = <$connection as sqlx::Connection>::connect(url).await.unwrap();
            loop {
                let rows: Vec<i64> = sqlx::query_scalar("SELECT rows_done FROM reverify_checkpoint")
                    .fetch_all(&mut conn)
                    .await
                    .unwrap();
                if rows.first().copied().unwrap_or(0) >= before + 60 {
                    break;
                }
                assert!(
                    child.try_wait().unwrap().is_none(),
                    "{engine}: attempt {attempt} ended before it was killed"
                );
                assert!(std::time::Instant::now() < deadline, "{engine}: no progress in 120 s");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }};
    }
    block_on(async {
        if url.starts_with("postgres") {
            poll_on!(sqlx::PgConnection)
        } else if url.starts_with("mysql") {
            poll_on!(sqlx::MySqlConnection)
        } else {
            poll_on!(sqlx::SqliteConnection)
        }
    });
    child.kill().unwrap(); // SIGKILL, mid-job
    child.wait().unwrap();
    let (rows_done, done) = checkpoint(url).expect("progress was committed");
    assert!(!done && rows_done < total, "{engine}: attempt {attempt} was cut short");
    assert_eq!(stored_count(url), rows_done, "{engine}: attempt {attempt}: stored verdicts = checkpoint");
}

#[test]
fn changes_are_reported_against_the_stored_verdicts() {
    let fixtures = fixture_statuses(&[]).len();
    for engine in engines::all() {
        let url = engine.url.as_str();
        assert_eq!(gc(url, &["migrate"]).code, 0);
        assert_eq!(gc(url, &["import", "fixtures"]).code, 0);

        // Without --write nothing is stored, and everything is new.
        let first = json(&gc(url, &["reverify", "--format", "json"]));
        assert_eq!(first["summary"]["invocations"], fixtures, "{}", engine.name);
        assert!(transitions(&first).iter().all(|(from, _, _)| from == "new"), "{}", engine.name);
        assert_eq!(first["changes"].as_array().unwrap().len(), fixtures);
        assert_eq!(stored_count(url), 0, "{}: reverify without --write writes nothing", engine.name);
        assert_eq!(checkpoint(url), None);

        let written = json(&gc(url, &["reverify", "--write", "--format", "json", "--batch-rows", "7"]));
        assert_eq!(written["summary"], first["summary"], "{}", engine.name);
        assert_eq!(stored_count(url), fixtures as i64);
        assert_eq!(checkpoint(url), Some((fixtures as i64, true)));

        let again = json(&gc(url, &["reverify", "--format", "json"]));
        assert!(
            transitions(&again).iter().all(|(from, to, _)| from == to),
            "{}: nothing changed",
            engine.name
        );
        assert!(again["changes"].as_array().unwrap().is_empty());

        // 101 quotes "5xx 错误率 12.4%" from its alert; take the alert away.
        execute(
            url,
            "UPDATE tool_invocation_output SET raw_output = ? WHERE invocation_id = 101",
            "UPDATE tool_invocation_output SET raw_output = $1 WHERE invocation_id = 101",
            &[r#"{"alerts":[]}"#],
        );
        let after = json(
            &gc(url, &["reverify", "--format", "jsonl"])
                .stdout
                .lines()
                .last()
                .map(|l| crate::harness::Outcome { code: 0, stdout: l.to_string(), stderr: String::new() })
                .unwrap(),
        );
        assert!(
            transitions(&after).contains(&("supported".into(), "unsupported".into(), 1)),
            "{}: {after}",
            engine.name
        );
        let changes = gc(url, &["reverify", "--format", "jsonl"]);
        let lines: Vec<Value> = changes.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{}: one change, then the summary", engine.name);
        assert_eq!(lines[0]["id"], 101);
        assert_eq!(lines[0]["from"], serde_json::json!({"status": "supported", "reason": "verified"}));
        assert_eq!(lines[0]["to"], serde_json::json!({"status": "unsupported", "reason": "not_verified"}));
        assert_eq!(lines[0]["run_id"], "run-20261130-order-5xx");
    }
}

#[test]
fn filters_select_runs_tools_and_time() {
    for engine in engines::all() {
        let url = engine.url.as_str();
        assert_eq!(gc(url, &["migrate"]).code, 0);
        assert_eq!(gc(url, &["import", "fixtures"]).code, 0);
        let count = |args: &[&str]| -> u64 {
            let mut all = vec!["reverify", "--format", "json"];
            all.extend_from_slice(args);
            json(&gc(url, &all))["summary"]["invocations"].as_u64().unwrap()
        };
        assert_eq!(count(&["--run", "run-20261130-order-5xx"]), 5, "{}", engine.name);
        assert_eq!(count(&["--run", "run-20261130-order-5xx", "--run", "run-20261130-paydb-pool"]), 10);
        assert_eq!(count(&["--run", "run-20261130-order-5xx", "--tool", "query_logs"]), 1);
        let all = count(&[]);
        let early = count(&["--until", "2026-11-30T10:00:10Z"]);
        let late = count(&["--since", "2026-11-30T10:00:10Z"]);
        assert_eq!(early + late, all, "{}: a time split covers every row once", engine.name);
        assert!(early > 0 && late > 0, "{}: {early} + {late}", engine.name);
        let bad = gc(url, &["reverify", "--since", "last tuesday"]);
        assert_eq!(bad.code, 2);
        assert!(bad.stderr.starts_with("--since: \"last tuesday\" is not a date-time"), "{}", bad.stderr);
        assert_eq!(gc(url, &["reverify", "--resume"]).code, 2, "--resume needs --write");
        assert_eq!(gc(url, &["reverify", "--shard", "4/3"]).code, 2);
    }
}

/// docs/rules.md (storage): kill a writing job at any moment and `--resume` finishes it, with every selected
/// invocation stored exactly once. Killed for real (SIGKILL) four times, each time once the
/// job has visibly committed at least 60 more rows, so every kill lands mid-job whatever the
/// machine's speed, at a different point of the pipeline.
#[test]
fn a_killed_job_resumes_with_nothing_lost_or_duplicated() {
    for engine in engines::all() {
        let url = engine.url.as_str();
        let total = import_corpus(url, 3_000);
        for attempt in 0..4 {
            kill_mid_job(
                url,
                &["reverify", "--database", url, "--write", "--batch-rows", "20"],
                attempt,
                total,
                engine.name,
            );
        }
        let (rows_before, _) = checkpoint(url).unwrap();
        let last =
            json(&gc(url, &["reverify", "--write", "--resume", "--batch-rows", "20", "--format", "json"]));
        // The resumed job reports the whole job, and what it had stored before.
        assert_eq!(last["resumed"]["invocations"].as_i64(), Some(rows_before), "{}", engine.name);
        assert_eq!(last["summary"]["invocations"].as_i64(), Some(total), "{}: the whole job", engine.name);
        let table: u64 = transitions(&last).iter().map(|(_, _, n)| n).sum();
        assert_eq!(table as i64, total, "{}: every invocation in the transition table once", engine.name);
        assert_eq!(stored_count(url), total, "{}: every invocation has exactly one verdict", engine.name);
        assert_eq!(checkpoint(url), Some((total, true)));
        let check = json(&gc(url, &["reverify", "--format", "json"]));
        assert!(
            check["changes"].as_array().unwrap().is_empty(),
            "{}: stored verdicts are the fresh ones",
            engine.name
        );
        assert_eq!(check["summary"]["invocations"].as_i64(), Some(total));
    }
}

/// docs/rules.md (storage): N workers started independently cover every run exactly once, and together store
/// what one worker stores.
#[test]
fn shard_workers_together_equal_one_worker() {
    for engine in engines::all() {
        let url = engine.url.as_str();
        let total = import_corpus(url, 1_200);
        let workers: Vec<_> = (1..=3)
            .map(|k| {
                Command::new(env!("CARGO_BIN_EXE_groundcheck"))
                    .args([
                        "reverify",
                        "--database",
                        url,
                        "--write",
                        "--format",
                        "jsonl",
                        "--batch-rows",
                        "50",
                    ])
                    .arg(format!("--shard={k}/3"))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        let mut runs = 0;
        for worker in workers {
            let out = worker.wait_with_output().unwrap();
            assert!(out.status.success(), "{}: {}", engine.name, String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8(out.stdout).unwrap();
            let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            let (summary, changes) = lines.split_last().unwrap();
            runs += summary["summary"]["runs"].as_u64().unwrap();
            for change in changes {
                assert!(
                    seen.insert(change["id"].as_i64().unwrap()),
                    "{}: {} in two shards",
                    engine.name,
                    change["id"]
                );
            }
        }
        assert_eq!(seen.len() as i64, total, "{}: the shards cover every invocation", engine.name);
        assert_eq!(stored_count(url), total);

        // The union equals what a single worker stores: compare every stored verdict with a
        // fresh single-worker verification of its run.
        let single = json(&gc(url, &["reverify", "--format", "json"]));
        assert_eq!(single["summary"]["runs"].as_u64(), Some(runs), "{}", engine.name);
        assert!(single["changes"].as_array().unwrap().is_empty(), "{}", engine.name);
        let stored = block_on(async {
            let store = Store::connect(url).await.unwrap();
            let mut all = Vec::new();
            for key in store.list_keys(&Default::default()).await.unwrap() {
                all.extend(store.read_key_verdicts("require=all;match=elided", &key).await.unwrap());
            }
            store.close().await;
            all
        });
        let mut run_ids: Vec<String> = stored.iter().filter_map(|s| s.run_id.clone()).collect();
        run_ids.sort();
        run_ids.dedup();
        let mut args =
            vec!["run".to_string(), "--database".into(), url.to_string(), "--format".into(), "jsonl".into()];
        args.extend(run_ids);
        let fresh = run(&args);
        assert_eq!(fresh.code, 0, "{}", fresh.stderr);
        let fresh: Vec<groundcheck_core::Verdict> = fresh
            .stdout
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("run_id");
                serde_json::from_value(v).unwrap()
            })
            .collect();
        let mut stored: Vec<_> = stored.into_iter().map(|s| s.verdict).collect();
        stored.sort_by_key(|v| v.id);
        assert_eq!(stored, fresh, "{}: shard union = single worker, refs and all", engine.name);
        let _ = RunKey::Run(String::new());
    }
}

/// docs/rules.md (storage): the database goes away mid-job. The job stops with one clear line
/// and a non-zero exit, the checkpoint still matches the stored verdicts, and once the
/// database is back `--resume` finishes with every invocation stored once. The job reaches its
/// server through a proxy ([`crate::proxy`]) that goes down mid-job, closing every connection
/// and refusing new ones, and comes back: the shared servers themselves are never stopped.
#[test]
fn a_database_outage_stops_the_job_cleanly_and_resume_finishes_it() {
    // Each engine's job waits out its pool's 15 s on its own thread.
    let engines = engines::all();
    std::thread::scope(|scope| {
        for engine in engines.iter().filter(|e| e.name != "sqlite") {
            scope.spawn(|| outage_then_resume(engine.name, &engine.url));
        }
    });
}

fn outage_then_resume(name: &str, url: &str) {
    let total = import_corpus(url, 400);
    let (proxy, proxied) = crate::proxy::Proxy::in_front_of(url);
    // The outage comes mid-job, at the same point however fast the machine: the job stalls
    // after its third commit (of 80 batches), and the server goes while it waits.
    proxy.freeze_after_commits(3);
    let job = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["reverify", "--database", &proxied, "--write", "--batch-rows", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_committed_rows(url);
    proxy.down();
    // A job that cannot reach its database must end on its own (the pool gives up after
    // 15 s); one that hangs fails this test instead of hanging CI.
    let out = wait_at_most(job, Duration::from_secs(120));
    proxy.up();

    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: the job fails: {stderr}");
    assert!(out.stdout.is_empty(), "{name}: no report from a failed job");
    assert_eq!(stderr.lines().count(), 1, "{name}: one line: {stderr}");
    assert!(stderr.contains("groundcheck:***@127.0.0.1"), "{name}: names the database: {stderr}");
    assert!(!stderr.contains("groundcheck-test-pw"), "{name}: never the password");
    let (rows_done, done) = checkpoint(url).unwrap_or((0, false));
    assert!(!done && rows_done > 0, "{name}: stopped mid-job, at {rows_done} of {total} rows");
    assert_eq!(stored_count(url), rows_done, "{name}: checkpoint consistent after the outage");
    let resumed = gc(&proxied, &["reverify", "--write", "--resume", "--format", "json"]);
    assert_eq!(resumed.code, 0, "{name}: {}", resumed.stderr);
    assert_eq!(stored_count(url), total, "{name}: nothing lost, nothing duplicated");
    assert_eq!(checkpoint(url), Some((total, true)));
}

/// Waits until the reverify job on `url` has committed rows (its checkpoint counts some).
fn wait_for_committed_rows(url: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while checkpoint(url).is_none_or(|(rows_done, _)| rows_done == 0) {
        assert!(Instant::now() < deadline, "{url}: the job committed no rows in a minute");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for `child`, killing it and failing the test if it outlives `limit`.
fn wait_at_most(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            panic!("groundcheck reverify hung for {limit:?} after its database went away");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `elapsed_seconds` and `rows_per_second` (and the human `N rows/s`) depend on the machine:
/// every other byte of reverify's output is pinned.
fn mask_timings(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = ["\"elapsed_seconds\":", "\"rows_per_second\":"]
        .iter()
        .filter_map(|key| rest.find(key).map(|i| i + key.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let number = rest.find(|c: char| c != ' ').unwrap_or(0);
        let end = rest[number..].find([',', '\n', '}']).map_or(rest.len(), |e| e + number);
        out.push_str(&rest[..number]);
        out.push_str("\"[timing]\"");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The JSON and JSON-lines output, byte for byte (timings masked): a summary object, then
/// `changes` last, one compact change a line; the empty list as `[]`.
#[test]
fn json_and_jsonl_output_bytes_are_pinned() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("pin.db").display());
    assert_eq!(gc(&url, &["import", "fixtures"]).code, 0);
    let select = ["--run", "run-20261130-order-5xx", "--run", "run-20261130-paydb-pool"];
    let output = |extra: &[&str]| {
        let mut args = vec!["reverify"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&select);
        let out = gc(&url, &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
        mask_timings(&out.stdout)
    };
    insta::assert_snapshot!("reverify_json_first_run", output(&["--format", "json"]));
    insta::assert_snapshot!("reverify_jsonl_first_run", output(&["--format", "jsonl"]));
    assert_eq!(gc(&url, &["reverify", "--write", "--format", "json"]).code, 0);
    insta::assert_snapshot!("reverify_json_nothing_changed", output(&["--format", "json"]));
    insta::assert_snapshot!("reverify_jsonl_nothing_changed", output(&["--format", "jsonl"]));
}

/// The reader turns rows into runs when one thread verifies, the verification pool when more
/// do (src/reverify/pipeline.rs): both ways, in batches that split runs across reads, report
/// the same changes and store the same verdicts.
#[test]
fn one_verification_thread_or_many_give_the_same_job() {
    let dir = temp_dir();
    let job = |jobs: &str| {
        let url = format!("sqlite://{}", dir.path().join(format!("jobs-{jobs}.db")).display());
        import_corpus(&url, 400);
        let args = ["reverify", "--write", "--format", "jsonl", "--batch-rows", "37", "--jobs", jobs];
        let out = gc(&url, &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let sql = "SELECT invocation_id || ' ' || status || ' ' || reason FROM evidence_verification \
            ORDER BY invocation_id";
        let stored = crate::engines::texts(&url, sql);
        (mask_timings(&out.stdout), stored)
    };
    let (one, stored_one) = job("1");
    assert!(one.lines().count() > 100, "{one}");
    assert_eq!(stored_one.len(), 400);
    assert_eq!(job("3"), (one, stored_one));
}

mod compare;
mod failed_refs;
mod interrupt;
mod output;
mod raw_outputs;
mod servers;
