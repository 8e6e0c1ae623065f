//! The expanded view of a document: every string that holds JSON replaced, in place, by the
//! value it holds, again and again, so JSON encoded twice is expanded twice.
//!
//! Tool outputs carry JSON inside strings — an MCP result's `content[].text`, a wrapper's
//! `data`, a log line that is itself JSON. A string *holds JSON* when its value is strict JSON
//! text (the rules of the raw output itself) whose top-level value is an object or an array:
//! `{}` and `[]` count, `"42"`, `"true"` and `"\"x\""` do not. The view is built without
//! recursion, each string parsed once, and its depth counts from the outer document's root
//! through the replaced strings.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::packed::Searcher;

use super::parse::parse_with_depth_limit;
use super::value::clone_flat;
use super::{drop_flat, Json, JsonErrorKind, Node};
use crate::address::AddressSet;

/// The expanded view would be nested deeper than the depth limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooDeep;

/// An expanded view, and where in it the values that replaced strings lie.
pub(crate) struct Expanded {
    /// The view.
    pub(crate) doc: Json,
    /// The nodes that replaced a string, by address (they live in their parents' vectors,
    /// which the view never changes again), or `None` when the root itself did (the whole
    /// document was a string holding JSON) and so the whole view is new.
    pub(crate) held: Option<AddressSet>,
}

/// The expanded view of `doc` with nesting up to `max_depth`, or `None` when no string in it
/// holds JSON (the view is the document itself). A borrowed document is copied first; an
/// owned one is expanded where it lies.
pub(crate) fn expand(doc: Cow<'_, Json>, max_depth: usize) -> Result<Option<Expanded>, TooDeep> {
    let mut root = match doc {
        // Most documents hold no JSON in their strings: they are not copied to find that out.
        Cow::Borrowed(doc) if !any_candidate(doc.root()) => return Ok(None),
        Cow::Borrowed(doc) => clone_flat(doc.root()),
        Cow::Owned(doc) => doc.into_root(),
    };
    let mut held = AddressSet::default();
    let was_string = matches!(root, Node::String(_));
    match expand_in_place(&mut root, max_depth, &mut held) {
        Ok(true) => {
            // The root moves into the `Json`: its address means nothing.
            let root_replaced = was_string && !matches!(root, Node::String(_));
            let held = (!root_replaced).then_some(held);
            Ok(Some(Expanded { doc: Json::from_node(root), held }))
        }
        Ok(false) => {
            drop_flat(root);
            Ok(None)
        }
        Err(too_deep) => {
            drop_flat(root);
            Err(too_deep)
        }
    }
}

/// Replaces every string of `root` that holds JSON, noting where; whether any did.
fn expand_in_place(root: &mut Node, max_depth: usize, held: &mut AddressSet) -> Result<bool, TooDeep> {
    let mut changed = false;
    // Each node with the number of containers above it.
    let mut stack: Vec<(&mut Node, usize)> = vec![(root, 0)];
    while let Some((node, above)) = stack.pop() {
        match node {
            Node::Array(items) => stack.extend(items.iter_mut().rev().map(|n| (n, above + 1))),
            Node::Object(members) => stack.extend(members.iter_mut().rev().map(|(_, n)| (n, above + 1))),
            Node::String(text) => {
                if let Some(value) = held_json(text, max_depth.saturating_sub(above))? {
                    *node = value;
                    changed = true;
                    held.insert(&*node as *const Node as usize);
                    // The held value sits where the string was: walk into it at that level.
                    stack.push((node, above));
                }
            }
            Node::Null | Node::Bool(_) | Node::Number(_) => {}
        }
    }
    Ok(changed)
}

/// Whether a string of `root` could hold JSON: [`held_json`]'s first test, without parsing.
fn any_candidate(root: &Node) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node {
            Node::Array(items) => stack.extend(items),
            Node::Object(members) => stack.extend(members.iter().map(|(_, n)| n)),
            Node::String(text) => {
                if starts_a_container(text) {
                    return true;
                }
            }
            Node::Null | Node::Bool(_) | Node::Number(_) => {}
        }
    }
    false
}

/// Whether the first byte of `text` past JSON white space opens an object or an array (a BOM
/// is not white space).
pub(super) fn starts_a_container(text: &str) -> bool {
    let first = text.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    matches!(first, Some(b'{' | b'['))
}

