//! [`JsonBuilder`]: a [`Json`] built value by value, for a caller that holds a document in
//! another form (a binding's native objects) and would otherwise write it as JSON text only
//! for [`Json::parse`] to read it back.
//!
//! The builder keeps its own stack, so a value of any depth costs heap, never the caller's
//! stack, and the tree is the one [`Json::parse`] makes of the same text: numbers as written
//! (checked against the JSON grammar), members in the order given, a repeated key's last
//! value at its first position, the depth counted the same way.

use super::parse::{dedup_members, Parser};
use super::{drop_flat, Json, Node};
use crate::error::{Error, ErrorKind};

/// The most children a container is given room for before they come: a length is a hint,
/// and a wrong one must not reserve much memory.
const MAX_RESERVED: usize = 4096;

/// An open container: its children so far, and for an object the key of the next member.
enum Open {
    Array(Vec<Node>),
    Object(Vec<(Box<str>, Node)>, Option<Box<str>>),
}

/// Builds one [`Json`] value from calls in document order: [`begin_object`](Self::begin_object),
/// then [`key`](Self::key) and a value for each member, then [`end`](Self::end); arrays
/// alike; scalars with [`null`](Self::null), [`bool`](Self::bool), [`number`](Self::number)
/// and [`string`](Self::string). [`finish`](Self::finish) returns the value, or an error of
/// kind [`ErrorKind::Json`] for calls that do not make exactly one JSON value (a member
/// without a key, a container left open, a number that is not one) — the first problem met.
///
/// ```
/// use groundcheck_core::{Json, JsonBuilder};
///
/// let mut b = JsonBuilder::new();
/// b.begin_object();
/// b.key("score");
/// b.number("0.950");
/// b.key("tags");
/// b.begin_array();
/// b.string("a");
/// b.null();
/// b.end();
/// b.end();
/// assert_eq!(b.finish()?, Json::parse(r#"{"score":0.950,"tags":["a",null]}"#)?);
/// # Ok::<(), groundcheck_core::Error>(())
/// ```
#[derive(Default)]
pub struct JsonBuilder {
    stack: Vec<Open>,
    root: Option<Node>,
    depth: usize,
    problem: Option<&'static str>,
}

impl JsonBuilder {
    /// A builder with nothing built yet.
    pub fn new() -> JsonBuilder {
        JsonBuilder::default()
    }

    /// JSON `null`.
    pub fn null(&mut self) {
        self.value(Node::Null);
    }

    /// `true` or `false`.
    pub fn bool(&mut self, value: bool) {
        self.value(Node::Bool(value));
    }

    /// A number, kept as written; `text` must be a JSON number (`-0.950`, `1e+16`).
    pub fn number(&mut self, text: &str) {
        let mut parser = Parser::new(text);
        match parser.number() {
            Ok(n) if n.len() == text.len() => self.value(Node::Number(text.into())),
            _ => self.fail("a number that is not a JSON number"),
        }
    }

    /// A string (its value, not JSON text).
    pub fn string(&mut self, value: &str) {
        self.value(Node::String(value.into()));
    }

    /// The key of the next member of the innermost open object.
    pub fn key(&mut self, key: &str) {
        match self.stack.last_mut() {
            Some(Open::Object(_, next @ None)) => *next = Some(key.into()),
            _ => self.fail("a key outside an object, or two keys in a row"),
        }
    }

    /// Opens an array: the values until the matching [`end`](Self::end) are its items.
    pub fn begin_array(&mut self) {
        self.open(Open::Array(Vec::new()));
    }

    /// Opens an array that will hold about `items` items, room for them allocated at once
    /// instead of grown: a caller that knows a container's length (a binding's list) saves
    /// the reallocations. Otherwise [`begin_array`](Self::begin_array).
    pub fn begin_array_with_capacity(&mut self, items: usize) {
        self.open(Open::Array(Vec::with_capacity(items.min(MAX_RESERVED))));
    }

    /// Opens an object: [`key`](Self::key) and a value for each member, until the matching
    /// [`end`](Self::end).
    pub fn begin_object(&mut self) {
        self.open(Open::Object(Vec::new(), None));
    }

    /// Opens an object that will hold about `members` members, room for them allocated at
    /// once; otherwise [`begin_object`](Self::begin_object).
    pub fn begin_object_with_capacity(&mut self, members: usize) {
        self.open(Open::Object(Vec::with_capacity(members.min(MAX_RESERVED)), None));
    }

    /// Closes the innermost open array or object.
    pub fn end(&mut self) {
        let node = match self.stack.pop() {
            Some(Open::Array(items)) => Node::Array(items),
            Some(Open::Object(members, None)) => Node::Object(dedup_members(members)),
            Some(Open::Object(members, Some(_))) => {
                drop_flat(Node::Object(members));
                return self.fail("a key without a value");
            }
            None => return self.fail("an end without an open array or object"),
        };
        self.value(node);
    }

