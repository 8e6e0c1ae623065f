//! A raw output that is plain text — not JSON, so one string to verification — shown as a
//! person reads it: its lines, numbered, not one escaped string. The marks are the same as
//! on a JSON document: the exact quote highlighted where verification found it, the closest
//! text of a near miss underlined, and any other mark around the text it names.

use std::fmt::Write as _;

use groundcheck_core::view::{LeafKind, Line, Piece, Pretty};

use super::escape::text as escaped;
use super::mark::{back, forward, highlight, Highlight, Mark, CONTEXT, LEAF_MAX_CHARS};

/// The text of `pretty` when the document is one string: its only line, a string at the root.
pub fn of<'d>(pretty: &Pretty<'d>) -> Option<&'d str> {
    match pretty.lines.as_slice() {
        [Line { depth: 0, key: None, piece: Piece::Leaf(LeafKind::String, text), .. }] => Some(text),
        _ => None,
    }
}

/// The text's lines (a `\r` before a line end is not shown), each with its byte range.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (at, _) in text.match_indices('\n') {
        let end = if text[..at].ends_with('\r') { at - 1 } else { at };
        lines.push((start, end));
        start = at + 1;
    }
    // A text ending its last line with a line break has no empty line after it.
    if start < text.len() || lines.is_empty() {
        lines.push((start, text.len()));
    }
    lines
}

/// How many lines `text` shows.
pub fn line_count(text: &str) -> usize {
    lines(text).len()
}

