//! An invocation's raw output as the page shows it: laid out one value a line, the leaves
//! the report names marked, as excerpts around each ref's marks and, up to a size, whole.

use std::fmt::Write as _;

use groundcheck_core::view::{LeafKind, Line, Piece, Pretty};

use super::escape::{json_string, text};
use super::mark::{back, forward, highlight, Highlight, Mark, CONTEXT, LEAF_MAX_CHARS};
use super::text as plain;

/// The whole output is on the page (behind a fold) up to this many lines…
pub const WHOLE_MAX_LINES: usize = 5_000;
/// …and this many bytes of leaf text; past either, only the excerpts are.
pub const WHOLE_MAX_BYTES: usize = 1 << 20;
/// Characters kept on each side of a highlighted quote in a cut leaf, or from the start of
/// a cut leaf without one.
const WINDOW: usize = 300;

/// Writes the excerpt of the marks of ref `index`: each marked line with [`CONTEXT`] lines
/// around it, regions that touch merged, a `⋯` line between regions.
pub fn excerpt(out: &mut String, pretty: &Pretty<'_>, marks: &[Mark<'_>], index: usize) {
    let own: Vec<&Mark<'_>> = marks.iter().filter(|m| m.index == index && m.line.is_some()).collect();
    if let Some(text) = plain::of(pretty) {
        return plain::excerpt(out, text, &own);
    }
    let mut regions: Vec<(usize, usize)> = Vec::new();
    let mut at: Vec<usize> = own.iter().filter_map(|m| m.line).collect();
    at.sort_unstable();
    for line in at {
        let (from, to) = (line.saturating_sub(CONTEXT), (line + CONTEXT).min(pretty.lines.len() - 1));
        match regions.last_mut() {
            Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
            _ => regions.push((from, to)),
        }
    }
    out.push_str("<pre class=\"excerpt\">");
    for (k, &(from, to)) in regions.iter().enumerate() {
        if k > 0 || from > 0 {
            out.push_str("<span class=\"gap\">⋯</span>\n");
        }
        for n in from..=to {
            let here: Vec<&Mark<'_>> = own.iter().copied().filter(|m| m.line == Some(n)).collect();
            write_line(out, n, &pretty.lines[n], &here, true);
        }
    }
    if regions.last().is_some_and(|&(_, to)| to + 1 < pretty.lines.len()) {
        out.push_str("<span class=\"gap\">⋯</span>\n");
    }
    out.push_str("</pre>");
}

/// Whether the whole output goes on the page: at most [`WHOLE_MAX_LINES`] lines and
/// [`WHOLE_MAX_BYTES`] of leaf text.
pub fn fits_whole(pretty: &Pretty<'_>) -> bool {
    if let Some(text) = plain::of(pretty) {
        return plain::line_count(text) <= WHOLE_MAX_LINES && text.len() <= WHOLE_MAX_BYTES;
    }
    let bytes: usize = pretty
        .lines
        .iter()
        .map(|l| l.key.map_or(0, str::len) + if let Piece::Leaf(_, t) = l.piece { t.len() } else { 1 })
        .sum();
    pretty.lines.len() <= WHOLE_MAX_LINES && bytes <= WHOLE_MAX_BYTES
}

/// Writes every line, with every mark.
pub fn whole(out: &mut String, pretty: &Pretty<'_>, marks: &[Mark<'_>]) {
    if let Some(text) = plain::of(pretty) {
        let marked: Vec<&Mark<'_>> = marks.iter().filter(|m| m.line == Some(0)).collect();
        return plain::whole(out, text, &marked);
    }
    out.push_str("<pre class=\"whole\">");
    for (n, line) in pretty.lines.iter().enumerate() {
        let here: Vec<&Mark<'_>> = marks.iter().filter(|m| m.line == Some(n)).collect();
        write_line(out, n, line, &here, false);
    }
    out.push_str("</pre>");
}

/// One line: its number, indentation (capped, so a hostile depth cannot make a line
/// quadratic), member name, piece and comma. On a leaf, the first quote mark highlights its
/// substring; every other mark wraps the leaf.
fn write_line(out: &mut String, n: usize, line: &Line<'_>, marks: &[&Mark<'_>], cut: bool) {
    let _ = write!(out, "<span class=\"ln\">{}</span>", n + 1);
    let depth = line.depth.min(40);
    out.push_str(&"  ".repeat(depth));
    if line.depth > depth {
        let _ = write!(out, "<span class=\"deep\">[depth {}]</span> ", line.depth);
    }
    if let Some(key) = line.key {
        let _ = write!(out, "<span class=\"key\">\"{}\"</span>: ", json_string(key));
    }
    match line.piece {
        Piece::Open(c) | Piece::Close(c) => out.push(c),
        Piece::Empty(t) => out.push_str(t),
        Piece::Leaf(kind, leaf) => {
            let Highlight { inner, around: wraps } = highlight(leaf, marks);
            for m in &wraps {
                let _ = write!(out, "<mark data-ref=\"{}\" data-mark=\"{}\">", m.data_ref, m.kind.name());
            }
            write_leaf(
                out,
                kind,
                leaf,
                inner.as_ref().map(|(open, close, span)| (open.as_str(), *close, *span)),
                cut,
            );
            for _ in &wraps {
                out.push_str("</mark>");
            }
        }
    }
    if line.comma {
        out.push(',');
    }
    out.push('\n');
}

