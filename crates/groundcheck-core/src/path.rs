//! Evidence paths: RFC 9535 JSONPath with the RFC 6901 JSON Pointer fallback
//! (docs/verification.md#checking-a-ref).
//!
//! JSONPath queries run on serde_json_path, over a `serde_json::Value` parsed from the text
//! ([`EvidencePath::select_value`]) or over the `Value` twin of our tree, each selected value
//! then mapped back to its [`Node`] by one lockstep walk of both trees
//! ([`EvidencePath::select`]). Normalized paths are formatted here, only for the node that is
//! reported, not by serde_json_path, whose formatter does not escape `'` or control characters
//! as RFC 9535 §2.7 requires.

use std::collections::HashMap;

use serde_json::Value;
use serde_json_path::JsonPath;

use crate::budget::{self, OverBudget, Plan};
use crate::error::{Error, ErrorKind, Position};
use crate::iregexp::neutralize;
use crate::json::{push_index, push_name, push_steps, to_serde_value, Node, Seg, Step as TreeStep, Tree};
use crate::policy::Limits;

/// Why a path is neither RFC 9535 JSONPath nor an RFC 6901 JSON Pointer; public as an
/// [`Error`](crate::Error) of kind `Path` or `PathLimit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError {
    /// 1-based character position of the offending character in the path (one past the
    /// end when the path stops too early).
    pub(crate) position: usize,
    /// The byte offset of the same character.
    pub(crate) offset: usize,
    /// What is wrong there.
    pub(crate) message: String,
    /// Set when the path may be valid JSONPath but is not run because it passes a limit
    /// ([`Limits::FILTER_NESTING_CEILING`](crate::Limits::FILTER_NESTING_CEILING),
    /// [`Limits::PAREN_NESTING_CEILING`](crate::Limits::PAREN_NESTING_CEILING)):
    /// verification then gives `limit_exceeded`, not `invalid_path`.
    pub(crate) limit: bool,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid path at character {}: {}", self.position, self.message)
    }
}

impl From<PathError> for Error {
    fn from(e: PathError) -> Error {
        let kind = if e.limit { ErrorKind::PathLimit } else { ErrorKind::Path };
        Error::at(kind, e.message, Position { offset: e.offset, line: 1, column: e.position })
    }
}

impl PathError {
    /// The error at byte `offset` of `path`.
    fn at(path: &str, offset: usize, message: String, limit: bool) -> PathError {
        let position = path[..offset].chars().count() + 1;
        PathError { position, offset, message, limit }
    }

    /// The same error for the path as given, `skipped` bytes of white space before the
    /// trimmed text it was found in.
    pub(crate) fn shifted(&self, given: &str, skipped: usize) -> PathError {
        let before = given[..skipped].chars().count();
        PathError { position: self.position + before, offset: self.offset + skipped, ..self.clone() }
    }
}

/// The limit error [`EvidencePath::parse`] gives `path` without running the JSONPath parser:
/// a filter nested past the ceiling, unless an earlier check refuses the path first.
pub(crate) fn limit_error(path: &str) -> Option<PathError> {
    if truncated_unicode_escape(path).is_some() {
        return None;
    }
    nested_filter(path, Limits::FILTER_NESTING_CEILING)
        .map(nested_filter_error(path))
        .or_else(|| nested_parens(path, Limits::PAREN_NESTING_CEILING).map(nested_parens_error(path)))
}

fn nested_parens_error(path: &str) -> impl Fn(usize) -> PathError + '_ {
    move |at| {
        let message = format!(
            "parentheses nested deeper than {} are not run (a limit, not a syntax error)",
            Limits::PAREN_NESTING_CEILING
        );
        PathError::at(path, at, message, true)
    }
}

fn nested_filter_error(path: &str) -> impl Fn(usize) -> PathError + '_ {
    move |at| {
        let message = format!(
            "filter queries nested deeper than {} are not run (a limit, not a syntax error)",
            Limits::FILTER_NESTING_CEILING
        );
        PathError::at(path, at, message, true)
    }
}

