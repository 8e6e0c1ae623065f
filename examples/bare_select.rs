//! The floor `reverify` is measured against (`benches/reverify.sh`): one bare sqlx `SELECT`
//! of the same rows and columns `reverify` reads — every `tool_invocation` column and the
//! raw output, with the expressions the store reads them with on that engine — streamed and
//! decoded to bytes and integers, nothing else.
//!
//! ```sh
//! cargo run --release --example bare_select -- sqlite://groundcheck.db
//! cargo run --release --example bare_select -- postgres://user:pw@127.0.0.1:5432/db
//! ```
//! Prints `rows bytes seconds rows/s` on one line. `sqlite:`, `mysql:`/`mariadb:` and
//! `postgres:`/`postgresql:` URLs; `benches/reverify.sh` runs it against each engine.

use std::time::Instant;

use futures_util::{Stream, StreamExt};
use sqlx::{Connection, Database, Decode, Row, Type};

/// The columns `groundcheck-store` reads for a run (its `sqlite_select!`), over every row.
const SQLITE: &str = "SELECT t.id, t.session_id, t.run_id, t.step_id, t.tool_name, \
    CAST(t.input_params AS TEXT), t.output_preview, t.output_length, t.retrieval_layer, \
    t.l0_match_count, t.l1_match_count, t.is_truncated, t.relevance_level, t.dedup_reason, \
    CAST(t.retrieval_details AS TEXT), t.duration_ms, t.success, t.error_message, \
    CAST(t.created_at AS TEXT), o.raw_output \
    FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id";

/// The store's `mysql_select!` columns.
const MYSQL: &str = "SELECT t.id, t.session_id, t.run_id, t.step_id, t.tool_name, t.input_params, \
    t.output_preview, t.output_length, t.retrieval_layer, t.l0_match_count, t.l1_match_count, \
    t.is_truncated, t.relevance_level, t.dedup_reason, t.retrieval_details, t.duration_ms, t.success, \
    t.error_message, DATE_FORMAT(t.created_at, '%Y-%m-%d %H:%i:%s.%f'), o.raw_output \
    FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id";

/// The store's `postgres_select!(text, …)` columns, as it reads a UTF8 database: text as text,
/// integers as BIGINT.
const POSTGRES: &str = "SELECT t.id, t.session_id, t.run_id, t.step_id, t.tool_name, t.input_params::text, \
    t.output_preview, t.output_length::bigint, t.retrieval_layer, t.l0_match_count::bigint, \
    t.l1_match_count::bigint, t.is_truncated, t.relevance_level, t.dedup_reason, t.retrieval_details::text, \
    t.duration_ms::bigint, t.success, t.error_message, to_char(t.created_at, 'YYYY-MM-DD HH24:MI:SS.US'), \
    o.raw_output \
    FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id";

/// Text columns, by position: decoded as bytes, as the store does (without the driver's type
/// check, which refuses PostgreSQL's TEXT as bytes).
const TEXT: [usize; 12] = [1, 2, 4, 5, 6, 8, 12, 13, 14, 17, 18, 19];
/// Integer columns, by position.
const INTEGER: [usize; 6] = [0, 3, 7, 9, 10, 15];
/// Boolean columns, by position (integers in SQLite).
const BOOLEAN: [usize; 2] = [11, 16];

fn main() {
    let url = std::env::args().nth(1).unwrap_or_else(|| "sqlite://groundcheck.db".to_string());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let (rows, bytes, secs) = runtime.block_on(async {
        if url.starts_with("postgres") {
            let mut conn = sqlx::PgConnection::connect(&url).await.expect("the database opens");
            let start = Instant::now();
            let counted = count(sqlx::query(POSTGRES).fetch(&mut conn)).await;
            (counted.0, counted.1, start.elapsed().as_secs_f64())
        } else if url.starts_with("mysql") || url.starts_with("mariadb") {
            let url = url.replacen("mariadb:", "mysql:", 1);
            let mut conn = sqlx::MySqlConnection::connect(&url).await.expect("the database opens");
            let start = Instant::now();
            let counted = count(sqlx::query(MYSQL).fetch(&mut conn)).await;
            (counted.0, counted.1, start.elapsed().as_secs_f64())
        } else {
            let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("the database opens");
            let start = Instant::now();
            let counted = count(sqlx::query(SQLITE).fetch(&mut conn)).await;
            (counted.0, counted.1, start.elapsed().as_secs_f64())
        }
    });
    println!("{rows} {bytes} {secs:.3} {:.0}", rows as f64 / secs);
}

/// Streams every row, decoding each column as the store does: (rows, text bytes).
async fn count<DB, R, S>(mut stream: S) -> (u64, u64)
where
    DB: Database,
    R: Row<Database = DB>,
    S: Stream<Item = Result<R, sqlx::Error>> + Unpin,
    usize: sqlx::ColumnIndex<R>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    for<'r> bool: Decode<'r, DB> + Type<DB>,
    for<'r> Vec<u8>: Decode<'r, DB> + Type<DB>,
{
    let (mut rows, mut bytes) = (0u64, 0u64);
    while let Some(row) = stream.next().await {
        let row = row.expect("a row");
        for i in TEXT {
            let value: Option<Vec<u8>> = row.try_get_unchecked(i).expect("a text column");
            bytes += value.map_or(0, |v| v.len() as u64);
        }
        for i in INTEGER {
            let _: Option<i64> = row.try_get(i).expect("an integer column");
        }
        for i in BOOLEAN {
            let _: Option<bool> = row.try_get(i).expect("a boolean column");
        }
        rows += 1;
    }
    (rows, bytes)
}
