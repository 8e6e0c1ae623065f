//! Safe on a real agent's host: what the session folders, the terminal and the
//! files around groundcheck may hold cannot make it read outside its folder, hang, steer the
//! terminal or clobber a file. Each test drives the real binary.

use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{run_in, Outcome};
use crate::raw_output_files::through_the_binary::{case, verdicts};

/// A row without a raw output of its own, claiming `text` at `path`.
fn row(id: i64, session: &str, tool: &str, path: &str, text: &str) -> Value {
    json!({"id": id, "session_id": session, "run_id": "run-host", "tool_name": tool,
           "created_at": "2026-12-01T10:00:00Z",
           "retrieval_details": {"evidence_status": "supported",
                                 "evidence_refs": [{"raw_path": path, "text": text}]}})
}

fn write_bundle(dir: &Path, rows: Vec<Value>) {
    std::fs::write(dir.join("bundle.json"), json!({"invocations": rows}).to_string()).unwrap();
}

/// Runs `groundcheck ARGS` in `dir`, failing the test if it has not ended in 60 s (a case
/// here that goes wrong hangs for ever).
fn run_watched(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let (dir, env): (std::path::PathBuf, Vec<(String, String)>) =
        (dir.to_path_buf(), env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
    let shown = args.join(" ");
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let _ = tx.send(run_in(&dir, &args, &env, None));
    });
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("groundcheck {shown} hangs"))
}

// ---------------------------------------------------------------------------------------------
// 1. Links out of the template's root
// ---------------------------------------------------------------------------------------------

/// What no output may ever show: the secret file's text, the process environment's canary,
/// `/etc/passwd`'s first entry.
const SECRET: &str = "TOPSECRET-7d1e connection refused";
const CANARY: &str = "canary-4f1c9b";

#[test]
fn links_out_of_the_raw_outputs_root_are_never_read_in_any_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tools = d.join("sessions/s1/tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::create_dir_all(d.join("elsewhere/tools")).unwrap();
    std::fs::write(d.join("secret.json"), json!({"logs": [SECRET]}).to_string()).unwrap();
    std::fs::write(d.join("elsewhere/tools/4.json"), json!({"logs": [SECRET]}).to_string()).unwrap();
    symlink("/etc/passwd", tools.join("1.json")).unwrap();
    symlink("/proc/self/environ", tools.join("2.json")).unwrap();
    symlink("../../../secret.json", tools.join("3.json")).unwrap();
    symlink(d.join("elsewhere"), d.join("sessions/s2")).unwrap();
    // Links that stay inside the root keep working: relative, absolute, and a folder.
    std::fs::write(tools.join("real.json"), json!({"logs": ["dial tcp: connection refused"]}).to_string())
        .unwrap();
    symlink("real.json", tools.join("5.json")).unwrap();
    symlink(tools.join("real.json"), tools.join("6.json")).unwrap();
    symlink("s1", d.join("sessions/latest")).unwrap();
    std::fs::copy(tools.join("real.json"), tools.join("7.json")).unwrap();
    write_bundle(
        d,
        vec![
            row(1, "s1", "read_file", "$", "root:"),
            row(2, "s1", "read_env", "$", "GROUNDCHECK_CANARY="),
            row(3, "s1", "query_logs", "$.logs[0]", "connection refused"),
            row(4, "s2", "query_logs", "$.logs[0]", "connection refused"),
            row(5, "s1", "query_logs", "$.logs[0]", "connection refused"),
            row(6, "s1", "query_logs", "$.logs[0]", "connection refused"),
            row(7, "latest", "query_logs", "$.logs[0]", "connection refused"),
        ],
    );
    let template = ["--raw-outputs", "sessions/{session_id}/tools/{id}.json"];
    let env = [("GROUNDCHECK_CANARY", CANARY), ("DATABASE_URL", "mysql://u:pw-canary-4f1c9b@127.0.0.1:1/x")];
    let json =
        run_watched(d, &[&["verify", "--format", "json"][..], &template, &["bundle.json"]].concat(), &env);
    let unsafe_ = |id| case(id, "none", "raw_output_unavailable", &["raw_output_path_unsafe"]);
    let read = |id| case(id, "file", "verified", &[]);
    assert_eq!(verdicts(&json), [unsafe_(1), unsafe_(2), unsafe_(3), unsafe_(4), read(5), read(6), read(7)]);
    for format in ["human", "json", "jsonl", "html"] {
        let out = run_watched(
            d,
            &[&["verify", "--format", format][..], &template, &["bundle.json"]].concat(),
            &env,
        );
        let otel =
            run_watched(d, &[&["verify", "--otel", "-"][..], &template, &["bundle.json"]].concat(), &env);
        for (what, text) in [("stdout", &out.stdout), ("stderr", &out.stderr), ("otel", &otel.stdout)] {
            for secret in ["TOPSECRET", CANARY, "root:x:0:0"] {
                assert!(!text.contains(secret), "{format} {what} shows {secret}");
            }
        }
    }
    // The human table names the path that led outside, for a person to look at.
    let human = run_watched(d, &[&["verify"][..], &template, &["bundle.json"]].concat(), &env);
    assert!(
        human.stdout.contains("sessions/s1/tools/1.json leads outside the template's folder"),
        "{}",
        human.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// 2. FIFOs, sockets and devices
// ---------------------------------------------------------------------------------------------

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success());
}

