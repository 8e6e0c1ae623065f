//! Which SQL types the store reads each column of the agent's table as, checked before any row
//! is read: agents declare `tool_invocation` their own way (`jsonb`, `NUMERIC`, `DECIMAL(12,0)`,
//! `DATETIME(6)`, `BIT(1)` …), and a column whose type cannot hold its value is an error that
//! names the table, the column and its type, never a row decoded wrong.
//!
//! Accepted on MariaDB/MySQL and PostgreSQL: JSON columns as JSON, JSONB, any text type
//! (`TEXT`, `LONGTEXT`, `VARCHAR`, `CHAR`) or any binary type (`BLOB`, `bytea`); integers as
//! any integer type or a `DECIMAL`/`NUMERIC` of scale 0 (PostgreSQL's unconstrained `NUMERIC`
//! too); booleans as `BOOLEAN`, any integer type (`TINYINT(1)`), `BIT(1)` or a scale-0
//! `DECIMAL`/`NUMERIC`; `created_at` as a date-time type (`DATETIME`, `TIMESTAMP`, PostgreSQL's
//! `timestamp` and `timestamptz`) or text. SQLite is dynamically typed: any
//! declared type is accepted and each value is read by the type it is stored as.
//!
//! A type says what a column can hold; each value read is then checked as every reader checks
//! it (`row.rs`, through the core's column table): an `INT` column's value past i32, which a
//! `BIGINT` declaration can hold, stops the read with an error naming the column.

/// What a column of the agent's table holds, and so which SQL types can hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Json,
    Integer,
    Boolean,
    Time,
}

/// The columns whose type is checked: `(table, column, kind)`. Text columns are not: any
/// type the server reads as text holds them.
pub(crate) const CHECKED: [(&str, &str, Kind); 12] = [
    ("tool_invocation", "id", Kind::Integer),
    ("tool_invocation", "step_id", Kind::Integer),
    ("tool_invocation", "input_params", Kind::Json),
    ("tool_invocation", "output_length", Kind::Integer),
    ("tool_invocation", "l0_match_count", Kind::Integer),
    ("tool_invocation", "l1_match_count", Kind::Integer),
    ("tool_invocation", "is_truncated", Kind::Boolean),
    ("tool_invocation", "retrieval_details", Kind::Json),
    ("tool_invocation", "duration_ms", Kind::Integer),
    ("tool_invocation", "success", Kind::Boolean),
    ("tool_invocation", "created_at", Kind::Time),
    ("tool_invocation_output", "raw_output", Kind::Json),
];

/// One column as the server's catalogue declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) table: String,
    pub(crate) column: String,
    /// The type's name alone, lower case: `decimal`, `character varying`, `timestamp with
    /// time zone`, `bit`.
    pub(crate) base: String,
    /// The type as declared, for the message: `decimal(12,2)`, `numeric(12,2)`, `bit(1)`.
    pub(crate) full: String,
    /// A `DECIMAL`/`NUMERIC`'s scale; `None` for other types and PostgreSQL's unconstrained
    /// `NUMERIC`.
    pub(crate) scale: Option<i64>,
}

impl Declared {
    /// Whether this is a binary type on PostgreSQL (`bytea`): a JSON column of that type is
    /// read as its bytes, not as `::text` (which would give its hex escape).
    pub(crate) fn bytea(&self) -> bool {
        self.base == "bytea"
    }
}

const INTEGERS: [&str; 9] =
    ["tinyint", "smallint", "mediumint", "int", "integer", "bigint", "int2", "int4", "int8"];

/// Whether `base` is a text type (`TEXT`, `LONGTEXT`, `VARCHAR`, `character varying`, …).
pub(crate) fn is_text(base: &str) -> bool {
    base.ends_with("text") || base.contains("char")
}

fn is_binary(base: &str) -> bool {
    base.ends_with("blob") || base == "bytea" || base.ends_with("binary")
}

fn is_integer(declared: &Declared) -> bool {
    INTEGERS.contains(&declared.base.as_str())
        || (matches!(declared.base.as_str(), "decimal" | "numeric") && declared.scale.unwrap_or(0) == 0)
}

/// `Ok` when `declared` can hold a value of `kind`; else the one-line message.
pub(crate) fn check(declared: &Declared, kind: Kind, postgres: bool) -> Result<(), String> {
    let base = declared.base.as_str();
    let (fits, needs) = match kind {
        Kind::Json => (
            matches!(base, "json" | "jsonb") || is_text(base) || is_binary(base),
            "a JSON column must be JSON, JSONB, a text type (TEXT, LONGTEXT, VARCHAR, CHAR) or a binary type \
             (BLOB, bytea)",
        ),
        Kind::Integer => (
            is_integer(declared),
            "an integer column must be an integer type or DECIMAL/NUMERIC with scale 0",
        ),
        Kind::Boolean => (
            matches!(base, "boolean" | "bool")
                || is_integer(declared)
                || (base == "bit" && declared.full.ends_with("(1)") || postgres && declared.full == "bit"),
            "a boolean column must be BOOLEAN, an integer type (TINYINT(1)), BIT(1) or DECIMAL/NUMERIC with \
             scale 0",
        ),
        Kind::Time => (
            matches!(base, "datetime" | "timestamp" | "timestamp without time zone" | "timestamp with time zone")
                || is_text(base),
            "a time column must be a date-time type (DATETIME, TIMESTAMP, timestamptz) or a text type holding \
             the time",
        ),
    };
    match fits {
        true => Ok(()),
        false => Err(format!(
            "{}.{} is {}: {needs}",
            declared.table,
            declared.column,
            declared.full.to_ascii_uppercase()
        )),
    }
}

