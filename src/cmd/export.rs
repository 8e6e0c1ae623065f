//! `groundcheck export`: runs from the database → bundle files.
//!
//! With `--raw-outputs TEMPLATE`, a row without a raw output of its own gets its file's text,
//! read as `verify` and `run` read it (beneath the template's root, decompressed, at most the
//! default `--max-output-bytes`), written into the bundle as `raw_output_text`: the bundle
//! then holds the evidence, and verifying it later gives what `run --raw-outputs` gives now.

use std::path::Path;

use groundcheck_core::{Bundle, Limit, Policy, RawOutput, RawOutputFile, Run};
use groundcheck_files::Template;
use groundcheck_host::Engine;
use groundcheck_store::RunKey;

use crate::cmd::run::read_runs;
use crate::database;
use crate::failure::Failure;
use crate::output::Output;

pub async fn export(
    url: &str,
    keys: &[RunKey],
    template: Option<&Template>,
    dir: &Path,
    output: &mut Output,
) -> Result<u8, Failure> {
    let store = database::open_read_only(url).await?;
    // Read everything first: a missing run writes no file at all.
    let mut runs = read_runs(&store, keys).await?;
    store.close().await;
    if let Some(template) = template {
        output.notes.extend(embed(template, &mut runs)?);
    }
    let out = &mut output.head;
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

/// Looks up the raw output file of every row of `runs` that has no raw output of its own (an
/// engine under the default policy, so at most the default `--max-output-bytes`) and
/// puts each file's text in the row as its `raw_output_text`; returns the lines for stderr:
/// the counts `run` prints, and the files too large to write, which stay out of the bundle
/// (verified later, such a row has no raw output; `run` says `limit_exceeded`).
fn embed(template: &Template, runs: &mut [Run]) -> Result<Vec<String>, Failure> {
    let engine = Engine::new(Policy::default(), Some(template.clone()), None);
    let max_bytes = engine.policy().limits().get(Limit::OutputSize);
    let lookups = engine.look_up(runs)?;
    let mut over = Vec::new();
    for inv in runs.iter_mut().flat_map(|run| run.invocations.iter_mut()) {
        match inv.raw_output_file.take() {
            Some(RawOutputFile::Read(text)) => inv.raw_output = Some(RawOutput::Text(text)),
            Some(RawOutputFile::OverLimit) => over.push(inv.id),
            _ => {}
        }
    }
    let mut lines: Vec<String> = lookups.counts.line(Some(template.as_str())).into_iter().collect();
    if let Some(first) = over.first() {
        lines.push(format!(
            "raw-output files: {} over {max_bytes} bytes (the default --max-output-bytes) not written into the \
             bundles (first: row {first})",
            over.len()
        ));
    }
    Ok(lines)
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
