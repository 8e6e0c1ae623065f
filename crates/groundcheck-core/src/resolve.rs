//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::document::{read_structured, Reading};
use crate::error::{Error, ErrorKind};
use crate::json::{expand, write_node, Json, Over};
use crate::path::EvidencePath;
use crate::policy::Limits;
use crate::report::ReadAs;

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
    /// Selected on the structured view of a text that is not JSON ([`resolve_text`]), read
    /// this way: the path selects nothing in the text as one string.
    pub read_as: Option<ReadAs>,
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
    resolve_in(&path, doc, None)
}

/// [`resolve`] on a text, read as verification reads a raw output: as JSON when it is JSON;
/// otherwise as one string (so `$` selects it) and, when the path selects nothing there, on
/// its structured view — JSON Lines, else YAML, under the default limits — then on that
/// view's expanded view. Nodes selected on the view carry [`ResolvedNode::read_as`].
///
/// Fails like [`resolve`], with [`ErrorKind::Json`] for a text that is not JSON and has no
/// structured view (whatever the path), and with [`ErrorKind::TooDeep`] when the path
/// selects nothing in the text and its view passes the depth limit or its aliases add more
/// nodes than the node limit.
pub fn resolve_text(path: &str, text: &str) -> Result<Vec<ResolvedNode>, Error> {
    let not_json = match Json::parse(text) {
        Ok(doc) => return resolve(path, &doc),
        Err(e) => e,
    };
    let limits = Limits::default();
    if text.len() > limits.max_output_bytes {
        return Err(not_json);
    }
    let reading = read_structured(text, &limits);
    if reading == Reading::None {
        return Err(not_json);
    }
    let path = EvidencePath::parse(path)?;
    let found = select(&path, &Json::string(text), false, None)?;
    if !found.is_empty() {
        return Ok(found);
    }
    match reading {
        Reading::View(read_as, view) => resolve_in(&path, &view, Some(read_as)),
        Reading::Over(read_as, over) => {
            let what = match over {
                Over::Depth => format!("is nested deeper than {}", limits.max_depth),
                Over::Nodes => format!("has aliases that add more than {} nodes", limits.max_nodes),
            };
            let message =
                format!("the path selects nothing in the text, and the text read as {read_as} {what}");
            Err(Error::new(ErrorKind::TooDeep, message))
        }
        Reading::None => Ok(found),
    }
}

/// `path` on `doc` and, when it selects nothing there, on its expanded view.
fn resolve_in(path: &EvidencePath, doc: &Json, read_as: Option<ReadAs>) -> Result<Vec<ResolvedNode>, Error> {
    let found = select(path, doc, false, read_as)?;
    if !found.is_empty() {
        return Ok(found);
    }
    let max = Limits::default().max_depth;
    match expand(std::borrow::Cow::Borrowed(doc), max) {
        Ok(Some(expanded)) => select(path, &expanded.doc, true, read_as),
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

fn select(
    path: &EvidencePath,
    doc: &Json,
    descended: bool,
    read_as: Option<ReadAs>,
) -> Result<Vec<ResolvedNode>, Error> {
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
            ResolvedNode { path: selection.base(i), value, descended, read_as }
        })
        .collect())
}
