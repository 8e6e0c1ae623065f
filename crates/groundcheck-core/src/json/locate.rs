//! Finding what singular paths select in one validating pass, without building the tree.
//!
//! Most evidence paths are singular (`$.logs[3].message`). For those the whole text must
//! still be validated — a text that is not JSON is one string leaf
//! (docs/verification.md#the-raw-document), and the depth limit and first-problem rule of
//! docs/verification.md#limits apply — but only the selected values need to exist as trees.
//! [`locate`] walks the text with the tree parser's own lexer, keeping a bitmask per open
//! container of the paths still on course, and records the byte span of each target.

use std::ops::Range;

use super::parse::{JsonError, JsonErrorKind, Parser};

/// One step of a singular path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg<'a> {
    Name(&'a str),
    Index(usize),
}

/// At most this many paths are located in one pass (one bit each).
pub(crate) const MAX_PATHS: usize = 64;

struct Frame {
    array: bool,
    next_index: usize,
    /// Paths whose steps matched every container down to this one.
    on_course: u64,
    /// Paths whose target is this container, with where it started.
    targets: u64,
    start: usize,
    depth: usize,
}

/// The byte range of the value each of `paths` selects in `text` (`None`: nothing), after
/// validating all of `text`. Errors are exactly the tree parser's, at the same place.
pub(crate) fn locate(
    text: &str,
    paths: &[Vec<Seg<'_>>],
    max_depth: usize,
) -> Result<Vec<Option<Range<usize>>>, JsonError> {
    assert!(paths.len() <= MAX_PATHS, "callers split larger sets");
    let mut spans: Vec<Option<Range<usize>>> = vec![None; paths.len()];
    let mut p = Parser::new(text);
    if text.starts_with('\u{feff}') {
        return Err(p.error(JsonErrorKind::ByteOrderMark));
    }
    let all = if paths.len() == MAX_PATHS { u64::MAX } else { (1u64 << paths.len()) - 1 };
    let mut stack: Vec<Frame> = Vec::new();
    let mut kinds = Vec::new();
    // The value about to be read: which paths reach it, and at which depth (steps taken).
    let mut reach = all;
    let mut depth = 0usize;
    'value: loop {
        p.skip_ws();
        let start = p.pos;
        let (targets, onward) = split(paths, reach, depth);
        for i in bits(targets | onward) {
            spans[i] = None; // a later occurrence of a repeated key supersedes an earlier one
        }
        match p.peek() {
            None => return Err(p.error(JsonErrorKind::UnexpectedEnd)),
            // No path goes into this value: validate it in one tight loop.
            Some(b'[' | b'{') if onward == 0 => p.skip_value(stack.len(), max_depth, &mut kinds)?,
            Some(open @ (b'[' | b'{')) => {
                if stack.len() + 1 > max_depth {
                    return Err(p.error(JsonErrorKind::TooDeep(max_depth)));
                }
                p.pos += 1;
                p.skip_ws();
                let array = open == b'[';
                let empty = p.peek() == Some(if array { b']' } else { b'}' });
                if empty {
                    p.pos += 1;
                } else {
                    stack.push(Frame { array, next_index: 0, on_course: onward, targets, start, depth });
                    if array {
                        (reach, depth) = child(paths, onward, depth, Seg::Index(0));
                        if let Some(frame) = stack.last_mut() {
                            frame.next_index = 1;
                        }
                    } else {
                        let key = p.member_key()?;
                        (reach, depth) = child(paths, onward, depth, Seg::Name(&key));
                    }
                    continue 'value;
                }
            }
            Some(b'"') => p.skip_string()?,
            Some(b't') => {
                p.literal("true", super::Node::Null)?;
            }
            Some(b'f') => {
                p.literal("false", super::Node::Null)?;
            }
            Some(b'n') => {
                p.literal("null", super::Node::Null)?;
            }
            Some(b'-' | b'0'..=b'9') => {
                p.number()?;
            }
            Some(_) => return Err(p.unexpected()),
        }
        for i in bits(targets) {
            spans[i] = Some(start..p.pos);
        }
        // Close every container that ends here, then move to the next sibling.
        loop {
            let Some(frame) = stack.last_mut() else {
                p.skip_ws();
                if p.pos < p.bytes.len() {
                    return Err(p.error(JsonErrorKind::Trailing));
                }
                return Ok(spans);
            };
            p.skip_ws();
            let close = if frame.array { b']' } else { b'}' };
            match p.peek() {
                Some(b',') => {
                    p.pos += 1;
                    if frame.array {
                        let index = frame.next_index;
                        frame.next_index += 1;
                        (reach, depth) = child(paths, frame.on_course, frame.depth, Seg::Index(index));
                    } else {
                        let (on_course, d) = (frame.on_course, frame.depth);
                        p.skip_ws();
                        let key = p.member_key()?;
                        (reach, depth) = child(paths, on_course, d, Seg::Name(&key));
                    }
                    continue 'value;
                }
                Some(c) if c == close => {
                    p.pos += 1;
                    let (targets, start) = (frame.targets, frame.start);
                    for i in bits(targets) {
                        spans[i] = Some(start..p.pos);
                    }
                    stack.pop();
                }
                None => return Err(p.error(JsonErrorKind::UnexpectedEnd)),
                Some(_) => return Err(p.unexpected()),
            }
        }
    }
}

