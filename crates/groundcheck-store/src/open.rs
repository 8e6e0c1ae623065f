//! Opening a [`Store`], for writing or for reading only.
//!
//! Reading never needs write access: a SQLite file opened to read is opened read-only, never
//! created or migrated, and when its folder is not writable (SQLite could not create the
//! shared-memory file a write-ahead-log database is read through) and no write-ahead log
//! is pending, it is opened `immutable`, which reads the file alone. Servers get one direct
//! connection first, bounded by [`CONNECT_TIMEOUT`]: a pool retries a refused connection until
//! its acquire timeout, and a server of the wrong engine on the port never answers at all.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::Connection;

use crate::dialect;
use crate::error::{connecting, ErrorKind, StoreError};
use crate::holds::Found;
use crate::lock::{Listener, LOCK_TIMEOUT};
use crate::store::{Pool, Store};
use crate::url::{percent_encoded, unencoded_in_password, Engine};
use crate::wait::STATEMENT_TIMEOUT;

/// How long connecting to a server may take, TLS and authentication included, before the
/// command gives up saying nothing answered.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a statement waits for a free connection of the pool.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(15);

/// The most connections a server's pool opens: the most any command uses at once (`reverify`:
/// its reader's two reads and its writer's transaction). The pool takes a connection back in a
/// task of its own, so a statement that followed another at once found none idle and opened
/// one more, up to the pool's default of ten: each a login and, on PostgreSQL, a server process.
const SERVER_CONNECTIONS: u32 = 3;

impl Store {
    /// Connects by URL for reading and writing: `sqlite:` (the file is created when missing),
    /// `mysql:`/`mariadb:`, `postgres:`/`postgresql:`.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::open(url, false).await
    }

    /// Connects by URL for reading only. A SQLite file must exist ([`ErrorKind::NoSuchDatabase`]
    /// otherwise) and is opened read-only, so neither the file nor its folder need be
    /// writable. A server is connected to as by [`Store::connect`]: its grants decide.
    pub async fn connect_read_only(url: &str) -> Result<Store, StoreError> {
        Store::open(url, true).await
    }

    async fn open(url: &str, read_only: bool) -> Result<Store, StoreError> {
        let unsupported = "unsupported database URL (expected sqlite:, mysql:, mariadb: or postgres:)";
        let engine = Engine::of(url)
            .ok_or_else(|| StoreError::new(ErrorKind::BadUrl, url, connecting(url), unsupported))?;
        if let Some(c) = unencoded_in_password(url) {
            let message = format!(
                "the password holds a `{c}`, which ends the host part of a URL (the driver would read what \
                 follows as a port or a path): write it percent-encoded, `{c}` as {}",
                percent_encoded(c)
            );
            return Err(StoreError::new(ErrorKind::BadUrl, url, connecting(url), message));
        }
        let pool = match engine {
            Engine::Sqlite => Pool::Sqlite(sqlite(url, read_only).await?),
            Engine::MySql => {
                let options = MySqlConnectOptions::from_str(&url.replacen("mariadb:", "mysql:", 1))
                    .map_err(|e| StoreError::connect(url, &e))?;
                let _ = probe::<MySqlConnection>(url, engine, &options).await?.close().await;
                Pool::MySql(
                    MySqlPoolOptions::new()
                        .max_connections(SERVER_CONNECTIONS)
                        .acquire_timeout(ACQUIRE_TIMEOUT)
                        .connect_lazy_with(options),
                )
            }
            Engine::Postgres => {
                // Every select's optional bounds are `(CAST($n AS TIMESTAMP) IS NULL OR …)`: a
                // generic plan, which PostgreSQL switches a prepared statement to after five
                // runs, cannot drop them and scans every row for each batch; a custom plan sees
                // the NULLs and uses the indexes.
                let options = PgConnectOptions::from_str(url)
                    .map_err(|e| StoreError::connect(url, &e))?
                    .options([("plan_cache_mode", "force_custom_plan")]);
                let mut connection = probe::<PgConnection>(url, engine, &options).await?;
                let dialect = match utf8(&mut connection).await {
                    true => &dialect::POSTGRES_UTF8,
                    false => &dialect::POSTGRES,
                };
                let _ = connection.close().await;
                Pool::Postgres(
                    PgPoolOptions::new()
                        .max_connections(SERVER_CONNECTIONS)
                        .acquire_timeout(ACQUIRE_TIMEOUT)
                        .connect_lazy_with(options),
                    dialect,
                )
            }
        };
        Ok(Store {
            pool,
            url: url.to_string(),
            found: Found::default(),
            listener: Listener::default(),
            wait: STATEMENT_TIMEOUT,
            max_statement: Default::default(),
        })
    }
}

