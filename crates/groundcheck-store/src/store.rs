//! [`Store`]: one connection pool to SQLite, MariaDB/MySQL or PostgreSQL, and the handful of
//! reads and writes groundcheck needs. No verification logic lives here.

use groundcheck_core::{Reason, RefReport, Source, Status, Verdict, Warning};
use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use sqlx::{AssertSqlSafe, Row};

use crate::dialect::{self, Dialect};
use crate::error::{ErrorKind, StoreError};
use crate::holds::Found;
use crate::lock::{Listener, Notice, WritePool};
use crate::row::{lossy_text, StoredRow, TextColumns};
use crate::timestamp;
use crate::url::{redact, Engine};
use crate::wait::Within;

/// The longest [`Store::close`] waits: closing a live connection takes a round trip.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A connection pool to one database.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: Pool,
    pub(crate) url: String,
    /// What the database holds of what groundcheck reads, once probed.
    pub(crate) found: Found,
    /// Who hears the store's notices (a wait for SQLite's write lock).
    pub(crate) listener: Listener,
    /// How long a statement may wait for its answer (`wait.rs`).
    pub(crate) wait: std::time::Duration,
    /// The server's `max_allowed_packet`, once read ([`Store::max_statement_bytes`]).
    pub(crate) max_statement: std::sync::Arc<std::sync::OnceLock<Option<u64>>>,
}

#[derive(Debug, Clone)]
pub(crate) enum Pool {
    Sqlite(SqlitePool),
    MySql(MySqlPool),
    /// With the dialect its database is read in: [`dialect::POSTGRES_UTF8`] or [`dialect::POSTGRES`].
    Postgres(PgPool, &'static Dialect),
}

/// Runs `$body` with `$pool` bound to the concrete pool and `$dialect` to its SQL. Each arm
/// compiles the body for one driver, so no generic sqlx bounds are needed.
macro_rules! with_pool {
    ($store:expr, $pool:ident, $dialect:ident => $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => {
                let $dialect: &Dialect = &dialect::SQLITE;
                $body
            }
            Pool::MySql($pool) => {
                let $dialect: &Dialect = &dialect::MYSQL;
                $body
            }
            Pool::Postgres($pool, chosen) => {
                let $dialect: &Dialect = chosen;
                $body
            }
        }
    };
}
pub(crate) use with_pool;

/// A stored verdict read back: the verdict and what produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVerdict {
    /// The invocation's run.
    pub run_id: Option<String>,
    /// The verdict as stored.
    pub verdict: Verdict,
    /// The groundcheck version that wrote it.
    pub engine_version: String,
}

/// What `reverify` walks: a run, or the rows of a session that have no `run_id`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunKey {
    /// Rows with this `run_id`.
    Run(String),
    /// Rows of this session without a `run_id`.
    Session(String),
}

impl std::fmt::Display for RunKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunKey::Run(id) => write!(f, "run {id}"),
            RunKey::Session(id) => write!(f, "session {id} (rows without run_id)"),
        }
    }
}

/// A `created_at` range, in stored form (see [`crate::to_stored`]); `None` is unbounded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Window {
    /// Rows created at or after this.
    pub since: Option<String>,
    /// Rows created before this.
    pub until: Option<String>,
}

/// How far a `reverify --write` job got: the last run whose verdicts are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The last run (in [`Store::list_keys`] order) whose verdicts are committed.
    pub last: RunKey,
    /// Rows verified so far.
    pub rows_done: i64,
    /// The job finished.
    pub done: bool,
    /// Which runs the job covers.
    pub scope: Scope,
}

/// Which runs a `reverify --write` job covers, in [`Store::list_keys`] order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every run selected (a job's first run, or one started without `--resume`).
    #[default]
    All,
    /// Only the runs that had a row without a verdict under the job's policy when it began
    /// ([`Store::list_unverified_keys`]): the job that follows a finished one.
    Unverified,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::All => "all",
            Scope::Unverified => "new",
        }
    }
}

