//! A `tool_invocation` row (with its raw output) as the database holds it, and the two ways
//! across: from a core [`Invocation`] for writing, into one for verifying.

use groundcheck_core::{Cell, Column, ColumnType, Invocation, Json, RawOutput, Run};
use sqlx::mysql::MySqlRow;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::timestamp;

/// One row's values exactly as stored: every column as the core holds it, but the JSON
/// columns, kept as their text (parsed only when the row becomes an [`Invocation`], on the
/// threads that verify it), and `created_at`, in stored form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRow {
    /// The row's columns, read through the core's column table ([`Column`],
    /// [`Invocation::set`]): `session_id` and `created_at` always set (the table requires
    /// them), `created_at` in stored form (UTC, `YYYY-MM-DD HH:MM:SS.ffffff`), no JSON column
    /// nor raw output (they are the fields beside it), and `invalid_utf8` set when some text
    /// column was not valid UTF-8 and was decoded with U+FFFD.
    pub columns: Invocation,
    /// JSON text; required by the `tool_invocation` table, so an absent value is stored as
    /// `null`.
    pub input_params: String,
    /// JSON text of the claim.
    pub retrieval_details: Option<String>,
    /// `tool_invocation_output.raw_output`, when there is one.
    pub raw_output: Option<String>,
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

/// The index of the raw output in a dialect's invocation select: after every column.
const RAW_OUTPUT: usize = Column::ALL.len();

impl StoredRow {
    /// The bytes of the row's long texts (`input_params`, `retrieval_details`,
    /// `output_preview`, `error_message`; not the raw output, which has a table of its own):
    /// what an insert of the row carries beside a few short values, for the bounds on a
    /// statement's size (`max_allowed_packet`).
    pub fn text_bytes(&self) -> u64 {
        let texts = [
            Some(&self.input_params),
            self.retrieval_details.as_ref(),
            self.columns.output_preview.as_ref(),
            self.columns.error_message.as_ref(),
        ];
        texts.iter().flatten().map(|t| t.len() as u64).sum()
    }

    /// The row an invocation is stored as. Inline `raw_output` is stored as its compact JSON
    /// text, numbers as written.
    pub fn from_invocation(inv: &Invocation) -> Result<StoredRow, RowError> {
        let created_at = inv.created_at.as_deref().ok_or(RowError::MissingCreatedAt)?;
        if inv.session_id.is_none() {
            return Err(RowError::MissingSessionId);
        }
        // The raw output is cloned with the rest and dropped at once: it is taken as text.
        let columns = Invocation {
            created_at: Some(timestamp::to_stored(created_at)?),
            input_params: None,
            retrieval_details: None,
            raw_output: None,
            raw_output_file: None,
            invalid_utf8: false,
            ..inv.clone()
        };
        Ok(StoredRow {
            columns,
            input_params: inv.input_params.as_ref().map_or_else(|| "null".to_string(), Json::to_json_string),
            retrieval_details: inv.retrieval_details.as_ref().map(Json::to_json_string),
            raw_output: inv.raw_output.as_ref().map(|raw| match raw {
                RawOutput::Json(doc) => doc.to_json_string(),
                RawOutput::Text(text) => text.clone(),
                RawOutput::Shared(text) => text.to_string(),
            }),
        })
    }

    /// The invocation verification sees. A JSON column holding text that is not JSON (possible
    /// where nothing checks it, e.g. SQLite) becomes a JSON string of that text, so the claim
    /// reads as `malformed_details` instead of failing the row.
    pub fn into_invocation(self) -> Invocation {
        let mut inv = self.columns;
        inv.input_params = Json::from_column(&self.input_params);
        inv.retrieval_details = self.retrieval_details.as_deref().and_then(Json::from_column);
        inv.created_at = inv.created_at.map(|stored| timestamp::to_rfc3339(&stored));
        inv.raw_output = self.raw_output.map(RawOutput::Text);
        inv
    }

