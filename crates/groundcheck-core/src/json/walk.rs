//! The leaves of a JSON text in document order, read straight from the text: what
//! `elsewhere` needs of a located document (which has no tree) to search all of it, without
//! building the tree a miss would otherwise parse just to be read once.
//!
//! The order is the tree's only while no object repeats a key (the tree keeps the last value
//! at the first position): a repeated key stops the walk with [`NotPlain`], and the caller
//! takes the tree. So does anything the text's validation should already have refused.

use std::borrow::Cow;
use std::collections::HashSet;

use super::normalized::{push_index, push_name};
use super::parse::{JsonError, Parser};

/// The text's leaves cannot be read in the tree's order from the text: an object repeats a
/// key, or the text is not the valid JSON the locator already checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotPlain;

impl From<JsonError> for NotPlain {
    fn from(_: JsonError) -> NotPlain {
        NotPlain
    }
}

/// Every leaf of a text, as the tree's `leaf_text` gives them, laid end to end.
pub(crate) struct TextLeaves {
    /// The leaves' texts: strings decoded, numbers as written, `true`, `false`, `null`.
    pub(crate) all: String,
    /// Where each leaf ends in `all`.
    pub(crate) ends: Vec<usize>,
    /// The values of the text, containers included (what the node limit counts).
    pub(crate) nodes: usize,
    /// Whether some string could hold JSON (it starts, past white space, with `{` or `[`).
    pub(crate) candidate: bool,
}

/// Reads the leaves of `text`, nested at most `max_depth` deep.
pub(crate) fn text_leaves(text: &str, max_depth: usize) -> Result<TextLeaves, NotPlain> {
    let mut leaves =
        TextLeaves { all: String::with_capacity(text.len()), ends: Vec::new(), nodes: 0, candidate: false };
    let nodes = walk(text, max_depth, |p, leaf, _| {
        match leaf {
            Leaf::String => {
                let start = leaves.all.len();
                p.decode_into(&mut leaves.all)?;
                leaves.candidate |= super::expand::starts_a_container(&leaves.all[start..]);
            }
            Leaf::Scalar(text) => leaves.all.push_str(text),
        }
        leaves.ends.push(leaves.all.len());
        Ok(true)
    })?;
    leaves.nodes = nodes;
    Ok(leaves)
}

/// The normalized path of leaf number `k` (from 0, in document order) of `text`.
pub(crate) fn leaf_path(text: &str, max_depth: usize, k: usize) -> Option<String> {
    let mut ordinal = 0;
    let mut found = None;
    walk(text, max_depth, |p, leaf, places| {
        if matches!(leaf, Leaf::String) {
            p.skip_string()?;
        }
        if ordinal == k {
            found = Some(path_of(places));
            return Ok(false);
        }
        ordinal += 1;
        Ok(true)
    })
    .ok()?;
    found
}

/// What [`first_leaf_within`] found.
pub(crate) struct FirstLeaf {
    /// The normalized path of the first leaf accepted.
    pub(crate) path: Option<String>,
    /// The values of the text, containers included (what the node limit counts).
    pub(crate) nodes: usize,
}

/// The first leaf of `text`, in document order, lying inside one of `spans` (byte ranges of
/// the text, in order and apart) whose text `holds` accepts. Only those leaves are decoded;
/// the text is walked to its end all the same, to count its values and to tell a repeated
/// key, which puts the tree's order in doubt ([`NotPlain`]).
pub(crate) fn first_leaf_within(
    text: &str,
    max_depth: usize,
    spans: &[std::ops::Range<usize>],
    holds: impl Fn(&str) -> bool,
) -> Result<FirstLeaf, NotPlain> {
    let mut path = None;
    let mut next = 0;
    let nodes = walk(text, max_depth, |p, leaf, places| {
        let (start, end, scalar) = match leaf {
            Leaf::String => {
                let open = p.pos;
                p.skip_string()?;
                (open + 1, p.pos - 1, None)
            }
            Leaf::Scalar(scalar) => (p.pos - scalar.len(), p.pos, Some(scalar)),
        };
        while spans.get(next).is_some_and(|span| span.end < end) {
            next += 1;
        }
        let within = spans.get(next).is_some_and(|span| span.start <= start && end <= span.end);
        if path.is_none() && within {
            let leaf = match scalar {
                Some(scalar) => Cow::Borrowed(scalar),
                None => {
                    let mut string = Parser::new(text);
                    string.pos = start - 1;
                    let mut decoded = String::with_capacity(end - start);
                    string.decode_into(&mut decoded)?;
                    Cow::Owned(decoded)
                }
            };
            if holds(&leaf) {
                path = Some(path_of(places));
            }
        }
        Ok(true)
    })?;
    Ok(FirstLeaf { path, nodes })
}

