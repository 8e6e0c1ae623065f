//! Waiting for a SQLite database's write lock, and saying so.
//!
//! SQLite lets one connection write at a time; another waits up to [`LOCK_TIMEOUT`] (its busy
//! timeout) and then fails. A write transaction on SQLite therefore begins with
//! `BEGIN IMMEDIATE`, which takes the write lock first and does nothing else, so that a
//! `BEGIN` still running after [`NOTICE_AFTER`] is a wait for the lock — never a slow
//! statement — and the store tells its listener (`Store::on_notice`) at once, instead of
//! staying silent until the timeout.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sqlx::mysql::{MySql, MySqlPool};
use sqlx::postgres::{PgPool, Postgres};
use sqlx::sqlite::{Sqlite, SqlitePool};
use sqlx::Transaction;

/// How long a statement on SQLite waits for another connection's write lock before failing.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a wait for the write lock lasts before it is told.
const NOTICE_AFTER: Duration = Duration::from_millis(300);

/// Something a person should hear while the store works, before any result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// Another connection holds the SQLite database's write lock; this one waits for it at
    /// most `limit`, then fails.
    WaitingForLock {
        /// The longest wait.
        limit: Duration,
    },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::WaitingForLock { limit } => write!(
                f,
                "waiting for a lock: another connection is writing to this database; waiting up to {} s \
                 for it to finish",
                limit.as_secs()
            ),
        }
    }
}

/// What hears a store's notices.
type Hear = dyn Fn(&Notice) + Send + Sync;

/// Who hears a store's notices.
#[derive(Clone, Default)]
pub(crate) struct Listener(Option<Arc<Hear>>);

impl Listener {
    /// `hear` is told each notice.
    pub(crate) fn new(hear: impl Fn(&Notice) + Send + Sync + 'static) -> Listener {
        Listener(Some(Arc::new(hear)))
    }
}

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Listener(Some)" } else { "Listener(None)" })
    }
}

/// `BEGIN IMMEDIATE` on a SQLite connection: the write lock first, told to `listener` when it is
/// waited for.
pub(crate) async fn begin_write(
    pool: &SqlitePool,
    listener: &Listener,
) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
    let begin = std::pin::pin!(pool.begin_with("BEGIN IMMEDIATE"));
    let Some(listener) = &listener.0 else { return begin.await };
    let mut begin = begin;
    match tokio::time::timeout(NOTICE_AFTER, &mut begin).await {
        Ok(result) => result,
        Err(_) => {
            listener(&Notice::WaitingForLock { limit: LOCK_TIMEOUT });
            begin.await
        }
    }
}

/// A pool on which a write transaction begins: SQLite's takes the write lock first.
pub(crate) trait WritePool {
    type Db: sqlx::Database;
    fn begin_for<'a>(
        &'a self,
        listener: &'a Listener,
    ) -> impl Future<Output = Result<Transaction<'static, Self::Db>, sqlx::Error>> + 'a;
}

impl WritePool for SqlitePool {
    type Db = Sqlite;
    fn begin_for<'a>(
        &'a self,
        listener: &'a Listener,
    ) -> impl Future<Output = Result<Transaction<'static, Sqlite>, sqlx::Error>> + 'a {
        begin_write(self, listener)
    }
}

impl WritePool for MySqlPool {
    type Db = MySql;
    fn begin_for<'a>(
        &'a self,
        _: &'a Listener,
    ) -> impl Future<Output = Result<Transaction<'static, MySql>, sqlx::Error>> + 'a {
        self.begin()
    }
}

impl WritePool for PgPool {
    type Db = Postgres;
    fn begin_for<'a>(
        &'a self,
        _: &'a Listener,
    ) -> impl Future<Output = Result<Transaction<'static, Postgres>, sqlx::Error>> + 'a {
        self.begin()
    }
}
