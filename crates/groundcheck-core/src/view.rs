//! A raw document as a person is shown it (the HTML evidence page): the document as
//! verification reads it ([`raw_document`], [`structured_document`], [`expanded_document`]),
//! laid out one value a line ([`pretty`]), and where the `exact` rung finds a quote in a
//! leaf ([`exact_span`]).
//!
//! The page marks the leaves a report names by their normalized paths (`matched_path`,
//! `nearest.path`, `elsewhere`), so the layout finds those paths while it walks, with the
//! same path formatting verification reports them in. The walk keeps an explicit stack and
//! one path buffer, so a 10,000-deep document costs heap, not stack, and a leaf costs no
//! allocation beyond its line.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::boundary::Whole;
use crate::invocation::Invocation;
use crate::json::{expand, push_index, push_name, Expanded, Json, Node};
use crate::policy::Policy;
use crate::report::ReadAs;

/// `inv`'s raw document as verification reads it (the raw output, else a raw-output file
/// that was read, else a complete preview; text that is not JSON is one string), so that a
/// page shows exactly what was searched. `None` when there is no document, or it passes the
/// size or depth limit.
pub fn raw_document<'a>(inv: &'a Invocation, policy: &Policy) -> Option<Cow<'a, Json>> {
    crate::document::tree_of(inv, policy)
}

/// `inv`'s raw document read as JSON Lines or YAML, as verification reads a text that is
/// not JSON when a path selects nothing in the text itself: `None` when the document is
/// JSON, or has no such view within the limits. Paths a report gives for refs decided on
/// this view (warning `read_as_json_lines` or `read_as_yaml`) name leaves of it, or of its
/// [`expanded_document`].
pub fn structured_document(inv: &Invocation, policy: &Policy) -> Option<(ReadAs, Json)> {
    crate::document::structured_of(inv, policy)
}

/// The expanded view of `doc` (JSON inside strings replaced by what it holds, as
/// verification reads it when a path selects nothing in the document as written), or
/// `None` when no string holds JSON or the view would pass the depth limit. Paths a report
/// gives for refs decided on the expanded view name leaves of this view.
pub fn expanded_document(doc: &Json, policy: &Policy) -> Option<Json> {
    match expand(Cow::Borrowed(doc), policy.limits.max_depth) {
        Ok(Some(Expanded { doc, .. })) => Some(doc),
        Ok(None) | Err(_) => None,
    }
}

/// One line of a [`Pretty`] layout: a member name or nothing, then one piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'d> {
    /// Nesting depth; the root's line is 0.
    pub depth: usize,
    /// The member name, for a member of an object.
    pub key: Option<&'d str>,
    /// What the line holds.
    pub piece: Piece<'d>,
    /// Whether a `,` follows (another item of the same container does).
    pub comma: bool,
}

/// What one [`Line`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'d> {
    /// `{` or `[` of a container with items, closed on a later line.
    Open(char),
    /// `}` or `]`.
    Close(char),
    /// `{}` or `[]`.
    Empty(&'static str),
    /// A leaf, with the text verification matches against (a string's decoded value; a
    /// number's text as written; `true`, `false`, `null`).
    Leaf(LeafKind, &'d str),
}

/// How a leaf is written: a string goes in quotes with JSON escapes, the others as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    /// A JSON string.
    String,
    /// A number, as written.
    Number,
    /// `true`, `false` or `null`.
    Literal,
}

/// A document's lines, and where the leaves it was asked about are.
#[derive(Debug, Clone)]
pub struct Pretty<'d> {
    /// Every line, in document order.
    pub lines: Vec<Line<'d>>,
    /// For each path asked about, in order: the index of its leaf's line, if the document
    /// has a leaf there.
    pub found: Vec<Option<usize>>,
}