/// Which job a checkpoint belongs to.
#[derive(Debug, Clone, Copy)]
pub struct JobProgress<'a> {
    /// A stable hash of the job's arguments.
    pub job: &'a str,
    /// The arguments, for people reading the table.
    pub arguments: &'a str,
}

impl Store {
    /// Calls `listener` with each [`Notice`] (on the task that waits; keep it short).
    pub fn on_notice(&mut self, listener: impl Fn(&Notice) + Send + Sync + 'static) {
        self.listener = Listener::new(listener);
    }

    /// The engine behind this store.
    pub fn engine(&self) -> Engine {
        match self.pool {
            Pool::Sqlite(_) => Engine::Sqlite,
            Pool::MySql(_) => Engine::MySql,
            Pool::Postgres(..) => Engine::Postgres,
        }
    }

    /// How long each statement may wait for its answer
    /// ([`STATEMENT_TIMEOUT`](crate::STATEMENT_TIMEOUT) unless set).
    pub fn statement_timeout(&self) -> std::time::Duration {
        self.wait
    }

    /// Sets how long each statement may wait for its answer (at least a millisecond).
    pub fn set_statement_timeout(&mut self, wait: std::time::Duration) {
        self.wait = wait.max(std::time::Duration::from_millis(1));
    }

    /// The URL with its password redacted, for messages.
    pub fn display_url(&self) -> String {
        redact(&self.url)
    }

    /// Closes every connection (SQLite then folds its write-ahead log back into the file).
    /// Bounded by the statement timeout: a server that stopped answering is left behind,
    /// its connections dropped, rather than waited for.
    pub async fn close(&self) {
        let close = async {
            match &self.pool {
                Pool::Sqlite(pool) => pool.close().await,
                Pool::MySql(pool) => pool.close().await,
                Pool::Postgres(pool, _) => pool.close().await,
            }
        };
        let _ = tokio::time::timeout(self.wait.min(CLOSE_WAIT), close).await;
    }

    /// A run's invocations with their raw outputs, by `id`, in one query on `(run_id, id)`.
    pub async fn read_run(&self, run_id: &str) -> Result<Vec<StoredRow>, StoreError> {
        self.read_key(&RunKey::Run(run_id.to_string()), &Window::default()).await
    }

    /// The invocations of a session that have no `run_id`, by `id`.
    pub async fn read_session(&self, session_id: &str) -> Result<Vec<StoredRow>, StoreError> {
        self.read_key(&RunKey::Session(session_id.to_string()), &Window::default()).await
    }

    /// The rows of one run (or run-less session) created within `window`, by `id`.
    pub async fn read_key(&self, key: &RunKey, window: &Window) -> Result<Vec<StoredRow>, StoreError> {
        let action = || format!("reading {key}");
        let (since, until) = (window.since.as_deref(), window.until.as_deref());
        let schema = self.schema().await?;
        with_pool!(self, pool, sql => {
            let (statement, id) = match key {
                RunKey::Run(id) => (sql.select_run, id),
                RunKey::Session(id) => (sql.select_session, id),
            };
            let rows = sqlx::query(AssertSqlSafe(sql.rows(statement, &schema)))
                .bind(id.as_str())
                .bind(since)
                .bind(since)
                .bind(until)
                .bind(until)
                .fetch_all(pool)
                .within(self.wait)
                .await;
            let rows = rows.map_err(|e| self.error(action(), e))?;
            rows.iter().map(StoredRow::decode).collect::<Result<_, _>>().map_err(|e| self.error(action(), e))
        })
    }

