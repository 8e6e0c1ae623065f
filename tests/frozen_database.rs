//! A database server that stops answering in the middle of `reverify --write` (as one stopped
//! by SIGSTOP does: its connections stay open and nothing comes back). Every statement waits
//! at most `--statement-timeout`; past it the job names the server that did not answer (host
//! and port, no credential), keeps the batches it committed, and prints the command that
//! resumes it, which then finishes the job.
//!
//! The shared test servers are never stopped: the job talks to its server through a TCP proxy
//! this test runs, which forwards faithfully until the job has committed a few batches, then
//! stops forwarding what the job sends (the server's answers still come back, so the last
//! `COMMIT` is acknowledged): from the job's side, the server froze.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engines::{self, integers};
use crate::harness::{run_in, run_shell, temp_dir, write, Outcome};
use crate::proxy::Proxy;

/// Twelve runs of two rows each, every row claiming a quote its raw output holds.
fn bundle() -> String {
    let invocations: Vec<Value> = (1..=24)
        .map(|id| {
            json!({"id": id, "session_id": "s", "run_id": format!("run-{:02}", (id + 1) / 2),
                   "tool_name": "query_logs", "created_at": "2026-11-30T10:00:00Z",
                   "raw_output_text": json!({"logs": [format!("line {id}")]}).to_string(),
                   "retrieval_details": {"evidence_status": "supported",
                       "evidence_refs": [{"raw_path": "$.logs[0]", "text": format!("line {id}")}]}})
        })
        .collect();
    json!({"invocations": invocations}).to_string()
}

/// Runs `groundcheck ARGS`, killed (and the test failed) if it has not ended by `deadline`.
fn within(deadline: Duration, args: &[&str]) -> (Outcome, Duration) {
    let started = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(args)
        .env_remove("DATABASE_URL")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{args:?}: still waiting after {deadline:?} (the frozen server hung it): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let outcome = Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (outcome, started.elapsed())
}

#[test]
fn a_frozen_server_stops_the_job_naming_it_and_resume_finishes() {
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        let (name, url) = (engine.name, engine.url.as_str());
        let dir = temp_dir();
        write(dir.path(), "runs.json", bundle());
        for args in [vec!["migrate", "--database", url], vec!["import", "--database", url, "runs.json"]] {
            let out = run_in(dir.path(), &args, &[], None);
            assert_eq!(out.code, 0, "{name}: {args:?}: {}", out.stderr);
        }
        let (proxy, proxied) = Proxy::in_front_of(url);
        let password = url::Url::parse(url).unwrap().password().unwrap().to_string();

        proxy.freeze_after_commits(3);
        let job = ["reverify", "--database", &proxied, "--write", "--batch-rows", "2", "--jobs", "1"];
        let job: Vec<&str> =
            job.into_iter().chain(["--statement-timeout", "2", "--format", "json"]).collect();
        let (out, _) = within(Duration::from_secs(120), &job);
        assert_eq!(out.code, 2, "{name}: {out:?}");
        assert!(out.stdout.is_empty(), "{name}: {}", out.stdout);
        assert_eq!(out.stderr.lines().count(), 1, "{name}: one line: {}", out.stderr);
        let line = out.stderr.trim_end();
        assert!(!line.contains(&password), "{name}: the password leaked: {line}");
        let said = format!("the server 127.0.0.1:{} did not answer within 2 s", proxy.port);
        assert!(line.contains(&said), "{name}: names the server: {line}");
        assert!(line.contains("--statement-timeout"), "{name}: names the flag: {line}");
        let (_, resume) = line.split_once("resume with: ").unwrap_or_else(|| panic!("{name}: {line}"));
        assert!(resume.contains("--resume"), "{name}: {resume}");

        // What was committed before the freeze is kept, whole batches of whole runs.
        let done = integers(url, "SELECT rows_done FROM reverify_checkpoint");
        assert_eq!(done, [6], "{name}: three batches of one run of two rows");
        assert_eq!(integers(url, "SELECT COUNT(*) FROM evidence_verification"), [6], "{name}");

        // The printed command, its password put back, finishes the job through the same proxy.
        proxy.thaw();
        let command = resume.replace(":***@", &format!(":{password}@"));
        let resumed = run_shell(dir.path(), &command);
        assert_eq!(resumed.code, 0, "{name}: {command}: {}", resumed.stderr);
        let summary: Value = serde_json::from_str(&resumed.stdout).unwrap();
        assert_eq!(summary["resumed"]["invocations"], 6, "{name}: {summary}");
        assert_eq!(summary["summary"]["invocations"], 24, "{name}: the whole job: {summary}");
        assert_eq!(integers(url, "SELECT COUNT(*) FROM evidence_verification"), [24], "{name}");
        drop(engine);
    }
}