/// A parsed evidence path, ready to run against any number of documents.
#[derive(Debug, Clone)]
pub(crate) struct EvidencePath {
    kind: PathKind,
    /// Whether the path has a descendant segment (`..`), the only way one selected node can
    /// lie inside another: the ladder then skips nested ones (see `Needle::find`).
    nested: bool,
}

#[derive(Debug, Clone)]
enum PathKind {
    /// A singular query of names and non-negative indexes: walked on the document directly.
    Singular(Vec<Step>),
    /// The compiled path, and its plan: how many nodes it may build, read off its text.
    JsonPath(JsonPath, Option<Plan>),
    /// Unescaped reference tokens.
    Pointer(Vec<String>),
}

/// One step of a singular path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Name(String),
    Index(usize),
}

impl EvidencePath {
    /// Parses `path` exactly as given (callers trim first where
    /// docs/verification.md#the-claim says so): JSONPath, or a JSON Pointer when JSONPath
    /// fails and the path begins with `/`.
    pub(crate) fn parse(path: &str) -> Result<EvidencePath, PathError> {
        if let Some(at) = truncated_unicode_escape(path) {
            // serde_json_path 0.7.2 panics (`unreachable!`) on a `\u` cut short by the end of
            // the path, so such a path never reaches it (found by the `resolve` fuzz target).
            let message = "incomplete \\u escape at the end of the path".into();
            return Err(PathError::at(path, at, message, false));
        }
        if let Some(at) = nested_filter(path, Limits::FILTER_NESTING_CEILING) {
            // serde_json_path's parser takes about twice as long per nested filter query
            // (found by the `resolve` fuzz target), so deeper ones never reach it.
            return Err(nested_filter_error(path)(at));
        }
        if let Some(at) = nested_parens(path, Limits::PAREN_NESTING_CEILING) {
            // serde_json_path's parser recurses once per parenthesis, deep enough in a few
            // thousand to overflow a thread's stack (a crash, not a panic), so deeper ones
            // never reach it.
            return Err(nested_parens_error(path)(at));
        }
        // The strict singular subset is valid JSONPath by its grammar (a test holds it to
        // serde_json_path on random paths), so it is walked directly without the general
        // parser, whose cost per path was a tenth of a reverify's path handling.
        if let Some(steps) = singular_steps(path) {
            return Ok(EvidencePath { nested: path.contains(".."), kind: PathKind::Singular(steps) });
        }
        let given = path;
        let path = &*upper_case_escapes(given);
        match JsonPath::parse(path) {
            // In a general path, match()/search() patterns that must give LogicalFalse are
            // replaced by one that fails at once (see `iregexp`).
            Ok(p) => {
                let (compiled, plan) =
                    match neutralize(path).and_then(|n| Some((JsonPath::parse(&n).ok()?, n))) {
                        Some((neutral, text)) => (neutral, Plan::read(&text)),
                        None => (p, Plan::read(path)),
                    };
                Ok(EvidencePath { nested: path.contains(".."), kind: PathKind::JsonPath(compiled, plan) })
            }
            Err(err) if !path.starts_with('/') => Err(jsonpath_error(given, err.position(), err.message())),
            // A pointer has no `\u` escapes: its text is taken as given.
            Err(_) => parse_pointer(given)
                .map(|tokens| EvidencePath { kind: PathKind::Pointer(tokens), nested: false }),
        }
    }

    /// Whether the path is of the strict singular subset, which [`crate::json::locate`] can
    /// answer from the text without building the document.
    pub(crate) fn is_singular(&self) -> bool {
        matches!(self.kind, PathKind::Singular(_))
    }