/// The normalized path of the places from the root.
fn path_of(places: &[Place<'_>]) -> String {
    let mut path = String::from("$");
    for place in places {
        match place {
            Place::Name(name) => push_name(&mut path, name),
            Place::Index(i) => push_index(&mut path, *i),
        }
    }
    path
}

/// A leaf as the walk meets it.
enum Leaf<'a> {
    /// A string, the parser at its opening quote: the visitor reads or skips it.
    String,
    /// A number as written, or a literal.
    Scalar(&'a str),
}

/// One step from the root to the value being read.
enum Place<'a> {
    Name(Cow<'a, str>),
    Index(usize),
}

/// An open container.
enum Frame<'a> {
    Array { next: usize },
    Object(Keys<'a>),
}

/// An object's member names so far, to tell a repeated one.
struct Keys<'a> {
    list: Vec<Cow<'a, str>>,
    /// Past [`Keys::LINEAR`] names, a set of them too.
    set: Option<HashSet<Cow<'a, str>>>,
}

impl<'a> Keys<'a> {
    /// Up to this many names are compared one by one.
    const LINEAR: usize = 16;

    /// Adds `key`; false when the object already has it.
    fn insert(&mut self, key: Cow<'a, str>) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(key);
        }
        if self.list.contains(&key) {
            return false;
        }
        self.list.push(key);
        if self.list.len() > Keys::LINEAR {
            self.set = Some(self.list.drain(..).collect());
        }
        true
    }
}

/// Walks the values of `text` in document order, calling `visit` on each leaf with the
/// places leading to it; `visit` answers whether to go on. Returns how many values the text
/// has (containers included) when it was walked to the end.
fn walk<'a>(
    text: &'a str,
    max_depth: usize,
    mut visit: impl FnMut(&mut Parser<'a>, Leaf<'a>, &[Place<'a>]) -> Result<bool, NotPlain>,
) -> Result<usize, NotPlain> {
    let mut p = Parser::new(text);
    let mut stack: Vec<Frame<'a>> = Vec::new();
    let mut places: Vec<Place<'a>> = Vec::new();
    let mut nodes = 0usize;
    'value: loop {
        p.skip_ws();
        nodes += 1;
        let start = p.pos;
        let go_on = match p.peek() {
            Some(open @ (b'[' | b'{')) => {
                if stack.len() >= max_depth {
                    return Err(NotPlain);
                }
                p.pos += 1;
                p.skip_ws();
                let array = open == b'[';
                if p.peek() == Some(if array { b']' } else { b'}' }) {
                    p.pos += 1;
                    true
                } else {
                    if array {
                        stack.push(Frame::Array { next: 1 });
                        places.push(Place::Index(0));
                    } else {
                        let key = p.member_key()?;
                        let mut keys = Keys { list: Vec::new(), set: None };
                        keys.insert(key.clone());
                        stack.push(Frame::Object(keys));
                        places.push(Place::Name(key));
                    }
                    continue 'value;
                }
            }
            Some(b'"') => visit(&mut p, Leaf::String, &places)?,
            Some(b't' | b'f' | b'n' | b'-' | b'0'..=b'9') => {
                scalar(&mut p)?;
                let scalar = &text[start..p.pos];
                visit(&mut p, Leaf::Scalar(scalar), &places)?
            }
            _ => return Err(NotPlain),
        };
        if !go_on {
            return Ok(nodes);
        }
        // Close every container that ends here, then move to the next sibling.
        loop {
            p.skip_ws();
            let Some(frame) = stack.last_mut() else {
                return if p.pos == p.bytes.len() { Ok(nodes) } else { Err(NotPlain) };
            };
            match (p.peek(), frame) {
                (Some(b','), Frame::Array { next }) => {
                    p.pos += 1;
                    if let Some(place) = places.last_mut() {
                        *place = Place::Index(*next);
                    }
                    *next += 1;
                    continue 'value;
                }
                (Some(b','), Frame::Object(keys)) => {
                    p.pos += 1;
                    p.skip_ws();
                    let key = p.member_key()?;
                    if !keys.insert(key.clone()) {
                        return Err(NotPlain);
                    }
                    if let Some(place) = places.last_mut() {
                        *place = Place::Name(key);
                    }
                    continue 'value;
                }
                (Some(b']'), Frame::Array { .. }) | (Some(b'}'), Frame::Object(_)) => {
                    p.pos += 1;
                    stack.pop();
                    places.pop();
                }
                _ => return Err(NotPlain),
            }
        }
    }
}

