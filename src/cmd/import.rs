//! `groundcheck import`: bundle files → the database.
//!
//! Everything is checked before anything is written, so a refused import leaves the database
//! as it was: ids repeated across the input, rows the table cannot hold (no session_id or
//! created_at), and ids already present with different content. Rows already present with
//! the same content are skipped: importing a file twice is a no-op.

use std::path::PathBuf;

use groundcheck_core::Bundle;
use groundcheck_store::StoredRow;

use crate::database;
use crate::failure::Failure;
use crate::load;

struct FileRows {
    file: PathBuf,
    rows: Vec<StoredRow>,
    present: usize,
}

pub async fn import(url: &str, paths: &[PathBuf], out: &mut Vec<u8>) -> Result<u8, Failure> {
    let mut files = Vec::new();
    let mut seen: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
    for path in paths {
        for file in load::bundle_files(path)? {
            let text = load::read_text(&file)?;
            let bundle =
                Bundle::parse(&text).map_err(|e| Failure::input(format!("{}: {e}", file.display())))?;
            let mut rows = Vec::with_capacity(bundle.invocations.len());
            for (i, inv) in bundle.invocations.iter().enumerate() {
                let place = format!("{}: $.invocations[{i}]", file.display());
                if let Some(first) = seen.insert(inv.id, place.clone()) {
                    return Err(Failure::input(format!("{place}.id: id {} is also used at {first}", inv.id)));
                }
                rows.push(
                    StoredRow::from_invocation(inv).map_err(|e| Failure::input(format!("{place}: {e}")))?,
                );
            }
            files.push(FileRows { file, rows, present: 0 });
        }
    }

    let store = database::open(url).await?;
    for file in &mut files {
        let mut new_rows = Vec::with_capacity(file.rows.len());
        for (i, row) in file.rows.drain(..).enumerate() {
            match store.read_row(row.id).await.map_err(database::failure)? {
                None => new_rows.push(row),
                Some(existing) if existing == row => file.present += 1,
                Some(_) => {
                    return Err(Failure::input(format!(
                        "{}: $.invocations[{i}].id: id {} already exists in {} with different content",
                        file.file.display(),
                        row.id,
                        store.display_url()
                    )))
                }
            }
        }
        file.rows = new_rows;
    }
    for file in &files {
        store.insert_rows(&file.rows).await.map_err(database::failure)?;
        let line = format!(
            "{}: {} imported, {} already present\n",
            file.file.display(),
            file.rows.len(),
            file.present
        );
        out.extend_from_slice(line.as_bytes());
    }
    store.close().await;
    Ok(0)
}
