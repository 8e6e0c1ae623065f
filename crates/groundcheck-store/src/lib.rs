//! groundcheck-store connects groundcheck to the agent's database: it reads
//! `tool_invocation` rows (with raw outputs) per run and stores verdicts, on SQLite (the
//! embedded default), MariaDB/MySQL and PostgreSQL through sqlx.
//!
//! It is deliberately thin: [`Store`] moves [`StoredRow`]s and verdicts; deciding verdicts is
//! groundcheck-core's job. JSON crosses the boundary as text, so the exact text the agent's
//! tools returned (numbers as written, member order) is what gets verified. Text that is not
//! valid UTF-8 is decoded with U+FFFD and the row is flagged (`invalid_utf8` of [`StoredRow::columns`]).
//!
//! Migrations live in `migrations/{sqlite,mysql,postgres}/` at the repository root and are
//! embedded by the build script, with the versions, descriptions and checksums
//! `sqlx::migrate!` would give (without building sqlx a second time for its macros). Their
//! history is kept in [`MIGRATIONS_TABLE`], never in sqlx's default table, which the agent's
//! own migrator may use. The agent's
//! `tool_invocation` is created when missing and never altered, and reading works before
//! anyone has migrated.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod dialect;
mod error;
mod holds;
mod keys;
mod lock;
mod open;
mod row;
mod schema;
mod store;
mod timestamp;
mod types;
mod url;
mod wait;

pub use crate::error::{ErrorKind, StoreError};
pub use crate::keys::{StoredOutcome, MAX_KEYS};
pub use crate::lock::{Notice, LOCK_TIMEOUT};
pub use crate::open::CONNECT_TIMEOUT;
pub use crate::row::{into_run, RowError, StoredRow};
pub use crate::schema::MIGRATIONS_TABLE;
pub use crate::store::{Checkpoint, JobProgress, RunKey, Scope, Store, StoredVerdict, Window};
pub use crate::timestamp::{to_rfc3339, to_stored, to_unix_nanos, TimestampError};
pub use crate::url::{redact, Engine};
pub use crate::wait::STATEMENT_TIMEOUT;