/// A leaf as JSON (a string in quotes with its escapes), its quote highlighted, cut to a
/// window around the quote when `cut` and it is long.
fn write_leaf(
    out: &mut String,
    kind: LeafKind,
    leaf: &str,
    quote: Option<(&str, &str, (usize, usize))>,
    cut: bool,
) {
    let class = match kind {
        LeafKind::String => "str",
        LeafKind::Number => "num",
        LeafKind::Literal => "lit",
    };
    let escape = |s: &str| if kind == LeafKind::String { json_string(s) } else { text(s) };
    let quoted = if kind == LeafKind::String { "\"" } else { "" };
    let (mut from, mut to) = (0, leaf.len());
    if cut && leaf.chars().count() > LEAF_MAX_CHARS {
        (from, to) = match quote {
            Some((_, _, (s, e))) => (back(leaf, s, 0, WINDOW), forward(leaf, e, leaf.len(), WINDOW)),
            None => (0, forward(leaf, 0, leaf.len(), WINDOW * 2)),
        };
    }
    let _ = write!(out, "<span class=\"{class}\">{quoted}");
    if from > 0 {
        let _ = write!(out, "<span class=\"cut\">[{} characters]</span>…", leaf[..from].chars().count());
    }
    match quote {
        Some((open, close, (s, e))) => {
            out.push_str(&escape(&leaf[from..s]));
            let _ = write!(out, "{open}{}{close}", escape(&leaf[s..e]));
            out.push_str(&escape(&leaf[e..to]));
        }
        None => out.push_str(&escape(&leaf[from..to])),
    }
    if to < leaf.len() {
        let _ = write!(out, "…<span class=\"cut\">[{} characters]</span>", leaf[to..].chars().count());
    }
    let _ = write!(out, "{quoted}</span>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::html::mark::{loose_span, Kind};
    use groundcheck_core::view::pretty;
    use groundcheck_core::Json;

    fn marks<'q>(lines: &[Option<usize>], kind: Kind, quote: Option<&'q str>) -> Vec<Mark<'q>> {
        lines
            .iter()
            .map(|&line| Mark { data_ref: "7:0".into(), path: "$", index: 0, kind, quote, line })
            .collect()
    }

    #[test]
    fn an_excerpt_is_the_marked_line_and_its_context() {
        let doc = Json::parse(&format!("[{}]", (0..20).map(|i| i.to_string()).collect::<Vec<_>>().join(",")))
            .unwrap();
        let shown = pretty(&doc, &["$[10]"]);
        let mut out = String::new();
        excerpt(&mut out, &shown, &marks(&shown.found, Kind::Leaf, None), 0);
        let numbers: Vec<&str> = out.matches("<span class=\"ln\">").map(|_| "").collect();
        assert_eq!(numbers.len(), 2 * CONTEXT + 1);
        assert!(
            out.contains("<mark data-ref=\"7:0\" data-mark=\"leaf\"><span class=\"num\">10</span></mark>"),
            "{out}"
        );
        assert_eq!(out.matches('⋯').count(), 2, "cut above and below: {out}");
    }

    #[test]
    fn a_long_leaf_is_cut_around_its_quote() {
        let leaf = format!("{}needle{}", "a".repeat(5_000), "b".repeat(5_000));
        let doc = Json::parse(&serde_json::to_string(&[&leaf]).unwrap()).unwrap();
        let shown = pretty(&doc, &["$[0]"]);
        let mut out = String::new();
        excerpt(&mut out, &shown, &marks(&shown.found, Kind::Quote, Some("needle")), 0);
        assert!(out.contains("<mark data-ref=\"7:0\" data-mark=\"quote\">needle</mark>"), "{out}");
        assert!(out.contains("[4700 characters]") && out.contains("[4700 characters]</span>\""), "{out}");
        assert!(out.len() < 2_000, "{}", out.len());
        let mut whole_out = String::new();
        whole(&mut whole_out, &shown, &marks(&shown.found, Kind::Quote, Some("needle")));
        assert!(whole_out.len() > 10_000 && !whole_out.contains("characters]"));
    }

    #[test]
    fn a_number_is_never_split_by_a_highlight() {
        let doc = Json::parse(r#"["took 1500 ms, then 500 ms"]"#).unwrap();
        let shown = pretty(&doc, &["$[0]"]);
        let mut out = String::new();
        whole(&mut out, &shown, &marks(&shown.found, Kind::Quote, Some("500")));
        assert!(out.contains("then <mark data-ref=\"7:0\" data-mark=\"quote\">500</mark> ms"), "{out}");
    }

    #[test]
    fn the_closest_text_of_a_near_miss_is_found_ignoring_ascii_case() {
        assert_eq!(loose_span("ERROR: Connection Refused", "connection refused"), Some((7, 25)));
        assert_eq!(loose_span("abc", "abcd"), None);
        assert_eq!(loose_span("é", ""), None);
    }
}