/// Lays `doc` out one value a line, and finds the lines of the leaves at `paths` (normalized
/// paths, as reports give them).
pub fn pretty<'d>(doc: &'d Json, paths: &[&str]) -> Pretty<'d> {
    let mut wanted: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in paths.iter().enumerate() {
        wanted.entry(p).or_default().push(i);
    }
    let mut found = vec![None; paths.len()];
    let mut lines = Vec::new();
    let mut path = String::from("$");
    // Items still to write, last first; `Close` also restores the path's length.
    enum Item<'d> {
        Value { node: &'d Node, key: Option<&'d str>, step: Step<'d>, depth: usize, comma: bool },
        Close { bracket: char, depth: usize, comma: bool, path_len: usize },
    }
    #[derive(Clone, Copy)]
    enum Step<'d> {
        Root,
        Name(&'d str),
        Index(usize),
    }
    let mut stack =
        vec![Item::Value { node: doc.root(), key: None, step: Step::Root, depth: 0, comma: false }];
    while let Some(item) = stack.pop() {
        match item {
            Item::Close { bracket, depth, comma, path_len } => {
                path.truncate(path_len);
                lines.push(Line { depth, key: None, piece: Piece::Close(bracket), comma });
            }
            Item::Value { node, key, step, depth, comma } => {
                let path_len = path.len();
                match step {
                    Step::Root => {}
                    Step::Name(name) => push_name(&mut path, name),
                    Step::Index(i) => push_index(&mut path, i),
                }
                let piece = match node {
                    Node::Null => Piece::Leaf(LeafKind::Literal, "null"),
                    Node::Bool(true) => Piece::Leaf(LeafKind::Literal, "true"),
                    Node::Bool(false) => Piece::Leaf(LeafKind::Literal, "false"),
                    Node::Number(text) => Piece::Leaf(LeafKind::Number, text),
                    Node::String(text) => Piece::Leaf(LeafKind::String, text),
                    Node::Array(items) if items.is_empty() => Piece::Empty("[]"),
                    Node::Object(members) if members.is_empty() => Piece::Empty("{}"),
                    Node::Array(items) => {
                        stack.push(Item::Close { bracket: ']', depth, comma, path_len });
                        let last = items.len() - 1;
                        for (i, child) in items.iter().enumerate().rev() {
                            let step = Step::Index(i);
                            stack.push(Item::Value {
                                node: child,
                                key: None,
                                step,
                                depth: depth + 1,
                                comma: i < last,
                            });
                        }
                        lines.push(Line { depth, key, piece: Piece::Open('['), comma: false });
                        continue;
                    }
                    Node::Object(members) => {
                        stack.push(Item::Close { bracket: '}', depth, comma, path_len });
                        let last = members.len() - 1;
                        for (i, (name, child)) in members.iter().enumerate().rev() {
                            let (key, step) = (Some(&**name), Step::Name(name));
                            stack.push(Item::Value {
                                node: child,
                                key,
                                step,
                                depth: depth + 1,
                                comma: i < last,
                            });
                        }
                        lines.push(Line { depth, key, piece: Piece::Open('{'), comma: false });
                        continue;
                    }
                };
                if let (Piece::Leaf(..), Some(asked)) = (piece, wanted.get(path.as_str())) {
                    for &i in asked {
                        found[i] = Some(lines.len());
                    }
                }
                lines.push(Line { depth, key, piece, comma });
                path.truncate(path_len);
            }
        }
    }
    Pretty { lines, found }
}

/// Where the `exact` rung finds `quote` in a leaf's text: the byte range of the first
/// occurrence that splits no number, as verification takes it.
pub fn exact_span(leaf: &str, quote: &str) -> Option<(usize, usize)> {
    if quote.is_empty() {
        return None;
    }
    Whole::new(quote).find_from(leaf, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(doc: &str) -> Vec<String> {
        let doc = Json::parse(doc).unwrap();
        let shown = pretty(&doc, &[]);
        shown
            .lines
            .iter()
            .map(|l| {
                let key = l.key.map(|k| format!("{k}: ")).unwrap_or_default();
                let piece = match l.piece {
                    Piece::Open(c) | Piece::Close(c) => c.to_string(),
                    Piece::Empty(t) => t.to_string(),
                    Piece::Leaf(_, t) => t.to_string(),
                };
                format!("{}{key}{piece}{}", "  ".repeat(l.depth), if l.comma { "," } else { "" })
            })
            .collect()
    }

    #[test]
    fn one_value_a_line_with_commas_between_items() {
        assert_eq!(
            layout(r#"{"a":[1,{"b":null}],"c":{},"d":[]}"#),
            ["{", "  a: [", "    1,", "    {", "      b: null", "    }", "  ],", "  c: {},", "  d: []", "}"]
        );
        assert_eq!(layout(r#""text""#), ["text"]);
    }

    #[test]
    fn leaves_are_found_by_the_normalized_paths_reports_give() {
        let doc = Json::parse(r#"{"logs":[{"msg":"x"},{"it's":"y"}],"n":1.50}"#).unwrap();
        let asked = ["$['logs'][1]['it\\'s']", "$['n']", "$['logs']", "$['absent']", "$['logs'][0]['msg']"];
        let shown = pretty(&doc, &asked);
        let text = |i: Option<usize>| i.map(|i| shown.lines[i].piece);
        assert_eq!(text(shown.found[0]), Some(Piece::Leaf(LeafKind::String, "y")));
        assert_eq!(text(shown.found[1]), Some(Piece::Leaf(LeafKind::Number, "1.50")));
        assert_eq!(shown.found[2], None, "containers are not marked");
        assert_eq!(shown.found[3], None);
        assert_eq!(text(shown.found[4]), Some(Piece::Leaf(LeafKind::String, "x")));
    }

    #[test]
    fn deep_documents_are_laid_out_without_recursion() {
        let depth = 50_000;
        let doc = Json::parse(&format!("{}7{}", "[".repeat(depth), "]".repeat(depth))).unwrap();
        let path = format!("${}", "[0]".repeat(depth));
        let shown = pretty(&doc, &[&path]);
        assert_eq!(shown.lines.len(), 2 * depth + 1);
        assert_eq!(shown.found, [Some(depth)]);
    }

    #[test]
    fn the_exact_span_never_splits_a_number() {
        assert_eq!(exact_span("code 5000, then 500 ms", "500"), Some((16, 19)));
        assert_eq!(exact_span("1500 ms", "500"), None);
        assert_eq!(exact_span("anything", ""), None);
    }
}
