//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::json::{expand, write_node, Json};
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
    /// The path selects nothing in the document, and its expanded view (strings that hold
    /// JSON replaced by what they hold) would be nested deeper than verification allows.
    #[error("the path selects nothing, and the document with the JSON inside its strings expanded is nested deeper than {max}")]
    ExpandedTooDeep {
        /// The depth limit (the default policy's).
        max: usize,
    },
}

/// One node a path selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedNode {
    /// RFC 9535 normalized path, e.g. `$['logs'][0]['message']`.
    pub path: String,
    /// The node as compact JSON text, numbers exactly as written.
    pub value: String,
    /// Selected on the expanded view: the path selects nothing in the document as written,
    /// so it was run again with every string that holds JSON replaced by what it holds.
    pub descended: bool,
}

/// Runs `path` (exactly as given, not trimmed) against `doc`, with the JSON Pointer fallback,
/// and, when it selects nothing there, against the expanded view.
///
/// The same resolution verification uses (under the default limits), so `groundcheck
/// resolve` shows what a ref's path reaches.
pub fn resolve(path: &str, doc: &Json) -> Result<Vec<ResolvedNode>, ResolveError> {
    let path = EvidencePath::parse(path)?;
    let found = select(&path, doc, false)?;
    if !found.is_empty() {
        return Ok(found);
    }
    let max = Limits::default().max_depth;
    match expand(std::borrow::Cow::Borrowed(doc), max) {
        Ok(Some(expanded)) => select(&path, &expanded.doc, true),
        Ok(None) => Ok(found),
        Err(_) => Err(ResolveError::ExpandedTooDeep { max }),
    }
}

fn select(path: &EvidencePath, doc: &Json, descended: bool) -> Result<Vec<ResolvedNode>, ResolveError> {
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
            ResolvedNode { path: selection.base(i), value, descended }
        })
        .collect())
}