/// One direct connection, for the caller to close: fails at once on a refused connection,
/// after [`CONNECT_TIMEOUT`] when nothing answers.
async fn probe<C: Connection>(url: &str, engine: Engine, options: &C::Options) -> Result<C, StoreError> {
    match tokio::time::timeout(CONNECT_TIMEOUT, C::connect_with(options)).await {
        Ok(Ok(connection)) => Ok(connection),
        Ok(Err(e)) => Err(StoreError::connect(url, &e)),
        Err(_) => Err(StoreError::new(
            ErrorKind::Unreachable,
            url,
            connecting(url),
            format!(
                "no answer within {} s (is a {} server listening on this host and port?)",
                CONNECT_TIMEOUT.as_secs(),
                engine.name()
            ),
        )),
    }
}

/// Whether a PostgreSQL database and this client both use the UTF8 encoding, so that text
/// columns arrive as UTF-8 and can be read as they are. The server converts text from its
/// encoding to the client's (sqlx asks for UTF8 when it connects; a URL's `options` could
/// change that); a SQL_ASCII database converts nothing and fails a statement whose text is
/// not valid UTF-8, as `convert_to` does. Anything else, or a server that cannot say, is read
/// through `convert_to(…, 'UTF8')`, as before: the same bytes, copied on the server first.
async fn utf8(connection: &mut PgConnection) -> bool {
    let encodings = sqlx::query_as::<_, (String, String)>(
        "SELECT current_setting('server_encoding'), current_setting('client_encoding')",
    )
    .fetch_one(&mut *connection);
    let encodings = tokio::time::timeout(CONNECT_TIMEOUT, encodings).await;
    matches!(encodings, Ok(Ok((server, client))) if server == "UTF8" && client == "UTF8")
}

async fn sqlite(url: &str, read_only: bool) -> Result<SqlitePool, StoreError> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(|e| StoreError::connect(url, &e))?
        .foreign_keys(true)
        .busy_timeout(LOCK_TIMEOUT);
    if !read_only {
        let options = options.create_if_missing(true).journal_mode(SqliteJournalMode::Wal);
        return sqlite_pool(options).await.map_err(|e| StoreError::connect(url, &e));
    }
    let file = options.get_filename().to_path_buf();
    match std::fs::File::open(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = format!("no such database file ({})", file.display());
            return Err(StoreError::new(ErrorKind::NoSuchDatabase, url, connecting(url), message));
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let message = format!("this user may not read the database file ({})", file.display());
            return Err(StoreError::new(ErrorKind::Other, url, connecting(url), message));
        }
        _ => {}
    }
    let options = options.read_only(true);
    let err = match sqlite_pool(options.clone()).await {
        Ok(pool) => return Ok(pool),
        Err(e) if !needs_shared_memory(&e) => return Err(StoreError::connect(url, &e)),
        Err(e) => e,
    };
    // Reading the file alone is right only when nothing is pending beside it.
    let pending = [beside(&file, "-wal"), beside(&file, "-journal")].into_iter().find(|p| p.exists());
    let Some(pending) = pending else {
        return sqlite_pool(options.immutable(true)).await.map_err(|e| StoreError::connect(url, &e));
    };
    let mut error = StoreError::connect(url, &err);
    error.kind = ErrorKind::ReadOnlyFile;
    error.message = format!(
        "{} (SQLite code {}): changes are pending in {}, and reading them needs a file SQLite may not \
         create in this folder; open the database once as a user who may write the folder",
        sqlite_message(&err),
        sqlite_code(&err),
        pending.display()
    );
    Err(error)
}

/// A pool whose first connection has read the schema, so that a file that cannot be read
/// fails here, not on the first statement.
async fn sqlite_pool(options: SqliteConnectOptions) -> Result<SqlitePool, sqlx::Error> {
    // Few connections: each keeps its own page cache, and SQLite takes one writer at a time
    // anyway; readers and the writer still overlap under WAL.
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await?;
    let probe = sqlx::query("SELECT COUNT(*) FROM sqlite_master").execute(&pool).await;
    if let Err(e) = probe {
        pool.close().await;
        return Err(e);
    }
    Ok(pool)
}

/// Whether opening read-only failed because SQLite may not create a file beside the database
/// (the `-shm` a write-ahead-log database is read through): SQLITE_READONLY and
/// SQLITE_CANTOPEN, with any extended code.
fn needs_shared_memory(err: &sqlx::Error) -> bool {
    matches!(sqlite_code(err) & 0xff, 8 | 14)
}

/// SQLite's extended result code of a database error, 0 for any other error.
fn sqlite_code(err: &sqlx::Error) -> i64 {
    let sqlx::Error::Database(db) = err else { return 0 };
    db.code().and_then(|c| c.parse().ok()).unwrap_or(0)
}

/// SQLite's own message of a database error.
fn sqlite_message(err: &sqlx::Error) -> String {
    match err {
        sqlx::Error::Database(db) => db.message().to_string(),
        other => other.to_string(),
    }
}

