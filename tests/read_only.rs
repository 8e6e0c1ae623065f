//! SQLite databases that this user may read but not write: reading never
//! needs write access, nothing is created or migrated for a reader, and a write that the
//! file system forbids says so.
//!
//! The tests run as root in CI, and file modes do not stop root. So the commands that must
//! not write run as an unprivileged user: as root through `setpriv` (util-linux) as
//! `nobody`, otherwise as the current user, whom the modes do stop. The binary is copied
//! into the test's folder, so that user can run it wherever the checkout lives.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::engines::integers;
use crate::harness::{repo, run, temp_dir, Outcome};

const RUN: &str = "run-20261130-order-5xx";
const FIXTURE: &str = "fixtures/01_order_svc_5xx_spike.json";

/// A folder holding a database and a copy of the binary, with modes set for a reader.
struct Place {
    _dir: tempfile::TempDir,
    /// Readable and writable by everybody: where exports, the binary and a copy of the
    /// fixture go.
    open: PathBuf,
    /// Where the database lives; made read-only by [`Place::lock`].
    db_dir: PathBuf,
    binary: PathBuf,
}

impl Place {
    fn new() -> Place {
        let dir = temp_dir();
        let open = dir.path().join("open");
        let db_dir = dir.path().join("db");
        for d in [&open, &db_dir] {
            std::fs::create_dir(d).unwrap();
        }
        let binary = open.join("groundcheck");
        std::fs::copy(env!("CARGO_BIN_EXE_groundcheck"), &binary).unwrap();
        std::fs::copy(repo(FIXTURE), open.join("fixture.json")).unwrap();
        chmod(dir.path(), 0o755);
        chmod(&open, 0o777);
        Place { _dir: dir, open, db_dir, binary }
    }

    fn url(&self, name: &str, query: &str) -> String {
        format!("sqlite://{}{query}", self.db_dir.join(name).display())
    }

    /// The database folder and everything in it become read-only.
    fn lock(&self) {
        for entry in std::fs::read_dir(&self.db_dir).unwrap() {
            chmod(&entry.unwrap().path(), 0o444);
        }
        chmod(&self.db_dir, 0o555);
    }

    /// The file names in the database folder.
    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.db_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// `groundcheck ARGS...` as a user who cannot write the locked folder.
    fn reader(&self, args: &[&str]) -> Outcome {
        let mut cmd = if is_root() {
            let mut cmd = Command::new("setpriv");
            cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&self.binary);
            cmd
        } else {
            Command::new(&self.binary)
        };
        cmd.args(args).current_dir(&self.open).env_remove("DATABASE_URL");
        let out = cmd.stdin(Stdio::null()).output().expect("setpriv (util-linux) runs the binary");
        Outcome {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }

    /// Fixture 01 imported with full rights, the folder then locked.
    fn imported() -> (Place, String) {
        let place = Place::new();
        let url = place.url("g.db", "");
        let out = run(["import", "--database", &url, repo(FIXTURE).to_str().unwrap()]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        place.lock();
        (place, url)
    }
}

impl Drop for Place {
    /// Writable again, so that a user who is not root can remove the folder.
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(&self.db_dir, std::fs::Permissions::from_mode(0o755));
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Exit 2, nothing on stdout, one stderr line, which is returned.
fn failure_line(what: &str, out: &Outcome) -> String {
    assert_eq!(out.code, 2, "{what}: exit 2 expected: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{what}: nothing on stdout: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{what}: one line: {}", out.stderr);
    out.stderr.trim_end().to_string()
}

/// `run`, `reverify` and `export` without `--write`, by a user who may not write the file or
/// its folder, print what the full-rights user gets, with the plain URL, `?mode=ro` and
/// `?immutable=1`; the folder is left exactly as it was (no journal, no `-shm`). Before the
/// fix each failed with "attempt to write a readonly database" (code 1544).
#[test]
fn a_reader_needs_no_write_access_to_the_file_or_its_folder() {
    let (place, _) = Place::imported();
    // The full-rights report, from a copy: even a reader with full rights leaves the
    // journal files behind.
    let copy = place.open.join("copy.db");
    std::fs::copy(place.db_dir.join("g.db"), &copy).unwrap();
    let expected =
        run(["run", "--database", &format!("sqlite://{}", copy.display()), "--format", "json", RUN]);
    assert_eq!(expected.code, 0, "{}", expected.stderr);
    let before = place.files();
    assert_eq!(before, ["g.db"], "a cleanly closed database is one file");
    for query in ["", "?mode=ro", "?immutable=1"] {
        let url = place.url("g.db", query);
        let what = format!("reader, {url}");
        let out = place.reader(&["run", "--database", &url, "--format", "json", RUN]);
        assert_eq!(out.code, 0, "{what}: run: {}", out.stderr);
        assert_eq!(out.stdout, expected.stdout, "{what}: run prints the full-rights report");
        assert!(out.stderr.is_empty(), "{what}: {}", out.stderr);

        let out = place.reader(&["reverify", "--database", &url, "--format", "json"]);
        assert_eq!(out.code, 0, "{what}: reverify: {}", out.stderr);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["summary"]["invocations"], 5, "{what}");
        assert_eq!(report["written"], false, "{what}");

        let out_dir = place.open.join(format!("export{}", query.len()));
        let out = place.reader(&["export", "--database", &url, "--out", out_dir.to_str().unwrap(), RUN]);
        assert_eq!(out.code, 0, "{what}: export: {}", out.stderr);
        assert!(out_dir.join(format!("{RUN}.json")).is_file(), "{what}: the bundle is written");
        assert_eq!(place.files(), before, "{what}: nothing was created beside the database");
    }
}

/// A database with changes still in its write-ahead log (a writer has it open, the log and
/// its shared-memory file exist) is read through the log by a user who may not write any
/// of them: the reader sees the newest rows, never the stale file read on its own (which
/// `immutable` would do, so it is used only when no log is pending).
#[test]
fn a_reader_sees_what_is_still_in_the_write_ahead_log() {
    let (place, url) = Place::imported();
    chmod(&place.db_dir, 0o755);
    for entry in std::fs::read_dir(&place.db_dir).unwrap() {
        chmod(&entry.unwrap().path(), 0o644);
    }
    crate::engines::block_on(async {
        use sqlx::Connection;
        let mut writer = sqlx::SqliteConnection::connect(&url).await.unwrap();
        sqlx::query("PRAGMA wal_autocheckpoint = 0").execute(&mut writer).await.unwrap();
        sqlx::query("UPDATE tool_invocation SET tool_name = 'renamed_tool' WHERE run_id = ?")
            .bind(RUN)
            .execute(&mut writer)
            .await
            .unwrap();
        assert!(place.files().contains(&"g.db-wal".to_string()), "the change is in the log");
        place.lock();
        let out = place.reader(&["run", "--database", &url, "--format", "json", RUN]);
        assert_eq!(out.code, 0, "reader with a pending log: {}", out.stderr);
        assert!(out.stdout.contains("renamed_tool"), "the log's rows are read: {}", out.stdout);

        // As a crash leaves it: the log without its shared-memory file, which SQLite would
        // have to create. Reading the file alone would miss the renamed tool: refused.
        let crashed = place.open.join("crashed");
        std::fs::create_dir(&crashed).unwrap();
        for name in ["g.db", "g.db-wal"] {
            std::fs::copy(place.db_dir.join(name), crashed.join(name)).unwrap();
            chmod(&crashed.join(name), 0o444);
        }
        chmod(&crashed, 0o555);
        let crashed_url = format!("sqlite://{}", crashed.join("g.db").display());
        let out = place.reader(&["run", "--database", &crashed_url, "--format", "json", RUN]);
        let line = failure_line("reader of a crashed database", &out);
        assert!(line.starts_with(&format!("{crashed_url}: cannot open: ")), "{line}");
        let pending = format!("changes are pending in {}", crashed.join("g.db-wal").display());
        assert!(line.contains(&pending), "{line}");
        chmod(&crashed, 0o755);
        chmod(&place.db_dir, 0o755);
        writer.close().await.unwrap();
    });
}

/// Writing where the file system forbids it fails with one line that says why — the file is
/// read-only here — and never the privilege advice meant for servers ("needs INSERT and
/// UPDATE"), which the old message gave for `?mode=ro`.
#[test]
fn a_write_the_file_system_forbids_says_so() {
    let (place, url) = Place::imported();
    let fixture = place.open.join("fixture.json");
    for (what, out) in [
        ("run --write", place.reader(&["run", "--database", &url, "--write", RUN])),
        ("reverify --write", place.reader(&["reverify", "--database", &url, "--write"])),
        ("import", place.reader(&["import", "--database", &url, fixture.to_str().unwrap()])),
        ("migrate", place.reader(&["migrate", "--database", &url])),
    ] {
        let line = failure_line(what, &out);
        assert!(line.starts_with(&format!("{url}: ")), "{what}: names the database: {line}");
        assert!(line.contains("may not write the file's folder"), "{what}: says why: {line}");
        assert!(!line.contains("INSERT"), "{what}: no privilege advice for a file: {line}");
    }
    assert_eq!(place.files(), ["g.db"], "nothing was written");

    // Opened read-only on purpose, by a user who could write.
    chmod(&place.db_dir, 0o755);
    chmod(&place.db_dir.join("g.db"), 0o644);
    for query in ["?mode=ro", "?immutable=1"] {
        let ro = place.url("g.db", query);
        for args in
            [&["run", "--database", &ro, "--write", RUN][..], &["reverify", "--database", &ro, "--write"]]
        {
            let what = format!("{} {query}", args[0]);
            let line = failure_line(&what, &run(args));
            assert!(line.starts_with(&format!("{ro}: writing verdicts: ")), "{what}: {line}");
            assert!(
                line.contains("the database is read-only here (mode=ro or immutable=1"),
                "{what}: {line}"
            );
            assert!(!line.contains("INSERT"), "{what}: no privilege advice for a file: {line}");
        }
    }
    assert_eq!(integers(&url, "SELECT COUNT(*) FROM evidence_verification"), [0], "nothing was stored");
}

/// A reader pointed at a file that does not exist gets one line saying so and what to do; no
/// file is created. Every command that writes creates and migrates it on first use.
#[test]
fn a_missing_file_is_an_error_for_readers_and_created_for_writers() {
    let place = Place::new();
    let url = place.url("missing.db", "");
    let out_dir = place.open.join("out");
    for args in [
        &["run", "--database", &url, RUN][..],
        &["reverify", "--database", &url],
        &["export", "--database", &url, "--out", out_dir.to_str().unwrap(), RUN],
    ] {
        let line = failure_line(args[0], &run(args));
        let path = place.db_dir.join("missing.db");
        assert_eq!(
            line,
            format!(
                "{url}: cannot open: no such database file ({}); import bundles first or check the path",
                path.display()
            ),
            "{}",
            args[0]
        );
        assert!(place.files().is_empty(), "{}: no file was created", args[0]);
    }

    let fixture = repo(FIXTURE);
    for (name, args) in [
        ("import.db", vec!["import", fixture.to_str().unwrap()]),
        ("migrate.db", vec!["migrate"]),
        ("run.db", vec!["run", "--write", RUN]),
        ("reverify.db", vec!["reverify", "--write"]),
    ] {
        let url = place.url(name, "");
        let mut all = vec![args[0], "--database", &url];
        all.extend(&args[1..]);
        let out = run(&all);
        if args[0] == "run" {
            let line = failure_line("run --write", &out);
            assert!(line.ends_with(&format!("run {RUN}: no invocations found")), "{line}");
        } else {
            assert_eq!(out.code, 0, "{}: {}", args[0], out.stderr);
        }
        for count in [
            "SELECT COUNT(*) FROM tool_invocation",
            "SELECT COUNT(*) FROM evidence_verification",
            "SELECT COUNT(*) FROM reverify_checkpoint",
        ] {
            assert_eq!(integers(&url, count).len(), 1, "{}: migrated: {count}", args[0]);
        }
    }
}

/// A file the user may not read at all is named as such, not blamed on its folder.
#[test]
fn a_file_the_user_may_not_read_says_so() {
    let (place, url) = Place::imported();
    chmod(&place.db_dir.join("g.db"), 0o000);
    let line = failure_line("unreadable file", &place.reader(&["run", "--database", &url, RUN]));
    let file = place.db_dir.join("g.db");
    assert_eq!(
        line,
        format!("{url}: cannot open: this user may not read the database file ({})", file.display())
    );
}
