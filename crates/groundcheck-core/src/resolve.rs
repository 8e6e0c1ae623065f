//! `resolve`: what a path selects in a document, for people debugging evidence paths.

use crate::document::{read_structured, Reading};
use crate::error::{Error, ErrorKind};
use crate::json::{expand, write_node, Json, Over};
use crate::path::EvidencePath;
use crate::policy::{Limit, Limits};
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
/// and, when it selects nothing there, against the expanded view: [`resolve_with`] under
/// [`Limits::default`].
///
/// The same resolution verification uses (under the default limits), so `groundcheck
/// resolve` shows what a ref's path reaches.
pub fn resolve(path: &str, doc: &Json) -> Result<Vec<ResolvedNode>, Error> {
    resolve_with(path, doc, &Limits::default())
}

/// [`resolve`] under `limits`, which bound it as they bound verification: no answer costs
/// more time or memory than they allow, whoever calls.
///
/// Fails with [`ErrorKind::Path`] for a path that is neither JSONPath nor a JSON Pointer, and
/// with an error whose [`Error::limit`] names the limit that stopped it:
/// [`ErrorKind::Limit`] for a path longer than `max_path_chars` characters (`PathLength`), a
/// path that selects more than `max_nodes` nodes or would pass through more on its way
/// (`Nodes`, decided before the nodes are built), and selected nodes whose JSON text is
/// longer than `max_output_bytes` together (`OutputSize`); [`ErrorKind::PathLimit`] for
/// filters or parentheses nested past the ceilings; [`ErrorKind::TooDeep`] for a JSONPath
/// query on a document nested deeper than [`Limits::QUERY_DEPTH_CEILING`] (JSON Pointers
/// run at any depth) or a needed expanded view deeper than `max_depth`.
pub fn resolve_with(path: &str, doc: &Json, limits: &Limits) -> Result<Vec<ResolvedNode>, Error> {
    let path = parse(path, limits)?;
    resolve_in(&path, doc, None, limits)
}

/// [`resolve`] on a text, read as verification reads a raw output: as JSON when it is JSON;
/// otherwise as one string (so `$` selects it) and, when the path selects nothing there, on
/// its structured view — JSON Lines, else YAML — then on that view's expanded view. Nodes
/// selected on the view carry [`ResolvedNode::read_as`]. [`resolve_text_with`] under
/// [`Limits::default`].
pub fn resolve_text(path: &str, text: &str) -> Result<Vec<ResolvedNode>, Error> {
    resolve_text_with(path, text, &Limits::default())
}

/// [`resolve_text`] under `limits`.
///
/// Fails like [`resolve_with`]; with [`ErrorKind::Limit`] (`OutputSize`) for a text longer
/// than `max_output_bytes`; with [`ErrorKind::Json`] for a text that is not JSON and has no
/// structured view (whatever the path); and, when the path selects nothing in the text, with
/// [`ErrorKind::TooDeep`] when its view passes the depth limit and [`ErrorKind::Limit`]
/// (`Nodes`) when its aliases add more nodes than the node limit.
pub fn resolve_text_with(path: &str, text: &str, limits: &Limits) -> Result<Vec<ResolvedNode>, Error> {
    if text.len() > limits.max_output_bytes {
        let message = format!(
            "the document is {} bytes long, more than the output size limit ({} bytes)",
            text.len(),
            limits.max_output_bytes
        );
        return Err(Error::new(ErrorKind::Limit(Limit::OutputSize), message));
    }
    let not_json = match Json::parse(text) {
        Ok(doc) => return resolve_with(path, &doc, limits),
        Err(e) => e,
    };
    let reading = read_structured(text, limits);
    if reading == Reading::None {
        return Err(not_json);
    }
    let path = parse(path, limits)?;
    let found = select(&path, &Json::string(text), false, None, limits)?;
    if !found.is_empty() {
        return Ok(found);
    }
    match reading {
        Reading::View(read_as, view) => resolve_in(&path, &view, Some(read_as), limits),
        Reading::Over(read_as, over) => {
            let (kind, what) = match over {
                Over::Depth => (ErrorKind::TooDeep, format!("is nested deeper than {}", limits.max_depth)),
                Over::Nodes => (
                    ErrorKind::Limit(Limit::Nodes),
                    format!("has aliases that add more than {} nodes (the node limit)", limits.max_nodes),
                ),
            };
            let message =
                format!("the path selects nothing in the text, and the text read as {read_as} {what}");
            Err(Error::new(kind, message))
        }
        Reading::None => Ok(found),
    }
}

/// `path` parsed, unless it is longer than the path length limit.
fn parse(path: &str, limits: &Limits) -> Result<EvidencePath, Error> {
    let max = limits.max_path_chars;
    if path.len() > max && path.chars().count() > max {
        let message = format!(
            "the path is {} characters long, more than the path length limit ({max} characters)",
            path.chars().count()
        );
        return Err(Error::new(ErrorKind::Limit(Limit::PathLength), message));
    }
    Ok(EvidencePath::parse(path)?)
}

