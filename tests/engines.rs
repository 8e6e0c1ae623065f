//! The three database engines the storage tests run on, and what every such test needs:
//! the engine's URL, exclusive use of its test database, and a reset to an empty schema.
//!
//! SQLite always runs (a fresh file per test). MariaDB and PostgreSQL come from
//! `GROUNDCHECK_TEST_MYSQL_URL` / `GROUNDCHECK_TEST_POSTGRES_URL` (see scripts/README.md).
//! Without them a test says so and skips that engine; under CI (`CI` set, not `false` or
//! `0`) it fails instead.

use std::io::Write;
use std::sync::{Mutex, MutexGuard};

/// One engine under test.
pub struct Engine {
    pub name: &'static str,
    /// The URL with full rights.
    pub url: String,
    /// Holds the server database for this test (tests share one database per server).
    _lock: Option<MutexGuard<'static, ()>>,
    /// Keeps a SQLite file's folder alive.
    _dir: Option<tempfile::TempDir>,
}

static MYSQL: Mutex<()> = Mutex::new(());
static POSTGRES: Mutex<()> = Mutex::new(());

/// The server engines: name, the variable naming its URL, the lock on its test database.
static SERVERS: [(&str, &str, &Mutex<()>); 2] = [
    ("mariadb", "GROUNDCHECK_TEST_MYSQL_URL", &MYSQL),
    ("postgres", "GROUNDCHECK_TEST_POSTGRES_URL", &POSTGRES),
];

/// Every engine available here, each reset to an empty database. Call once per test.
pub fn all() -> Vec<Engine> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sqlite = format!("sqlite://{}", dir.path().join("groundcheck.db").display());
    let mut engines = vec![Engine { name: "sqlite", url: sqlite, _lock: None, _dir: Some(dir) }];
    for &(name, var, lock) in &SERVERS {
        if let Some(url) = configured(name, var) {
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            reset(&url);
            engines.push(Engine { name, url, _lock: Some(guard), _dir: None });
        }
    }
    engines
}

/// The URL of the `mariadb` or `postgres` server, without its lock and without a reset, for a
/// test that only connects and reads or writes nothing in the test database (a wrong port, a
/// wrong password): holding the lock through such a test's waits would stall every storage
/// test of the engine for nothing. None (with a line on stderr) when the server is not
/// configured; under CI a missing server fails the test instead.
pub fn server_url(name: &str) -> Option<String> {
    let &(name, var, _) = SERVERS.iter().find(|(n, ..)| *n == name).expect("mariadb or postgres");
    configured(name, var)
}

/// The URL in `var`, or None after saying the engine is skipped (a panic under CI).
fn configured(name: &str, var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if crate::harness::under_ci() => {
            panic!("{var} is not set: under CI the {name} storage tests must run (see scripts/README.md)")
        }
        _ => {
            // Straight to the handle: libtest captures eprintln! of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "skipping {name}: {var} is not set (eval \"$(scripts/test-databases.sh start)\")"
            );
            None
        }
    }
}

/// Runs an async block to completion (the tests themselves are synchronous).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime").block_on(future)
}

/// Drops every table groundcheck made, the migration histories (groundcheck's and sqlx's
/// default, which tests fill as an agent would) and the agent's table: the next command starts
/// empty.
fn reset(url: &str) {
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn =
                <sqlx::PgConnection as sqlx::Connection>::connect(url).await.expect("postgres reachable");
            for sql in [
                "DROP TABLE IF EXISTS evidence_verification CASCADE",
                "DROP TABLE IF EXISTS tool_invocation_output CASCADE",
                "DROP TABLE IF EXISTS tool_invocation CASCADE",
                "DROP TABLE IF EXISTS reverify_checkpoint CASCADE",
                "DROP TABLE IF EXISTS _sqlx_migrations CASCADE",
                "DROP TABLE IF EXISTS groundcheck_migrations CASCADE",
            ] {
                sqlx::query(sql).execute(&mut conn).await.expect("drop succeeds");
            }
        } else {
            let mut conn =
                <sqlx::MySqlConnection as sqlx::Connection>::connect(url).await.expect("mariadb reachable");
            sqlx::query(
                "DROP TABLE IF EXISTS evidence_verification, tool_invocation_output, tool_invocation, \
                 reverify_checkpoint, _sqlx_migrations, groundcheck_migrations",
            )
            .execute(&mut conn)
            .await
            .expect("drop succeeds");
        }
    })
}

/// Runs one statement straight on the engine (tests inspect and tamper with the tables).
/// `sql` uses `?` placeholders (SQLite, MariaDB); `pg` the same statement with `$n`.
pub fn execute(url: &str, sql: &'static str, pg: &'static str, args: &[&str]) {
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            let mut q = sqlx::query(pg);
            for a in args {
                q = q.bind(*a);
            }
            q.execute(&mut conn).await.unwrap();
        } else if url.starts_with("mysql") {
            let mut conn = <sqlx::MySqlConnection as sqlx::Connection>::connect(url).await.unwrap();
            let mut q = sqlx::query(sql);
            for a in args {
                q = q.bind(*a);
            }
            q.execute(&mut conn).await.unwrap();
        } else {
            let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(url).await.unwrap();
            let mut q = sqlx::query(sql);
            for a in args {
                q = q.bind(*a);
            }
            q.execute(&mut conn).await.unwrap();
        }
    })
}

/// The integers of the first column of a query's rows (counts, ids).
pub fn integers(url: &str, sql: &'static str) -> Vec<i64> {
    use sqlx::Row;
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<i64, _>(0)).collect()
        } else if url.starts_with("mysql") {
            let mut conn = <sqlx::MySqlConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<i64, _>(0)).collect()
        } else {
            let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<i64, _>(0)).collect()
        }
    })
}

/// The texts of the first column of a query's rows.
pub fn texts(url: &str, sql: &'static str) -> Vec<String> {
    use sqlx::Row;
    block_on(async {
        if url.starts_with("postgres") {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<String, _>(0)).collect()
        } else if url.starts_with("mysql") {
            let mut conn = <sqlx::MySqlConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<String, _>(0)).collect()
        } else {
            let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(url).await.unwrap();
            let rows = sqlx::query(sql).fetch_all(&mut conn).await.unwrap();
            rows.iter().map(|r| r.get::<String, _>(0)).collect()
        }
    })
}

/// A URL the test itself may create the SQLite file with (the agent made the database, so the
/// test makes it before groundcheck opens it).
pub fn creating(engine: &Engine) -> String {
    match engine.name {
        "sqlite" => format!("{}?mode=rwc", engine.url),
        _ => engine.url.clone(),
    }
}

/// Runs statements in order on the engine, each as given (an agent's own DDL and rows).
pub fn exec(engine: &Engine, statements: &[String]) {
    use sqlx::{AssertSqlSafe, Connection};
    let url = creating(engine);
    block_on(async {
        macro_rules! run_all {
            ($conn:ty) => {{
                let mut conn = <$conn>::connect(&url).await.expect("the database is reachable");
                for sql in statements {
                    sqlx::raw_sql(AssertSqlSafe(sql.clone()))
                        .execute(&mut conn)
                        .await
                        .unwrap_or_else(|e| panic!("{}: {sql}: {e}", engine.name));
                }
            }};
        }
        match engine.name {
            "sqlite" => run_all!(sqlx::SqliteConnection),
            "mariadb" => run_all!(sqlx::MySqlConnection),
            _ => run_all!(sqlx::PgConnection),
        }
    })
}