/// Writes lines `from..=to` of `text` (all of them when `window` is `None`), numbered, with
/// the marks; in an excerpt, a line longer than [`LEAF_MAX_CHARS`] is cut around the
/// highlight (or to its start).
fn write(out: &mut String, text: &str, marks: &[&Mark<'_>], window: Option<(usize, usize)>, class: &str) {
    let all = lines(text);
    let Highlight { inner, around } = highlight(text, marks);
    let (from, to) = window.unwrap_or((0, all.len() - 1));
    let _ = write!(out, "<pre class=\"{class} text\">");
    if from > 0 {
        out.push_str("<span class=\"gap\">⋯</span>\n");
    }
    for m in &around {
        let _ = write!(out, "<mark data-ref=\"{}\" data-mark=\"{}\">", m.data_ref, m.kind.name());
    }
    let (mut opened, mut closed) = (false, false);
    for (n, &(start, end)) in all.iter().enumerate().take(to + 1).skip(from) {
        let _ = write!(out, "<span class=\"ln\">{}</span>", n + 1);
        let (mut a, mut b) = (start, end);
        if window.is_some() && text[start..end].chars().count() > LEAF_MAX_CHARS {
            let near = inner.as_ref().map(|(_, _, (s, _))| *s).filter(|s| (start..=end).contains(s));
            a = near.map_or(start, |s| back(text, s, start, LEAF_MAX_CHARS / 2));
            b = forward(text, a, end, LEAF_MAX_CHARS);
            if a > start {
                let _ = write!(
                    out,
                    "<span class=\"cut\">[{} characters]</span>…",
                    text[start..a].chars().count()
                );
            }
        }
        let mut at = a;
        if let Some((open, close, (s, e))) = &inner {
            if !opened && (a..=b).contains(s) {
                out.push_str(&escaped(&text[at..*s]));
                out.push_str(open);
                (at, opened) = (*s, true);
            }
            if opened && !closed && (a..=b).contains(e) {
                out.push_str(&escaped(&text[at.max(a)..*e]));
                out.push_str(close);
                (at, closed) = (*e, true);
            }
        }
        out.push_str(&escaped(&text[at.max(a)..b]));
        if b < end {
            let _ = write!(out, "…<span class=\"cut\">[{} characters]</span>", text[b..end].chars().count());
        }
        out.push('\n');
    }
    if let (Some((_, close, _)), true, false) = (&inner, opened, closed) {
        out.push_str(close);
    }
    for _ in &around {
        out.push_str("</mark>");
    }
    if to + 1 < all.len() {
        out.push_str("<span class=\"gap\">⋯</span>\n");
    }
    out.push_str("</pre>");
}

/// The lines around the highlight (or the first lines when there is none), [`CONTEXT`] on
/// each side.
pub fn excerpt(out: &mut String, text: &str, marks: &[&Mark<'_>]) {
    let all = lines(text);
    let line_of = |at: usize| all.iter().position(|&(_, end)| at <= end).unwrap_or(all.len() - 1);
    let (first, last) = match highlight(text, marks).inner {
        Some((_, _, (s, e))) => (line_of(s), line_of(e)),
        None => (0, 0),
    };
    let window = (first.saturating_sub(CONTEXT), (last + CONTEXT).min(all.len() - 1));
    write(out, text, marks, Some(window), "excerpt");
}

/// Every line, with every mark.
pub fn whole(out: &mut String, text: &str, marks: &[&Mark<'_>]) {
    write(out, text, marks, None, "whole");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::html::mark::Kind;
    use groundcheck_core::view::pretty;
    use groundcheck_core::Json;

    fn mark<'q>(kind: Kind, quote: Option<&'q str>) -> Mark<'q> {
        Mark { data_ref: "7:0".into(), path: "$", index: 0, kind, quote, line: Some(0) }
    }

    #[test]
    fn a_text_is_shown_as_numbered_lines_with_its_quote_marked() {
        let doc =
            Json::string("GET /healthz 200\r\nERROR dial tcp 10.0.0.7:5432: connection refused\n<b>bye</b>");
        let shown = pretty(&doc, &["$"]);
        let text = of(&shown).expect("a string root is a text");
        let quote = mark(Kind::Quote, Some("connection refused"));
        let mut out = String::new();
        whole(&mut out, text, &[&quote]);
        assert!(out.contains("<span class=\"ln\">2</span>ERROR dial tcp 10.0.0.7:5432: <mark data-ref=\"7:0\" data-mark=\"quote\">connection refused</mark>\n"), "{out}");
        assert!(out.contains("<span class=\"ln\">3</span>&lt;b&gt;bye&lt;/b&gt;\n"), "{out}");
        assert!(!out.contains('\r') && !out.contains("\\n"), "{out}");
    }

    #[test]
    fn an_excerpt_is_the_lines_around_the_quote() {
        let body: Vec<String> =
            (1..=40).map(|i| if i == 20 { "oom killed".into() } else { format!("line {i}") }).collect();
        let doc = Json::string(&body.join("\n"));
        let shown = pretty(&doc, &["$"]);
        let text = of(&shown).unwrap();
        let mut out = String::new();
        excerpt(&mut out, text, &[&mark(Kind::Quote, Some("oom"))]);
        assert_eq!(out.matches("<span class=\"ln\">").count(), 2 * CONTEXT + 1, "{out}");
        assert!(
            out.contains(
                "<span class=\"ln\">20</span><mark data-ref=\"7:0\" data-mark=\"quote\">oom</mark> killed"
            ),
            "{out}"
        );
        assert_eq!(out.matches('⋯').count(), 2, "{out}");
    }

    #[test]
    fn a_quote_across_lines_and_a_mark_around_the_text_stay_balanced() {
        let doc = Json::string("a\nb c\nd");
        let shown = pretty(&doc, &["$"]);
        let mut out = String::new();
        whole(
            &mut out,
            of(&shown).unwrap(),
            &[&mark(Kind::Quote, Some("a\nb")), &mark(Kind::Elsewhere, None)],
        );
        assert_eq!(out.matches("<mark").count(), out.matches("</mark>").count(), "{out}");
        assert!(
            out.starts_with("<pre class=\"whole text\"><mark data-ref=\"7:0\" data-mark=\"elsewhere\">"),
            "{out}"
        );
    }

    #[test]
    fn json_is_not_a_text() {
        let doc = Json::parse(r#"{"a": "b"}"#).unwrap();
        assert!(of(&pretty(&doc, &[])).is_none());
    }
}
