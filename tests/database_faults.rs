//! Database faults and least privilege, on real servers: a write transaction that
//! fails mid-`reverify`, a database that refuses writes, connections killed under a running
//! job, and a SELECT-only user doing everything that only reads.
//!
//! Every test holds the per-engine locks of `engines::all()`, so the triggers, read-only
//! settings and killed connections here are never seen by another test. Every captured
//! stdout and stderr is checked for the test servers' passwords.

use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::{AssertSqlSafe, Connection};

use crate::engines::{self, block_on, database_name, integers, Engine};
use crate::harness::{self, run, temp_dir, Outcome};

/// The passwords of `scripts/test-databases.sh`: no output of groundcheck may contain them.
const PASSWORDS: [&str; 2] = ["groundcheck-test-pw", "groundcheck-ro-pw"];

/// What every failure line must say somewhere when a database refused a write: the driver's
/// own words for "you may not write here", on each engine.
const REFUSED: [&str; 3] = ["denied", "read-only", "readonly"];

/// Asserts that nothing groundcheck printed contains a password.
fn assert_no_secret(what: &str, out: &Outcome) {
    for password in PASSWORDS {
        assert!(
            !out.stdout.contains(password) && !out.stderr.contains(password),
            "{what}: a password reached the output:\nstdout: {}\nstderr: {}",
            out.stdout,
            out.stderr
        );
    }
}

/// `groundcheck COMMAND --database URL ARGS...`, checked for leaked passwords.
fn gc(url: &str, args: &[&str]) -> Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    let out = run(&all);
    assert_no_secret(&format!("groundcheck {}", args.join(" ")), &out);
    out
}

/// Asserts a command failed as docs/verification.md#exit-codes says (exit 2, nothing on
/// stdout, one stderr line) and returns that line.
fn failure_line<'a>(what: &str, out: &'a Outcome) -> &'a str {
    assert_eq!(out.code, 2, "{what}: exit 2 expected; stderr: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{what}: no report from a failed command: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{what}: exactly one stderr line: {}", out.stderr);
    out.stderr.trim_end()
}

fn json(what: &str, out: &Outcome) -> Value {
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", out.stdout))
}

/// Imports a seeded corpus of `n` invocations (runs of 10–40) with full rights.
fn import_corpus(url: &str, seed: u64, n: u64) -> i64 {
    let migrated = gc(url, &["migrate"]);
    assert_eq!(migrated.code, 0, "{}", migrated.stderr);
    harness::import_corpus(url, seed, n, 1);
    n as i64
}

/// Imports the shipped fixtures (155 invocations) with full rights.
fn import_fixtures(url: &str) {
    let migrated = gc(url, &["migrate"]);
    assert_eq!(migrated.code, 0, "{}", migrated.stderr);
    let out = gc(url, &["import", "fixtures"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// One plain-text statement after another on a fresh connection (trigger and function
/// bodies cannot go through the prepared-statement protocol).
fn exec(url: &str, statements: &[String]) {
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn = sqlx::PgConnection::connect(url).await.expect("postgres reachable");
            for s in statements {
                sqlx::raw_sql(AssertSqlSafe(s.clone()))
                    .execute(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{s}: {e}"));
            }
            conn.close().await.ok();
        } else if url.starts_with("mysql") {
            let mut conn = sqlx::MySqlConnection::connect(url).await.expect("mariadb reachable");
            for s in statements {
                sqlx::raw_sql(AssertSqlSafe(s.clone()))
                    .execute(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{s}: {e}"));
            }
            conn.close().await.ok();
        } else {
            let mut conn = sqlx::SqliteConnection::connect(url).await.expect("sqlite opens");
            for s in statements {
                sqlx::raw_sql(AssertSqlSafe(s.clone()))
                    .execute(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{s}: {e}"));
            }
            conn.close().await.ok();
        }
    })
}

/// The rows of a two-column query: an integer and a nullable text.
fn int_text(url: &str, sql: &'static str) -> Vec<(i64, Option<String>)> {
    use sqlx::Row;
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            conn.close().await.ok();
            rows.iter().map(|r| (r.get(0), r.get(1))).collect()
        } else if url.starts_with("mysql") {
            let mut conn = sqlx::MySqlConnection::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            conn.close().await.ok();
            rows.iter().map(|r| (r.get(0), r.get(1))).collect()
        } else {
            let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            conn.close().await.ok();
            rows.iter().map(|r| (r.get(0), r.get(1))).collect()
        }
    })
}

