//! `groundcheck export`: runs from the database → bundle files.

use std::path::Path;

use groundcheck_core::Bundle;

use groundcheck_store::RunKey;

use crate::cmd::run::read_runs;
use crate::database;
use crate::failure::Failure;

pub async fn export(url: &str, keys: &[RunKey], dir: &Path, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let store = database::open_read_only(url).await?;
    // Read everything first: a missing run writes no file at all.
    let runs = read_runs(&store, keys).await?;
    store.close().await;
    let mut files: Vec<(std::path::PathBuf, String)> = Vec::with_capacity(runs.len());
    for (key, run) in keys.iter().zip(runs) {
        let (name, what) = match key {
            RunKey::Run(id) => (file_name(id), format!("run {id}")),
            RunKey::Session(id) => (format!("session-{}", file_name(id)), format!("session {id}")),
        };
        let path = dir.join(format!("{name}.json"));
        if files.iter().any(|(p, _)| *p == path) {
            return Err(Failure::input(format!(
                "{}: {what} would overwrite a file this export already writes; export it separately",
                path.display()
            )));
        }
        let bundle = Bundle { run_id: run.run_id, session_id: run.session_id, invocations: run.invocations };
        files.push((path, bundle.to_json_string()));
    }
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir, &e))?;
    for (path, text) in files {
        std::fs::write(&path, text).map_err(|e| Failure::io(&path, &e))?;
        out.extend_from_slice(format!("{}\n", path.display()).as_bytes());
    }
    Ok(0)
}

/// A file name for a run id: letters, digits, `.`, `_`, `-` kept, everything else `_`.
fn file_name(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("_{name}")
    } else {
        name
    }
}
