//! The columns of the `tool_invocation` table, listed once: name, type and whether a row
//! must have it. Every reader of rows (a bundle file, a database, a binding's dict or JSON
//! text, an Arrow batch) asks this table what a column is and stores a value through
//! [`Invocation::set`], so a column, or a bound on one, is added in one place.

use crate::error::{Error, ErrorKind};
use crate::invocation::Invocation;
use crate::json::Json;

/// A column of the `tool_invocation` table (the seed's DDL), in the table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // Each variant is the column of the same name.
pub enum Column {
    Id,
    SessionId,
    RunId,
    StepId,
    ToolName,
    InputParams,
    OutputPreview,
    OutputLength,
    RetrievalLayer,
    L0MatchCount,
    L1MatchCount,
    IsTruncated,
    RelevanceLevel,
    DedupReason,
    RetrievalDetails,
    DurationMs,
    Success,
    ErrorMessage,
    CreatedAt,
}

/// What a column holds, as every reader checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// An integer within i64 (`BIGINT`).
    Bigint,
    /// An integer within i32 (`INT`), so that every database accepts it.
    Int,
    /// Text.
    Text,
    /// A JSON document (`JSON`, `JSONB`, or the column's JSON text).
    Json,
    /// A boolean (`BOOLEAN`, `TINYINT(1)`, `BIT(1)`).
    Boolean,
}

/// A value read for a column, before it is checked against the column's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// SQL `NULL`, JSON `null`, Python `None`: the column is absent.
    Null,
    /// A whole number.
    Integer(i64),
    /// Text.
    Text(String),
    /// A boolean.
    Bool(bool),
    /// A JSON document.
    Json(Json),
}

impl Column {
    /// Every column, in the table's order.
    pub const ALL: [Column; 19] = [
        Column::Id,
        Column::SessionId,
        Column::RunId,
        Column::StepId,
        Column::ToolName,
        Column::InputParams,
        Column::OutputPreview,
        Column::OutputLength,
        Column::RetrievalLayer,
        Column::L0MatchCount,
        Column::L1MatchCount,
        Column::IsTruncated,
        Column::RelevanceLevel,
        Column::DedupReason,
        Column::RetrievalDetails,
        Column::DurationMs,
        Column::Success,
        Column::ErrorMessage,
        Column::CreatedAt,
    ];

    /// The column's name in the table.
    pub const fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::SessionId => "session_id",
            Column::RunId => "run_id",
            Column::StepId => "step_id",
            Column::ToolName => "tool_name",
            Column::InputParams => "input_params",
            Column::OutputPreview => "output_preview",
            Column::OutputLength => "output_length",
            Column::RetrievalLayer => "retrieval_layer",
            Column::L0MatchCount => "l0_match_count",
            Column::L1MatchCount => "l1_match_count",
            Column::IsTruncated => "is_truncated",
            Column::RelevanceLevel => "relevance_level",
            Column::DedupReason => "dedup_reason",
            Column::RetrievalDetails => "retrieval_details",
            Column::DurationMs => "duration_ms",
            Column::Success => "success",
            Column::ErrorMessage => "error_message",
            Column::CreatedAt => "created_at",
        }
    }

    /// The column named `name`, if the table has one.
    pub fn named(name: &str) -> Option<Column> {
        Column::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// What the column holds. `created_at` is text: a time as the row gave it.
    pub const fn ty(self) -> ColumnType {
        match self {
            Column::Id | Column::StepId => ColumnType::Bigint,
            Column::OutputLength | Column::L0MatchCount | Column::L1MatchCount | Column::DurationMs => {
                ColumnType::Int
            }
            Column::InputParams | Column::RetrievalDetails => ColumnType::Json,
            Column::IsTruncated | Column::Success => ColumnType::Boolean,
            Column::SessionId
            | Column::RunId
            | Column::ToolName
            | Column::OutputPreview
            | Column::RetrievalLayer
            | Column::RelevanceLevel
            | Column::DedupReason
            | Column::ErrorMessage
            | Column::CreatedAt => ColumnType::Text,
        }
    }

    /// Whether every row must have it: `id` and `tool_name`.
    pub const fn required(self) -> bool {
        matches!(self, Column::Id | Column::ToolName)
    }

    /// `n` if the column can hold it, else the error a reader reports: `3000000000 is not
    /// an integer within INT (i32)`. Readers that meet the number as text (a bundle, a JSON
    /// row) give the text, so that a number past i64 is named as written.
    pub fn check_integer(self, n: i64) -> Result<i64, Error> {
        let (min, max) = self.bounds();
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(self.error(format!("{n} is not {}", self.ty().expected())))
        }
    }

    /// The smallest and largest integer the column holds (i64's own for a text column).
    fn bounds(self) -> (i64, i64) {
        match self.ty() {
            ColumnType::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
            _ => (i64::MIN, i64::MAX),
        }
    }

    /// The number written as `text` if it is an integer the column can hold (no fraction, no
    /// exponent), else the error naming the text.
    pub fn integer_text(self, text: &str) -> Result<i64, Error> {
        let (min, max) = self.bounds();
        text.parse::<i64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.error(format!("{text} is not {}", self.ty().expected())))
    }

    /// The error for a value of the wrong type, `found` saying what it is (`a string`):
    /// `must be true, false or null, not a string`.
    pub fn wrong_type(self, found: &str) -> Error {
        self.error(format!("must be {} or null, not {found}", self.ty().expected()))
    }

    /// A row's `problem` with this column.
    fn error(self, problem: String) -> Error {
        Error::new(ErrorKind::Row, problem).with_field(self.name())
    }
}