/// Every run with its invocation ids, in the order `reverify` walks them (byte order of
/// `run_id`; the corpus has no rows without one).
fn runs_in_order(url: &str) -> Vec<(String, Vec<i64>)> {
    let mut runs: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (id, run_id) in int_text(url, "SELECT id, run_id FROM tool_invocation") {
        runs.entry(run_id.expect("corpus rows have a run_id")).or_default().push(id);
    }
    runs.into_iter()
        .map(|(run, mut ids)| {
            ids.sort_unstable();
            (run, ids)
        })
        .collect()
}

/// Stored verdicts: how many, and how many distinct invocations they cover.
fn stored(url: &str) -> (i64, i64) {
    let all = integers(url, "SELECT COUNT(*) FROM evidence_verification")[0];
    let distinct = integers(url, "SELECT COUNT(DISTINCT invocation_id) FROM evidence_verification")[0];
    (all, distinct)
}

fn stored_ids(url: &str) -> Vec<i64> {
    integers(url, "SELECT invocation_id FROM evidence_verification ORDER BY invocation_id")
}

/// The only job's checkpoint: `(rows_done, last_key, done)`.
fn checkpoint(url: &str) -> Option<(i64, String, bool)> {
    let rows = int_text(url, "SELECT rows_done, last_key FROM reverify_checkpoint");
    assert!(rows.len() <= 1, "one job, one checkpoint: {rows:?}");
    let done = integers(url, "SELECT COUNT(*) FROM reverify_checkpoint WHERE done")[0] == 1;
    rows.into_iter().next().map(|(rows_done, key)| (rows_done, key.unwrap_or_default(), done))
}

/// The URL of the SELECT-only user onto the engine's test database (`groundcheck_ro`, see
/// scripts/test-databases.sh); `None` for SQLite, or when not configured outside CI.
fn read_only_user_url(engine: &Engine) -> Option<String> {
    if engine.name == "sqlite" || engine.read_only_url.is_some() {
        return engine.read_only_url.clone();
    }
    if crate::harness::under_ci() {
        panic!(
            "no read-only URL for {}: under CI the least-privilege tests must run (see scripts/README.md)",
            engine.name
        )
    }
    let _ = writeln!(std::io::stderr(), "skipping {} read-only user: its URL is not set", engine.name);
    None
}

/// Asserts the database holds no verdict and no checkpoint.
fn assert_nothing_written(what: &str, url: &str) {
    assert_eq!(stored(url), (0, 0), "{what}: no verdict was written");
    assert_eq!(checkpoint(url), None, "{what}: no checkpoint was written");
}

// ------------------------------------------------------------------ a failed write mid-job

const TRIGGER: &str = "groundcheck_test_fail_one";

/// A trigger that makes inserting the verdict of invocation `id` fail, with the engine's own
/// error mechanism; the message contains `injected failure for invocation {id}`.
fn install_failing_trigger(url: &str, id: i64) {
    let statements = if url.starts_with("postgres") {
        vec![
            format!(
                "CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN IF NEW.invocation_id = {id} THEN \
                 RAISE EXCEPTION 'injected failure for invocation %', NEW.invocation_id; \
                 END IF; RETURN NEW; END $$"
            ),
            format!(
                "CREATE TRIGGER {TRIGGER} BEFORE INSERT ON evidence_verification \
                 FOR EACH ROW EXECUTE FUNCTION {TRIGGER}()"
            ),
        ]
    } else if url.starts_with("mysql") {
        vec![format!(
            "CREATE TRIGGER {TRIGGER} BEFORE INSERT ON evidence_verification FOR EACH ROW \
             BEGIN IF NEW.invocation_id = {id} THEN \
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure for invocation {id}'; \
             END IF; END"
        )]
    } else {
        vec![format!(
            "CREATE TRIGGER {TRIGGER} BEFORE INSERT ON evidence_verification \
             WHEN NEW.invocation_id = {id} \
             BEGIN SELECT RAISE(ABORT, 'injected failure for invocation {id}'); END"
        )]
    };
    exec(url, &statements);
}

