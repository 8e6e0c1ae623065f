//! Faults say what happened: a write that fails midway through `import` names
//! the files already committed and the one that failed; a SQLite database locked by another
//! writer is reported within a second, with how long the command will wait.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::Connection;

use crate::harness::{run_in, temp_dir, write};

/// A small bundle file of one run, ids from `first`.
fn bundle(dir: &Path, name: &str, first: i64, raw_bytes: usize) {
    let raw = format!("{{\"a\":\"{}\"}}", "x".repeat(raw_bytes));
    let invocations: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"id": {}, "tool_name": "t", "created_at": "2026-01-01T00:00:00Z", "raw_output_text": {}}}"#,
                first + i,
                serde_json::to_string(&raw).unwrap()
            )
        })
        .collect();
    let text = format!(
        r#"{{"run_id": "run-{name}", "session_id": "s", "invocations": [{}]}}"#,
        invocations.join(", ")
    );
    write(dir, name, text);
}

/// Regression: when the disk filled during `import`, the line said only that a write
/// failed, not which files were already in the database. The disk is a file-size limit here
/// (`ulimit -f`, with SIGXFSZ ignored so the write fails instead of killing the process):
/// it needs no privilege, so it runs the same as root, as a user and in any container.
#[test]
fn a_full_disk_during_import_names_the_files_committed_and_the_one_that_failed() {
    let dir = temp_dir();
    bundle(dir.path(), "a.json", 1, 100);
    bundle(dir.path(), "b.json", 11, 100);
    bundle(dir.path(), "c.json", 21, 1 << 20); // three outputs of 1 MiB: past the limit
    bundle(dir.path(), "d.json", 31, 100);
    let url = format!("sqlite://{}", dir.path().join("g.db").display());
    // 1024 blocks of 512 bytes: 512 KiB per file.
    let out = Command::new("sh")
        .args(["-c", "ulimit -f 1024 && trap '' XFSZ && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["import", "--database", &url, "a.json", "b.json", "c.json", "d.json"])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("{url}: importing invocations: ")), "{stderr}");
    assert!(
        stderr.trim_end().ends_with(
            "; c.json was not imported (none of its rows were written); committed before it: a.json, b.json; \
             importing the same PATHs again skips their rows"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("(SQLite code 778): writing the file failed (a full disk, a file-size limit")
            || stderr.contains("(SQLite code 13): the disk is full"),
        "says why: {stderr}"
    );

    // As the line says: with room again, the same import finishes the job.
    let again =
        run_in(dir.path(), ["import", "--database", &url, "a.json", "b.json", "c.json", "d.json"], &[], None);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stdout,
        "a.json: 0 imported, 3 already present\nb.json: 0 imported, 3 already present\n\
         c.json: 3 imported, 0 already present\nd.json: 3 imported, 0 already present\n"
    );
}

/// The same on a real file system that fills up: a 16 MiB tmpfs, mounted in a mount namespace
/// of the shell's own (`unshare`: nothing outside it sees the mount, and it goes away with the
/// shell, whatever happens to the test). A filler file leaves too little room for c.json;
/// removing it is freeing space. Needs root (or unprivileged user namespaces): CI runs as root.
#[test]
fn a_disk_that_fills_during_import_is_named_with_the_files_committed() {
    let dir = temp_dir();
    bundle(dir.path(), "a.json", 1, 100);
    bundle(dir.path(), "b.json", 11, 100);
    bundle(dir.path(), "c.json", 21, 1 << 20);
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let gc = env!("CARGO_BIN_EXE_groundcheck");
    let script = r#"mount -t tmpfs -o size=16m tmpfs disk || exit 99
head -c 15500000 /dev/zero > disk/filler
"$0" import --database sqlite://disk/g.db a.json b.json c.json > full.out 2> full.err
echo $? > full.code
rm disk/filler
exec "$0" import --database sqlite://disk/g.db a.json b.json c.json"#;
    let unshare = |args: &[&str]| {
        Command::new("unshare")
            .args(args)
            .args(["sh", "-c", script, gc])
            .current_dir(dir.path())
            .env_remove("DATABASE_URL")
            .output()
    };
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let out = unshare(if is_root { &["--mount"] } else { &["--map-root-user", "--mount"] });
    let Ok(out) = out.as_ref().map_err(|e| e.to_string()).and_then(|o| match o.status.code() {
        Some(99) | None => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
        _ => Ok(o),
    }) else {
        let why = out.map_or_else(|e| e.to_string(), |o| String::from_utf8_lossy(&o.stderr).into_owned());
        assert!(!crate::harness::under_ci(), "cannot mount a tmpfs under CI: {why}");
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("skipping: no tmpfs ({why})\n").as_bytes(),
        );
        return;
    };
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let stderr = read("full.err");
    assert_eq!(read("full.code").trim(), "2", "{stderr}");
    assert!(read("full.out").is_empty());
    assert!(
        stderr.trim_end().ends_with(
            "(SQLite code 13): the disk is full; free some space; c.json was not imported (none of its rows were \
             written); committed before it: a.json, b.json; importing the same PATHs again skips their rows"
        ),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "again: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a.json: 0 imported, 3 already present\nb.json: 0 imported, 3 already present\n\
         c.json: 3 imported, 0 already present\n"
    );
}

/// Regression: a SQLite database whose write lock another connection held made a
/// writing command wait in silence (up to its busy timeout) before it failed or went on.
/// The notice comes 0.3 s into the wait; the bound checked is half the 30 s wait, start-up
/// included, which a loaded machine keeps to and a silent wait (the regression) does not.
#[test]
fn a_locked_sqlite_database_says_at_once_that_it_waits_and_how_long() {
    let dir = temp_dir();
    bundle(dir.path(), "a.json", 1, 10);
    bundle(dir.path(), "b.json", 11, 10);
    let url = format!("sqlite://{}", dir.path().join("g.db").display());
    let first = run_in(dir.path(), ["import", "--database", &url, "a.json"], &[], None);
    assert_eq!(first.code, 0, "{}", first.stderr);

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut holder = runtime.block_on(sqlx::SqliteConnection::connect(&url)).unwrap();
    runtime.block_on(sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut holder)).unwrap();

    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
        .args(["import", "--database", &url, "b.json"])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let _ = tx.send((line.unwrap(), started.elapsed()));
        }
    });
    let (line, after) = rx.recv_timeout(Duration::from_secs(20)).expect("a line while the lock is held");
    assert_eq!(
        line,
        format!(
            "{url}: waiting for a lock: another connection is writing to this database; waiting up to 30 s \
             for it to finish"
        )
    );
    assert!(after < Duration::from_secs(15), "told after {after:?}, not while waiting");
    assert!(child.try_wait().unwrap().is_none(), "it waits while the lock is held");

    runtime.block_on(sqlx::raw_sql("COMMIT").execute(&mut holder)).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "b.json: 3 imported, 0 already present\n");
    assert!(rx.try_recv().is_err(), "one notice only");
}