#[test]
fn fifos_sockets_and_devices_are_unreadable_and_never_block() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tools = d.join("tools");
    std::fs::create_dir(&tools).unwrap();
    mkfifo(&tools.join("1.json"));
    let _socket = std::os::unix::net::UnixListener::bind(tools.join("2.json")).unwrap();
    symlink("1.json", tools.join("3.json")).unwrap();
    let claim = |id, tool| row(id, "s", tool, "$", "x");
    write_bundle(d, vec![claim(1, "q"), claim(2, "q"), claim(3, "q")]);
    let unreadable = |id| case(id, "none", "raw_output_unavailable", &["raw_output_unreadable"]);
    let out = run_watched(
        d,
        &["verify", "--format", "json", "--raw-outputs", "tools/{id}.json", "bundle.json"],
        &[],
    );
    assert_eq!(verdicts(&out), [unreadable(1), unreadable(2), unreadable(3)]);
    assert!(Path::new(&tools.join("1.json")).metadata().unwrap().file_type().is_fifo());

    // Devices, beneath a root that is /dev itself.
    write_bundle(d, vec![claim(1, "zero"), claim(2, "null"), claim(3, "urandom"), claim(4, "full")]);
    let out = run_watched(
        d,
        &["verify", "--format", "json", "--raw-outputs", "/dev/{tool_name}", "bundle.json"],
        &[],
    );
    assert_eq!(verdicts(&out), [unreadable(1), unreadable(2), unreadable(3), unreadable(4)]);

    // `reverify` reads the same way, from a database.
    write_bundle(d, vec![claim(1, "q"), claim(2, "q"), claim(3, "q")]);
    let db = format!("sqlite://{}", d.join("gc.db").display());
    let import = run_watched(d, &["import", "--database", &db, "bundle.json"], &[]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    let out = run_watched(
        d,
        &["reverify", "--database", &db, "--format", "json", "--raw-outputs", "tools/{id}.json"],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(summary["summary"]["by_reason"]["not_verified"], json!(3), "{summary}");
    assert_eq!(summary["summary"]["raw_output_files"]["unreadable"]["count"], json!(3), "{summary}");
}

/// A second Ctrl-C ends `reverify` at once even while it waits on something that does not
/// come back by itself: here, a SQLite database another writer keeps locked.
#[test]
fn a_second_ctrl_c_stops_reverify_at_once_while_it_waits() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db_path = d.join("gc.db");
    let db = format!("sqlite://{}", db_path.display());
    let fixtures = crate::harness::repo("fixtures");
    assert_eq!(run_in(d, ["import", "--database", &db, fixtures.to_str().unwrap()], &[], None).code, 0);
    // Another writer holds the database: groundcheck waits for its lock.
    let mut locker = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys,time\nc=sqlite3.connect(sys.argv[1],isolation_level=None)\n\
                c.execute('BEGIN EXCLUSIVE')\nprint('locked',flush=True)\ntime.sleep(120)",
        ])
        .arg(&db_path)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut said = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(locker.stdout.as_mut().unwrap()), &mut said)
        .unwrap();
    assert_eq!(said.trim(), "locked");
    let mut job = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["reverify", "--write", "--database", &db])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The job's stderr, a line at a time: it says when it waits for the lock.
    let (lines_tx, lines) = std::sync::mpsc::channel::<String>();
    let stderr = job.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut said: Vec<String> = Vec::new();
    let waiting = Instant::now() + Duration::from_secs(120);
    while !said.iter().any(|l| l.contains("waiting for a lock")) {
        let left = waiting.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => said.push(line),
            Err(_) => panic!("the job never said it waits for the lock: {said:?}"),
        }
    }
    assert!(job.try_wait().unwrap().is_none(), "the job waits for the lock");
    // Ctrl-C until it stops: the first asks the job to stop, and the job still waits for the
    // lock; any later one stops it at once. (Two signals sent together may arrive as one.)
    let deadline = Instant::now() + Duration::from_secs(60);
    while job.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "a second Ctrl-C did not stop the job");
        let _ = Command::new("kill").args(["-INT", &job.id().to_string()]).status();
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = job.wait_with_output().unwrap();
    let _ = locker.kill();
    let _ = locker.wait();
    reader.join().unwrap();
    said.extend(lines.try_iter());
    let stderr = said.join("\n");
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted again: stopped at once"), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// 3. Terminal injection
// ---------------------------------------------------------------------------------------------

