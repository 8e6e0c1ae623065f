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

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engines::{self, integers};
use crate::harness::{run_in, run_shell, temp_dir, write, Outcome};

/// A proxy between a job and its server that freezes every connection it carries once the
/// job has sent `COMMIT` a given number of times.
struct Proxy {
    port: u16,
    /// Freeze after this many `COMMIT`s (0: never).
    armed: Arc<AtomicUsize>,
    commits: Arc<AtomicUsize>,
    /// One flag per connection carried so far: set, it forwards nothing more from the client.
    connections: Arc<Mutex<Vec<Arc<AtomicBool>>>>,
}

impl Proxy {
    fn to(server: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
        let port = listener.local_addr().unwrap().port();
        let proxy =
            Proxy { port, armed: Arc::default(), commits: Arc::default(), connections: Arc::default() };
        let (armed, commits, connections) =
            (Arc::clone(&proxy.armed), Arc::clone(&proxy.commits), Arc::clone(&proxy.connections));
        let server = server.to_string();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(upstream) = TcpStream::connect(&server) else { continue };
                let frozen = Arc::new(AtomicBool::new(false));
                connections.lock().unwrap().push(Arc::clone(&frozen));
                let (armed, commits, connections) =
                    (Arc::clone(&armed), Arc::clone(&commits), Arc::clone(&connections));
                let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let watch = Some((armed, commits, connections));
                std::thread::spawn(move || pump(client, upstream, frozen, watch));
                std::thread::spawn(move || pump(u2, c2, Arc::new(AtomicBool::new(false)), None));
            }
        });
        proxy
    }

    /// Freezes every connection after the `n`th `COMMIT` from now has gone through.
    fn freeze_after_commits(&self, n: usize) {
        self.armed.store(self.commits.load(SeqCst) + n, SeqCst);
    }

    /// New connections are carried faithfully again (the frozen ones stay frozen).
    fn thaw(&self) {
        self.armed.store(0, SeqCst);
    }
}

type Watch = (Arc<AtomicUsize>, Arc<AtomicUsize>, Arc<Mutex<Vec<Arc<AtomicBool>>>>);

/// Copies `from` to `to` until either closes or `frozen` is set; with `watch` (the client's
/// side), counts `COMMIT`s and freezes every connection at the armed count.
fn pump(mut from: TcpStream, mut to: TcpStream, frozen: Arc<AtomicBool>, watch: Option<Watch>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut tail: Vec<u8> = Vec::new();
    from.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    loop {
        if frozen.load(SeqCst) {
            // Frozen: nothing is read or forwarded again; the connection stays open.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                continue
            }
            Err(_) => break,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        if let Some((armed, commits, connections)) = &watch {
            tail.extend_from_slice(&buf[..n]);
            let found = tail.windows(6).filter(|w| w == b"COMMIT").count();
            tail.drain(..tail.len().saturating_sub(5));
            if found > 0 {
                let count = commits.fetch_add(found, SeqCst) + found;
                let at = armed.load(SeqCst);
                if at > 0 && count >= at {
                    connections.lock().unwrap().iter().for_each(|c| c.store(true, SeqCst));
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// `host:port` and the URL with the proxy's port in their place.
fn through(url: &str, port: u16) -> (String, String) {
    let parsed = url::Url::parse(url).unwrap();
    let server = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap());
    let mut proxied = parsed.clone();
    proxied.set_port(Some(port)).unwrap();
    (server, proxied.to_string())
}

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
        let (server, _) = through(url, 1);
        let proxy = Proxy::to(&server);
        let (_, proxied) = through(url, proxy.port);
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
