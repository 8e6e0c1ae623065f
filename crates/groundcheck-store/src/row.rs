//! A `tool_invocation` row (with its raw output) as the database holds it, and the two ways
//! across: from a core [`Invocation`] for writing, into one for verifying.

use groundcheck_core::{Invocation, Json, RawOutput, Run};
use sqlx::mysql::MySqlRow;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::timestamp;

/// One row's values exactly as stored: JSON columns as text, `created_at` in stored form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRow {
    /// Primary key.
    pub id: i64,
    /// Required by the `tool_invocation` table.
    pub session_id: String,
    /// The run, if any.
    pub run_id: Option<String>,
    /// The agent step.
    pub step_id: Option<i64>,
    /// Required by the `tool_invocation` table.
    pub tool_name: String,
    /// JSON text; required by the `tool_invocation` table, so an absent value is stored as
    /// `null`.
    pub input_params: String,
    /// Output summary.
    pub output_preview: Option<String>,
    /// Output length in characters.
    pub output_length: Option<i64>,
    /// RAG layer.
    pub retrieval_layer: Option<String>,
    /// L0 hits.
    pub l0_match_count: Option<i64>,
    /// L1 hits.
    pub l1_match_count: Option<i64>,
    /// Preview truncated.
    pub is_truncated: Option<bool>,
    /// Relevance level (V010).
    pub relevance_level: Option<String>,
    /// Dedup reason (V010).
    pub dedup_reason: Option<String>,
    /// JSON text of the claim.
    pub retrieval_details: Option<String>,
    /// Tool latency.
    pub duration_ms: Option<i64>,
    /// Tool success.
    pub success: Option<bool>,
    /// Failure reason.
    pub error_message: Option<String>,
    /// UTC, `YYYY-MM-DD HH:MM:SS.ffffff`.
    pub created_at: String,
    /// `tool_invocation_output.raw_output`, when there is one.
    pub raw_output: Option<String>,
    /// Some text column was not valid UTF-8 and was decoded with U+FFFD.
    pub invalid_utf8: bool,
}

/// Why an invocation cannot become a row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// The `tool_invocation` table requires a `session_id`.
    #[error("session_id is missing: the tool_invocation table requires it")]
    MissingSessionId,
    /// The `tool_invocation` table requires a `created_at`.
    #[error("created_at is missing: the tool_invocation table requires it")]
    MissingCreatedAt,
    /// `created_at` is not a date-time.
    #[error(transparent)]
    CreatedAt(#[from] timestamp::TimestampError),
}

impl StoredRow {
    /// The row an invocation is stored as. Inline `raw_output` is stored as its compact JSON
    /// text, numbers as written.
    pub fn from_invocation(inv: &Invocation) -> Result<StoredRow, RowError> {
        let created_at = inv.created_at.as_deref().ok_or(RowError::MissingCreatedAt)?;
        Ok(StoredRow {
            id: inv.id,
            session_id: inv.session_id.clone().ok_or(RowError::MissingSessionId)?,
            run_id: inv.run_id.clone(),
            step_id: inv.step_id,
            tool_name: inv.tool_name.clone(),
            input_params: inv.input_params.as_ref().map_or_else(|| "null".to_string(), Json::to_json_string),
            output_preview: inv.output_preview.clone(),
            output_length: inv.output_length,
            retrieval_layer: inv.retrieval_layer.clone(),
            l0_match_count: inv.l0_match_count,
            l1_match_count: inv.l1_match_count,
            is_truncated: inv.is_truncated,
            relevance_level: inv.relevance_level.clone(),
            dedup_reason: inv.dedup_reason.clone(),
            retrieval_details: inv.retrieval_details.as_ref().map(Json::to_json_string),
            duration_ms: inv.duration_ms,
            success: inv.success,
            error_message: inv.error_message.clone(),
            created_at: timestamp::to_stored(created_at)?,
            raw_output: inv.raw_output.as_ref().map(|raw| match raw {
                RawOutput::Json(doc) => doc.to_json_string(),
                RawOutput::Text(text) => text.clone(),
                RawOutput::Shared(text) => text.to_string(),
            }),
            invalid_utf8: false,
        })
    }

    /// The invocation verification sees. A JSON column holding text that is not JSON (possible
    /// where nothing checks it, e.g. SQLite) becomes a JSON string of that text, so the claim
    /// reads as `malformed_details` instead of failing the row.
    pub fn into_invocation(self) -> Invocation {
        let json_column = |text: Option<&str>| text.and_then(Json::from_column);
        Invocation {
            id: self.id,
            input_params: json_column(Some(&self.input_params)),
            retrieval_details: json_column(self.retrieval_details.as_deref()),
            created_at: Some(timestamp::to_rfc3339(&self.created_at)),
            raw_output: self.raw_output.map(RawOutput::Text),
            raw_output_file: None,
            session_id: Some(self.session_id),
            run_id: self.run_id,
            step_id: self.step_id,
            tool_name: self.tool_name,
            output_preview: self.output_preview,
            output_length: self.output_length,
            retrieval_layer: self.retrieval_layer,
            l0_match_count: self.l0_match_count,
            l1_match_count: self.l1_match_count,
            is_truncated: self.is_truncated,
            relevance_level: self.relevance_level,
            dedup_reason: self.dedup_reason,
            duration_ms: self.duration_ms,
            success: self.success,
            error_message: self.error_message,
            invalid_utf8: self.invalid_utf8,
        }
    }

