//! The three database engines the storage tests run on, and what every such test needs:
//! the engine's URL onto an empty database that no other test uses at the same time.
//!
//! SQLite always runs (a fresh file per test). MariaDB and PostgreSQL come from
//! `GROUNDCHECK_TEST_MYSQL_URL` / `GROUNDCHECK_TEST_POSTGRES_URL` (see scripts/README.md).
//! Without them a test says so and skips that engine; under CI (`CI` set, not `false` or
//! `0`) it fails instead.
//!
//! On a server, each test makes a database of its own (the URL's database name followed by
//! `_PID_N`) and drops it when it ends, so storage tests run in parallel, in one process or
//! many. A user that may not create databases (a server of your own) gets the URL's database
//! itself, reset to empty, one test at a time in this process (run one test process at a
//! time against such a server). Databases left by a killed test process are dropped by the
//! next one. No test stops a server: an outage is a proxy's (tests/proxy.rs).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// One engine under test.
pub struct Engine {
    pub name: &'static str,
    /// The URL with full rights, onto this test's database.
    pub url: String,
    /// The SELECT-only user's URL onto the same database (`None` for SQLite, or when the
    /// variable naming it is not set).
    pub read_only_url: Option<String>,
    /// The database made for this test alone, dropped at the end.
    _scratch: Option<Scratch>,
    /// The lock on the URL's own database, when the user may not create one.
    _lock: Option<MutexGuard<'static, ()>>,
    /// Keeps a SQLite file's folder alive.
    _dir: Option<tempfile::TempDir>,
}

/// Held by a test on a server's own database (when its user may not create one).
static MYSQL: Mutex<()> = Mutex::new(());
static POSTGRES: Mutex<()> = Mutex::new(());

/// The server engines: name, the variable naming its URL, the one naming the read-only URL,
/// the lock on the URL's own database.
type Server = (&'static str, &'static str, &'static str, &'static Mutex<()>);
static SERVERS: [Server; 2] = [
    ("mariadb", "GROUNDCHECK_TEST_MYSQL_URL", "GROUNDCHECK_TEST_MYSQL_RO_URL", &MYSQL),
    ("postgres", "GROUNDCHECK_TEST_POSTGRES_URL", "GROUNDCHECK_TEST_POSTGRES_RO_URL", &POSTGRES),
];

/// Every engine available here, each on an empty database of its own. Call once per test.
pub fn all() -> Vec<Engine> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sqlite = format!("sqlite://{}", dir.path().join("groundcheck.db").display());
    let mut engines = vec![Engine {
        name: "sqlite",
        url: sqlite,
        read_only_url: None,
        _scratch: None,
        _lock: None,
        _dir: Some(dir),
    }];
    for &(name, var, ro_var, shared) in &SERVERS {
        if let Some(url) = configured(name, var) {
            let read_only = std::env::var(ro_var).ok().filter(|u| !u.is_empty());
            let engine = match Scratch::create(&url) {
                Some(scratch) => Engine {
                    name,
                    url: with_database(&url, &scratch.name),
                    read_only_url: read_only.map(|u| with_database(&u, &scratch.name)),
                    _scratch: Some(scratch),
                    _lock: None,
                    _dir: None,
                },
                None => {
                    let lock = shared.lock().unwrap_or_else(|e| e.into_inner());
                    reset(&url);
                    Engine {
                        name,
                        url,
                        read_only_url: read_only,
                        _scratch: None,
                        _lock: Some(lock),
                        _dir: None,
                    }
                }
            };
            engines.push(engine);
        }
    }
    engines
}

/// A database made for one test, dropped (with any session still on it) when the test ends.
struct Scratch {
    /// The URL it was made through (the server's own test database).
    admin_url: String,
    name: String,
}

impl Scratch {
    /// A new empty database beside the one `url` names, or `None` when its user may not
    /// create one.
    fn create(url: &str) -> Option<Scratch> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        // Per server URL: whether its user may create databases (asked once, by trying).
        static CAN_CREATE: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());
        let mut known = CAN_CREATE.lock().unwrap_or_else(|e| e.into_inner());
        let can = known.iter().find(|(u, _)| u == url).map(|&(_, can)| can);
        if can == Some(false) {
            return None;
        }
        let pid = std::process::id();
        let name = format!("{}_{pid}_{}", database_name(url), NEXT.fetch_add(1, Ordering::Relaxed));
        if can.is_none() {
            drop_abandoned(url);
        }
        let made = admin(url, &format!("CREATE DATABASE {name}"));
        if can.is_none() {
            known.push((url.to_string(), made.is_ok()));
        }
        drop(known);
        made.ok().map(|()| Scratch { admin_url: url.to_string(), name })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = admin(&self.admin_url, &drop_statement(&self.admin_url, &self.name));
    }
}

/// `DROP DATABASE` that also ends the sessions still on it (a server process a test left).
fn drop_statement(url: &str, name: &str) -> String {
    if url.starts_with("postgres") {
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    } else {
        format!("DROP DATABASE IF EXISTS {name}")
    }
}

/// Drops the test databases beside `url`'s whose process is gone (killed before its tests
/// could drop them). Run once per server and process, before its first database there.
fn drop_abandoned(url: &str) {
    // Without /proc (not Linux) no process can be told gone: nothing is dropped.
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let prefix = format!("{}_", database_name(url));
    let names = if url.starts_with("postgres") {
        texts(url, "SELECT datname::text FROM pg_database")
    } else {
        texts(url, "SELECT CAST(schema_name AS CHAR) FROM information_schema.schemata")
    };
    for name in names {
        let Some(pid) = name.strip_prefix(&prefix).and_then(|rest| rest.split('_').next()) else { continue };
        let gone =
            pid.parse::<u32>().is_ok_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists());
        if gone {
            let _ = admin(url, &drop_statement(url, &name));
        }
    }
}

/// Runs one statement on the server through `url`, giving back the server's refusal.
fn admin(url: &str, sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::{AssertSqlSafe, Connection};
    block_on(async {
        let sql = sqlx::raw_sql(AssertSqlSafe(sql.to_string()));
        if url.starts_with("postgres") {
            sql.execute(&mut sqlx::PgConnection::connect(url).await?).await.map(drop)
        } else {
            sql.execute(&mut sqlx::MySqlConnection::connect(url).await?).await.map(drop)
        }
    })
}

/// The database a server URL names.
pub fn database_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap().split('?').next().unwrap()
}

/// `url` onto the database `name` instead (its query string kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a server URL names its database");
    let query = url.rsplit('/').next().unwrap().split_once('?').map(|(_, q)| format!("?{q}"));
    format!("{base}/{name}{}", query.unwrap_or_default())
}

/// The URL of the `mariadb` or `postgres` server as configured, with no database of its own,
/// for a test that only connects and reads or writes nothing in the test database (a wrong
/// port, a wrong password). None (with a line on stderr) when the server is not configured;
/// under CI a missing server fails the test instead.
pub fn server_url(name: &str) -> Option<String> {
    let &(name, var, ..) = SERVERS.iter().find(|(n, ..)| *n == name).expect("mariadb or postgres");
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