    /// Every run, then every run-less session, with a row created within `window`: sorted
    /// by byte order of their ids (the same on every engine, whatever its collation).
    pub async fn list_keys(&self, window: &Window) -> Result<Vec<RunKey>, StoreError> {
        // The schema first: a column type that cannot be read is said before anything else.
        let schema = self.schema().await?;
        let (since, until) = (window.since.as_deref(), window.until.as_deref());
        let mut keys = Vec::new();
        for sessions in [false, true] {
            let ids: Vec<String> = with_pool!(self, pool, sql => {
                let statement = sql.times(if sessions { sql.list_sessions } else { sql.list_runs }, &schema);
                let rows = sqlx::query(AssertSqlSafe(statement.into_owned())).bind(since).bind(since).bind(until).bind(until).fetch_all(pool).within(self.wait).await;
                let rows = rows.map_err(|e| self.error("listing runs", e))?;
                rows.iter()
                    .map(|r| r.try_get::<Vec<u8>, _>(0).map(|b| String::from_utf8_lossy(&b).into_owned()))
                    .collect::<Result<_, _>>()
                    .map_err(|e| self.error("listing runs", e))?
            });
            let mut ids = ids;
            ids.sort_unstable();
            keys.extend(
                ids.into_iter().map(|id| if sessions { RunKey::Session(id) } else { RunKey::Run(id) }),
            );
        }
        Ok(keys)
    }
    /// Like [`Store::list_keys`], but only the runs and run-less sessions with a row created
    /// within `window` (of one of `tools`, when given) that has no verdict stored under
    /// `policy`: what a recurring `reverify --write` job has left to do.
    pub async fn list_unverified_keys(
        &self,
        policy: &str,
        window: &Window,
        tools: &[String],
    ) -> Result<Vec<RunKey>, StoreError> {
        let schema = self.schema().await?;
        if !schema.verdicts {
            return self.list_keys(window).await;
        }
        let action = "listing runs with rows not verified yet";
        let (since, until) = (window.since.as_deref(), window.until.as_deref());
        let mut keys = Vec::new();
        for sessions in [false, true] {
            let pairs: Vec<(String, String)> = with_pool!(self, pool, sql => {
                let statement = if sessions { sql.list_unverified_sessions } else { sql.list_unverified_runs };
                let rows = sqlx::query(AssertSqlSafe(sql.times(statement, &schema).into_owned()))
                    .bind(policy)
                    .bind(since)
                    .bind(since)
                    .bind(until)
                    .bind(until)
                    .fetch_all(pool)
                    .within(self.wait)
                    .await;
                let rows = rows.map_err(|e| self.error(action, e))?;
                let text = |r: &_, i: usize| -> Result<String, sqlx::Error> {
                    Row::try_get::<Vec<u8>, _>(r, i).map(|b| String::from_utf8_lossy(&b).into_owned())
                };
                rows.iter()
                    .map(|r| Ok((text(r, 0)?, text(r, 1)?)))
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(|e| self.error(action, e))?
            });
            let mut ids: Vec<String> = pairs
                .into_iter()
                .filter(|(_, tool)| tools.is_empty() || tools.contains(tool))
                .map(|(id, _)| id)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            keys.extend(
                ids.into_iter().map(|id| if sessions { RunKey::Session(id) } else { RunKey::Run(id) }),
            );
        }
        Ok(keys)
    }