    /// The steps of a singular path, for [`crate::json::locate`], with its normalized path.
    pub(crate) fn singular(&self) -> Option<(Vec<Seg<'_>>, String)> {
        let PathKind::Singular(steps) = &self.kind else { return None };
        let mut normalized = String::with_capacity(64);
        normalized.push('$');
        let segs = steps
            .iter()
            .map(|step| match step {
                Step::Name(name) => {
                    push_name(&mut normalized, name);
                    Seg::Name(name)
                }
                Step::Index(i) => {
                    push_index(&mut normalized, *i);
                    Seg::Index(*i)
                }
            })
            .collect();
        Some((segs, normalized))
    }

    /// Whether a query needs the `serde_json::Value` twin of the document.
    pub(crate) fn needs_value(&self) -> bool {
        matches!(self.kind, PathKind::JsonPath(..))
    }

    /// What the path selects in our tree, in RFC 9535 order, each node's normalized path
    /// found when asked. JSONPath queries run on `twin` (`to_serde_value(root)`, built here
    /// when `None`), each selected value mapped back to its [`Node`].
    ///
    /// [`OverBudget`] when the path selects more than `max_nodes` nodes, or would build a
    /// node list past the budget on its way (`budget.rs`): decided before the list is built.
    pub(crate) fn select<'d>(
        &self,
        root: &'d Node,
        twin: Option<&Value>,
        max_nodes: usize,
    ) -> Result<Selection<'d, Node>, OverBudget> {
        Ok(match &self.kind {
            PathKind::Singular(steps) => Selection::at_most_one(walk_singular(steps, root)),
            PathKind::Pointer(tokens) => Selection::at_most_one(walk_pointer(tokens, root)),
            PathKind::JsonPath(path, plan) => {
                let owned;
                let twin = match twin {
                    Some(v) => v,
                    None => {
                        owned = to_serde_value(root);
                        &*owned
                    }
                };
                let selected = budget::query(path, plan.as_ref(), twin, max_nodes)?;
                let nodes = map_to_nodes(twin, root, selected.into_iter());
                Selection { nodes, bases: Bases::Search(root), nested: self.nested }
            }
        })
    }

    /// What the path selects in a `serde_json::Value` document, which serde_json_path queries
    /// directly; normalized paths are formatted only when asked for. [`OverBudget`] as for
    /// [`EvidencePath::select`].
    pub(crate) fn select_value<'v>(
        &'v self,
        root: &'v Value,
        max_nodes: usize,
    ) -> Result<Selection<'v, Value>, OverBudget> {
        Ok(match &self.kind {
            PathKind::Singular(steps) => Selection::at_most_one(walk_singular(steps, root)),
            PathKind::Pointer(tokens) => Selection::at_most_one(walk_pointer(tokens, root)),
            // `query`, not `query_located`: a normalized path per selected node costs an
            // allocation each, and only the winning leaf's path is ever reported.
            PathKind::JsonPath(path, plan) => Selection {
                nodes: budget::query(path, plan.as_ref(), root, max_nodes)?,
                bases: Bases::Search(root),
                nested: self.nested,
            },
        })
    }
}

/// The nodes a path selected, in order, with their normalized paths.
pub(crate) struct Selection<'d, T> {
    pub(crate) nodes: Vec<&'d T>,
    bases: Bases<'d, T>,
    /// Whether a selected node may lie inside another (the path has `..`).
    pub(crate) nested: bool,
}

enum Bases<'d, T> {
    Formatted(Vec<String>),
    /// Found on demand by searching the document (this root) for the node.
    Search(&'d T),
}

