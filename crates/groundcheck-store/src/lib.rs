//! groundcheck-store connects groundcheck to the agent's database: it reads
//! `tool_invocation` rows (with raw outputs) per run and stores verdicts, on SQLite (the
//! embedded default), MariaDB/MySQL and PostgreSQL through sqlx.
//!
//! It is deliberately thin: [`Store`] moves [`StoredRow`]s and verdicts; deciding verdicts is
//! groundcheck-core's job. JSON crosses the boundary as text, so the exact text the agent's
//! tools returned (numbers as written, member order) is what gets verified. Text that is not
//! valid UTF-8 is decoded with U+FFFD and the row is flagged ([`StoredRow::invalid_utf8`]).
//!
//! Migrations live in `migrations/{sqlite,mysql,postgres}/` at the repository root and are
//! embedded with `sqlx::migrate!`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod dialect;
mod error;
mod keys;
mod open;
mod row;
mod store;
mod timestamp;
mod url;

pub use crate::error::{ErrorKind, StoreError};
pub use crate::keys::MAX_KEYS;
pub use crate::open::CONNECT_TIMEOUT;
pub use crate::row::{into_run, RowError, StoredRow};
pub use crate::store::{Checkpoint, JobProgress, RunKey, Store, StoredVerdict, Window};
pub use crate::timestamp::{to_rfc3339, to_stored, to_unix_nanos, TimestampError};
pub use crate::url::{redact, Engine};