    /// Inserts rows (and their raw outputs) in one transaction: all or none. Into a
    /// `tool_invocation` that lacks the seed's V010 columns ([`Store::missing_columns`]) the
    /// rows go without them: the caller checks that none has a value there. Many rows go in
    /// each statement ([`insert_pieces`]); on MariaDB/MySQL a statement of several rows stays
    /// within half of `max_allowed_packet` (the caller checks that each row fits alone).
    pub async fn insert_rows(&self, rows: &[StoredRow]) -> Result<(), StoreError> {
        let action = "importing invocations";
        let schema = self.schema().await?;
        let full = schema.full_rows();
        let budget = match self.max_statement_bytes().await? {
            Some(max) => INSERT_BYTES.min(max / 2),
            None => INSERT_BYTES,
        };
        let outputs: Vec<(i64, &str)> =
            rows.iter().filter_map(|r| Some((r.columns.id, r.raw_output.as_deref()?))).collect();
        with_pool!(self, pool, sql => {
            let mut tx = pool.begin_for(&self.listener).within(self.wait).await.map_err(|e| self.error(action, e))?;
            for piece in insert_pieces(rows, row_bytes, budget) {
                let insert = sql.insert_invocations(full, piece.len());
                let mut query = sqlx::query(AssertSqlSafe(insert));
                for stored in piece {
                    let row = &stored.columns;
                    query = query
                        .bind(row.id)
                        .bind(row.session_id.as_deref())
                        .bind(row.run_id.as_deref())
                        .bind(row.step_id)
                        .bind(row.tool_name.as_str())
                        .bind(stored.input_params.as_str())
                        .bind(row.output_preview.as_deref())
                        .bind(row.output_length)
                        .bind(row.retrieval_layer.as_deref())
                        .bind(row.l0_match_count)
                        .bind(row.l1_match_count)
                        .bind(row.is_truncated)
                        .bind(stored.retrieval_details.as_deref())
                        .bind(row.duration_ms)
                        .bind(row.success)
                        .bind(row.error_message.as_deref())
                        .bind(row.created_at.as_deref());
                    if full {
                        query = query.bind(row.relevance_level.as_deref()).bind(row.dedup_reason.as_deref());
                    }
                }
                let ids = piece.iter().map(|r| r.columns.id);
                query.execute(&mut *tx).within(self.wait).await.map_err(|e| self.error(format!("{action}: {}", id_range(ids)), e))?;
            }
            for piece in insert_pieces(&outputs, |(_, raw)| raw.len() as u64, budget) {
                let mut query = sqlx::query(AssertSqlSafe(sql.insert_outputs(&schema, piece.len())));
                for (id, raw) in piece {
                    query = query.bind(*id).bind(*raw);
                }
                let ids = id_range(piece.iter().map(|(id, _)| *id));
                query.execute(&mut *tx).within(self.wait).await.map_err(|e| self.error(format!("{action}: raw outputs of {ids}"), e))?;
            }
            tx.commit().within(self.wait).await.map_err(|e| self.error(action, e))
        })
    }

    /// Stores verdicts under `policy` (upsert: re-writing the same verdict changes nothing
    /// but `verified_at`), in one transaction.
    pub async fn write_verdicts(
        &self,
        policy: &str,
        engine_version: &str,
        verdicts: &[(Option<&str>, &Verdict)],
    ) -> Result<(), StoreError> {
        self.write_batch(policy, engine_version, verdicts, None).await
    }

    /// The verdicts stored under `policy` for a run, by invocation id.
    pub async fn read_verdicts(&self, policy: &str, run_id: &str) -> Result<Vec<StoredVerdict>, StoreError> {
        self.read_key_verdicts(policy, &RunKey::Run(run_id.to_string())).await
    }

    /// The verdicts stored under `policy` for the rows of a run (or run-less session).
    pub async fn read_key_verdicts(
        &self,
        policy: &str,
        key: &RunKey,
    ) -> Result<Vec<StoredVerdict>, StoreError> {
        let action = || format!("reading stored verdicts of {key}");
        if !self.schema().await?.verdicts {
            return Ok(Vec::new());
        }
        with_pool!(self, pool, sql => {
            let (statement, id) = match key {
                RunKey::Run(id) => (sql.select_verdicts_run, id),
                RunKey::Session(id) => (sql.select_verdicts_session, id),
            };
            let rows = sqlx::query(statement).bind(policy).bind(id.as_str()).fetch_all(pool).within(self.wait).await;
            let rows = rows.map_err(|e| self.error(action(), e))?;
            rows.iter()
                .map(decode_verdict)
                .collect::<Result<_, String>>()
                .map_err(|e| StoreError::new(ErrorKind::Other, &self.url, action(), e))
        })
    }

