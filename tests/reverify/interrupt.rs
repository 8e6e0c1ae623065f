//! Ctrl-C during `reverify --write`, with a real SIGINT sent to the real binary
//! mid-job on every engine: the job stops after the batch being committed, says how much of
//! the job is committed and the exact command that resumes it (exit 130); that command
//! resumes, says so and reports the whole job; run again, it says the job is complete.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{checkpoint, import_corpus, stored_count, transitions, wait_at_most};
use crate::engines;

/// Starts `reverify ARGS` with the database in `DATABASE_URL` (so the resume command it
/// prints needs no password), waits until it has committed `rows` more rows, and sends it
/// SIGINT `times` times.
fn interrupt(url: &str, args: &[&str], rows: i64, times: usize) -> std::process::Output {
    let before = checkpoint(url).map_or(0, |(done, _)| done);
    let mut child: Child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(args)
        .env("DATABASE_URL", url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while checkpoint(url).map_or(0, |(done, _)| done) < before + rows {
        assert!(child.try_wait().unwrap().is_none(), "the job ended before it was interrupted");
        assert!(Instant::now() < deadline, "no progress in 120 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    for i in 0..times {
        // Signals sent back to back merge into one; a moment apart, the second one lands
        // while the first is being honoured (or after the job has ended: then it is lost).
        if i > 0 {
            std::thread::sleep(Duration::from_millis(3));
        }
        let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
        assert!(sent.success() || i > 0);
    }
    wait_at_most(child, Duration::from_secs(120))
}

/// Runs `command` as a shell reads it, with the database in `DATABASE_URL`.
fn shell(command: &str, url: &str) -> std::process::Output {
    Command::new("bash").arg("-c").arg(format!("exec {command}")).env("DATABASE_URL", url).output().unwrap()
}

#[test]
fn an_interrupted_job_says_what_is_committed_and_resumes_with_the_command_it_prints() {
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        let total = import_corpus(url, 3_000);
        let job = ["reverify", "--write", "--batch-rows", "20", "--format", "json"];

        let out = interrupt(url, &job, 60, 1);
        let line = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(130), "{name}: {line}");
        assert!(out.stdout.is_empty(), "{name}: no summary from an interrupted job");
        assert_eq!(line.lines().count(), 1, "{name}: one line: {line}");
        let (rows_done, done) = checkpoint(url).expect("batches were committed");
        assert!(!done && rows_done < total, "{name}: interrupted mid-job");
        assert_eq!(stored_count(url), rows_done, "{name}: the last batch was committed whole, or not at all");
        let prefix = format!("{}: interrupted: ", groundcheck_store::redact(url));
        assert!(line.starts_with(&prefix), "{name}: names the database: {line}");
        assert!(
            line.contains(&format!(" runs ({rows_done} invocations) of this job are committed; ")),
            "{line}"
        );
        assert!(!line.contains("groundcheck-test-pw"), "{name}: never the password");
        let (_, command) = line.trim_end().split_once("resume with: ").expect("the resume command");
        assert!(command.ends_with(" --resume"), "{name}: {command}");

        // The printed command, interrupted twice: the second Ctrl-C stops it at once (unless
        // the first was honoured already), and what is stored still agrees with the checkpoint.
        let words: Vec<String> = shell_words(command);
        let words: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
        let twice = interrupt(url, &words, 60, 2);
        let said = String::from_utf8_lossy(&twice.stderr);
        assert_eq!(twice.status.code(), Some(130), "{name}: {said}");
        assert_eq!(said.lines().count(), 1, "{name}: {said}");
        assert!(
            said.starts_with(&format!("{}: interrupted", groundcheck_store::redact(url))),
            "{name}: {said}"
        );
        assert!(
            said.trim_end().ends_with(&format!("resume with: {command}")),
            "{name}: the same command: {said}"
        );
        let (rows_now, _) = checkpoint(url).unwrap();
        assert!(rows_now > rows_done, "{name}");
        assert_eq!(stored_count(url), rows_now, "{name}: stored verdicts = checkpoint after a hard stop");

        let resumed = shell(command, url);
        assert_eq!(resumed.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&resumed.stderr));
        let report: Value = serde_json::from_slice(&resumed.stdout).unwrap();
        assert_eq!(report["resumed"]["invocations"].as_i64(), Some(rows_now), "{name}: says it resumed");
        assert_eq!(report["resumed"]["already_complete"], false);
        assert_eq!(report["summary"]["invocations"].as_i64(), Some(total), "{name}: the whole job's totals");
        let table: u64 = transitions(&report).iter().map(|(_, _, n)| n).sum();
        assert_eq!(table as i64, total, "{name}: the whole job's transitions");
        assert_eq!(stored_count(url), total, "{name}: every invocation stored once");
        assert_eq!(checkpoint(url), Some((total, true)));

        let again = shell(command, url);
        let report: Value = serde_json::from_slice(&again.stdout).unwrap();
        assert_eq!(report["resumed"]["already_complete"], true, "{name}: says it is complete");
        assert_eq!(report["summary"]["invocations"].as_i64(), Some(total), "{name}: still the whole job");
        assert!(report["changes"].as_array().unwrap().is_empty(), "{name}: this run changed nothing");
        let human = shell(&command.replace("--format json", "--format human"), url);
        let text = String::from_utf8_lossy(&human.stdout);
        assert!(text.contains("\n  already complete: nothing left to verify;"), "{name}: {text}");
    }
}

/// Splits a command line the way `resume_command` quotes it (plain words, '…' with '\'').
fn shell_words(command: &str) -> Vec<String> {
    let out = Command::new("bash").arg("-c").arg(format!("printf '%s\\0' {command}")).output().unwrap();
    out.stdout
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into())
        .collect()
}