fn drop_failing_trigger(url: &str) {
    let mut statements = vec![if url.starts_with("postgres") {
        format!("DROP TRIGGER IF EXISTS {TRIGGER} ON evidence_verification")
    } else {
        format!("DROP TRIGGER IF EXISTS {TRIGGER}")
    }];
    if url.starts_with("postgres") {
        statements.push(format!("DROP FUNCTION IF EXISTS {TRIGGER}()"));
    }
    exec(url, &statements);
}

/// The batches a job forms from `runs`: whole runs, a batch closed as soon as it holds at
/// least `batch_rows` rows (src/reverify/pipeline.rs).
fn batches(runs: &[(String, Vec<i64>)], batch_rows: usize) -> Vec<Vec<(String, Vec<i64>)>> {
    let mut all = Vec::new();
    let (mut batch, mut rows) = (Vec::new(), 0);
    for run in runs {
        rows += run.1.len();
        batch.push(run.clone());
        if rows >= batch_rows {
            all.push(std::mem::take(&mut batch));
            rows = 0;
        }
    }
    if !batch.is_empty() {
        all.push(batch);
    }
    all
}

/// docs/verification.md#exit-codes ("no partial writes"),
/// docs/reverify.md#re-verifying-history-reverify ("re-running or resuming never duplicates
/// or loses a row") and docs/rules.md ("a failed batch … stops the job with one line and
/// exit 2; the verdicts and checkpoint of committed batches stay, nothing of the failed one
/// is visible").
///
/// The failure is real: a trigger on `evidence_verification` raises an error (PostgreSQL
/// `RAISE EXCEPTION`, MariaDB `SIGNAL SQLSTATE '45000'`, SQLite `RAISE(ABORT)`) for one
/// invocation in the middle of the job, the last run of its batch, so that the batch's other
/// runs were already inserted in the failing transaction when it fails. The job must stop
/// with one line naming the database and the cause, exactly the batches before the failing
/// one stored (whole, with a checkpoint that agrees), and once the trigger is gone `--resume`
/// stores every invocation exactly once.
#[test]
fn a_write_that_fails_mid_job_keeps_whole_batches_and_resume_completes() {
    const BATCH: usize = 50;
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        let total = import_corpus(url, 31, 800);
        let runs = runs_in_order(url);
        let plan = batches(&runs, BATCH);
        assert!(plan.len() >= 8, "{name}: the job has enough batches ({})", plan.len());
        let failing = plan.len() / 2;
        assert!(plan[failing].len() >= 2, "{name}: the failing batch has runs before the failing one");
        let victim = plan[failing].last().unwrap().1[0];
        install_failing_trigger(url, victim);

        let out = gc(url, &["reverify", "--write", "--batch-rows", &BATCH.to_string(), "--format", "json"]);
        let line = failure_line(name, &out);
        assert!(line.starts_with(&groundcheck_store::redact(url)), "{name}: names the database: {line}");
        assert!(line.contains(&format!("writing verdicts: id {victim}")), "{name}: names the row: {line}");
        assert!(
            line.contains(&format!("injected failure for invocation {victim}")),
            "{name}: gives the database's reason: {line}"
        );

        let (rows_done, last, done) = checkpoint(url).expect("the batches before the failure committed");
        assert!(!done, "{name}: the job is not done");
        let committed: Vec<i64> = plan[..failing].iter().flatten().flat_map(|(_, ids)| ids.clone()).collect();
        assert_eq!(rows_done, committed.len() as i64, "{name}: the checkpoint counts the committed batches");
        assert_eq!(
            last,
            plan[failing - 1].last().unwrap().0,
            "{name}: the checkpoint is the last whole batch"
        );
        assert_eq!(stored(url).0, rows_done, "{name}: stored verdicts = checkpoint rows_done");
        let mut committed = committed;
        committed.sort_unstable();
        assert_eq!(stored_ids(url), committed, "{name}: exactly the whole batches before the failure");

        drop_failing_trigger(url);
        let resumed = gc(
            url,
            &["reverify", "--write", "--resume", "--batch-rows", &BATCH.to_string(), "--format", "json"],
        );
        let report = json(name, &resumed);
        assert_eq!(
            report["resumed"]["invocations"].as_i64(),
            Some(rows_done),
            "{name}: the resumed job verifies only what was left"
        );
        assert_eq!(
            report["summary"]["invocations"].as_i64(),
            Some(total),
            "{name}: and reports the whole job"
        );
        assert_eq!(stored(url), (total, total), "{name}: every invocation stored exactly once");
        assert_eq!(checkpoint(url).map(|(r, _, d)| (r, d)), Some((total, true)), "{name}: the job is done");
        let check = json(name, &gc(url, &["reverify", "--format", "json"]));
        assert!(
            check["changes"].as_array().unwrap().is_empty(),
            "{name}: stored verdicts are the fresh ones: {}",
            check["changes"]
        );
    }
}

