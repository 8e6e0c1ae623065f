//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::error::{Error, ErrorKind};
use crate::json::{expand, write_node, Json};
use crate::path::EvidencePath;
use crate::policy::Limits;

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
/// Fails with [`ErrorKind::Path`] or [`ErrorKind::PathLimit`] for the path, and
/// [`ErrorKind::TooDeep`] for a JSONPath query on a document nested deeper than
/// [`Limits::QUERY_DEPTH_CEILING`] (JSON Pointers run at any depth) or a needed expanded view
/// deeper than the depth limit.
///
/// The same resolution verification uses (under the default limits), so `groundcheck
/// resolve` shows what a ref's path reaches.
pub fn resolve(path: &str, doc: &Json) -> Result<Vec<ResolvedNode>, Error> {
    let path = EvidencePath::parse(path)?;
    let found = select(&path, doc, false)?;
    if !found.is_empty() {
        return Ok(found);
    }
    let max = Limits::default().max_depth;
    match expand(std::borrow::Cow::Borrowed(doc), max) {
        Ok(Some(expanded)) => select(&path, &expanded.doc, true),
        Ok(None) => Ok(found),
        Err(_) => Err(Error::new(
            ErrorKind::TooDeep,
            format!(
                "the path selects nothing, and the document with the JSON inside its strings expanded is nested \
                 deeper than {max}"
            ),
        )),
    }
}

fn select(path: &EvidencePath, doc: &Json, descended: bool) -> Result<Vec<ResolvedNode>, Error> {
    if path.needs_value() && doc.depth() > Limits::QUERY_DEPTH_CEILING {
        let message = format!(
            "the document is nested {} deep; JSONPath queries run on documents up to {} deep (JSON Pointers run \
             at any depth)",
            doc.depth(),
            Limits::QUERY_DEPTH_CEILING
        );
        return Err(Error::new(ErrorKind::TooDeep, message));
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
