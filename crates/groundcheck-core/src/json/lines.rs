//! The JSON Lines view of a text (docs/verification.md#yaml-and-json-lines): log tools
//! (slog, zap, logrus, `kubectl logs` of a JSON-logging service) return one JSON object a
//! line, and an agent cites `$[3].msg`.
//!
//! The text is split at `\n` (a `\r` before it dropped); blank lines are skipped; at least
//! two lines must remain, and every one must be strict JSON text (the rules of the raw output
//! itself) whose top-level value is an object or an array. The view is the array of those
//! values in line order. Each line is parsed without recursion; one line that is not such
//! JSON means no view, found before anything is parsed when a line does not even open a
//! container.

use super::expand::starts_a_container;
use super::parse::parse_with_depth_limit;
use super::{drop_flat, Json, Node};

/// What reading a text as JSON Lines gives.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LinesView {
    /// The view.
    View(Json),
    /// Every line is JSON, but the view is deeper than the depth limit.
    TooDeep,
    /// Not JSON Lines.
    None,
}

/// The lines of `text` that are not blank, without their line ends.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.trim().is_empty())
}

/// Reads `text` as JSON Lines, its view at most `max_depth` deep (the array of the lines is
/// depth 1).
pub(crate) fn json_lines_view(text: &str, max_depth: usize) -> LinesView {
    let mut count = 0;
    for line in lines(text) {
        if !starts_a_container(line) {
            return LinesView::None;
        }
        count += 1;
    }
    if count < 2 {
        return LinesView::None;
    }
    let mut items = Vec::with_capacity(count);
    let mut deepest = 0;
    for line in lines(text) {
        match parse_with_depth_limit(line, usize::MAX) {
            Ok(doc) => {
                deepest = deepest.max(doc.depth());
                items.push(doc.into_root());
            }
            Err(_) => {
                drop_flat(Node::Array(items));
                return LinesView::None;
            }
        }
    }
    let view = Json { root: Node::Array(items), depth: deepest + 1 };
    if view.depth > max_depth {
        return LinesView::TooDeep;
    }
    LinesView::View(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> Option<String> {
        match json_lines_view(text, 512) {
            LinesView::View(doc) => Some(doc.to_json_string()),
            LinesView::TooDeep => Some("too deep".into()),
            LinesView::None => None,
        }
    }

    #[test]
    fn lines_of_objects_or_arrays_are_an_array_in_line_order() {
        assert_eq!(view("{\"a\":1}\n[2]\n").as_deref(), Some(r#"[{"a":1},[2]]"#));
        assert_eq!(view("{\"a\":1}\r\n\r\n  \n{\"b\":1E3}\r\n").as_deref(), Some(r#"[{"a":1},{"b":1E3}]"#));
        assert_eq!(view(" {} \n\t[]").as_deref(), Some("[{},[]]"));
    }

    #[test]
    fn one_line_a_scalar_line_or_a_bad_line_means_no_view() {
        for text in [
            "{\"a\":1}\n",
            "{\"a\":1}\n\n   \n",
            "{\"a\":1}\n42\n",
            "{\"a\":1}\n\"x\"\n",
            "{\"a\":1}\n{\"b\":\n",
            "{\"a\":1}\n{\"b\":NaN}\n",
            "{\"a\":1}\n\u{feff}{\"b\":1}\n",
            "{\"a\":1}\n{\"b\":1} tail\n",
            "{\"a\":1}\rx\n{\"b\":1}\n",
            "plain text\nmore text\n",
        ] {
            assert_eq!(view(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_array_of_the_lines_counts_for_depth() {
        assert!(matches!(json_lines_view("[[1]]\n{}\n", 3), LinesView::View(doc) if doc.depth() == 3));
        assert_eq!(json_lines_view("[[1]]\n{}\n", 2), LinesView::TooDeep);
    }
}