impl ColumnType {
    /// What a value of this type is, in the words of an error: `an integer within INT
    /// (i32)`, `a string`, `true, false`, `any JSON value`.
    pub fn expected(self) -> &'static str {
        match self {
            ColumnType::Bigint => "an integer within BIGINT (i64)",
            ColumnType::Int => "an integer within INT (i32)",
            ColumnType::Text => "a string",
            ColumnType::Json => "any JSON value",
            ColumnType::Boolean => "true, false",
        }
    }
}

impl Cell {
    /// What the cell holds, for an error about a value of the wrong type.
    fn what(&self) -> &'static str {
        match self {
            Cell::Null => "null",
            Cell::Integer(_) => "an integer",
            Cell::Text(_) => "a string",
            Cell::Bool(_) => "a boolean",
            Cell::Json(_) => "a JSON value",
        }
    }
}

impl Invocation {
    /// Stores `cell` in `column`, checked against the column's type: an integer within the
    /// column's bounds, text, a boolean or a JSON document; [`Cell::Null`] leaves an optional
    /// column absent and is an error for a required one. An error is of kind
    /// [`ErrorKind::Row`] and names the column ([`Error::field`]).
    pub fn set(&mut self, column: Column, cell: Cell) -> Result<(), Error> {
        let wrong = |cell: &Cell| column.wrong_type(cell.what());
        if cell == Cell::Null && column.required() {
            let kind = if column.ty() == ColumnType::Text { "string" } else { "integer" };
            return Err(column.error(format!("required {kind} is missing")));
        }
        match column.ty() {
            ColumnType::Bigint | ColumnType::Int => {
                let n = match cell {
                    Cell::Null => None,
                    Cell::Integer(n) => Some(column.check_integer(n)?),
                    other => return Err(wrong(&other)),
                };
                match column {
                    Column::Id => self.id = n.unwrap_or_default(),
                    Column::StepId => self.step_id = n,
                    Column::OutputLength => self.output_length = n,
                    Column::L0MatchCount => self.l0_match_count = n,
                    Column::L1MatchCount => self.l1_match_count = n,
                    _ => self.duration_ms = n,
                }
            }
            ColumnType::Text => {
                let text = match cell {
                    Cell::Null => None,
                    Cell::Text(text) => Some(text),
                    other => return Err(wrong(&other)),
                };
                let slot = match column {
                    Column::ToolName => {
                        self.tool_name = text.unwrap_or_default();
                        return Ok(());
                    }
                    Column::SessionId => &mut self.session_id,
                    Column::RunId => &mut self.run_id,
                    Column::OutputPreview => &mut self.output_preview,
                    Column::RetrievalLayer => &mut self.retrieval_layer,
                    Column::RelevanceLevel => &mut self.relevance_level,
                    Column::DedupReason => &mut self.dedup_reason,
                    Column::ErrorMessage => &mut self.error_message,
                    _ => &mut self.created_at,
                };
                *slot = text;
            }
            ColumnType::Boolean => {
                let b = match cell {
                    Cell::Null => None,
                    Cell::Bool(b) => Some(b),
                    other => return Err(wrong(&other)),
                };
                match column {
                    Column::IsTruncated => self.is_truncated = b,
                    _ => self.success = b,
                }
            }
            ColumnType::Json => {
                let doc = match cell {
                    Cell::Null => None,
                    Cell::Json(doc) => Some(doc),
                    other => return Err(wrong(&other)),
                };
                match column {
                    Column::InputParams => self.input_params = doc,
                    _ => self.retrieval_details = doc,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_is_named_once_and_found_by_its_name() {
        for column in Column::ALL {
            assert_eq!(Column::named(column.name()), Some(column));
        }
        let names: std::collections::HashSet<_> = Column::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Column::ALL.len());
        assert_eq!(Column::named("raw_output"), None, "an input beside the table, not a column");
    }

    #[test]
    fn a_value_is_stored_only_where_its_type_fits() {
        let mut inv = Invocation::default();
        inv.set(Column::OutputLength, Cell::Integer(42)).unwrap();
        inv.set(Column::Success, Cell::Bool(false)).unwrap();
        inv.set(Column::RunId, Cell::Text("r".into())).unwrap();
        inv.set(Column::RetrievalDetails, Cell::Json(Json::parse("{}").unwrap())).unwrap();
        assert_eq!(
            (inv.output_length, inv.success, inv.run_id.as_deref()),
            (Some(42), Some(false), Some("r"))
        );
        inv.set(Column::RunId, Cell::Null).unwrap();
        assert_eq!(inv.run_id, None);

        let big = inv.set(Column::OutputLength, Cell::Integer(3_000_000_000)).unwrap_err();
        assert_eq!(big.message(), "3000000000 is not an integer within INT (i32)");
        assert_eq!((big.kind(), big.field()), (ErrorKind::Row, Some("output_length")));
        let text = inv.set(Column::Success, Cell::Text("yes".into())).unwrap_err();
        assert_eq!(text.message(), "must be true, false or null, not a string");
        let missing = inv.set(Column::Id, Cell::Null).unwrap_err();
        assert_eq!(missing.message(), "required integer is missing");
        assert_eq!(inv.output_length, Some(42), "a refused value leaves the column as it was");
    }
}
