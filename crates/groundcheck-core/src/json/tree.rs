//! What selecting and matching need from a document tree, for both trees a document can be.
//!
//! A document is either our [`Node`] tree (numbers exactly as written, any depth) or, on the
//! general-path fast route, the `serde_json::Value` that serde_json_path queries directly (see
//! `verify`). Walking paths and leaves is written once, over [`Tree`].

use std::convert::Infallible;

use serde_json::Value;

use super::Node;

/// A leaf whose text as written is unknown was met: a `Value` number whose exponent
/// serde_json rewrote (`1E3` → `1e+3`). The search stops, and the document is searched again
/// as our tree, which keeps every text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rewritten;

/// One step from a container to a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step<'d> {
    Name(&'d str),
    Index(usize),
}

/// A JSON tree the ladder can search (in parallel for large selections) and singular paths
/// can walk.
pub(crate) trait Tree: Sync {
    /// What a search that meets a leaf whose text is not the text as written stops with:
    /// [`Rewritten`] for a `Value`; nothing at all ([`Infallible`]) for our `Node`s, which
    /// keep every text — so a search of our tree cannot stop that way, by its type.
    type Rewritten: Send;

    /// The text a leaf is matched by (docs/verification.md#the-ladder), or `None` for containers.
    fn leaf_text(&self) -> Option<&str>;
    /// The child at `step`, if this is a container that has it.
    fn child(&self, step: Step<'_>) -> Option<&Self>;
    /// Whether this is an array (a pointer token is then an index).
    fn is_array(&self) -> bool;
    /// Pushes the children in reverse document order, for a depth-first walk off a stack.
    fn push_children<'a>(&'a self, depth: usize, out: &mut Vec<(&'a Self, usize, Option<Step<'a>>)>);
    /// `Some` when this leaf's text is not the text as written (see [`Tree::Rewritten`]).
    fn rewritten(&self) -> Option<Self::Rewritten>;
}

impl Tree for Node {
    type Rewritten = Infallible;

    fn rewritten(&self) -> Option<Infallible> {
        None
    }

    fn leaf_text(&self) -> Option<&str> {
        Node::leaf_text(self)
    }

    fn child(&self, step: Step<'_>) -> Option<&Node> {
        match (step, self) {
            (Step::Name(name), Node::Object(_)) => self.member(name),
            (Step::Index(i), Node::Array(items)) => items.get(i),
            _ => None,
        }
    }

    fn is_array(&self) -> bool {
        matches!(self, Node::Array(_))
    }

    fn push_children<'a>(&'a self, depth: usize, out: &mut Vec<(&'a Node, usize, Option<Step<'a>>)>) {
        match self {
            Node::Array(items) => {
                out.extend(items.iter().enumerate().rev().map(|(i, n)| (n, depth, Some(Step::Index(i)))))
            }
            Node::Object(members) => {
                out.extend(members.iter().rev().map(|(k, n)| (n, depth, Some(Step::Name(k)))))
            }
            _ => {}
        }
    }
}

impl Tree for Value {
    type Rewritten = Rewritten;

    fn leaf_text(&self) -> Option<&str> {
        match self {
            Value::Null => Some("null"),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            // `arbitrary_precision`: the number's text, exponent aside (see `rewritten`).
            Value::Number(n) => Some(n.as_str()),
            Value::String(s) => Some(s),
            Value::Array(_) | Value::Object(_) => None,
        }
    }

    fn child(&self, step: Step<'_>) -> Option<&Value> {
        match (step, self) {
            (Step::Name(name), Value::Object(map)) => map.get(name),
            (Step::Index(i), Value::Array(items)) => items.get(i),
            _ => None,
        }
    }

    fn is_array(&self) -> bool {
        self.is_array()
    }

    fn rewritten(&self) -> Option<Rewritten> {
        matches!(self, Value::Number(n) if n.as_str().contains('e')).then_some(Rewritten)
    }

    fn push_children<'a>(&'a self, depth: usize, out: &mut Vec<(&'a Value, usize, Option<Step<'a>>)>) {
        match self {
            Value::Array(items) => {
                out.extend(items.iter().enumerate().rev().map(|(i, n)| (n, depth, Some(Step::Index(i)))))
            }
            Value::Object(map) => out.extend(map.iter().rev().map(|(k, n)| (n, depth, Some(Step::Name(k))))),
            _ => {}
        }
    }
}

/// Whether the tree under `root` has at most `limit` nodes, containers included: counted
/// off a stack, stopping one node past the limit.
pub(crate) fn holds_at_most<T: Tree>(root: &T, limit: usize) -> bool {
    let mut stack: Vec<(&T, usize, Option<Step<'_>>)> = vec![(root, 0, None)];
    let mut seen = 0;
    while let Some((node, _, _)) = stack.pop() {
        seen += 1;
        if seen > limit {
            return false;
        }
        node.push_children(0, &mut stack);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_json_parses_exactly_as_deep_as_the_value_route_assumes() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let max = crate::document::SERDE_MAX_DEPTH;
        assert!(serde_json::from_str::<Value>(&nested(max)).is_ok());
        assert!(serde_json::from_str::<Value>(&nested(max + 1)).is_err());
    }

    #[test]
    fn exponents_are_the_only_rewritten_number_texts() {
        let v: Value = serde_json::from_str(r#"[-0, 0.950, 12345678901234567890123, 1E3, 2e-1]"#).unwrap();
        let texts: Vec<_> = v.as_array().unwrap().iter().map(|n| n.leaf_text().unwrap()).collect();
        assert_eq!(texts, ["-0", "0.950", "12345678901234567890123", "1e+3", "2e-1"]);
        let rewritten: Vec<bool> = v.as_array().unwrap().iter().map(|n| n.rewritten().is_some()).collect();
        assert_eq!(rewritten, [false, false, false, true, true]);
    }
}
