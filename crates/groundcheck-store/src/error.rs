//! The store's one error type. Messages never contain a database password.

use crate::url::{redact, scrub};

/// What went wrong talking to a database, with the (redacted) URL it concerns.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names no engine groundcheck supports.
    #[error("{url}: unsupported database URL (expected sqlite:, mysql:, mariadb: or postgres:)")]
    UnsupportedUrl {
        /// The redacted URL.
        url: String,
    },
    /// The database could not be reached or opened.
    #[error("{url}: cannot connect: {message}")]
    Connect {
        /// The redacted URL.
        url: String,
        /// The driver's reason, passwords scrubbed.
        message: String,
    },
    /// Applying the migrations failed.
    #[error("{url}: migration failed: {message}")]
    Migrate {
        /// The redacted URL.
        url: String,
        /// The driver's reason, passwords scrubbed.
        message: String,
    },
    /// A statement failed.
    #[error("{url}: {action}: {message}")]
    Query {
        /// The redacted URL.
        url: String,
        /// What was being done, e.g. `reading run run-001`.
        action: String,
        /// The driver's reason, passwords scrubbed.
        message: String,
    },
}

impl StoreError {
    pub(crate) fn connect(url: &str, err: impl std::fmt::Display) -> StoreError {
        StoreError::Connect { url: redact(url), message: scrub(&err.to_string(), url) }
    }

    pub(crate) fn migrate(url: &str, err: impl std::fmt::Display) -> StoreError {
        StoreError::Migrate { url: redact(url), message: scrub(&err.to_string(), url) }
    }

    pub(crate) fn query(url: &str, action: impl Into<String>, err: impl std::fmt::Display) -> StoreError {
        StoreError::Query { url: redact(url), action: action.into(), message: scrub(&err.to_string(), url) }
    }
}