/// Whether some string of the JSON text `text` may hold JSON, read from the text alone: a
/// string holding JSON starts, past JSON white space, with `{` or `[`, and its text as
/// written starts with `"`, then white space written as itself or escaped (`\n`,
/// `\u0020`…), then `{`, `[` or their `\u` escapes. `false` when no `"` of the text is
/// followed so (a closing quote never is in JSON: a `,`, `:`, `]` or `}` comes first), so that
/// the expanded view is known to be the plain one without parsing the text: a failing ref
/// looks in the expanded view of a document that, most often, has no JSON in its strings.
pub(crate) fn may_hold_json(text: &str) -> bool {
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"\\u").is_some() {
        return may_hold_json_escaped(bytes);
    }
    may_hold_json_unescaped(text)
}

/// [`may_hold_json`] of a text known to have no `\u` escape (the quick test of `elsewhere`
/// knows it already, and saves the pass that looks for one).
pub(crate) fn may_hold_json_unescaped(text: &str) -> bool {
    let bytes = text.as_bytes();
    debug_assert!(memchr::memmem::find(bytes, b"\\u").is_none());
    // No `\u` escape: from each `"` followed by what could begin such a string, forward over
    // white space. A tool output has a `{` or `[` every few dozen bytes, such a `"` hardly
    // ever: one pass for the seven pairs (a packed SIMD search) is cheaper than stopping at
    // every bracket, or than a pass per pair.
    static PAIRS: LazyLock<Option<Searcher>> =
        LazyLock::new(|| Searcher::new([b"\"{", b"\"[", b"\" ", b"\"\\", b"\"\n", b"\"\t", b"\"\r"]));
    let Some(pairs) = PAIRS.as_ref() else { return may_hold_json_escaped(bytes) };
    pairs.find_iter(bytes).any(|pair| {
        let mut i = pair.start() + 1;
        loop {
            match bytes.get(i..).unwrap_or_default() {
                [b' ' | b'\t' | b'\n' | b'\r', ..] => i += 1,
                [b'\\', b't' | b'n' | b'r', ..] => i += 2,
                [b'{' | b'[', ..] => return true,
                _ => return false,
            }
        }
    })
}

/// [`may_hold_json`] of a text with `\u` escapes: forward from each `"`.
fn may_hold_json_escaped(bytes: &[u8]) -> bool {
    let hex = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        digits.iter().try_fold(0, |n, &b| Some(n * 16 + char::from(b).to_digit(16)?))
    };
    memchr::memchr_iter(b'"', bytes).any(|quote| {
        let mut i = quote + 1;
        loop {
            match bytes.get(i..).unwrap_or_default() {
                [b' ' | b'\t' | b'\n' | b'\r', ..] => i += 1,
                [b'\\', b't' | b'n' | b'r', ..] => i += 2,
                [b'{' | b'[', ..] => return true,
                [b'\\', b'u', ..] => match hex(i + 2) {
                    Some(0x20 | 0x09 | 0x0a | 0x0d) => i += 6,
                    Some(0x7b | 0x5b) => return true,
                    _ => return false,
                },
                _ => return false,
            }
        }
    })
}