impl<'d, T: Tree> Selection<'d, T> {
    /// What a singular path or pointer selected: nothing, or one node with its normalized path.
    pub(crate) fn at_most_one(found: Option<(String, &'d T)>) -> Selection<'d, T> {
        let (bases, nodes) = found.into_iter().unzip();
        Selection { nodes, bases: Bases::Formatted(bases), nested: false }
    }

    /// Nodes of the tree under `root`, none inside another, their paths found when asked.
    pub(crate) fn found_in(root: &'d T, nodes: Vec<&'d T>) -> Selection<'d, T> {
        Selection { nodes, bases: Bases::Search(root), nested: false }
    }

    /// The normalized path of `nodes[i]`.
    pub(crate) fn base(&self, i: usize) -> String {
        match &self.bases {
            Bases::Formatted(paths) => paths[i].clone(),
            Bases::Search(root) => path_to(*root, self.nodes[i]),
        }
    }
}

/// The normalized path of `target`, a node of the tree under `root` (found by address, in a
/// depth-first walk; `$` if it is not there, which a selection never gives).
fn path_to<T: Tree>(root: &T, target: &T) -> String {
    let mut steps: Vec<TreeStep<'_>> = Vec::new();
    let mut stack = vec![(root, 0, None)];
    let mut found = false;
    while let Some((node, depth, step)) = stack.pop() {
        steps.truncate(depth);
        steps.extend(step);
        if std::ptr::eq(node, target) {
            found = true;
            break;
        }
        node.push_children(steps.len(), &mut stack);
    }
    if !found {
        steps.clear();
    }
    let mut path = String::from("$");
    push_steps(&mut path, &steps);
    path
}

/// The byte offset of the first `[` nested more than `ceiling` deep (string literals aside),
/// if any. Only filters nest brackets: every other segment closes before the next opens.
fn nested_filter(path: &str, ceiling: usize) -> Option<usize> {
    nested(path, b'[', b']', ceiling)
}

/// The byte offset of the first `(` nested more than `ceiling` deep (string literals aside),
/// if any.
fn nested_parens(path: &str, ceiling: usize) -> Option<usize> {
    nested(path, b'(', b')', ceiling)
}

/// The byte offset of the first `open` nested more than `ceiling` deep in `path`, skipping
/// string literals.
fn nested(path: &str, open: u8, close: u8, ceiling: usize) -> Option<usize> {
    let bytes = path.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b if b == open => {
                depth += 1;
                if depth > ceiling {
                    return Some(i);
                }
            }
            b if b == close => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The byte offset of a `\u` escape with fewer than four characters after it before the
/// path ends, if there is one. (Only the end of the text can cut an escape short.)
fn truncated_unicode_escape(path: &str) -> Option<usize> {
    let bytes = path.as_bytes();
    let from = bytes.len().saturating_sub(5);
    (from..bytes.len().saturating_sub(1)).find(|&i| {
        let backslashes = bytes[..=i].iter().rev().take_while(|&&b| b == b'\\').count();
        bytes[i] == b'\\' && bytes[i + 1] == b'u' && backslashes % 2 == 1 && bytes.len() - (i + 2) < 4
    })
}

/// `path` with the hex digits of every `\u` escape in upper case, which changes no meaning.
///
/// RFC 9535's grammar is ABNF, whose quoted letters are case-insensitive, so
/// `'\ud83d\udd25'` is the surrogate pair `'\uD83D\uDD25'`; serde_json_path 0.7.2 accepts
/// only the upper-case `D` of a surrogate. The text keeps its length, so error positions
/// stay those of the path as given.
fn upper_case_escapes(path: &str) -> std::borrow::Cow<'_, str> {
    let bytes = path.as_bytes();
    let mut fixed: Option<Vec<u8>> = None;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes[i + 1] == b'u' {
            for at in i + 2..(i + 6).min(bytes.len()) {
                if bytes[at].is_ascii_lowercase() && bytes[at].is_ascii_hexdigit() {
                    fixed.get_or_insert_with(|| bytes.to_vec())[at] = bytes[at].to_ascii_uppercase();
                }
            }
        }
        i += 2; // the escaped character, so `\\u` is a backslash and a `u`
    }
    match fixed {
        // Only ASCII letters changed, so the bytes are still UTF-8.
        Some(bytes) => {
            String::from_utf8(bytes).map_or(std::borrow::Cow::Borrowed(path), std::borrow::Cow::Owned)
        }
        None => std::borrow::Cow::Borrowed(path),
    }
}