/// The first of the checked columns in `found` whose type cannot hold its value.
pub(crate) fn first_misfit(found: &[Declared], postgres: bool) -> Option<String> {
    CHECKED.iter().find_map(|(table, column, kind)| {
        let declared = found.iter().find(|d| d.table == *table && d.column == *column)?;
        check(declared, *kind, postgres).err()
    })
}

/// MariaDB/MySQL's catalogue of the two tables, in this database.
pub(crate) const MYSQL_COLUMNS: &str = "SELECT CAST(table_name AS BINARY), CAST(column_name AS BINARY), \
    CAST(LOWER(data_type) AS BINARY), CAST(LOWER(column_type) AS BINARY), CAST(numeric_scale AS SIGNED) \
    FROM information_schema.columns WHERE table_schema = DATABASE() \
    AND table_name IN ('tool_invocation', 'tool_invocation_output')";

/// PostgreSQL's catalogue of the two tables the reads find on the search path (`to_regclass`),
/// a domain by its base type; a `numeric`'s scale from its type modifier (`-1`: unconstrained).
pub(crate) const POSTGRES_COLUMNS: &str = "SELECT c.relname::text, a.attname::text, \
    format_type(COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid), NULL), \
    format_type(COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid), \
        CASE WHEN ty.typbasetype <> 0 THEN ty.typtypmod ELSE a.atttypmod END), \
    CASE WHEN COALESCE(NULLIF(ty.typbasetype, 0), a.atttypid) = 'numeric'::regtype \
        AND (CASE WHEN ty.typbasetype <> 0 THEN ty.typtypmod ELSE a.atttypmod END) >= 4 \
        THEN ((CASE WHEN ty.typbasetype <> 0 THEN ty.typtypmod ELSE a.atttypmod END) - 4) & 65535 END::bigint \
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type ty ON ty.oid = a.atttypid \
    WHERE a.attrelid IN (to_regclass('tool_invocation'), to_regclass('tool_invocation_output')) \
    AND a.attnum > 0 AND NOT a.attisdropped";

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(column: &str, base: &str, full: &str, scale: Option<i64>) -> Declared {
        Declared {
            table: "tool_invocation".into(),
            column: column.into(),
            base: base.into(),
            full: full.into(),
            scale,
        }
    }

    #[test]
    fn agent_declared_types_are_accepted() {
        for (d, kind, pg) in [
            (declared("raw_output", "jsonb", "jsonb", None), Kind::Json, true),
            (declared("raw_output", "bytea", "bytea", None), Kind::Json, true),
            (declared("raw_output", "longtext", "longtext", None), Kind::Json, false),
            (declared("raw_output", "mediumblob", "mediumblob", None), Kind::Json, false),
            (declared("raw_output", "character varying", "character varying(200)", None), Kind::Json, true),
            (declared("output_length", "decimal", "decimal(12,0)", Some(0)), Kind::Integer, false),
            (declared("output_length", "numeric", "numeric", None), Kind::Integer, true),
            (declared("output_length", "int", "int(11)", None), Kind::Integer, false),
            (declared("success", "bit", "bit(1)", None), Kind::Boolean, false),
            (declared("success", "tinyint", "tinyint(1)", None), Kind::Boolean, false),
            (declared("success", "boolean", "boolean", None), Kind::Boolean, true),
            (
                declared("created_at", "timestamp with time zone", "timestamp(6) with time zone", None),
                Kind::Time,
                true,
            ),
            (declared("created_at", "datetime", "datetime(6)", None), Kind::Time, false),
            (declared("created_at", "varchar", "varchar(32)", None), Kind::Time, false),
        ] {
            assert_eq!(check(&d, kind, pg), Ok(()), "{d:?}");
        }
    }

    #[test]
    fn a_type_that_cannot_hold_the_value_is_named() {
        let d = declared("output_length", "decimal", "decimal(12,2)", Some(2));
        assert_eq!(
            check(&d, Kind::Integer, false).unwrap_err(),
            "tool_invocation.output_length is DECIMAL(12,2): an integer column must be an integer type or \
             DECIMAL/NUMERIC with scale 0"
        );
        assert!(check(&declared("created_at", "date", "date", None), Kind::Time, false).is_err());
        assert!(check(&declared("created_at", "date", "date", None), Kind::Time, true).is_err());
        assert!(check(&declared("input_params", "int", "int(11)", None), Kind::Json, false).is_err());
        assert!(check(&declared("success", "bit", "bit(8)", None), Kind::Boolean, false).is_err());
        assert!(check(&declared("success", "double", "double", None), Kind::Boolean, false).is_err());
    }
}