    /// The checkpoint of a `reverify` job, if it has one.
    pub async fn read_checkpoint(&self, job: &str) -> Result<Option<Checkpoint>, StoreError> {
        let action = "reading the reverify checkpoint";
        if !self.schema().await?.checkpoints {
            return Ok(None);
        }
        with_pool!(self, pool, sql => {
            let row = sqlx::query(sql.select_checkpoint).bind(job).fetch_optional(pool).within(self.wait).await;
            let row = row.map_err(|e| self.error(action, e))?;
            row.map(|r| -> Result<Checkpoint, sqlx::Error> {
                let text = |i: usize| r.try_get::<Vec<u8>, _>(i).map(|b| String::from_utf8_lossy(&b).into_owned());
                let (kind, key) = (text(0)?, text(1)?);
                let scope = r.try_get::<Option<Vec<u8>>, _>(4)?;
                Ok(Checkpoint {
                    last: if kind == "session" { RunKey::Session(key) } else { RunKey::Run(key) },
                    rows_done: r.try_get(2)?,
                    done: r.try_get(3)?,
                    // NULL: a job of an earlier version, which covered every run.
                    scope: if scope.as_deref() == Some(b"new") { Scope::Unverified } else { Scope::All },
                })
            })
            .transpose()
            .map_err(|e| self.error(action, e))
        })
    }

    /// Stores one batch of verdicts under `policy` and, in the same transaction, a job's
    /// checkpoint with its running totals, if given: after a crash the verdicts, the
    /// checkpoint and the totals all agree.
    async fn write_batch(
        &self,
        policy: &str,
        engine_version: &str,
        verdicts: &[(Option<&str>, &Verdict)],
        checkpoint: Option<(&JobProgress<'_>, &Checkpoint, &str)>,
    ) -> Result<(), StoreError> {
        let action = "writing verdicts";
        let now = timestamp::now_stored();
        with_pool!(self, pool, sql => {
            let mut tx = pool.begin_for(&self.listener).within(self.wait).await.map_err(|e| self.error(action, e))?;
            // One verdict's twelve values, in the order of the upsert's columns.
            macro_rules! bind_verdict {
                ($query:expr, $run_id:expr, $v:expr) => {
                    $query
                        .bind($v.id)
                        .bind(policy)
                        .bind($run_id)
                        .bind($v.status.as_str())
                        .bind($v.reason.as_str())
                        .bind($v.claimed_status.as_deref())
                        .bind($v.claim_agrees)
                        .bind($v.source.as_str())
                        .bind(to_json(&$v.refs))
                        .bind(to_json(&$v.warnings))
                        .bind(engine_version)
                        .bind(now.as_str())
                };
            }
            let mut written = 0;
            for piece in pieces(verdicts) {
                // Constant text and placeholders: no value enters the SQL.
                let statement = format!("{}{}{}", sql.upsert_head, sql.upsert_values(piece.len()), sql.upsert_tail);
                let mut query = sqlx::query(AssertSqlSafe(statement));
                for (run_id, v) in piece {
                    query = bind_verdict!(query, *run_id, v);
                }
                let Err(err) = query.execute(&mut *tx).within(self.wait).await else {
                    written += piece.len();
                    continue;
                };
                let ids = id_range(piece.iter().map(|(_, verdict)| verdict.id));
                let error = self.write_error(format!("{action}: {ids}"), err);
                if error.kind != ErrorKind::Other || piece.len() == 1 {
                    return Err(error);
                }
                // Which row the database refused: the batch so far again, one row at a time,
                // in a transaction that is rolled back. Only a failed batch pays for this.
                drop(tx);
                let Ok(mut tx) = pool.begin_for(&self.listener).within(self.wait).await else { return Err(error) };
                for (run_id, v) in &verdicts[..written + piece.len()] {
                    let one = bind_verdict!(sqlx::query(sql.upsert_verdict), *run_id, v);
                    if let Err(err) = one.execute(&mut *tx).within(self.wait).await {
                        return Err(self.write_error(format!("{action}: id {}", v.id), err));
                    }
                }
                let _ = tx.rollback().within(self.wait).await;
                return Err(error);
            }
            if let Some((job, checkpoint, totals)) = checkpoint {
                let (kind, key) = match &checkpoint.last {
                    RunKey::Run(id) => ("run", id),
                    RunKey::Session(id) => ("session", id),
                };
                sqlx::query(sql.upsert_checkpoint)
                    .bind(job.job)
                    .bind(job.arguments)
                    .bind(kind)
                    .bind(key.as_str())
                    .bind(checkpoint.rows_done)
                    .bind(checkpoint.done)
                    .bind(now.as_str())
                    .bind(totals)
                    .bind(checkpoint.scope.as_str())
                    .execute(&mut *tx)
                    .within(self.wait)
                    .await
                    .map_err(|e| self.write_error("writing the reverify checkpoint".into(), e))?;
            }
            tx.commit().within(self.wait).await.map_err(|e| self.error(action, e))
        })
    }

    pub(crate) fn error(&self, action: impl Into<String>, err: sqlx::Error) -> StoreError {
        StoreError::query(&self.url, action, &err)
    }

    /// A failed write. When the database refused writing at all, the message names the
    /// operation instead of the row it happened to be on: a server says what `writing
    /// verdicts` needs, a read-only SQLite file why it is read-only.
    fn write_error(&self, action: String, err: sqlx::Error) -> StoreError {
        let mut error = self.error(action, err);
        if matches!(error.kind, ErrorKind::Refused | ErrorKind::ReadOnlyFile) {
            error.action = "writing verdicts".to_string();
        }
        if error.kind == ErrorKind::Refused {
            error.message.push_str(
                "; writing verdicts needs INSERT and UPDATE on evidence_verification and reverify_checkpoint",
            );
        }
        error
    }
}

/// Decodes a row selected with a dialect's verdict columns, in their order.
fn decode_verdict<R>(row: &R) -> Result<StoredVerdict, String>
where
    R: TextColumns,
    usize: sqlx::ColumnIndex<R>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let text = |i: usize| -> Result<Option<String>, String> {
        let bytes = row.bytes(i).map_err(|e| e.to_string())?;
        Ok(bytes.map(|b| lossy_text(b, &mut false)))
    };
    let required = |i: usize| text(i)?.ok_or_else(|| format!("column {i} is NULL"));
    let verdict = Verdict {
        id: row.try_get(0).map_err(|e| e.to_string())?,
        tool_name: required(2)?,
        status: required(3)?.parse::<Status>().map_err(|e| e.to_string())?,
        reason: required(4)?.parse::<Reason>().map_err(|e| e.to_string())?,
        claimed_status: text(5)?,
        claim_agrees: row.try_get(6).map_err(|e| e.to_string())?,
        source: required(7)?.parse::<Source>().map_err(|e| e.to_string())?,
        refs: serde_json::from_str::<Vec<RefReport>>(&required(8)?).map_err(|e| e.to_string())?,
        warnings: serde_json::from_str::<Vec<Warning>>(&required(9)?).map_err(|e| e.to_string())?,
        malformed: None,
    };
    Ok(StoredVerdict { run_id: text(1)?, verdict, engine_version: required(10)? })
}