/// `path` on `doc` and, when it selects nothing there, on its expanded view.
fn resolve_in(
    path: &EvidencePath,
    doc: &Json,
    read_as: Option<ReadAs>,
    limits: &Limits,
) -> Result<Vec<ResolvedNode>, Error> {
    let found = select(path, doc, false, read_as, limits)?;
    if !found.is_empty() {
        return Ok(found);
    }
    let max = limits.max_depth;
    match expand(std::borrow::Cow::Borrowed(doc), max) {
        Ok(Some(expanded)) => select(path, &expanded.doc, true, read_as, limits),
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
    limits: &Limits,
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
    let too_many = || {
        let message = format!(
            "the path selects more than {} nodes (the node limit), counting repeats, or would pass through \
             more on its way",
            limits.max_nodes
        );
        Error::new(ErrorKind::Limit(Limit::Nodes), message)
    };
    let selection = path.select(doc.root(), None, limits.max_nodes).map_err(|_| too_many())?;
    if selection.nodes.len() > limits.max_nodes {
        return Err(too_many());
    }
    let mut bytes = 0usize;
    let mut resolved = Vec::with_capacity(selection.nodes.len());
    for (i, node) in selection.nodes.iter().enumerate() {
        let mut value = String::new();
        write_node(node, &mut value);
        bytes = bytes.saturating_add(value.len());
        if bytes > limits.max_output_bytes {
            let message = format!(
                "the selected nodes are longer than the output size limit ({} bytes) together",
                limits.max_output_bytes
            );
            return Err(Error::new(ErrorKind::Limit(Limit::OutputSize), message));
        }
        resolved.push(ResolvedNode { path: selection.base(i), value, descended, read_as });
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(result: Result<Vec<ResolvedNode>, Error>) -> (ErrorKind, Option<Limit>) {
        let e = result.unwrap_err();
        (e.kind(), e.limit())
    }

    /// Each limit of the caller's `Limits` stops resolve with the kind that names it.
    #[test]
    fn each_limit_stops_resolve_with_its_own_kind() {
        let doc = Json::parse(r#"{"a": [1, 2, 3], "s": "xxxxxxxxxx"}"#).unwrap();
        let small = Limits { max_nodes: 2, max_output_bytes: 8, ..Limits::default() };
        assert_eq!(resolve_with("$.a[0,1]", &doc, &small).unwrap().len(), 2);
        assert_eq!(
            kind(resolve_with("$.a[*]", &doc, &small)),
            (ErrorKind::Limit(Limit::Nodes), Some(Limit::Nodes))
        );
        let one = Limits { max_nodes: 0, ..small };
        assert_eq!(kind(resolve_with("$.a", &doc, &one)).1, Some(Limit::Nodes), "a singular path too");
        assert_eq!(kind(resolve_with("$.s", &doc, &small)).1, Some(Limit::OutputSize));
        let short = Limits { max_path_chars: 5, ..Limits::default() };
        assert_eq!(kind(resolve_with("$.a[0]", &doc, &short)).1, Some(Limit::PathLength));
        let e = resolve_with("$.a[0]", &doc, &short).unwrap_err();
        assert_eq!(
            e.message(),
            "the path is 6 characters long, more than the path length limit (5 characters)"
        );
        assert_eq!(kind(resolve_text_with("$", "[1, 2, 3, 4, 5]", &small)).1, Some(Limit::OutputSize));
        assert_eq!(
            kind(resolve("$[?(((((((((((((((((((((((((((((((((@)))))))))))))))))))))))))))))))))]", &doc)).1,
            Some(Limit::PathLength)
        );
        let deep = Json::parse(&format!("{}{}", "[".repeat(1_001), "]".repeat(1_001))).unwrap();
        assert_eq!(kind(resolve("$..*", &deep)), (ErrorKind::TooDeep, Some(Limit::Depth)));
        assert_eq!(kind(resolve("$.a[", &doc)), (ErrorKind::Path, None));
    }

    /// A YAML view whose aliases add more nodes than the node limit is the node limit.
    #[test]
    fn yaml_aliases_past_the_node_limit_are_the_node_limit() {
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                    c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
        let limits = Limits { max_nodes: 500, ..Limits::default() };
        assert_eq!(kind(resolve_text_with("$.c", bomb, &limits)).1, Some(Limit::Nodes));
        assert_eq!(resolve_text("$.c[0][0][0]", bomb).unwrap()[0].value, "\"x\"");
    }

    /// The doubling path selects 2^40 nodes: refused at once, by the count, not the list.
    #[test]
    fn the_doubling_path_is_refused_before_its_nodes_are_built() {
        let doc = Json::parse(&format!("{}1{}", "[".repeat(22), "]".repeat(22))).unwrap();
        let path = format!("${}", "[*,*]".repeat(40));
        assert_eq!(kind(resolve(&path, &doc)), (ErrorKind::Limit(Limit::Nodes), Some(Limit::Nodes)));
        assert_eq!(resolve(&format!("${}", "[*,*]".repeat(3)), &doc).unwrap().len(), 8);
    }
}