// ------------------------------------------------------------- databases that refuse writes

/// While alive, new PostgreSQL sessions on the database start read-only
/// (`default_transaction_read_only`), as on a hot-standby replica.
struct ReadOnlyDatabase<'a> {
    url: &'a str,
}

impl<'a> ReadOnlyDatabase<'a> {
    fn on(url: &'a str) -> ReadOnlyDatabase<'a> {
        let db = database_name(url);
        exec(url, &[format!("ALTER DATABASE {db} SET default_transaction_read_only = on")]);
        ReadOnlyDatabase { url }
    }
}

impl Drop for ReadOnlyDatabase<'_> {
    fn drop(&mut self) {
        // This session starts read-only too: make it writable first, then reset the database.
        let db = database_name(self.url);
        exec(
            self.url,
            &[
                "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE".to_string(),
                format!("ALTER DATABASE {db} RESET default_transaction_read_only"),
            ],
        );
    }
}

/// Checks `reverify --write` (fresh and `--resume`) against `url`, which reads but refuses
/// writes: exit 2, one line naming the database and saying why, nothing written (checked
/// through `check_url`, which has full rights); reading still works.
fn assert_write_refused(what: &str, url: &str, check_url: &str) {
    for args in [
        &["reverify", "--write", "--batch-rows", "7", "--format", "json"][..],
        &["reverify", "--write", "--resume", "--batch-rows", "7"][..],
    ] {
        let out = gc(url, args);
        let line = failure_line(what, &out);
        assert!(line.starts_with(&groundcheck_store::redact(url)), "{what}: names the database: {line}");
        assert!(line.contains("writing verdicts"), "{what}: says what failed: {line}");
        assert!(REFUSED.iter().any(|r| line.contains(r)), "{what}: says the write was refused: {line}");
        assert_nothing_written(what, check_url);
    }
    let rows = integers(check_url, "SELECT COUNT(*) FROM tool_invocation")[0];
    let report = json(what, &gc(url, &["reverify", "--format", "json"]));
    assert_eq!(report["summary"]["invocations"].as_i64(), Some(rows), "{what}: reading still works");
}

/// docs/verification.md#exit-codes: a command that cannot do its job exits 2 with one clear
/// line and no partial writes. A database that refuses writes — a SQLite file opened
/// `?mode=ro`, the SELECT-only user on MariaDB and PostgreSQL, a PostgreSQL database whose
/// sessions are read-only (a replica) — must make `reverify --write` fail on its first batch
/// with a line that says the write was refused (permission / read-only), and leave no
/// verdict and no checkpoint. (`chmod 0444` is no test here: CI runs as root, whom file
/// modes do not stop.)
#[test]
fn reverify_write_to_a_database_that_refuses_writes_fails_cleanly_and_writes_nothing() {
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        import_fixtures(url);
        match name {
            "sqlite" => assert_write_refused("sqlite ?mode=ro", &format!("{url}?mode=ro"), url),
            "postgres" => {
                let read_only = ReadOnlyDatabase::on(url);
                assert_write_refused("postgres, read-only database", url, url);
                drop(read_only);
            }
            _ => {}
        }
        if let Some(ro) = read_only_user_url(&engine) {
            assert_write_refused(&format!("{name} SELECT-only user"), &ro, url);
        }
        // The refused attempts left the database fully usable by a writer.
        let rows = integers(url, "SELECT COUNT(*) FROM tool_invocation")[0];
        let written = json(name, &gc(url, &["reverify", "--write", "--format", "json"]));
        assert_eq!(written["summary"]["invocations"].as_i64(), Some(rows), "{name}");
        assert_eq!(stored(url), (rows, rows), "{name}");
    }
}