/// The value `text` holds, if it is JSON text whose top-level value is an object or array,
/// parsed with nesting up to `max_depth`.
fn held_json(text: &str, max_depth: usize) -> Result<Option<Node>, TooDeep> {
    if !starts_a_container(text) {
        return Ok(None);
    }
    match parse_with_depth_limit(text, max_depth) {
        Ok(doc) => Ok(Some(doc.into_root())),
        Err(e) if matches!(e.kind, JsonErrorKind::TooDeep(_)) => Err(TooDeep),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test never says no where a string holds JSON, written in any of the ways JSON
    /// allows, and says no to ordinary documents.
    #[test]
    fn may_hold_json_misses_no_string_that_holds_json() {
        let holding = [
            r#"{"a":"{\"b\":1}"}"#,
            r#"["x", " [1]"]"#,
            r#"{"a":"\n\t\r {}"}"#,
            r#"{"a":"\u0020\u000A\u000d\u0009\u005B1]"}"#,
            r#"{"a":"\u007b}"}"#,
            r#""{\"whole\":true}""#,
        ];
        for text in holding {
            assert!(may_hold_json(text), "{text}");
        }
        for text in [
            r#"{"a":"b","c":[1,{"d":"e [f]"}]}"#,
            "{\n  \"a\": {\n    \"b\": [\"x\"]\n  }\n}",
            "[]",
            r#""\ufeff{}""#,
        ] {
            assert!(!may_hold_json(text), "{text}");
        }
        // Against the tree: whenever a string holds JSON, the quick test says it may.
        for text in holding {
            let doc = Json::parse(text).unwrap();
            assert!(expand(Cow::Borrowed(&doc), 64).unwrap().is_some(), "{text}");
        }
    }

    /// The search by pairs answers as looking back from every bracket did, on random texts
    /// of the characters that matter (no `\u`: that branch is the same as before).
    #[test]
    fn may_hold_json_answers_as_looking_back_from_each_bracket() {
        fn looking_back(bytes: &[u8]) -> bool {
            memchr::memchr2_iter(b'{', b'[', bytes).any(|open| {
                let mut i = open;
                loop {
                    match bytes[..i] {
                        [.., b' ' | b'\t' | b'\n' | b'\r'] => i -= 1,
                        [.., b'\\', b't' | b'n' | b'r'] => i -= 2,
                        [.., b'"'] => return true,
                        _ => return false,
                    }
                }
            })
        }
        let alphabet = b"\"\\ntr {[\n\t\ra:,]}";
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut yes, mut no) = (0, 0);
        for _ in 0..50_000 {
            let len = (next() % 12) as usize;
            let text: String =
                (0..len).map(|_| char::from(alphabet[(next() % alphabet.len() as u64) as usize])).collect();
            let expected = looking_back(text.as_bytes());
            assert_eq!(may_hold_json(&text), expected, "{text:?}");
            if expected {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 1_000 && no > 1_000, "{yes} {no}");
    }

    fn expanded(text: &str, max_depth: usize) -> Result<Option<String>, TooDeep> {
        let doc = Json::parse(text).unwrap();
        let borrowed = expand(Cow::Borrowed(&doc), max_depth)?.map(|e| e.doc.to_json_string());
        let owned = expand(Cow::Owned(doc), max_depth)?.map(|e| e.doc.to_json_string());
        assert_eq!(borrowed, owned);
        Ok(owned)
    }

    #[test]
    fn strings_holding_objects_or_arrays_are_replaced_recursively() {
        let mcp = r#"{"content":[{"type":"text","text":"{\"items\":[{\"message\":\"disk full\"}]}"}]}"#;
        assert_eq!(
            expanded(mcp, 512).unwrap().as_deref(),
            Some(r#"{"content":[{"type":"text","text":{"items":[{"message":"disk full"}]}}]}"#)
        );
        let twice = r#"{"data":"\"{\\\"a\\\":[1]}\""}"#;
        assert_eq!(expanded(twice, 512).unwrap(), None, "a string holding a JSON string does not hold JSON");
        let twice = r#"{"data":"[\"{\\\"a\\\":1E3}\"]"}"#;
        assert_eq!(expanded(twice, 512).unwrap().as_deref(), Some(r#"{"data":[{"a":1E3}]}"#));
        assert_eq!(expanded(r#"[" {} ","[]"]"#, 512).unwrap().as_deref(), Some("[{},[]]"));
    }

    #[test]
    fn scalars_strings_and_broken_json_are_left_alone() {
        for text in [r#"["42","true","null","\"x\"","{broken","[1] tail","\ufeff[1]"]"#, "\"plain\"", "{}"] {
            assert_eq!(expanded(text, 512).unwrap(), None, "{text}");
        }
    }

    #[test]
    fn depth_counts_through_replaced_strings() {
        // The string sits inside two containers; what it holds adds two more: depth 4.
        let text = r#"{"a":["[[1]]"]}"#;
        assert_eq!(expanded(text, 4).unwrap().as_deref(), Some(r#"{"a":[[[1]]]}"#));
        assert_eq!(expanded(text, 3), Err(TooDeep));
        let doc = Json::parse(text).unwrap();
        assert_eq!(expand(Cow::Borrowed(&doc), 4).unwrap().unwrap().doc.depth(), 4);
    }

    #[test]
    fn deep_encodings_expand_without_recursion() {
        let mut text = String::from("\"x\"");
        for _ in 0..12 {
            text = serde_json::to_string(&format!("[{text}]")).unwrap();
        }
        let doc = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || expanded(&format!("[{text}]"), 512).unwrap().unwrap())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(doc, format!("{}\"x\"{}", "[".repeat(13), "]".repeat(13)));
    }
}
