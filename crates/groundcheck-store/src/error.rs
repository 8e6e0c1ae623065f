//! The store's one error type: a [`ErrorKind`] the binary can act on, and one line for a
//! person, `URL: what was being done: the problem`. The URL is redacted and no credential of
//! it appears anywhere in the line.

use sqlx::error::DatabaseError;
use sqlx::migrate::MigrateError;
use sqlx::mysql::MySqlDatabaseError;
use sqlx::postgres::PgDatabaseError;
use sqlx::sqlite::SqliteError;

use crate::url::{redact, scrub, server, Engine};
use crate::wait::{no_answer, seconds};

/// What went wrong, for callers that decide what to say or do next (a hint, a retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The URL names no supported engine, or an option in it is invalid.
    BadUrl,
    /// The database is not there: a SQLite file opened for reading, or a server's database
    /// name.
    NoSuchDatabase,
    /// Nothing answered at the URL's host and port, or not within the connect timeout.
    Unreachable,
    /// The server rejected the user name or password.
    Authentication,
    /// A table groundcheck needs is missing: the database was not migrated.
    MissingTable,
    /// `tool_invocation` exists but lacks a column every read selects (not one of the
    /// seed's V010 columns, which are read as NULL when missing); the message names it.
    MissingColumn,
    /// A column of the agent's table is declared with a SQL type that cannot hold its value
    /// (an integer column as `DECIMAL(12,2)`, `created_at` as `DATE`, a JSON column as
    /// `INT`): found before any row is read; the message names the table, the column and
    /// the type.
    ColumnType,
    /// The server refused the statement: the user lacks a privilege, or the session is
    /// read-only (a replica).
    Refused,
    /// A SQLite database that cannot be written here: opened read-only (`mode=ro`,
    /// `immutable=1`), or the file or its folder is not writable by this user.
    ReadOnlyFile,
    /// The connection dropped while a statement ran.
    LostConnection,
    /// The server did not answer a statement (or give a connection) within the statement
    /// timeout ([`Store::set_statement_timeout`](crate::Store::set_statement_timeout)): it
    /// is frozen, overloaded or cut off. The message names its host and port.
    NoAnswer,
    /// Anything else: a statement the database rejected, a row that does not decode.
    Other,
}

/// What went wrong talking to a database, with the (redacted) URL it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{url}: {action}: {message}")]
pub struct StoreError {
    pub(crate) kind: ErrorKind,
    url: String,
    pub(crate) action: String,
    pub(crate) message: String,
}

impl StoreError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The database's URL, redacted.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// An error about `url` whose message is ours or a driver's: the URL is redacted and the
    /// message scrubbed of the URL's credentials.
    pub(crate) fn new(
        kind: ErrorKind,
        url: &str,
        action: impl Into<String>,
        message: impl std::fmt::Display,
    ) -> StoreError {
        StoreError {
            kind,
            url: redact(url),
            action: action.into(),
            message: scrub(&message.to_string(), url),
        }
    }

    /// A driver error while connecting: any I/O failure means the server was not reached.
    pub(crate) fn connect(url: &str, err: &sqlx::Error) -> StoreError {
        let (kind, message) = match err {
            sqlx::Error::Io(io) => (ErrorKind::Unreachable, io.to_string()),
            // The driver's text names its own source lines; what a person needs is the port.
            sqlx::Error::Protocol(_) => {
                let engine = Engine::of(url).map_or("database", Engine::name);
                (
                    ErrorKind::Unreachable,
                    format!("the server on this port does not speak the {engine} protocol"),
                )
            }
            other => classify(other),
        };
        StoreError::new(kind, url, connecting(url), message)
    }

    /// A driver error while running statements for `action`.
    pub(crate) fn query(url: &str, action: impl Into<String>, err: &sqlx::Error) -> StoreError {
        let server = || server(url).map_or_else(|| "the database".to_string(), |s| format!("the server {s}"));
        if let Some(wait) = no_answer(err) {
            let message = format!("{} did not answer within {}", server(), seconds(wait));
            return StoreError::new(ErrorKind::NoAnswer, url, action, message);
        }
        if matches!(err, sqlx::Error::PoolTimedOut) && Engine::of(url) != Some(Engine::Sqlite) {
            let message = format!("{} gave no connection in time (it did not answer)", server());
            return StoreError::new(ErrorKind::NoAnswer, url, action, message);
        }
        let (kind, message) = classify(err);
        StoreError::new(kind, url, action, message)
    }

    /// A failed migration: the statement's error when there is one, else sqlx's account.
    pub(crate) fn migrate(url: &str, err: &MigrateError) -> StoreError {
        match err {
            MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => {
                StoreError::query(url, "applying the migrations", e)
            }
            other => StoreError::new(ErrorKind::Other, url, "applying the migrations", other),
        }
    }
}

/// Why SQLite said "database is locked": the wait for the write lock ran out.
const LOCKED: &str = ": another connection kept its write lock for longer than the 30 s this one waits";