/// Of the paths in `reach` at `depth`: those whose target is here, and those going deeper.
fn split(paths: &[Vec<Seg<'_>>], reach: u64, depth: usize) -> (u64, u64) {
    let (mut here, mut onward) = (0, 0);
    for i in bits(reach) {
        if paths[i].len() == depth {
            here |= 1 << i;
        } else {
            onward |= 1 << i;
        }
    }
    (here, onward)
}

/// The paths of `on_course` (at a container reached in `depth` steps) whose next step is `seg`.
fn child(paths: &[Vec<Seg<'_>>], on_course: u64, depth: usize, seg: Seg<'_>) -> (u64, usize) {
    let mut reach = 0;
    for i in bits(on_course) {
        if paths[i][depth] == seg {
            reach |= 1 << i;
        }
    }
    (reach, depth + 1)
}

/// The set bits of `mask`, lowest first. Called for every value of every document, so it
/// visits set bits only (walking all 64 positions made the locator several times slower).
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_with_depth_limit;

    fn spans<'t>(text: &'t str, paths: &[Vec<Seg<'_>>]) -> Vec<Option<&'t str>> {
        locate(text, paths, 512).unwrap().into_iter().map(|r| r.map(|r| &text[r])).collect()
    }

    #[test]
    fn finds_targets_at_any_depth() {
        let text = r#" {"logs":[{"m":"a"},{"m":"b","n":[1, 2.50]}],"x":{}} "#;
        let paths = vec![
            vec![],
            vec![Seg::Name("logs"), Seg::Index(1), Seg::Name("m")],
            vec![Seg::Name("logs"), Seg::Index(1), Seg::Name("n"), Seg::Index(1)],
            vec![Seg::Name("logs"), Seg::Index(0)],
            vec![Seg::Name("x")],
            vec![Seg::Name("logs"), Seg::Index(2)],
            vec![Seg::Name("x"), Seg::Name("y")],
            vec![Seg::Index(0)],
        ];
        assert_eq!(
            spans(text, &paths),
            [
                Some(r#"{"logs":[{"m":"a"},{"m":"b","n":[1, 2.50]}],"x":{}}"#),
                Some(r#""b""#),
                Some("2.50"),
                Some(r#"{"m":"a"}"#),
                Some("{}"),
                None,
                None,
                None
            ]
        );
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value() {
        let text = r#"{"a":{"b":1},"a":{"c":2},"d":1,"d":[3]}"#;
        let paths = vec![
            vec![Seg::Name("a"), Seg::Name("b")],
            vec![Seg::Name("a"), Seg::Name("c")],
            vec![Seg::Name("d")],
        ];
        assert_eq!(spans(text, &paths), [None, Some("2"), Some("[3]")]);
    }

    #[test]
    fn escaped_member_names_are_decoded_before_comparing() {
        let text = r#"{"\u0061b":{"c\"d":[0,"hit"]},"ab":{"x":1}}"#;
        let paths = vec![vec![Seg::Name("ab"), Seg::Name("x")], vec![Seg::Name("ab"), Seg::Name("c\"d")]];
        assert_eq!(spans(text, &paths), [Some("1"), None], "the repeated key keeps its last value");
        let text = r#"{"\u0061b":{"c\"d":[0,"hit"]}}"#;
        let paths = vec![vec![Seg::Name("ab"), Seg::Name("c\"d"), Seg::Index(1)]];
        assert_eq!(spans(text, &paths), [Some(r#""hit""#)]);
    }

    #[test]
    fn errors_are_the_tree_parsers() {
        for text in [
            "",
            "[1,",
            r#"{"a":01}"#,
            "[1] x",
            "\u{feff}[]",
            r#"["\ud800"]"#,
            "[[[[x",
            "[x[[[[",
            r#"{"a" 1}"#,
            r#"[{"a":[1,{"b":"\x"}]}]"#,
            r#"[{"a":[1,{"b":tru}]}]"#,
            r#"[{"a":[1,{"b" 2}]}]"#,
            r#"[{"a":[1,{"b":2}}]"#,
            "[[[[]]]]",
            "[{\"a\":\"\u{1}\"}]",
            r#"[{"a":1,}]"#,
            r#"[[1,2,]]"#,
            "[[1] 2]",
        ] {
            let tree = parse_with_depth_limit(text, 3).map(|_| ()).unwrap_err();
            // Into the first item; nowhere (every value skipped); the root only (skipped whole).
            for paths in [vec![vec![Seg::Index(0)]], vec![vec![Seg::Name("zz")]], vec![vec![]]] {
                let located = locate(text, &paths, 3).map(|_| ()).unwrap_err();
                assert_eq!(located, tree, "{text:?} {paths:?}");
            }
        }
    }
}