    /// Decodes a row selected with a dialect's invocation columns: the core's columns in
    /// their order ([`Column::ALL`]), then the raw output. Each is read by the type the core
    /// gives it and stored through [`Invocation::set`], so a text, integer or boolean column
    /// the core adds is read here with no change. Text is read as bytes (see [`TextColumns`]);
    /// booleans arrive as integers (MariaDB and PostgreSQL cast them, so that `TINYINT(1)`,
    /// `BIT(1)` and integer columns read alike; SQLite stores them so): any value but 0 is
    /// true. An integer the column cannot hold is an error naming it, as from every reader.
    pub(crate) fn decode<R>(row: &R) -> Result<StoredRow, sqlx::Error>
    where
        R: TextColumns,
        usize: ColumnIndex<R>,
        for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
    {
        let mut lossy = false;
        let mut text = |i: usize| -> Result<Option<String>, sqlx::Error> {
            Ok(row.bytes(i)?.map(|b| lossy_text(b, &mut lossy)))
        };
        let decode_error = |column: Column, what: &dyn std::fmt::Display| {
            sqlx::Error::Decode(format!("{}: {what}", column.name()).into())
        };
        let mut stored = StoredRow {
            columns: Invocation::default(),
            input_params: String::new(),
            retrieval_details: None,
            raw_output: None,
        };
        for (i, column) in Column::ALL.into_iter().enumerate() {
            let cell = match column.ty() {
                ColumnType::Bigint | ColumnType::Int => row.try_get::<Option<i64>, _>(i)?.map(Cell::Integer),
                ColumnType::Boolean => row.try_get::<Option<i64>, _>(i)?.map(|v| Cell::Bool(v != 0)),
                ColumnType::Text | ColumnType::Json => text(i)?.map(Cell::Text),
            };
            // The table's NOT NULL columns: the core requires only `id` and `tool_name`.
            if cell.is_none()
                && (column.required() || matches!(column, Column::SessionId | Column::CreatedAt))
            {
                return Err(sqlx::Error::Decode(format!("{} is NULL", column.name()).into()));
            }
            match (column, cell) {
                (Column::InputParams, cell) => {
                    stored.input_params = match cell {
                        Some(Cell::Text(json)) => json,
                        _ => "null".to_string(),
                    }
                }
                (Column::RetrievalDetails, Some(Cell::Text(json))) => stored.retrieval_details = Some(json),
                (column, cell) => stored
                    .columns
                    .set(column, cell.unwrap_or(Cell::Null))
                    .map_err(|e| decode_error(column, &e.message()))?,
            }
        }
        stored.raw_output = text(RAW_OUTPUT)?;
        stored.columns.invalid_utf8 = lossy;
        Ok(stored)
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

#[cfg(test)]
mod tests {
    use sqlx::sqlite::SqlitePoolOptions;

    use super::*;

    /// Decodes the row SQLite selects for `values`, the columns in the table's order and then
    /// the raw output, as a dialect's invocation select gives them.
    fn decode(values: &str) -> Result<StoredRow, String> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(async {
            let pool = SqlitePoolOptions::new().connect("sqlite::memory:").await.expect("SQLite in memory");
            let select = format!("SELECT {values}");
            let row = sqlx::query(sqlx::AssertSqlSafe(select)).fetch_one(&pool).await.expect("a row");
            StoredRow::decode(&row).map_err(|e| e.to_string())
        })
    }

    const FULL: &str = r#"7, 's', 'r', 2, 'q', '{"k":1}', 'pre', 12, 'L0', 3, 4, 1, 'PRECISE', 'doc',
        '{"evidence_refs":[]}', 99, 0, 'err', '2026-11-30 10:00:01.000000', '{"m": "x"}'"#;

    #[test]
    fn every_column_is_read_by_the_type_the_core_gives_it() {
        let read = decode(FULL).expect("decodes");
        let inv = Invocation {
            id: 7,
            session_id: Some("s".into()),
            run_id: Some("r".into()),
            step_id: Some(2),
            tool_name: "q".into(),
            input_params: Json::parse(r#"{"k": 1}"#).ok(),
            output_preview: Some("pre".into()),
            output_length: Some(12),
            retrieval_layer: Some("L0".into()),
            l0_match_count: Some(3),
            l1_match_count: Some(4),
            is_truncated: Some(true),
            relevance_level: Some("PRECISE".into()),
            dedup_reason: Some("doc".into()),
            retrieval_details: Json::parse(r#"{"evidence_refs": []}"#).ok(),
            duration_ms: Some(99),
            success: Some(false),
            error_message: Some("err".into()),
            created_at: Some("2026-11-30T10:00:01Z".into()),
            raw_output: Some(RawOutput::Text(r#"{"m": "x"}"#.into())),
            ..Invocation::default()
        };
        assert_eq!(read, StoredRow::from_invocation(&inv).expect("a row"));
        assert_eq!(read.clone().into_invocation().created_at.as_deref(), Some("2026-11-30T10:00:01Z"));
        let bare = decode(
            "7, 's', NULL, NULL, 'q', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
             NULL, NULL, NULL, '2026-11-30 10:00:01.000000', NULL",
        )
        .expect("decodes");
        assert_eq!((bare.input_params.as_str(), bare.columns.success, bare.raw_output), ("null", None, None));
    }

    #[test]
    fn a_value_the_column_cannot_hold_names_the_column() {
        // INT columns hold an i32 in every reader: a bundle, a binding's row, an Arrow batch.
        let big = FULL.replacen(", 12,", ", 3000000000,", 1);
        let e = decode(&big).expect_err("past INT");
        assert!(e.ends_with("output_length: 3000000000 is not an integer within INT (i32)"), "{e}");
        let null = FULL.replacen("'q'", "NULL", 1);
        assert!(decode(&null).expect_err("NOT NULL").ends_with("tool_name is NULL"));
        let null = FULL.replacen("'s'", "NULL", 1);
        assert!(decode(&null).expect_err("NOT NULL").ends_with("session_id is NULL"));
    }
}