/// What a failed connection is called: a SQLite file is opened, a server connected to.
pub(crate) fn connecting(url: &str) -> &'static str {
    if Engine::of(url) == Some(Engine::Sqlite) {
        "cannot open"
    } else {
        "cannot connect"
    }
}

/// A driver error's kind and the words a person reads: a server's own message with its
/// code (sqlx's text for PostgreSQL ends with "at line N", a line of the server's C source,
/// which reads like a place in the user's input); a dropped connection says so.
fn classify(err: &sqlx::Error) -> (ErrorKind, String) {
    match err {
        sqlx::Error::Configuration(e) => (ErrorKind::BadUrl, e.to_string()),
        sqlx::Error::Database(db) => database(db.as_ref()),
        sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            (ErrorKind::LostConnection, format!("the database closed the connection ({io})"))
        }
        sqlx::Error::Io(io) => {
            (ErrorKind::LostConnection, format!("lost the connection to the database ({io})"))
        }
        sqlx::Error::PoolTimedOut => {
            (ErrorKind::LostConnection, "no connection to the database could be had in time".to_string())
        }
        sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
            (ErrorKind::LostConnection, "lost the connection to the database".to_string())
        }
        sqlx::Error::Migrate(e) => match e.as_ref() {
            MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => classify(e),
            other => (ErrorKind::Other, other.to_string()),
        },
        other => (ErrorKind::Other, other.to_string()),
    }
}

/// A server's error: its message and code, and what kind of failure the code means.
fn database(db: &dyn DatabaseError) -> (ErrorKind, String) {
    let message = db.message();
    if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
        let kind = match pg.code() {
            "28P01" | "28000" => ErrorKind::Authentication,
            "3D000" => ErrorKind::NoSuchDatabase,
            "42P01" => ErrorKind::MissingTable,
            "42501" | "25006" => ErrorKind::Refused,
            code if code.starts_with("08") || code.starts_with("57P") => ErrorKind::LostConnection,
            _ => ErrorKind::Other,
        };
        return (kind, format!("{message} (SQLSTATE {})", pg.code()));
    }
    if let Some(my) = db.try_downcast_ref::<MySqlDatabaseError>() {
        let kind = match my.number() {
            1045 | 1698 => ErrorKind::Authentication,
            1049 => ErrorKind::NoSuchDatabase,
            1146 => ErrorKind::MissingTable,
            1044 | 1142 | 1143 | 1227 | 1290 | 1792 | 1836 => ErrorKind::Refused,
            1927 => ErrorKind::LostConnection,
            _ => ErrorKind::Other,
        };
        let code = my.code().map(|c| format!(", SQLSTATE {c}")).unwrap_or_default();
        return (kind, format!("{message} (error {}{code})", my.number()));
    }
    if let Some(lite) = db.try_downcast_ref::<SqliteError>() {
        let code: i64 = lite.code().and_then(|c| c.parse().ok()).unwrap_or(0);
        let (kind, why) = match code & 0xff {
            _ if code == 1544 => (
                ErrorKind::ReadOnlyFile,
                ": this user may not write the file's folder, where SQLite keeps its journal",
            ),
            8 => (
                ErrorKind::ReadOnlyFile,
                ": the database is read-only here (mode=ro or immutable=1 in the URL, or this user may \
                 not write the file)",
            ),
            14 => (ErrorKind::Other, ": check the path, and that this user may write its folder"),
            13 => (ErrorKind::Other, ": the disk is full; free some space"),
            _ if code == 778 => (
                ErrorKind::Other,
                ": writing the file failed (a full disk, a file-size limit or a failing device)",
            ),
            5 => (ErrorKind::Other, LOCKED),
            1 if message.starts_with("no such table") => (ErrorKind::MissingTable, ""),
            _ => (ErrorKind::Other, ""),
        };
        return (kind, format!("{message} (SQLite code {code}){why}"));
    }
    (ErrorKind::Other, message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_and_never_show_a_credential() {
        fn send_sync<T: Send + Sync + std::error::Error>() {}
        send_sync::<StoreError>();
        let url = "postgres://gc:hunter2@h/db?password=swordfish";
        let err = StoreError::new(ErrorKind::Authentication, url, "cannot connect", "hunter2 and swordfish");
        assert_eq!(err.to_string(), "postgres://gc:***@h/db?password=***: cannot connect: *** and ***");
        assert_eq!(err.kind(), ErrorKind::Authentication);
        assert_eq!(err.url(), "postgres://gc:***@h/db?password=***");
    }

    #[test]
    fn io_errors_are_unreachable_when_connecting_and_lost_afterwards() {
        let refused = || sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert_eq!(StoreError::connect("mysql://h/db", &refused()).kind(), ErrorKind::Unreachable);
        assert_eq!(
            StoreError::query("mysql://h/db", "reading", &refused()).kind(),
            ErrorKind::LostConnection
        );
        let config = sqlx::Error::Configuration("unknown value \"x\" for `mode`".into());
        assert_eq!(StoreError::connect("sqlite://g.db?mode=x", &config).kind(), ErrorKind::BadUrl);
    }
}
