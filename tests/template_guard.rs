//! A wrong `--raw-outputs` template never overwrites stored verdicts: when the rows that have
//! no raw output of their own find no file at all, `reverify --write` and `run --write` store
//! nothing and exit 2 with one line saying why and what to do; `--write-without-raw-outputs`
//! stores them all the same. On a real SQLite database.

use std::path::Path;

use serde_json::{json, Value};

use crate::engines::integers;
use crate::harness::{run_in, temp_dir, write, Outcome};

/// Six runs of eight rows without raw outputs, each row's output kept in a file beside its
/// session, every quote in it.
fn setup(dir: &Path) -> String {
    let rows: Vec<Value> = (1..=48)
        .map(|id| {
            let session = format!("s{}", (id - 1) / 8 + 1);
            let tools = dir.join("sessions").join(&session).join("tools");
            std::fs::create_dir_all(&tools).unwrap();
            let output = json!({"logs": [format!("line {id}: connection refused")]}).to_string();
            std::fs::write(tools.join(format!("{id}.json")), output).unwrap();
            json!({"id": id, "session_id": session, "run_id": format!("run-{}", (id - 1) / 8 + 1),
                   "tool_name": "query_logs", "created_at": "2026-11-30T10:00:00Z",
                   "retrieval_details": {"evidence_status": "supported",
                       "evidence_refs": [{"raw_path": "$.logs[0]", "text": format!("line {id}")}]}})
        })
        .collect();
    write(dir, "rows.json", json!({"invocations": rows}).to_string());
    let url = format!("sqlite://{}", dir.join("gc.db").display());
    let out = run_in(dir, ["import", "--database", &url, "rows.json"], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    url
}

fn gc(dir: &Path, args: &[&str]) -> Outcome {
    run_in(dir, args, &[], None)
}

/// How many verdicts are stored as supported, and as unsupported.
fn stored(url: &str) -> (i64, i64) {
    let supported = integers(url, "SELECT COUNT(*) FROM evidence_verification WHERE status = 'supported'");
    let unsupported =
        integers(url, "SELECT COUNT(*) FROM evidence_verification WHERE status = 'unsupported'");
    (supported[0], unsupported[0])
}

const GOOD: &str = "sessions/{session_id}/tools/{id}.json";
const WRONG: &str = "session/{session_id}/tools/{id}.json";

#[test]
fn a_template_that_finds_no_file_writes_nothing_and_exits_two() {
    let dir = temp_dir();
    let url = setup(dir.path());
    let base = ["reverify", "--database", &url, "--write", "--batch-rows", "16"];
    let good = gc(dir.path(), &[&base[..], &["--raw-outputs", GOOD]].concat());
    assert_eq!(good.code, 0, "{}", good.stderr);
    assert_eq!(stored(&url), (48, 0), "the right template verifies every row");

    let wrong = gc(dir.path(), &[&base[..], &["--raw-outputs", WRONG]].concat());
    assert_eq!(wrong.code, 2, "{wrong:?}");
    assert!(wrong.stdout.is_empty(), "{}", wrong.stdout);
    assert_eq!(wrong.stderr.lines().count(), 1, "{}", wrong.stderr);
    for says in [
        "--raw-outputs session/{session_id}/tools/{id}.json: no raw-output file was found for any of the 16 rows",
        "first tried: session/s1/tools/1.json",
        "nothing was written",
        "--write-without-raw-outputs",
    ] {
        assert!(wrong.stderr.contains(says), "{says}: {}", wrong.stderr);
    }
    assert_eq!(stored(&url), (48, 0), "the good verdicts stay");
    let checkpoints =
        integers(&url, "SELECT COUNT(*) FROM reverify_checkpoint WHERE arguments LIKE '%session/%'");
    assert_eq!(checkpoints, [0], "not even a checkpoint of the refused job");

    // `run --write` refuses the same way.
    let run =
        gc(dir.path(), &["run", "--database", &url, "--write", "--raw-outputs", WRONG, "run-1", "run-2"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no raw-output file was found for any of the 16 rows"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(stored(&url), (48, 0));

    // Without --write nothing is stored anyway: the verdicts are reported, with the warning.
    let look = gc(dir.path(), &["reverify", "--database", &url, "--raw-outputs", WRONG]);
    assert_eq!(look.code, 0, "{}", look.stderr);
    assert!(look.stdout.contains("no file was found: check the template"), "{}", look.stdout);

    // The operator's choice: stored all the same.
    let forced =
        gc(dir.path(), &[&base[..], &["--raw-outputs", WRONG, "--write-without-raw-outputs"]].concat());
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(stored(&url), (0, 48));
    let run = gc(
        dir.path(),
        &[
            "run",
            "--database",
            &url,
            "--write",
            "--raw-outputs",
            GOOD,
            "--write-without-raw-outputs",
            "run-1",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(stored(&url), (8, 40), "a template that finds files writes as before");
    let flag_alone = gc(dir.path(), &["reverify", "--database", &url, "--write-without-raw-outputs"]);
    assert_eq!(flag_alone.code, 2, "the flag needs --write: {flag_alone:?}");
}

/// Rows with a raw output of their own need no file: batches of them are written before the
/// first batch that looks files up and finds none, which stops the job.
#[test]
fn batches_that_need_no_file_are_written_before_the_refused_one() {
    let dir = temp_dir();
    let url = setup(dir.path());
    let own: Vec<Value> = (101..=8 + 100)
        .map(|id| {
            json!({"id": id, "session_id": "s0", "run_id": "run-0", "tool_name": "query_logs",
                   "created_at": "2026-11-30T10:00:00Z", "raw_output_text": "{\"logs\":[\"own\"]}",
                   "retrieval_details": {"evidence_status": "supported",
                       "evidence_refs": [{"raw_path": "$.logs[0]", "text": "own"}]}})
        })
        .collect();
    write(dir.path(), "own.json", json!({"invocations": own}).to_string());
    assert_eq!(gc(dir.path(), &["import", "--database", &url, "own.json"]).code, 0);
    let args = ["reverify", "--database", &url, "--write", "--batch-rows", "8", "--raw-outputs", WRONG];
    let out = gc(dir.path(), &args);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("that batch was not written (the 8 invocations verified before it, which needed no file, are kept)"),
        "{}",
        out.stderr
    );
    assert_eq!(stored(&url), (8, 0), "run-0 (first in order) is stored, nothing else");
}