/// The most verdicts one upsert statement writes: each row is twelve placeholders, far
/// below every engine's limit, and a batch of a thousand takes eight statements, not a thousand.
const UPSERT_ROWS: usize = 128;

/// `items` in pieces of [`UPSERT_ROWS`], the rest in powers of two: a job prepares at most
/// eight distinct upsert statements.
fn pieces<T>(mut items: &[T]) -> Vec<&[T]> {
    let mut pieces = Vec::new();
    while !items.is_empty() {
        let n = items.len().min(UPSERT_ROWS);
        let (piece, rest) = items.split_at(1 << n.ilog2());
        pieces.push(piece);
        items = rest;
    }
    pieces
}

/// The most rows one insert statement writes: nineteen placeholders each, far below every
/// engine's limit.
const INSERT_ROWS: usize = 64;

/// The most bytes of values one insert statement carries (a row larger than that goes alone).
const INSERT_BYTES: u64 = 1 << 20;

/// `items` in pieces of at most [`INSERT_ROWS`] items and `budget` bytes (by `bytes`; an item
/// larger than the budget is a piece alone), each a power of two long: an import prepares a
/// handful of distinct statements.
fn insert_pieces<T>(mut items: &[T], bytes: impl Fn(&T) -> u64, budget: u64) -> Vec<&[T]> {
    let mut pieces = Vec::new();
    while !items.is_empty() {
        let (mut n, mut total) = (0, 0);
        while n < items.len().min(INSERT_ROWS) {
            total += bytes(&items[n]);
            if n > 0 && total > budget {
                break;
            }
            n += 1;
        }
        let (piece, rest) = items.split_at(1 << n.ilog2());
        pieces.push(piece);
        items = rest;
    }
    pieces
}

