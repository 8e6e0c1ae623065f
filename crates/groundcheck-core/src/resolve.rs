//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::json::{write_node, Json};
use crate::path::{EvidencePath, PathError};
use crate::policy::Limits;

/// Why [`resolve`] could not run a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The path is neither JSONPath nor JSON Pointer.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A JSONPath query on a document nested deeper than [`Limits::QUERY_DEPTH_CEILING`].
    #[error("the document is nested {depth} deep; JSONPath queries run on documents up to {} deep (JSON Pointers run at any depth)", Limits::QUERY_DEPTH_CEILING)]
    TooDeep {
        /// The document's depth.
        depth: usize,
    },
}

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
pub fn resolve(path: &str, doc: &Json) -> Result<Vec<ResolvedNode>, ResolveError> {
    let path = EvidencePath::parse(path)?;
    if path.needs_value() && doc.depth() > Limits::QUERY_DEPTH_CEILING {
        return Err(ResolveError::TooDeep { depth: doc.depth() });
    }
    let selection = path.select(doc.root(), None);
    Ok(selection
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let mut value = String::new();
            write_node(node, &mut value);
            ResolvedNode { path: selection.base(i), value }
        })
        .collect())
}
