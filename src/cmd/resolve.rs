//! `groundcheck resolve`: what a path selects in a document.

use std::path::Path;

use groundcheck_core::{ErrorKind, Limit, Limits, Policy};
use groundcheck_host::{Engine, HostError};

use crate::failure::{display, Failure};
use crate::load;

pub fn resolve(path: &str, file: &Path, limits: &Limits, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let text = load::read_text(file)?;
    // A text that is not JSON resolves on its JSON Lines or YAML view, when it has one, under
    // the given limits: past one (a path selecting more than the node limit, `$[*,*][*,*]…`
    // included, is refused before its nodes are built) the line names it.
    // The host layer's resolve, as every door's: on the engine's threads when the text or the
    // path may nest deeply.
    let engine = Engine::new(Policy::default().with_limits(*limits), None, Some(1));
    let nodes = engine.resolve(&text, path).map_err(|e| match e {
        HostError::Core(e) => match e.kind() {
            ErrorKind::Path | ErrorKind::PathLimit | ErrorKind::Limit(Limit::PathLength) => {
                Failure::input(format!("--path {path:?}: {e}"))
            }
            _ => Failure::input(format!("{}: {e}", display(file))),
        },
        other => Failure::input(other.to_string()),
    })?;
    let mut text = String::from("[");
    for (i, node) in nodes.iter().enumerate() {
        let sep = if i + 1 < nodes.len() { "," } else { "" };
        let path = serde_json::to_string(&node.path).unwrap_or_default();
        let read_as = node.read_as.map(|r| format!(", \"read_as\": \"{r}\"")).unwrap_or_default();
        let descended = if node.descended { ", \"descended\": true" } else { "" };
        text.push_str(&format!(
            "\n  {{\"path\": {path}, \"value\": {}{read_as}{descended}}}{sep}",
            node.value
        ));
    }
    text.push_str(if nodes.is_empty() { "]\n" } else { "\n]\n" });
    out.extend_from_slice(text.as_bytes());
    Ok(0)
}