// ------------------------------------------------------------------ least privilege (reads)

/// The runs and run-less sessions of the database, as `run`/`export` selectors.
fn selectors(url: &str) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let rows = int_text(
        url,
        "SELECT COUNT(*), run_id FROM tool_invocation WHERE run_id IS NOT NULL GROUP BY run_id",
    );
    let mut runs: Vec<String> = rows.into_iter().filter_map(|(_, r)| r).collect();
    runs.sort();
    args.extend(runs);
    let rows = int_text(
        url,
        "SELECT COUNT(*), session_id FROM tool_invocation WHERE run_id IS NULL GROUP BY session_id",
    );
    let mut sessions: Vec<String> = rows.into_iter().filter_map(|(_, s)| s).collect();
    sessions.sort();
    for s in sessions {
        args.extend(["--session".to_string(), s]);
    }
    args
}

/// The files of a folder, by name, with their bytes.
fn files(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Least privilege: a user with SELECT only (MariaDB `GRANT SELECT ON
/// db.*`, PostgreSQL `GRANT SELECT` on current and future tables; a SQLite file opened
/// `?mode=ro` alike) can do everything that only reads — `run`, `reverify` without
/// `--write`, `export` — with exactly the output the full-rights user gets, including
/// reading the verdicts stored in tables made by later migrations; groundcheck never needs
/// DDL or writes to read (docs/rules.md: servers are migrated only by `migrate`). `run
/// --write` with that user fails with one clear line, exit 2, and writes nothing.
#[test]
fn a_select_only_user_can_run_reverify_and_export_but_not_write() {
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        let ro = match name {
            "sqlite" => format!("{url}?mode=ro"),
            _ => match read_only_user_url(&engine) {
                Some(ro) => ro,
                None => continue,
            },
        };
        let what = format!("{name} read-only");
        import_fixtures(url);
        let picked = selectors(url);
        let picked: Vec<&str> = picked.iter().map(String::as_str).collect();

        let mut args = vec!["run", "--format", "json"];
        args.extend(&picked);
        let full = gc(url, &args);
        assert_eq!(full.code, 0, "{name}: {}", full.stderr);
        let read_only = gc(&ro, &args);
        assert_eq!(read_only.code, 0, "{what}: run: {}", read_only.stderr);
        assert_eq!(read_only.stdout, full.stdout, "{what}: run prints the full-rights report");

        let dir = temp_dir();
        let (full_dir, ro_dir) = (dir.path().join("full"), dir.path().join("ro"));
        let mut export = vec!["export", "--out", full_dir.to_str().unwrap()];
        export.extend(&picked);
        assert_eq!(gc(url, &export).code, 0, "{name}");
        export[2] = ro_dir.to_str().unwrap();
        let exported = gc(&ro, &export);
        assert_eq!(exported.code, 0, "{what}: export: {}", exported.stderr);
        assert_eq!(files(&ro_dir), files(&full_dir), "{what}: export writes the same bundles");

        let rows = integers(url, "SELECT COUNT(*) FROM tool_invocation")[0];
        let before = json(&what, &gc(&ro, &["reverify", "--format", "json"]));
        assert_eq!(before["summary"]["invocations"].as_i64(), Some(rows), "{what}");
        assert_eq!(before["changes"].as_array().unwrap().len() as i64, rows, "{what}: nothing stored yet");
        assert_nothing_written(&what, url);
        // Verdicts stored by the writer are read back by the read-only user.
        let written = json(name, &gc(url, &["reverify", "--write", "--format", "json"]));
        let after = json(&what, &gc(&ro, &["reverify", "--format", "json"]));
        assert_eq!(after["summary"], written["summary"], "{what}: the same verdicts");
        assert!(after["changes"].as_array().unwrap().is_empty(), "{what}: reads the stored verdicts");

        // Writing is refused, with one line, and leaves the stored verdicts as they were.
        let stored_before = stored(url);
        let mut args = vec!["run", "--write", "--require", "any", "--format", "json"];
        args.extend(&picked);
        let out = gc(&ro, &args);
        let line = failure_line(&what, &out);
        assert!(line.starts_with(&groundcheck_store::redact(&ro)), "{what}: names the database: {line}");
        assert!(REFUSED.iter().any(|r| line.contains(r)), "{what}: says the write was refused: {line}");
        let other_policy = integers(
            url,
            "SELECT COUNT(*) FROM evidence_verification WHERE policy = 'require=any;match=elided'",
        );
        assert_eq!(other_policy, [0], "{what}: nothing of the refused run --write was stored");
        assert_eq!(stored(url), stored_before, "{what}: the stored verdicts are untouched");
    }
}

// --------------------------------------------------------------- connections killed mid-job

/// The `application_name` the PostgreSQL job connects with, so that only its sessions are
/// terminated.
const JOB_APPLICATION: &str = "groundcheck-faults-job";

/// The local ports of the TCP connections process `pid` holds open (Linux: its socket
/// descriptors, looked up in its `/proc/PID/net/tcp*`).
fn local_ports(pid: u32) -> Vec<u16> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return Vec::new() };
    let inodes: Vec<String> = fds
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect();
    let mut ports = Vec::new();
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(inode)) = (fields.get(1), fields.get(9)) else { continue };
            if inodes.iter().any(|i| i == inode) {
                let port = local.rsplit_once(':').and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
                ports.extend(port);
            }
        }
    }
    ports
}

