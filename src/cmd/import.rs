//! `groundcheck import`: bundle files → the database.
//!
//! Everything is checked before anything is written, so a refused import leaves the database
//! as it was: ids repeated across the input, rows the table cannot hold (no session_id or
//! created_at), and ids already present with different content. Rows already present with
//! the same content are skipped: importing a file twice is a no-op. A `tool_invocation`
//! without the seed's V010 columns (an older agent schema) takes rows that have no value there.
//!
//! Each file is one transaction. When one fails (a full disk, a lost connection) the line
//! names it and the files committed before it, which stay: importing the same PATHs again
//! skips their rows.

use std::path::PathBuf;

use groundcheck_core::Invocation;
use groundcheck_store::{RowError, StoredRow};

use crate::database;
use crate::failure::{display, Failure};
use crate::load;
use crate::output::Output;

struct FileRows {
    file: PathBuf,
    rows: Vec<StoredRow>,
    present: usize,
}

/// Imports every bundle the PATHs name, printing one line per file.
pub async fn import(
    url: &str,
    paths: &[PathBuf],
    max: load::MaxBytes,
    out: &mut Output,
) -> Result<u8, Failure> {
    let inputs = load::inputs(paths)?;
    let mut files = Vec::new();
    let mut seen: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
    for file in inputs.files {
        let bundle = load::read_bundle(&file, max)?;
        let mut rows = Vec::with_capacity(bundle.invocations.len());
        for (i, inv) in bundle.invocations.iter().enumerate() {
            let place = format!("{}: $.invocations[{i}]", display(&file));
            if let Some(first) = seen.insert(inv.id, place.clone()) {
                return Err(Failure::input(format!("{place}.id: id {} is also used at {first}", inv.id)));
            }
            rows.push(stored_row(inv, &place)?);
        }
        files.push(FileRows { file, rows, present: 0 });
    }

    let store = database::open(url).await?;
    let missing = store.missing_columns().await.map_err(database::failure)?;
    let max_statement = store.max_statement_bytes().await.map_err(database::failure)?;
    for file in &files {
        check_columns(file, &missing, &store.display_url())?;
        if let Some(max) = max_statement {
            check_statement_size(file, max, &store.display_url())?;
        }
    }
    for file in &mut files {
        let ids: Vec<i64> = file.rows.iter().map(|row| row.columns.id).collect();
        let stored = store.read_rows(&ids).await.map_err(database::failure)?;
        let mut new_rows = Vec::with_capacity(file.rows.len());
        for (i, row) in file.rows.drain(..).enumerate() {
            match stored.get(&row.columns.id) {
                None => new_rows.push(row),
                Some(existing) if *existing == row => file.present += 1,
                Some(_) => {
                    return Err(Failure::input(format!(
                        "{}: $.invocations[{i}].id: id {} already exists in {} with different content",
                        display(&file.file),
                        row.columns.id,
                        store.display_url()
                    )))
                }
            }
        }
        file.rows = new_rows;
    }
    for (done, file) in files.iter().enumerate() {
        if let Err(e) = store.insert_rows(&file.rows).await {
            let committed: Vec<String> = files[..done].iter().map(|f| display(&f.file)).collect();
            return Err(failed_file(&display(&file.file), &committed, database::failure(e)));
        }
        let line = format!(
            "{}: {} imported, {} already present\n",
            display(&file.file),
            file.rows.len(),
            file.present
        );
        out.head.extend_from_slice(line.as_bytes());
    }
    store.close().await;
    out.notes.extend(inputs.notes);
    Ok(0)
}

/// Refuses a file with a value in a column the database's `tool_invocation` lacks: it could
/// not be stored, and dropping it would change the row.
fn check_columns(file: &FileRows, missing: &[&str], url: &str) -> Result<(), Failure> {
    for (i, row) in file.rows.iter().enumerate() {
        for (column, value) in
            [("relevance_level", &row.columns.relevance_level), ("dedup_reason", &row.columns.dedup_reason)]
        {
            if value.is_some() && missing.contains(&column) {
                return Err(Failure::input(format!(
                    "{}: $.invocations[{i}].{column}: the tool_invocation table of {url} has no such column \
                     (an agent schema older than the seed's V010); leave it out of the bundle or add the column",
                    display(&file.file)
                )));
            }
        }
    }
    Ok(())
}

/// What a statement holds beside its values (the SQL, the packet's framing), with room.
const STATEMENT_OVERHEAD: u64 = 64 * 1024;

/// Refuses a file with a row too large for one statement on a MariaDB/MySQL server: the
/// server would drop the connection mid-import, which reads as "connection reset". Names the
/// server variable and the size it needs.
fn check_statement_size(file: &FileRows, max: u64, url: &str) -> Result<(), Failure> {
    for (i, row) in file.rows.iter().enumerate() {
        let row_bytes = row.text_bytes() + STATEMENT_OVERHEAD;
        let raw_bytes = row.raw_output.as_ref().map_or(0, |r| r.len() as u64 + STATEMENT_OVERHEAD);
        let (what, bytes) =
            if raw_bytes > row_bytes { ("raw output", raw_bytes) } else { ("row", row_bytes) };
        if bytes > max {
            const MIB: u64 = 1024 * 1024;
            let needed = bytes.div_ceil(MIB) * MIB;
            return Err(Failure::input(format!(
                "{}: $.invocations[{i}]: its {what} takes {bytes} bytes in one statement, more than the server's \
                 max_allowed_packet ({max} bytes) of {url} allows (it would drop the connection); raise it to at \
                 least {needed} (SET GLOBAL max_allowed_packet = {needed}, or max_allowed_packet = {}M under \
                 [mysqld]) and import again; nothing was imported",
                display(&file.file),
                needed / MIB
            )));
        }
    }
    Ok(())
}

/// The line for a file whose transaction failed: the store's error, then which file it was
/// and which were committed before it (all of them up to ten, else the first and last three).
fn failed_file(file: &str, committed: &[String], failure: Failure) -> Failure {
    let before = match committed.len() {
        0 => "no file was committed before it".to_string(),
        n if n <= 10 => format!("committed before it: {}", committed.join(", ")),
        n => format!(
            "committed before it: {n} files, {} … {}",
            committed[..3].join(", "),
            committed[n - 3..].join(", ")
        ),
    };
    let again = match committed.is_empty() {
        true => "",
        false => "; importing the same PATHs again skips their rows",
    };
    Failure::input(format!(
        "{}; {file} was not imported (none of its rows were written); {before}{again}",
        failure.message
    ))
}

/// The row an invocation is stored as; `place` names it in the file (`FILE: $.invocations[i]`).
/// A column the table cannot do without is named at its own place, with where to set it.
fn stored_row(inv: &Invocation, place: &str) -> Result<StoredRow, Failure> {
    StoredRow::from_invocation(inv).map_err(|e| {
        let missing = |column: &str, also: &str| {
            format!(
                "{place}.{column}: missing, and the tool_invocation table requires it \
                 (give it on the invocation{also})"
            )
        };
        Failure::input(match e {
            RowError::MissingSessionId => missing("session_id", " or at the top of the bundle"),
            RowError::MissingCreatedAt => missing("created_at", ", as an RFC 3339 time"),
            other => format!("{place}.created_at: {other}"),
        })
    })
}
