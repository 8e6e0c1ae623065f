//! A JSON document that keeps every number exactly as written.
//!
//! Evidence is matched against numbers by their text (`0.950` is not `0.95`, `1000` is not
//! `1e3`), member order is the document's, and hostile documents (10,000-deep nesting, lone
//! surrogates, numbers beyond f64) must neither crash nor be silently reinterpreted. No
//! off-the-shelf tree gives all three, so [`Json`] is a small tree of its own: parsed without
//! recursion, dropped without recursion, and converted to a `serde_json::Value` only when a
//! general JSONPath query needs one.

mod build;
mod census;
mod expand;
mod lines;
mod locate;
mod normalized;
mod parse;
mod tree;
mod value;
mod walk;
mod write;
mod yaml;

pub use build::JsonBuilder;
pub(crate) use census::holds_more_values_than;
pub(crate) use expand::{expand, may_hold_json, may_hold_json_unescaped, Expanded};
pub(crate) use lines::{json_lines_view, LinesView};
pub(crate) use locate::{locate, Seg, MAX_PATHS};
pub(crate) use normalized::{join, push_index, push_name, push_steps};
pub(crate) use parse::JsonErrorKind;
pub(crate) use parse::{parse_with_depth_limit, unescape};
pub(crate) use tree::{holds_at_most, Rewritten, Step, Tree};
pub(crate) use value::{to_serde_value, Twin};
pub(crate) use walk::{first_leaf_within, leaf_path as text_leaf_path, text_leaves, FirstLeaf, TextLeaves};
pub(crate) use yaml::{yaml_view, Over, YamlView};

/// One JSON value; the private building block of [`Json`].
///
/// Its derived traits recurse; [`Json`] wraps every tree that can be deep and implements
/// them without recursion.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    /// The number's text exactly as written in the source.
    Number(Box<str>),
    /// The decoded string value.
    String(Box<str>),
    Array(Vec<Node>),
    /// Members in document order; a repeated key keeps its last value at its first position.
    Object(Vec<(Box<str>, Node)>),
}

impl Node {
    /// What the value is, for a message saying what was found instead of what was needed
    /// (`a string`, `an array`).
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Number(_) => "a number",
            Node::String(_) => "a string",
            Node::Array(_) => "an array",
            Node::Object(_) => "an object",
        }
    }

    /// The text a leaf is matched by (docs/verification.md#the-ladder), or `None` for containers.
    pub(crate) fn leaf_text(&self) -> Option<&str> {
        match self {
            Node::Null => Some("null"),
            Node::Bool(true) => Some("true"),
            Node::Bool(false) => Some("false"),
            Node::Number(text) | Node::String(text) => Some(text),
            Node::Array(_) | Node::Object(_) => None,
        }
    }

    /// The value of member `name` (the document keeps one member per name).
    pub(crate) fn member(&self, name: &str) -> Option<&Node> {
        match self {
            Node::Object(members) => members.iter().find(|(k, _)| &**k == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// A parsed JSON document whose numbers keep their source text.
///
/// Built by [`Json::parse`] (strict RFC 8259: no BOM, no trailing bytes, no lone surrogate
/// escapes, no `NaN`), [`Json::string`] or a [`JsonBuilder`]. Nesting depth is recorded while
/// parsing or building so the depth limit of a [`Policy`](crate::Policy) can be checked without
/// walking the tree again.
pub struct Json {
    root: Node,
    depth: usize,
}

impl Json {
    /// Parses JSON text strictly, keeping number texts and document member order.
    ///
    /// There is no depth limit here: deep documents are parsed without recursion. Use the
    /// verification policy to bound depth.
    ///
    /// Fails with [`ErrorKind::Json`](crate::ErrorKind::Json), at the first problem met reading
    /// from the start.
    pub fn parse(text: &str) -> Result<Json, crate::Error> {
        Ok(parse_with_depth_limit(text, usize::MAX)?)
    }

    /// A JSON column's value read from the text a database (or a driver) holds for it: the
    /// JSON it holds; a string of that text when it is not JSON (possible where nothing checks
    /// the column, e.g. SQLite), so a claim reads as `malformed_details` instead of failing the
    /// row; `None` for JSON `null`, as a bundle reads it. The one rule the store and every
    /// binding read `retrieval_details` and `input_params` by.
    pub fn from_column(text: &str) -> Option<Json> {
        let json = Json::parse(text).unwrap_or_else(|_| Json::string(text));
        (!json.is_null()).then_some(json)
    }

    /// A document that is a single string: what a non-JSON tool output becomes
    /// (docs/verification.md#the-raw-document).
    pub fn string(text: &str) -> Json {
        Json { root: Node::String(text.into()), depth: 1 }
    }

    /// Nesting depth as docs/verification.md#limits counts it: the root is 1 (`1`, `[1]`
    /// and `{"a":1}` are all 1), an array or object inside another is one deeper (`[[]]` is 2).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether the document is JSON `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.root, Node::Null)
    }

    /// The compact JSON text of the document, numbers exactly as written.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        write::write_node(&self.root, &mut out);
        out
    }

    pub(crate) fn from_node(root: Node) -> Json {
        let depth = value::depth_of(&root);
        Json { root, depth }
    }

    pub(crate) fn root(&self) -> &Node {
        &self.root
    }

    /// The tree, taken out to be consumed. The caller owns its dropping: a tree that may be
    /// deep goes to [`drop_flat`], or back into a [`Json`].
    pub(crate) fn into_root(mut self) -> Node {
        std::mem::replace(&mut self.root, Node::Null)
    }
}

impl Clone for Json {
    fn clone(&self) -> Json {
        Json { root: value::clone_flat(&self.root), depth: self.depth }
    }
}

impl PartialEq for Json {
    /// Same text, numbers as written: `1.0` and `1` differ, as they do in evidence.
    fn eq(&self, other: &Json) -> bool {
        self.to_json_string() == other.to_json_string()
    }
}

impl Eq for Json {}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Json({})", self.to_json_string())
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

impl Drop for Json {
    // The derived drop recurses once per nesting level; a hostile 10,000-deep output would
    // overflow a rayon worker's stack. Flatten the tree onto a heap stack instead.
    fn drop(&mut self) {
        drop_flat(std::mem::replace(&mut self.root, Node::Null));
    }
}

/// Drops a tree of any depth without recursion.
pub(crate) fn drop_flat(node: Node) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node {
            Node::Array(items) => stack.extend(items),
            Node::Object(members) => stack.extend(members.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

pub(crate) use write::{write_json_string, write_node};