/// Kills the server connections of the job (the client process `job`) from a separate
/// connection: only those whose client port is one of the job's, never the killer's own or
/// another client's; returns how many were killed.
fn kill_job_connections(url: &str, job: u32) -> usize {
    let ports = local_ports(job);
    let ours = |port: Option<i64>| port.is_some_and(|p| ports.iter().any(|&q| i64::from(q) == p));
    block_on(async {
        let mut killed = 0;
        if url.starts_with("postgres") {
            let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
            let pids: Vec<(i32, Option<i32>)> = sqlx::query_as(
                "SELECT pid, client_port FROM pg_stat_activity \
                 WHERE application_name = $1 AND pid <> pg_backend_pid()",
            )
            .bind(JOB_APPLICATION)
            .fetch_all(&mut conn)
            .await
            .unwrap();
            for (pid, port) in pids {
                if !ours(port.map(i64::from)) {
                    continue;
                }
                let done: Option<bool> = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
                    .bind(pid)
                    .fetch_one(&mut conn)
                    .await
                    .unwrap();
                killed += usize::from(done == Some(true));
            }
            conn.close().await.ok();
        } else {
            let mut conn = sqlx::MySqlConnection::connect(url).await.unwrap();
            // HOST is `127.0.0.1:PORT` (or `localhost:PORT`): the client's address.
            let ids: Vec<(i64, String)> = sqlx::query_as(
                "SELECT ID, HOST FROM information_schema.PROCESSLIST \
                 WHERE USER = 'groundcheck' AND DB = DATABASE() AND ID <> CONNECTION_ID()",
            )
            .fetch_all(&mut conn)
            .await
            .unwrap();
            for (id, host) in ids {
                if !ours(host.rsplit_once(':').and_then(|(_, p)| p.parse().ok())) {
                    continue;
                }
                // A connection may end by itself meanwhile: "Unknown thread id" is fine.
                let kill =
                    sqlx::raw_sql(AssertSqlSafe(format!("KILL CONNECTION {id}"))).execute(&mut conn).await;
                killed += usize::from(kill.is_ok());
            }
            conn.close().await.ok();
        }
        killed
    })
}

