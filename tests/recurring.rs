//! The same `reverify --write --resume` run on a schedule (a Kubernetes CronJob), on every
//! engine: after a finished job, the next run verifies the rows added since, in
//! whole runs, and nothing else; a job killed midway still resumes exactly where it stopped.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::engines::{self, integers};
use crate::harness::{import_corpus, run, temp_dir, write, Outcome};

/// The command a CronJob runs every time.
const RECURRING: &[&str] = &["reverify", "--write", "--resume", "--batch-rows", "20", "--format", "json"];

fn gc(url: &str, args: &[&str]) -> Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    run(all)
}

fn json(what: &str, out: &Outcome) -> Value {
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", out.stdout))
}

fn count(url: &str, sql: &'static str) -> i64 {
    integers(url, sql)[0]
}

fn stored(url: &str) -> i64 {
    count(url, "SELECT COUNT(*) FROM evidence_verification")
}

/// `(rows_done, done)` of the only job in the table.
fn checkpoint(url: &str) -> (i64, bool) {
    let rows = integers(url, "SELECT rows_done FROM reverify_checkpoint");
    assert_eq!(rows.len(), 1, "one job");
    (rows[0], count(url, "SELECT COUNT(*) FROM reverify_checkpoint WHERE done") == 1)
}

fn assert_complete(name: &str, what: &str, report: &Value) {
    assert_eq!(report["resumed"]["already_complete"], true, "{name}: {what}: {report}");
}

/// Regression: once a job with `--write --resume` had finished, the same command said
/// "already complete" and verified nothing, forever, however many rows were added.
#[test]
fn a_recurring_job_verifies_the_rows_added_since_it_finished() {
    for engine in engines::all() {
        let (url, name) = (engine.url.as_str(), engine.name);
        assert_eq!(gc(url, &["migrate"]).code, 0, "{name}");
        import_corpus(url, 13, 300, 1);
        let first = json(name, &gc(url, RECURRING));
        assert_eq!(first["summary"]["invocations"], 300, "{name}: the first job verifies everything");
        assert!(first.get("resumed").is_none(), "{name}: {first}");
        assert_complete(name, "nothing added", &json(name, &gc(url, RECURRING)));

        // Rows added: new runs (sorting before the old ones), and one more row in an old run.
        import_corpus(url, 12, 200, 10_001);
        let extra = r#"{"run_id": "run-13-0000001", "session_id": "sess-13-00000", "invocations": [
          {"id": 20001, "tool_name": "query_logs", "created_at": "2026-12-01T00:00:00Z",
           "retrieval_details": {"evidence_refs": [{"raw_path": "$.a", "text": "b"}]}, "raw_output": {"a": "b"}}]}"#;
        let dir = temp_dir();
        let file = write(dir.path(), "extra.json", extra);
        assert_eq!(gc(url, &["import", file.to_str().unwrap()]).code, 0, "{name}");
        let grown = count(url, "SELECT COUNT(*) FROM tool_invocation WHERE run_id = 'run-13-0000001'");
        let new_runs =
            count(url, "SELECT COUNT(DISTINCT run_id) FROM tool_invocation WHERE run_id LIKE 'run-12-%'");

        let out = gc(url, RECURRING);
        let next = json(name, &out);
        assert!(next.get("resumed").is_none(), "{name}: a new job: {next}");
        assert_eq!(next["summary"]["runs"], new_runs + 1, "{name}: the new runs and the grown one");
        assert_eq!(next["summary"]["invocations"], 200 + grown, "{name}: {}", next["summary"]);
        let new: Vec<&Value> =
            next["changes"].as_array().unwrap().iter().filter(|c| c["from"].is_null()).collect();
        assert_eq!(new.len(), 201, "{name}: each added row is new, once");
        assert_eq!(next["changes"].as_array().unwrap().len(), 201, "{name}: the old rows did not change");
        assert!(
            out.stderr.contains("the job with these arguments had finished (300 invocations)"),
            "{name}: {}",
            out.stderr
        );
        assert_eq!(stored(url), 501, "{name}: every row has one verdict");
        assert_eq!(checkpoint(url), (200 + grown, true), "{name}");

        let last = json(name, &gc(url, RECURRING));
        assert_complete(name, "nothing added since", &last);
        assert_eq!(
            last["summary"]["invocations"], next["summary"]["invocations"],
            "{name}: that job's totals"
        );
        assert_eq!(stored(url), 501, "{name}");
    }
}

/// A job over the rows added since a finished one, killed (SIGKILL) midway, resumes exactly:
/// past its last committed run, over its own runs only (the old runs sort after the new ones,
/// so resuming as a job over every run would verify them too), every row stored once.
#[test]
fn an_interrupted_job_over_the_added_rows_resumes_exactly() {
    for engine in engines::all() {
        let (url, name) = (engine.url.as_str(), engine.name);
        assert_eq!(gc(url, &["migrate"]).code, 0, "{name}");
        import_corpus(url, 13, 300, 1);
        json(name, &gc(url, RECURRING));
        import_corpus(url, 12, 2_000, 10_001);

        let mut args = vec!["--database", url];
        args.splice(0..0, [RECURRING[0]]);
        args.extend_from_slice(&RECURRING[1..]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let (rows, done) = checkpoint(url);
            if !done && rows >= 60 {
                break;
            }
            assert!(child.try_wait().unwrap().is_none(), "{name}: the job ended before it was killed");
            assert!(Instant::now() < deadline, "{name}: no progress in 120 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let (rows_done, done) = checkpoint(url);
        assert!(!done && rows_done < 2_000, "{name}: cut short");
        assert_eq!(stored(url), 300 + rows_done, "{name}: stored verdicts = checkpoint");

        let resumed = json(name, &gc(url, RECURRING));
        assert_eq!(resumed["resumed"]["invocations"].as_i64(), Some(rows_done), "{name}: {resumed}");
        assert_eq!(resumed["resumed"]["already_complete"], false, "{name}");
        assert_eq!(
            resumed["summary"]["invocations"], 2_000,
            "{name}: the added rows, each once: {}",
            resumed["summary"]
        );
        let table: u64 =
            resumed["transitions"].as_array().unwrap().iter().map(|t| t["count"].as_u64().unwrap()).sum();
        assert_eq!(table, 2_000, "{name}: the transition table counts each once");
        assert_eq!(stored(url), 2_300, "{name}");
        assert_eq!(checkpoint(url), (2_000, true), "{name}");
        assert_complete(name, "afterwards", &json(name, &gc(url, RECURRING)));
    }
}
