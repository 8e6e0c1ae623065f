//! Non-recursive folds over [`Node`] trees: depth, deep copies and the `serde_json` twin.
//!
//! `serde_json_path` evaluates queries on `serde_json::Value`; the twin is built here without
//! recursion. The workspace builds serde_json with `arbitrary_precision`, so a twin number
//! keeps its text exactly, like the [`Node`] it comes from; filters compare numbers by their
//! f64 value, and a number beyond f64's range compares with nothing (`serde_json` gives it no
//! f64 value).

use serde_json::{Map, Number, Value};

use super::Node;

/// Nesting depth of `root` as docs/verification.md#limits counts it (at least 1).
pub(crate) fn depth_of(root: &Node) -> usize {
    let mut max = 1;
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        match node {
            Node::Array(items) => {
                max = max.max(depth + 1);
                stack.extend(items.iter().map(|n| (n, depth + 1)));
            }
            Node::Object(members) => {
                max = max.max(depth + 1);
                stack.extend(members.iter().map(|(_, n)| (n, depth + 1)));
            }
            _ => {}
        }
    }
    max
}

/// Rebuilds `root` bottom-up with the given constructors, children before parents.
fn fold<T>(
    root: &Node,
    mut scalar: impl FnMut(&Node) -> T,
    mut array: impl FnMut(Vec<T>) -> T,
    mut object: impl FnMut(Vec<(&str, T)>) -> T,
) -> T {
    enum Partial<'a, T> {
        Array(std::slice::Iter<'a, Node>, Vec<T>),
        Object(std::slice::Iter<'a, (Box<str>, Node)>, Vec<(&'a str, T)>, &'a str),
    }
    let mut stack: Vec<Partial<'_, T>> = Vec::new();
    let mut next = Some(root);
    loop {
        let mut done = match next.take() {
            Some(Node::Array(items)) => {
                stack.push(Partial::Array(items.iter(), Vec::with_capacity(items.len())));
                None
            }
            Some(Node::Object(members)) => {
                stack.push(Partial::Object(members.iter(), Vec::with_capacity(members.len()), ""));
                None
            }
            Some(node) => Some(scalar(node)),
            None => None,
        };
        loop {
            let Some(top) = stack.last_mut() else {
                // Only reached after the root was finished.
                return done.unwrap_or_else(|| scalar(&Node::Null));
            };
            match top {
                Partial::Array(iter, out) => {
                    out.extend(done.take());
                    if let Some(child) = iter.next() {
                        next = Some(child);
                        break;
                    }
                }
                Partial::Object(iter, out, key) => {
                    if let Some(v) = done.take() {
                        out.push((key, v));
                    }
                    if let Some((k, child)) = iter.next() {
                        *key = k;
                        next = Some(child);
                        break;
                    }
                }
            }
            done = Some(match stack.pop() {
                Some(Partial::Array(_, out)) => array(out),
                Some(Partial::Object(_, out, _)) => object(out),
                None => unreachable!("the stack was not empty"),
            });
        }
    }
}

/// A deep copy of `root`.
pub(crate) fn clone_flat(root: &Node) -> Node {
    fold(
        root,
        |n| match n {
            Node::Null => Node::Null,
            Node::Bool(b) => Node::Bool(*b),
            Node::Number(t) => Node::Number(t.clone()),
            Node::String(s) => Node::String(s.clone()),
            Node::Array(_) | Node::Object(_) => unreachable!("fold passes scalars only"),
        },
        Node::Array,
        |members| Node::Object(members.into_iter().map(|(k, v)| (Box::from(k), v)).collect()),
    )
}

/// The `serde_json::Value` twin of a tree, which serde_json_path queries: dropped without
/// recursion, as serde_json's own drop recurses once per nesting level and a twin may be as
/// deep as [`Limits::QUERY_DEPTH_CEILING`](crate::Limits::QUERY_DEPTH_CEILING), on a thread
/// the caller owns.
pub(crate) struct Twin(Value);

impl std::ops::Deref for Twin {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

impl Drop for Twin {
    fn drop(&mut self) {
        let mut stack = vec![std::mem::take(&mut self.0)];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(members) => stack.extend(members.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
}

/// The `serde_json::Value` twin of `root`, members in the same order.
pub(crate) fn to_serde_value(root: &Node) -> Twin {
    Twin(fold(
        root,
        |n| match n {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(t) => Value::Number(number_value(t)),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(_) | Node::Object(_) => unreachable!("fold passes scalars only"),
        },
        Value::Array,
        |members| {
            let mut map = Map::with_capacity(members.len());
            for (k, v) in members {
                map.insert(k.to_string(), v);
            }
            Value::Object(map)
        },
    ))
}

/// The twin of a number (`text` is valid JSON number text, as the parser checked). Its text
/// is kept except for the exponent, which serde_json rewrites (`1E3` → `1e+3`): the twin's
/// numbers are for filter comparisons only; leaf texts come from the [`Node`].
fn number_value(text: &str) -> Number {
    text.parse().unwrap_or_else(|_| Number::from(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Json;

    #[test]
    fn twin_keeps_structure_order_and_number_texts() {
        let doc =
            Json::parse(r#"{"z":[1,2.5,{"y":null}],"a":"x","n":1e400,"m":-1e400,"b":true,"e":[]}"#).unwrap();
        let v = to_serde_value(doc.root());
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["z", "a", "n", "m", "b", "e"]);
        assert_eq!(v["z"], serde_json::json!([1, 2.5, {"y": null}]));
        assert_eq!(v["n"].as_f64(), None, "beyond f64: compares with nothing");
        assert_eq!(v["m"].as_f64(), None);
        assert_eq!(v["e"], serde_json::json!([]));
    }

    #[test]
    fn scalar_roots_and_deep_copies() {
        assert_eq!(*to_serde_value(Json::parse("7").unwrap().root()), serde_json::json!(7));
        let text = format!("{}1{}", "[{\"a\":".repeat(5000), "}]".repeat(5000));
        let doc = Json::parse(&text).unwrap();
        let copy = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || Json::from_node(clone_flat(doc.root())).to_json_string())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(copy, text);
    }
}
