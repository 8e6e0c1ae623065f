//! The floor `reverify` is measured against (issue #5): one bare sqlx `SELECT` of the same
//! rows and columns `reverify` reads — every `tool_invocation` column and the raw output —
//! streamed and decoded to bytes and integers, nothing else.
//!
//! ```sh
//! cargo run --release --example bare_select -- sqlite://groundcheck.db
//! ```
//! Prints `rows bytes seconds rows/s` on one line. SQLite only: the comparison script
//! (`benches/reverify.sh`) runs on the embedded default, as the target in the issue names.

use std::time::Instant;

use futures_util::StreamExt;
use sqlx::{Connection, Row};

/// The columns `groundcheck-store` reads for a run (its `sqlite_select!`), over every row.
const SELECT: &str = "SELECT t.id, t.session_id, t.run_id, t.step_id, t.tool_name, \
    CAST(t.input_params AS TEXT), t.output_preview, t.output_length, t.retrieval_layer, \
    t.l0_match_count, t.l1_match_count, t.is_truncated, t.relevance_level, t.dedup_reason, \
    CAST(t.retrieval_details AS TEXT), t.duration_ms, t.success, t.error_message, \
    CAST(t.created_at AS TEXT), o.raw_output \
    FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id";

/// Text columns, by position: decoded as bytes, as the store does.
const TEXT: [usize; 12] = [1, 2, 4, 5, 6, 8, 12, 13, 14, 17, 18, 19];
/// Integer columns, by position (booleans are integers in SQLite).
const INTEGER: [usize; 8] = [0, 3, 7, 9, 10, 11, 15, 16];

fn main() {
    let url = std::env::args().nth(1).unwrap_or_else(|| "sqlite://groundcheck.db".to_string());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let (rows, bytes, secs) = runtime.block_on(async {
        let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("the database opens");
        let start = Instant::now();
        let (mut rows, mut bytes) = (0u64, 0u64);
        let mut stream = sqlx::query(SELECT).fetch(&mut conn);
        while let Some(row) = stream.next().await {
            let row = row.expect("a row");
            for i in TEXT {
                let value: Option<Vec<u8>> = row.try_get(i).expect("a text column");
                bytes += value.map_or(0, |v| v.len() as u64);
            }
            for i in INTEGER {
                let _: Option<i64> = row.try_get(i).expect("an integer column");
            }
            rows += 1;
        }
        (rows, bytes, start.elapsed().as_secs_f64())
    });
    println!("{rows} {bytes} {secs:.3} {:.0}", rows as f64 / secs);
}