/// A file SQLite keeps beside `file`: its write-ahead log (`-wal`) or rollback journal
/// (`-journal`).
fn beside(file: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

#[cfg(test)]
mod tests {
    use groundcheck_core::{Invocation, Policy, Verifier};

    use super::*;
    use crate::dialect::Dialect;
    use crate::row::{into_run, StoredRow};
    use crate::store::{RunKey, Window};

    /// A row whose text is far from ASCII, and one with every optional column NULL.
    fn rows() -> Vec<StoredRow> {
        let json = |text: &str| Some(groundcheck_core::Json::parse(text).expect("JSON"));
        let full = Invocation {
            id: 71,
            session_id: Some("séance-ß".to_string()),
            run_id: Some("run-超时".to_string()),
            step_id: Some(1),
            tool_name: "grep_ü".to_string(),
            input_params: json(r#"{"q":"naïve ☃ 🦀"}"#),
            output_preview: Some("préview 𝄞".to_string()),
            output_length: Some(9),
            retrieval_layer: Some("L0".to_string()),
            l0_match_count: Some(1),
            l1_match_count: Some(0),
            is_truncated: Some(false),
            relevance_level: Some("hoch".to_string()),
            dedup_reason: Some("déjà vu".to_string()),
            retrieval_details: json(r#"{"refs":[{"quote":"超时 🦀"}]}"#),
            duration_ms: Some(12),
            success: Some(true),
            error_message: Some("ошибка".to_string()),
            created_at: Some("2026-11-30T10:00:01Z".to_string()),
            raw_output: Some(groundcheck_core::RawOutput::Text(
                r#"{"logs":["超时 🦀","naïve"]}"#.to_string(),
            )),
            ..Invocation::default()
        };
        let bare = Invocation {
            id: 72,
            session_id: full.session_id.clone(),
            run_id: full.run_id.clone(),
            tool_name: full.tool_name.clone(),
            input_params: full.input_params.clone(),
            created_at: full.created_at.clone(),
            ..Invocation::default()
        };
        [full, bare].iter().map(|inv| StoredRow::from_invocation(inv).expect("a row")).collect()
    }

    /// On a UTF8 PostgreSQL database the store reads text as text; what it reads is what the
    /// `convert_to` select of any other database reads, rows and stored verdicts alike. Runs
    /// against `GROUNDCHECK_TEST_POSTGRES_URL` (scripts/test-databases.sh), whose test database
    /// it empties as the integration tests do; skipped without it, except under CI.
    #[test]
    fn postgres_reads_text_as_its_convert_to_fallback_does() {
        let url = match std::env::var("GROUNDCHECK_TEST_POSTGRES_URL") {
            Ok(url) if !url.is_empty() => url,
            _ if std::env::var("CI").is_ok_and(|ci| !matches!(ci.trim(), "" | "false" | "0")) => {
                panic!("GROUNDCHECK_TEST_POSTGRES_URL is not set: under CI the PostgreSQL tests must run")
            }
            _ => return,
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let store = Store::connect(&url).await.expect("the server answers");
            let Pool::Postgres(pool, chosen) = &store.pool else { panic!("a PostgreSQL store") };
            assert!(std::ptr::eq(*chosen, &dialect::POSTGRES_UTF8), "the test server is UTF8");
            for table in [
                "evidence_verification",
                "tool_invocation_output",
                "tool_invocation",
                "reverify_checkpoint",
                "_sqlx_migrations",
                "groundcheck_migrations",
            ] {
                let drop = format!("DROP TABLE IF EXISTS {table} CASCADE");
                sqlx::query(sqlx::AssertSqlSafe(drop)).execute(pool).await.expect("drop succeeds");
            }
            store.migrate().await.expect("migrates");
            let rows = rows();
            store.insert_rows(&rows).await.expect("inserts");
            let run = into_run(rows.clone()).expect("a run");
            let report = Verifier::new(Policy::default()).verify_runs(&[run]);
            let verdicts: Vec<_> = report.runs[0].invocations.iter().map(|v| (Some("run-超时"), v)).collect();
            store.write_verdicts("p", "test", &verdicts).await.expect("writes");

            let keys = [RunKey::Run("run-超时".to_string())];
            let read = |dialect: &'static Dialect| {
                let store = Store { pool: Pool::Postgres(pool.clone(), dialect), ..store.clone() };
                let keys = &keys;
                async move {
                    let rows = store.read_keys(keys, &Window::default()).await.expect("reads rows");
                    let one = store.read_rows(&[72, 404]).await.expect("reads a row").remove(&72);
                    let verdicts = store.read_key_verdicts("p", &keys[0]).await.expect("reads verdicts");
                    let outcomes = store.read_keys_outcomes("p", keys).await.expect("reads outcomes");
                    (rows, one, verdicts, outcomes)
                }
            };
            let (text, bytes) = (read(&dialect::POSTGRES_UTF8).await, read(&dialect::POSTGRES).await);
            assert_eq!(text.0, std::slice::from_ref(&rows));
            assert_eq!(text.1.as_ref(), Some(&rows[1]));
            assert_eq!(text.2.len(), 2);
            let outcomes: Vec<_> =
                text.2.iter().map(|v| (v.verdict.id, v.verdict.status, v.verdict.reason)).collect();
            assert_eq!(text.3.iter().map(|o| (o.id, o.status, o.reason)).collect::<Vec<_>>(), outcomes);
            assert_eq!(text, bytes);
            store.close().await;
        });
    }
}