/// What a row's values weigh in a statement: its long texts, and room for the short columns
/// and the numbers.
fn row_bytes(row: &StoredRow) -> u64 {
    row.text_bytes() + 512
}

/// A list of ids for messages: `id 7`, or `ids 7 to 70`.
pub(crate) fn id_range(ids: impl Iterator<Item = i64>) -> String {
    let ids: Vec<i64> = ids.collect();
    match ids[..] {
        [only] => format!("id {only}"),
        [first, .., last] => format!("ids {first} to {last}"),
        [] => String::new(),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "[]".to_string())
}

/// A `reverify --write` job's state: its checkpoint and its running totals, stored together
/// with each batch's verdicts so that a resumed job can report the whole job.
impl Store {
    /// Stores one batch of verdicts under `policy` and, in the same transaction, the job's
    /// checkpoint with its running `totals` (opaque text, the caller's): after a crash the
    /// verdicts, the checkpoint and the totals all agree.
    pub async fn write_job_batch(
        &self,
        policy: &str,
        engine_version: &str,
        verdicts: &[(Option<&str>, &Verdict)],
        job: &JobProgress<'_>,
        checkpoint: &Checkpoint,
        totals: &str,
    ) -> Result<(), StoreError> {
        self.write_batch(policy, engine_version, verdicts, Some((job, checkpoint, totals))).await
    }

    /// The running totals stored with a job's checkpoint, if it has any.
    pub async fn read_job_totals(&self, job: &str) -> Result<Option<String>, StoreError> {
        let action = "reading the reverify checkpoint";
        if !self.schema().await?.checkpoints {
            return Ok(None);
        }
        with_pool!(self, pool, sql => {
            let row = sqlx::query(sql.select_checkpoint_totals).bind(job).fetch_optional(pool).within(self.wait).await;
            let row = row.map_err(|e| self.error(action, e))?;
            let totals = row.map(|r| r.try_get::<Option<Vec<u8>>, _>(0)).transpose();
            let totals = totals.map_err(|e| self.error(action, e))?.flatten();
            Ok(totals.map(|b| String::from_utf8_lossy(&b).into_owned()))
        })
    }

    /// Whether any verdict is stored under `policy` (one index lookup).
    pub async fn policy_is_stored(&self, policy: &str) -> Result<bool, StoreError> {
        let action = "reading stored verdicts";
        if !self.schema().await?.verdicts {
            return Ok(false);
        }
        with_pool!(self, pool, sql => {
            let row = sqlx::query(sql.policy_is_stored).bind(policy).fetch_optional(pool).within(self.wait).await;
            Ok(row.map_err(|e| self.error(action, e))?.is_some())
        })
    }

    /// Every policy with stored verdicts, in order: what `--compare-with` can name.
    pub async fn stored_policies(&self) -> Result<Vec<String>, StoreError> {
        let action = "reading stored verdicts";
        if !self.schema().await?.verdicts {
            return Ok(Vec::new());
        }
        with_pool!(self, pool, sql => {
            let rows = sqlx::query(sql.stored_policies).fetch_all(pool).within(self.wait).await;
            let rows = rows.map_err(|e| self.error(action, e))?;
            rows.iter()
                .map(|r| r.try_get::<Vec<u8>, _>(0).map(|b| String::from_utf8_lossy(&b).into_owned()))
                .collect::<Result<_, _>>()
                .map_err(|e| self.error(action, e))
        })
    }