fn jsonpath_error(path: &str, byte_offset: usize, message: &str) -> PathError {
    let offending = path.get(byte_offset..).and_then(|rest| rest.chars().next());
    let message = match (message, offending) {
        (_, _) if !path.starts_with('$') => "a JSONPath starts with `$`, a JSON Pointer with `/`".to_string(),
        ("parser error", Some(c)) => format!("unexpected character {c:?}"),
        ("parser error", None) => "unexpected end of path".to_string(),
        (message, _) => message.to_string(),
    };
    // The character the offset falls in is counted as before it.
    let at =
        (byte_offset.min(path.len())..=path.len()).find(|&i| path.is_char_boundary(i)).unwrap_or(path.len());
    PathError::at(path, at, message, false)
}

/// The steps of `path` when it is `$` followed only by `.name` (member-name shorthand),
/// `['name']`/`["name"]` without escapes, and `[index]` with a non-negative index, all
/// without blank space: the singular queries agents write. Anything else (negative indexes,
/// escapes, blanks, wildcards, filters, `..`) is left to serde_json_path.
fn singular_steps(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let name = &after[..end];
            let mut chars = name.chars();
            let first = chars.next()?;
            let name_first = |c: char| c.is_ascii_alphabetic() || c == '_' || c as u32 >= 0x80;
            if !name_first(first) || !chars.all(|c| name_first(c) || c.is_ascii_digit()) {
                return None;
            }
            steps.push(Step::Name(name.to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let inner = &after[..close];
            let quoted = |q: char| {
                inner.strip_prefix(q).and_then(|s| s.strip_suffix(q)).filter(|s| s.len() + 2 == inner.len())
            };
            if let Some(name) = quoted('\'').or_else(|| quoted('"')) {
                let plain = |c: char| c >= ' ' && c != '\\' && c != '\'' && c != '"';
                if !name.chars().all(plain) {
                    return None;
                }
                steps.push(Step::Name(name.to_string()));
            } else {
                let canonical = inner == "0" || (!inner.starts_with('0') && !inner.is_empty());
                if !canonical || !inner.bytes().all(|b| b.is_ascii_digit()) || inner.len() > 15 {
                    return None;
                }
                steps.push(Step::Index(inner.parse().ok()?));
            }
            rest = &after[close + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

fn walk_singular<'d, T: Tree>(steps: &[Step], root: &'d T) -> Option<(String, &'d T)> {
    let mut node = root;
    let mut path = String::from("$");
    for step in steps {
        node = match step {
            Step::Name(name) => {
                push_name(&mut path, name);
                node.child(TreeStep::Name(name))?
            }
            Step::Index(i) => {
                push_index(&mut path, *i);
                node.child(TreeStep::Index(*i))?
            }
        };
    }
    Some((path, node))
}

fn parse_pointer(path: &str) -> Result<Vec<String>, PathError> {
    let mut tokens = Vec::new();
    let mut position = 2;
    for raw in path[1..].split('/') {
        let mut token = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '~' {
                match chars.next() {
                    Some('0') => token.push('~'),
                    Some('1') => token.push('/'),
                    _ => {
                        let at = path.char_indices().nth(position - 1).map_or(path.len(), |(i, _)| i);
                        let message = "in a JSON Pointer `~` must be followed by 0 or 1".into();
                        return Err(PathError::at(path, at, message, false));
                    }
                }
                position += 2;
            } else {
                token.push(c);
                position += 1;
            }
        }
        tokens.push(token);
        position += 1;
    }
    Ok(tokens)
}

fn walk_pointer<'d, T: Tree>(tokens: &[String], root: &'d T) -> Option<(String, &'d T)> {
    let mut node = root;
    let mut path = String::from("$");
    for token in tokens {
        node = if node.is_array() {
            let canonical = token == "0" || (!token.starts_with('0') && !token.is_empty());
            if !canonical || !token.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let index: usize = token.parse().ok()?;
            push_index(&mut path, index);
            node.child(TreeStep::Index(index))?
        } else {
            push_name(&mut path, token);
            node.child(TreeStep::Name(token))?
        };
    }
    Some((path, node))
}

/// Finds the [`Node`] twin of each selected `Value`, in one pre-order walk of both trees.
fn map_to_nodes<'d, 'v>(
    twin: &'v Value,
    root: &'d Node,
    wanted: impl Iterator<Item = &'v Value>,
) -> Vec<&'d Node> {
    let mut slots: HashMap<*const Value, Vec<usize>> = HashMap::new();
    let mut count = 0;
    for (i, v) in wanted.enumerate() {
        slots.entry(v as *const Value).or_default().push(i);
        count = i + 1;
    }
    let mut found: Vec<Option<&'d Node>> = vec![None; count];
    let mut remaining = slots.len();
    let mut stack = vec![(twin, root)];
    while remaining > 0 {
        let Some((value, node)) = stack.pop() else { break };
        if let Some(indexes) = slots.get(&(value as *const Value)) {
            for &i in indexes {
                found[i] = Some(node);
            }
            remaining -= 1;
        }
        match (value, node) {
            (Value::Array(vs), Node::Array(ns)) => stack.extend(vs.iter().zip(ns).rev()),
            (Value::Object(vm), Node::Object(nm)) => {
                stack.extend(vm.values().zip(nm.iter().map(|(_, n)| n)).rev())
            }
            _ => {}
        }
    }
    // The twin is built from `root`, so every selected value has a node twin.
    found.into_iter().map(|n| n.unwrap_or(root)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Json;

    fn paths(path: &str, doc: &str) -> Vec<String> {
        let doc = Json::parse(doc).unwrap();
        let selection = EvidencePath::parse(path).unwrap().select(doc.root(), None, usize::MAX).unwrap();
        (0..selection.nodes.len()).map(|i| selection.base(i)).collect()
    }

    #[test]
    fn surrogate_pairs_may_be_written_in_lower_case_hex() {
        // ABNF's quoted letters are case-insensitive: `\ud83d\udd25` is `\uD83D\uDD25`, 🔥.
        let doc = r#"{"🔥":1,"é":2}"#;
        for path in
            ["$['\\ud83d\\udd25']", "$['\\uD83D\\uDD25']", "$['\\uD83d\\udD25']", "$[\"\\ud83d\\udd25\"]"]
        {
            assert_eq!(paths(path, doc), ["$['🔥']"], "{path}");
        }
        assert_eq!(paths("$['\\u00e9']", doc), ["$['é']"]);
        // An escaped backslash before `u` is not an escape, and a pointer has no escapes.
        assert_eq!(paths("$['\\\\ud83d']", r#"{"\\ud83d":3}"#), ["$['\\\\ud83d']"]);
        assert_eq!(paths("/\\u00e9", r#"{"\\u00e9":4,"\\u00E9":5}"#), ["$['\\\\u00e9']"]);
        // A lone surrogate is still refused, at the position of the path as given.
        assert_eq!(EvidencePath::parse("$['\\ud83d']").unwrap_err().position, 4);
    }

    #[test]
    fn normalized_paths_escape_quotes_and_controls() {
        assert_eq!(paths("$['it\\'s']", r#"{"it's":1}"#), ["$['it\\'s']"]);
        assert_eq!(paths("$.*", "{\"a\\u0001\\n\":1}"), ["$['a\\u0001\\n']"]);
    }

    #[test]
    fn a_unicode_escape_cut_short_is_an_error_not_a_panic() {
        for (path, position) in [("$[\"\\u", 4), ("$['\\uD800\\u", 10), ("$['\\u00", 4), ("$.日志['\\u4", 7)]
        {
            let err = EvidencePath::parse(path).unwrap_err();
            assert_eq!(err.position, position, "{path}");
        }
        assert!(EvidencePath::parse("$['\\\\u']").is_ok(), "an escaped backslash before `u`");
        assert!(EvidencePath::parse("$['\\u0041']").is_ok());
    }

    #[test]
    fn filters_nested_past_the_ceiling_are_a_limit_not_a_hang() {
        let deep = format!("$[?{}$.a{}]", "$[?".repeat(8), "]".repeat(8));
        assert!(EvidencePath::parse(&format!("$[?{}$.a{}]", "$[?".repeat(7), "]".repeat(7))).is_ok());
        let err = EvidencePath::parse(&deep).unwrap_err();
        assert!(err.limit, "{err}");
        assert_eq!(err.position, 3 * 8 + 2);
        let unclosed = "$[?".repeat(30);
        assert!(EvidencePath::parse(&unclosed).unwrap_err().limit);
        assert!(EvidencePath::parse("$['[[[[[[[[[[[[']").is_ok(), "brackets in names do not nest");
    }

    /// Ten thousand parentheses overflowed the stack of `groundcheck resolve` (and of a JVM
    /// thread calling the Java binding): a crash, not a panic.
    #[test]
    fn parentheses_nested_past_the_ceiling_are_a_limit_not_a_crash() {
        let at = |n: usize| format!("$[?{}@.a{}]", "(".repeat(n), ")".repeat(n));
        assert!(EvidencePath::parse(&at(32)).is_ok());
        let err = EvidencePath::parse(&at(33)).unwrap_err();
        assert!(err.limit, "{err}");
        assert_eq!(err.position, 3 + 32 + 1);
        for deep in [at(10_000), format!("$[?{}@{}==1]", "length(".repeat(10_000), ")".repeat(10_000))] {
            assert!(EvidencePath::parse(&deep).unwrap_err().limit);
            assert!(limit_error(&deep).is_some());
        }
        assert!(
            EvidencePath::parse("$['((((((((((((((((((((((((((((((((((']").is_ok(),
            "parentheses in names do not nest"
        );
    }

    #[test]
    fn pointer_is_the_fallback_for_paths_starting_with_slash() {
        assert_eq!(paths("/a~1b/0", r#"{"a/b":[7]}"#), ["$['a/b'][0]"]);
        assert_eq!(paths("/t~0", r#"{"t~":1}"#), ["$['t~']"]);
        assert!(paths("/a/01", r#"{"a":[1,2]}"#).is_empty());
        assert!(paths("/a/-", r#"{"a":[1,2]}"#).is_empty());
        assert_eq!(EvidencePath::parse("/a~2").unwrap_err().position, 3);
    }

    #[test]
    fn jsonpath_errors_point_at_a_character() {
        let err = EvidencePath::parse("$.logs[0").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid path at character 9: in long-hand segment, expected closing ']'"
        );
        let err = EvidencePath::parse("$.日志 x").unwrap_err();
        assert_eq!(err.to_string(), "invalid path at character 5: unexpected character ' '");
        let err = EvidencePath::parse("logs[0]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid path at character 1: a JSONPath starts with `$`, a JSON Pointer with `/`"
        );
    }

    #[test]
    fn selected_nodes_keep_number_text() {
        let doc = Json::parse(r#"{"v":[1e3, 0.950]}"#).unwrap();
        let sel = EvidencePath::parse("$.v[*]").unwrap().select(doc.root(), None, 10).unwrap();
        let texts: Vec<_> = sel.nodes.iter().map(|n| n.leaf_text().unwrap()).collect();
        assert_eq!(texts, ["1e3", "0.950"]);
    }

    #[test]
    fn singular_subset_is_recognised_and_everything_else_is_not() {
        let steps = |p: &str| singular_steps(p);
        assert_eq!(steps("$"), Some(vec![]));
        assert_eq!(
            steps("$.logs[12]['a.b'][\"c d\"].日志"),
            Some(vec![
                Step::Name("logs".into()),
                Step::Index(12),
                Step::Name("a.b".into()),
                Step::Name("c d".into()),
                Step::Name("日志".into())
            ])
        );
        for general in [
            "$.a[-1]",
            "$[01]",
            "$.a[*]",
            "$..a",
            "$[?@.a]",
            "$['a\\'b']",
            "$[ 0]",
            "$.1a",
            "$[0,1]",
            "$[0:2]",
            "$.a.",
            "$x",
        ] {
            assert_eq!(steps(general), None, "{general}");
        }
    }

    /// Paths of the singular subset skip serde_json_path's parser: each must be one it
    /// accepts. Random paths over the characters that matter to the subset's edges.
    #[test]
    fn every_singular_path_is_valid_jsonpath() {
        let alphabet: Vec<char> = "$$..[[]]''\"\"0019a_Z日 \\-*?(é".chars().collect();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut accepted = 0;
        for _ in 0..200_000 {
            let mut path = String::from("$");
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for k in 0..(state % 12) {
                path.push(alphabet[((state >> (4 * k + 8)) % alphabet.len() as u64) as usize]);
            }
            if singular_steps(&path).is_some() {
                accepted += 1;
                assert!(JsonPath::parse(&path).is_ok(), "{path}");
            }
        }
        assert!(accepted > 5_000, "{accepted}");
    }

    #[test]
    fn singular_paths_select_like_jsonpath() {
        let doc = r#"{"a":[{"b":1},{"b":[true]}],"a.b":2,"dup":1,"dup":[7]}"#;
        for path in ["$", "$.a[1].b[0]", "$['a.b']", "$.dup[0]", "$.a[5]", "$.nope", "$.a.b", "$[0]"] {
            let fast = paths(path, doc);
            let parsed = Json::parse(doc).unwrap();
            let general = EvidencePath {
                kind: PathKind::JsonPath(JsonPath::parse(path).unwrap(), Plan::read(path)),
                nested: false,
            };
            let selection = general.select(parsed.root(), None, 10).unwrap();
            let general: Vec<_> = (0..selection.nodes.len()).map(|i| selection.base(i)).collect();
            assert_eq!(fast, general, "{path}");
        }
    }

    #[test]
    fn duplicate_selections_map_to_the_same_node() {
        assert_eq!(paths("$[0,0]", "[5]"), ["$[0]", "$[0]"]);
    }

    /// Every valid query of the JSONPath Compliance Test Suite has a plan, and its count
    /// with repeats is exactly the length of serde_json_path's list (an upper bound when a
    /// filter refers to the root): no path the suite knows is refused by the node budget.
    #[test]
    fn every_valid_query_of_the_compliance_suite_is_planned_and_counted_exactly() {
        let suite: Value =
            serde_json::from_str(include_str!("../../../tests/data/jsonpath-cts/cts.json")).unwrap();
        let mut general = 0;
        for case in suite["tests"].as_array().unwrap() {
            let (Some(selector), Some(doc)) = (case["selector"].as_str(), case.get("document")) else {
                continue;
            };
            let Ok(path) = EvidencePath::parse(selector) else { continue };
            let PathKind::JsonPath(compiled, plan) = &path.kind else { continue };
            let plan = plan.as_ref().unwrap_or_else(|| panic!("no plan for {selector}"));
            let truth = compiled.query(doc).all().len() as u64;
            let counted = budget::count(plan, doc, u64::MAX).unwrap();
            assert!(counted == truth || (counted > truth && selector[1..].contains('$')), "{selector}");
            assert_eq!(budget::query(compiled, Some(plan), doc, 100_000).map(|n| n.len() as u64), Ok(truth));
            general += 1;
        }
        assert!(general > 400, "{general}");
    }
}