/// Reads the number or literal at the parser's position.
fn scalar(p: &mut Parser<'_>) -> Result<(), JsonError> {
    match p.peek() {
        Some(b't') => p.literal("true", super::Node::Null).map(drop),
        Some(b'f') => p.literal("false", super::Node::Null).map(drop),
        Some(b'n') => p.literal("null", super::Node::Null).map(drop),
        _ => p.number().map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Json;
    use crate::ladder;

    /// What the tree gives: its leaves in order, and each leaf's normalized path.
    fn from_tree(text: &str) -> (Vec<String>, Vec<String>) {
        let doc = Json::parse(text).unwrap();
        let root = [doc.root()];
        let mut leaves = Vec::new();
        ladder::for_each_leaf(&root, |_, leaf| {
            leaves.push(leaf.to_string());
            true
        });
        let paths = (0..leaves.len()).map(|k| ladder::leaf_path(&root, |_| "$".to_string(), k)).collect();
        (leaves, paths)
    }

    #[test]
    fn leaves_and_their_paths_are_the_trees() {
        for text in [
            r#"{"a":[1,"x\"y",{"b":null,"c":true}],"d":false,"e":-0.50E+3,"f":[],"g":{}}"#,
            r#"  [ "\u00e9\ud83d\ude00" , [ [ ] , [ "" ] ] , { "it's" : "q" , "a\"b" : 0 } ]  "#,
            r#""just a string""#,
            "42",
            "[[[[1]]],2]",
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"ka":10,"kb":11,"kc":12,"kd":13,"ke":14,"kf":15,"kg":16,"kh":17,"ki":[18]}"#,
        ] {
            let (leaves, paths) = from_tree(text);
            let walked = text_leaves(text, 512).unwrap();
            let texts: Vec<&str> = (0..walked.ends.len())
                .map(|k| &walked.all[if k == 0 { 0 } else { walked.ends[k - 1] }..walked.ends[k]])
                .collect();
            assert_eq!(texts, leaves, "{text}");
            for (k, path) in paths.iter().enumerate() {
                assert_eq!(leaf_path(text, 512, k).as_ref(), Some(path), "{text} leaf {k}");
            }
            assert_eq!(leaf_path(text, 512, paths.len()), None);
            let doc = Json::parse(text).unwrap();
            let nodes = walked.nodes;
            assert!(
                crate::json::holds_at_most(doc.root(), nodes)
                    && !crate::json::holds_at_most(doc.root(), nodes - 1)
            );
        }
    }

    #[test]
    fn a_repeated_key_or_a_text_the_locator_refused_takes_the_tree() {
        assert_eq!(text_leaves(r#"{"a":1,"b":2,"a":3}"#, 512).err(), Some(NotPlain));
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        let repeated = format!("{{{},\"k3\":0}}", many.join(","));
        assert_eq!(text_leaves(&repeated, 512).err(), Some(NotPlain), "past the linear keys, a set tells");
        for broken in ["[1,]", "{\"a\" 1}", "[1] x", "[[1]]"] {
            let depth = if broken == "[[1]]" { 1 } else { 512 };
            assert_eq!(text_leaves(broken, depth).err(), Some(NotPlain), "{broken}");
        }
    }

    #[test]
    fn a_string_that_could_hold_json_is_noticed() {
        assert!(text_leaves(r#"["x", " \n{no"]"#, 512).unwrap().candidate);
        assert!(!text_leaves(r#"["x", "a{"]"#, 512).unwrap().candidate);
    }
}