    /// Decodes a row selected with a dialect's invocation columns, in their order. Booleans
    /// arrive as integers (MariaDB and PostgreSQL cast them, so that `TINYINT(1)`, `BIT(1)` and
    /// integer columns read alike; SQLite stores them so): any value but 0 is true.
    pub(crate) fn decode<R>(row: &R) -> Result<StoredRow, sqlx::Error>
    where
        R: TextColumns,
        usize: ColumnIndex<R>,
        for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
    {
        let flag = |i: usize| -> Result<Option<bool>, sqlx::Error> {
            Ok(row.try_get::<Option<i64>, _>(i)?.map(|v| v != 0))
        };
        let mut lossy = false;
        let mut text = |i: usize| -> Result<Option<String>, sqlx::Error> {
            Ok(row.bytes(i)?.map(|b| lossy_text(b, &mut lossy)))
        };
        let required = |value: Option<String>, column: &str| {
            value.ok_or_else(|| sqlx::Error::Decode(format!("{column} is NULL").into()))
        };
        let session_id = required(text(1)?, "session_id")?;
        let run_id = text(2)?;
        let tool_name = required(text(4)?, "tool_name")?;
        let input_params = text(5)?.unwrap_or_else(|| "null".to_string());
        let output_preview = text(6)?;
        let retrieval_layer = text(8)?;
        let relevance_level = text(12)?;
        let dedup_reason = text(13)?;
        let retrieval_details = text(14)?;
        let error_message = text(17)?;
        let created_at = required(text(18)?, "created_at")?;
        let raw_output = text(19)?;
        Ok(StoredRow {
            id: row.try_get(0)?,
            session_id,
            run_id,
            step_id: row.try_get(3)?,
            tool_name,
            input_params,
            output_preview,
            output_length: row.try_get(7)?,
            retrieval_layer,
            l0_match_count: row.try_get(9)?,
            l1_match_count: row.try_get(10)?,
            is_truncated: flag(11)?,
            relevance_level,
            dedup_reason,
            retrieval_details,
            duration_ms: row.try_get(15)?,
            success: flag(16)?,
            error_message,
            created_at,
            raw_output,
            invalid_utf8: lossy,
        })
    }
}

/// `bytes` as text, owned: U+FFFD for what is not UTF-8, and `lossy` set. Checked with
/// `simdutf8` (SIMD, chosen at run time), which the reader does for every byte of every row;
/// only text that fails it is decoded again, by the standard library's lossy decoder.
pub(crate) fn lossy_text(bytes: &[u8], lossy: &mut bool) -> String {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => {
            *lossy = true;
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

/// A row whose text columns are read as the bytes the database sent, borrowed from the row,
/// so that text that is not UTF-8 is seen (and flagged), not refused by the driver.
pub(crate) trait TextColumns: Row {
    /// Column `i` as bytes; `None` for NULL.
    fn bytes(&self, i: usize) -> Result<Option<&[u8]>, sqlx::Error>;
}

impl TextColumns for SqliteRow {
    fn bytes(&self, i: usize) -> Result<Option<&[u8]>, sqlx::Error> {
        self.try_get(i)
    }
}

impl TextColumns for MySqlRow {
    fn bytes(&self, i: usize) -> Result<Option<&[u8]>, sqlx::Error> {
        self.try_get(i)
    }
}

/// PostgreSQL sends every column of a prepared statement's rows in binary form: a TEXT value
/// as its bytes in the client encoding, which the store checked is UTF8 (`open.rs`; the
/// server converts to it, or fails the statement for bytes its own encoding does not hold),
/// a BYTEA value (`convert_to(…, 'UTF8')`, the select of any other database) as its bytes.
/// Both read alike; only the driver's type check, which refuses TEXT as bytes, is skipped.
impl TextColumns for PgRow {
    fn bytes(&self, i: usize) -> Result<Option<&[u8]>, sqlx::Error> {
        self.try_get_unchecked(i)
    }
}

/// A run's rows, in `id` order, as the core's [`Run`]; its session is the first row's, as a
/// database has no file order to take it from. `None` for no rows: an empty run does not exist.
pub fn into_run(rows: Vec<StoredRow>) -> Option<Run> {
    let invocations: Vec<Invocation> = rows.into_iter().map(StoredRow::into_invocation).collect();
    let first = invocations.first()?;
    Some(Run { run_id: first.run_id.clone(), session_id: first.session_id.clone(), invocations })
}
