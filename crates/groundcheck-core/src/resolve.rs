//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::json::{write_node, Json};
use crate::path::{EvidencePath, PathError};

/// One node a path selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedNode {
    /// RFC 9535 normalized path, e.g. `$['logs'][0]['message']`.
    pub path: String,
    /// The node as compact JSON text, numbers exactly as written.
    pub value: String,
}

/// Runs `path` (exactly as given, not trimmed) against `doc`, with the JSON Pointer fallback.
///
/// The same resolution verification uses, so `groundcheck resolve` shows what a ref's path
/// reaches.
pub fn resolve(path: &str, doc: &Json) -> Result<Vec<ResolvedNode>, PathError> {
    let path = EvidencePath::parse(path)?;
    Ok(path
        .select(doc.root(), None)
        .into_iter()
        .map(|(path, node)| {
            let mut value = String::new();
            write_node(node, &mut value);
            ResolvedNode { path, value }
        })
        .collect())
}