    /// Those of `tools` that no `tool_invocation` row has, in the order given (one index
    /// lookup each): a `--tool` with a typo selects nothing, and should say so.
    pub async fn missing_tools<'t>(&self, tools: &'t [String]) -> Result<Vec<&'t str>, StoreError> {
        let action = "reading tool_invocation";
        let mut missing = Vec::new();
        for tool in tools {
            let found = with_pool!(self, pool, sql => {
                let row = sqlx::query(sql.tool_exists).bind(tool).fetch_optional(pool).within(self.wait).await;
                row.map_err(|e| self.error(action, e))?.is_some()
            });
            if !found {
                missing.push(tool.as_str());
            }
        }
        Ok(missing)
    }

    /// The largest statement the server takes, in bytes: MariaDB/MySQL's `max_allowed_packet`
    /// (a larger one is refused by dropping the connection, which the driver reports as a
    /// reset); `None` on the engines without such a limit. Read once: `import` checks every row
    /// against it, and each file's insert stays within it.
    pub async fn max_statement_bytes(&self) -> Result<Option<u64>, StoreError> {
        if let Some(&max) = self.max_statement.get() {
            return Ok(max);
        }
        let Pool::MySql(pool) = &self.pool else { return Ok(None) };
        let row = sqlx::query("SELECT CAST(@@max_allowed_packet AS SIGNED)")
            .fetch_one(pool)
            .within(self.wait)
            .await;
        let row = row.map_err(|e| self.error("reading max_allowed_packet", e))?;
        let bytes: i64 = row.try_get(0).map_err(|e| self.error("reading max_allowed_packet", e))?;
        Ok(*self.max_statement.get_or_init(|| u64::try_from(bytes).ok()))
    }

    /// The first `limit` tool names of `tool_invocation`, in order.
    pub async fn tool_names(&self, limit: u32) -> Result<Vec<String>, StoreError> {
        let action = "reading tool_invocation";
        with_pool!(self, pool, sql => {
            let rows = sqlx::query(sql.tool_names).bind(i64::from(limit)).fetch_all(pool).within(self.wait).await;
            let rows = rows.map_err(|e| self.error(action, e))?;
            rows.iter()
                .map(|r| r.try_get::<Vec<u8>, _>(0).map(|b| String::from_utf8_lossy(&b).into_owned()))
                .collect::<Result<_, _>>()
                .map_err(|e| self.error(action, e))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_written_in_pieces_of_at_most_128_then_powers_of_two() {
        let sizes = |n: usize| pieces(&vec![0; n]).iter().map(|p| p.len()).collect::<Vec<_>>();
        assert_eq!(sizes(0), Vec::<usize>::new());
        assert_eq!(sizes(1), [1]);
        assert_eq!(sizes(129), [128, 1]);
        assert_eq!(sizes(1000), [128, 128, 128, 128, 128, 128, 128, 64, 32, 8]);
    }

    #[test]
    fn rows_are_inserted_in_pieces_within_the_row_and_byte_limits_each_a_power_of_two() {
        let sizes = |items: &[u64], budget: u64| {
            insert_pieces(items, |&b| b, budget).iter().map(|p| p.len()).collect::<Vec<_>>()
        };
        assert_eq!(sizes(&[], 100), Vec::<usize>::new());
        assert_eq!(sizes(&[1; 200], 1_000), [64, 64, 64, 8]);
        // Within the budget: 10 + 10 + 10 fit 35, a fourth does not; 3 rows go as 2, then 1.
        assert_eq!(sizes(&[10, 10, 10, 10], 35), [2, 2]);
        assert_eq!(sizes(&[10, 10, 10], 35), [2, 1]);
        // A row over the budget goes alone, and does not hold back the rows after it.
        assert_eq!(sizes(&[500, 1, 1], 35), [1, 2]);
        assert_eq!(sizes(&[1, 500, 1], 35), [1, 1, 1]);
    }

    #[test]
    fn a_list_of_ids_is_one_id_or_the_first_and_last() {
        assert_eq!(id_range([7].into_iter()), "id 7");
        assert_eq!(id_range([7, 8, 70].into_iter()), "ids 7 to 70");
    }
}