/// docs/rules.md (storage), without stopping the server: while a `reverify --write` job runs,
/// a second connection kills the job's connections (PostgreSQL `pg_terminate_backend` on
/// the job's `application_name`; MariaDB `KILL CONNECTION` on the job user's other
/// connections), several times as it progresses. Whatever the pool makes of it — the job
/// stops with exit 2 and one line naming the database, or it reconnects and finishes — the
/// stored verdicts always equal the checkpoint's `rows_done`, and `--resume` ends with every
/// invocation stored exactly once.
#[test]
fn killed_connections_mid_job_leave_a_consistent_checkpoint_and_resume_finishes() {
    for engine in engines::all().iter().filter(|e| e.name != "sqlite") {
        let (name, url) = (engine.name, engine.url.as_str());
        let total = import_corpus(url, 37, 3_000);
        let job_url = if name == "postgres" {
            format!("{url}?application_name={JOB_APPLICATION}")
        } else {
            url.to_string()
        };
        // Output goes to files, not pipes: a finished job's report lists thousands of changes,
        // more than a pipe holds, and nothing reads a pipe until the job has exited.
        let (stdout, stderr) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
        let mut child = Command::new(env!("CARGO_BIN_EXE_groundcheck"))
            .args(["reverify", "--database", &job_url, "--write", "--batch-rows", "5", "--format", "json"])
            .stdout(stdout.try_clone().unwrap())
            .stderr(stderr.try_clone().unwrap())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(180);
        let (mut kills, mut next) = (0, 40);
        while child.try_wait().unwrap().is_none() {
            let progress = checkpoint(url).map_or(0, |(rows, _, _)| rows);
            if kills < 5 && progress >= next {
                if kill_job_connections(url, child.id()) > 0 {
                    kills += 1;
                }
                next = progress + 150;
            }
            if Instant::now() > deadline {
                child.kill().ok();
                panic!(
                    "{name}: the job neither ended nor progressed in 180 s after its connections were killed"
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let status = child.wait().unwrap();
        let read = |mut file: std::fs::File| {
            let mut text = String::new();
            file.seek(std::io::SeekFrom::Start(0)).unwrap();
            file.read_to_string(&mut text).unwrap();
            text
        };
        let out = Outcome { code: status.code().unwrap_or(-1), stdout: read(stdout), stderr: read(stderr) };
        assert_no_secret(name, &out);
        assert!(kills > 0, "{name}: the job ended before any of its own connections was killed");
        let (rows_done, _, done) = checkpoint(url).unwrap_or((0, String::new(), false));
        if out.code == 0 {
            let report = json(name, &out);
            assert_eq!(report["summary"]["invocations"].as_i64(), Some(total), "{name}");
            assert!(done && rows_done == total, "{name}: a finished job's checkpoint is done");
        } else {
            let line = failure_line(name, &out);
            assert!(
                line.starts_with(&groundcheck_store::redact(&job_url)),
                "{name}: names the database: {line}"
            );
            assert!(!done, "{name}");
        }
        assert_eq!(stored(url).0, rows_done, "{name}: stored verdicts = checkpoint rows_done");

        let resumed = gc(url, &["reverify", "--write", "--resume", "--batch-rows", "50", "--format", "json"]);
        let report = json(name, &resumed);
        assert_eq!(report["summary"]["invocations"].as_i64(), Some(total), "{name}: the whole job");
        assert_eq!(report["resumed"]["invocations"].as_i64().unwrap_or(0), rows_done, "{name}");
        assert_eq!(stored(url), (total, total), "{name}: nothing lost, nothing duplicated");
        assert_eq!(checkpoint(url).map(|(r, _, d)| (r, d)), Some((total, true)), "{name}");
        let check = json(name, &gc(url, &["reverify", "--format", "json"]));
        assert!(
            check["changes"].as_array().unwrap().is_empty(),
            "{name}: stored verdicts are the fresh ones"
        );
    }
}