#[test]
fn control_characters_never_reach_the_terminal_in_error_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bundle = r#"{"invocations": [{"id": 1, "tool_name": "q", "\u001b[2Jx\u001b]0;owned\u0007": 1}]}"#;
    std::fs::write(d.join("bundle.json"), bundle).unwrap();
    let out = run_in(d, ["verify", "bundle.json"], &[], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("<U+001B>[2Jx<U+001B>]0;owned<U+0007>"), "{}", out.stderr);
    let missing = run_in(d, ["verify", "no\u{1b}[31mfile.json"], &[], None);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("no<U+001B>[31mfile.json"), "{}", missing.stderr);
    for out in [&out, &missing] {
        assert!(!out.stderr.contains(['\u{1b}', '\u{7}']), "{:?}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{:?}", out.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// 4. `--otel FILE` is written as a shell's `>` would
// ---------------------------------------------------------------------------------------------

fn otel_to(dir: &Path, target: &Path) -> Outcome {
    let fixture = crate::harness::repo("fixtures/01_order_svc_5xx_spike.json");
    run_watched(dir, &["verify", "--otel", target.to_str().unwrap(), fixture.to_str().unwrap()], &[])
}

/// Every line of `text` is an OTLP `LogsData` (a `resourceLogs` object).
fn is_otlp(text: &str) -> bool {
    !text.is_empty()
        && text.lines().all(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v["resourceLogs"].is_array()))
}

#[test]
fn otel_writes_through_fifos_and_links_and_keeps_a_file_s_mode() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // A FIFO a Collector reads stays a FIFO and gets the lines.
    let fifo = d.join("otel.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = otel_to(d, &fifo);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(is_otlp(&reader.join().unwrap()));
    assert!(fifo.metadata().unwrap().file_type().is_fifo());

    // A link is written through: it stays a link, its target gets the lines.
    let target = d.join("target.jsonl");
    std::fs::write(&target, "old").unwrap();
    let link = d.join("link.jsonl");
    symlink(&target, &link).unwrap();
    assert_eq!(otel_to(d, &link).code, 0);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(is_otlp(&std::fs::read_to_string(&target).unwrap()));

    // An existing file keeps its mode (0644: a Collector of another user reads it).
    let file = d.join("file.jsonl");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(otel_to(d, &file).code, 0);
    assert_eq!(file.metadata().unwrap().permissions().mode() & 0o777, 0o644);
    assert!(is_otlp(&std::fs::read_to_string(&file).unwrap()));

    // A new file gets the umask's mode.
    let fixture = crate::harness::repo("fixtures/01_order_svc_5xx_spike.json");
    let new = d.join("new.jsonl");
    let script = format!(
        "umask 027 && exec '{}' verify --otel '{}' '{}'",
        env!("CARGO_BIN_EXE_groundcheck"),
        new.display(),
        fixture.display()
    );
    assert!(Command::new("sh").arg("-c").arg(script).stdout(Stdio::null()).status().unwrap().success());
    assert_eq!(new.metadata().unwrap().permissions().mode() & 0o777, 0o640);

    // A device that refuses the write is one line and exit 2, and stays a device.
    let full = otel_to(d, Path::new("/dev/full"));
    assert_eq!(full.code, 2);
    assert!(full.stderr.starts_with("--otel /dev/full: cannot write it: "), "{}", full.stderr);
    assert!(Path::new("/dev/full").metadata().unwrap().file_type().is_char_device());
}

// ---------------------------------------------------------------------------------------------
// 7. A wrong template says so
// ---------------------------------------------------------------------------------------------

#[test]
fn a_template_that_finds_no_file_says_so_loudly_and_names_the_path_tried() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("sessions/s1/tools")).unwrap();
    std::fs::write(d.join("sessions/s1/tools/1.json"), r#"{"logs":["connection refused"]}"#).unwrap();
    let claim = |id| row(id, "s1", "query_logs", "$.logs[0]", "connection refused");
    write_bundle(d, vec![claim(1), claim(2), claim(3)]);
    // A typo: `session` for `sessions`.
    let typo = "session/{session_id}/tools/{id}.json";
    let out = run_watched(d, &["verify", "--raw-outputs", typo, "bundle.json"], &[]);
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "raw-output files (--raw-outputs {typo}): 0 found, 3 missing (first tried: \
             session/s1/tools/1.json), 0 unreadable, 0 unsafe; no file was found: check the template"
        )
    );
    assert!(out.stdout.contains("not found at session/s1/tools/2.json"), "{}", out.stdout);
    let html = run_watched(d, &["verify", "--format", "html", "--raw-outputs", typo, "bundle.json"], &[]);
    assert!(html.stdout.contains("its --raw-outputs file: not found at session/s1/tools/3.json"));
    assert!(!html.stdout.contains("No raw output was captured for this call.</p>"));

    // The right template: the counts add up, and only the missing file is named.
    let right = "sessions/{session_id}/tools/{id}.json";
    let out = run_watched(d, &["verify", "--raw-outputs", right, "bundle.json"], &[]);
    assert!(out
        .stderr
        .contains(": 1 found, 2 missing (first tried: sessions/s1/tools/2.json), 0 unreadable, 0 unsafe\n"));
    assert!(!out.stderr.contains("check the template"), "{}", out.stderr);

    // `reverify` counts them in its summary.
    let db = format!("sqlite://{}", d.join("gc.db").display());
    let import = run_watched(d, &["import", "--database", &db, "bundle.json"], &[]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    let args = ["reverify", "--database", &db, "--batch-rows", "1", "--raw-outputs", typo];
    let human = run_watched(d, &args, &[]);
    assert!(
        human.stdout.contains("0 found, 3 missing (first tried: session/s1/tools/1.json)"),
        "{}",
        human.stdout
    );
    let json = run_watched(d, &[&args[..], &["--format", "json"]].concat(), &[]);
    let summary: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        summary["summary"]["raw_output_files"],
        json!({"found": 0, "missing": {"count": 3, "first": "session/s1/tools/1.json"},
               "unreadable": {"count": 0}, "unsafe": {"count": 0}})
    );
}