    /// The value built, or the first problem met.
    pub fn finish(mut self) -> Result<Json, Error> {
        let problem = match (self.problem, self.stack.is_empty(), self.root.take()) {
            (None, true, Some(root)) => return Ok(Json { root, depth: self.depth.max(1) }),
            (Some(problem), _, _) => problem,
            (None, false, _) => "an array or object left open",
            (None, true, None) => "no value",
        };
        Err(Error::new(ErrorKind::Json, problem))
    }

    fn open(&mut self, container: Open) {
        if self.problem.is_none() {
            self.stack.push(container);
            self.depth = self.depth.max(self.stack.len());
        }
    }

    /// Attaches a finished value to the innermost open container, or makes it the root.
    fn value(&mut self, node: Node) {
        if self.problem.is_some() {
            return drop_flat(node);
        }
        match self.stack.last_mut() {
            Some(Open::Array(items)) => items.push(node),
            Some(Open::Object(members, key)) => match key.take() {
                Some(key) => members.push((key, node)),
                None => {
                    drop_flat(node);
                    self.fail("a member without a key");
                }
            },
            None if self.root.is_none() => self.root = Some(node),
            None => {
                drop_flat(node);
                self.fail("a second value after the first");
            }
        }
    }

    fn fail(&mut self, problem: &'static str) {
        self.problem.get_or_insert(problem);
    }
}

impl Drop for JsonBuilder {
    // Open containers may be deep: dropped without recursion, like a `Json`.
    fn drop(&mut self) {
        for open in self.stack.drain(..) {
            drop_flat(match open {
                Open::Array(items) => Node::Array(items),
                Open::Object(members, _) => Node::Object(members),
            });
        }
        if let Some(root) = self.root.take() {
            drop_flat(root);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(calls: impl FnOnce(&mut JsonBuilder)) -> Result<Json, Error> {
        let mut b = JsonBuilder::new();
        calls(&mut b);
        b.finish()
    }

    #[test]
    fn builds_what_the_parser_reads() {
        let json = built(|b| {
            b.begin_object();
            b.key("a");
            b.number("-1.50e+3");
            b.key("b");
            b.begin_array();
            b.bool(true);
            b.string("x\"y");
            b.begin_object();
            b.end();
            b.end();
            b.key("a");
            b.null();
            b.end();
        })
        .unwrap();
        let parsed = Json::parse(r#"{"a":-1.50e+3,"b":[true,"x\"y",{}],"a":null}"#).unwrap();
        assert_eq!(json, parsed);
        assert_eq!(json.to_json_string(), r#"{"a":null,"b":[true,"x\"y",{}]}"#);
        assert_eq!(json.depth(), parsed.depth());
        assert_eq!(built(|b| b.number("7")).unwrap().depth(), 1);
    }

    #[test]
    fn room_reserved_is_only_a_hint() {
        let json = built(|b| {
            b.begin_object_with_capacity(usize::MAX);
            b.key("a");
            b.begin_array_with_capacity(0);
            b.number("1");
            b.number("2");
            b.end();
            b.end();
        })
        .unwrap();
        assert_eq!(json, Json::parse(r#"{"a":[1,2]}"#).unwrap());
    }

    #[test]
    fn repeated_keys_in_a_large_object_too() {
        let json = built(|b| {
            b.begin_object();
            for i in 0..40 {
                b.key(&format!("k{}", i % 20));
                b.number(&i.to_string());
            }
            b.end();
        })
        .unwrap();
        let text: Vec<String> = (0..20).map(|i| format!(r#""k{i}":{}"#, i + 20)).collect();
        assert_eq!(json.to_json_string(), format!("{{{}}}", text.join(",")));
    }

    #[test]
    fn misuse_is_an_error_never_a_panic() {
        type Calls = fn(&mut JsonBuilder);
        let cases: [(&str, Calls); 8] = [
            ("no value", |_| {}),
            ("left open", |b| b.begin_array()),
            ("number", |b| b.number("01")),
            ("number", |b| b.number("NaN")),
            ("second value", |b| {
                b.null();
                b.null();
            }),
            ("key outside", |b| b.key("a")),
            ("member without a key", |b| {
                b.begin_object();
                b.null();
            }),
            ("key without a value", |b| {
                b.begin_object();
                b.key("a");
                b.end();
            }),
        ];
        for (what, calls) in cases {
            let e = built(calls).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Json, "{what}");
        }
        assert!(built(|b| b.end()).is_err());
    }

    #[test]
    fn deep_values_need_no_recursion() {
        let depth = 100_000;
        let handle = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                let mut b = JsonBuilder::new();
                for _ in 0..depth {
                    b.begin_array();
                }
                // Dropped open, then built whole.
                drop(b);
                let mut b = JsonBuilder::new();
                for _ in 0..depth {
                    b.begin_array();
                }
                for _ in 0..depth {
                    b.end();
                }
                b.finish().map(|j| j.depth())
            })
            .unwrap();
        assert_eq!(handle.join().unwrap().unwrap(), depth);
    }
}
