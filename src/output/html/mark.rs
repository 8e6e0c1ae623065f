//! The marks the page puts on a raw output: which ref, how (`data-mark`), on which line —
//! shared by the JSON layout (`raw.rs`) and the plain-text one (`text.rs`).

use groundcheck_core::view::exact_span;

/// Lines of context above and below a marked leaf in a ref's excerpt.
pub const CONTEXT: usize = 3;
/// In an excerpt, a leaf longer than this many characters is cut to a window around its
/// mark (the whole output shows it whole).
pub const LEAF_MAX_CHARS: usize = 2_000;

/// How a leaf is marked, and why: the page's `data-mark` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Verified on the `exact` rung: the quoted substring itself is the mark.
    Quote,
    /// Verified on a looser rung: the leaf is the mark.
    Leaf,
    /// Not found: the selected leaf that came closest.
    Nearest,
    /// Not found under the path: the leaf elsewhere that holds the text.
    Elsewhere,
}

impl Kind {
    /// The `data-mark` value.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Quote => "quote",
            Kind::Leaf => "leaf",
            Kind::Nearest => "nearest",
            Kind::Elsewhere => "elsewhere",
        }
    }
}

/// One mark: which ref (`data-ref`), how, on which line (when the document has the leaf),
/// and for [`Kind::Quote`] the quote to highlight inside the leaf.
#[derive(Debug, Clone)]
pub struct Mark<'r> {
    pub data_ref: String,
    /// The normalized path of the marked leaf, as the report gives it.
    pub path: &'r str,
    pub index: usize,
    pub kind: Kind,
    pub quote: Option<&'r str>,
    pub line: Option<usize>,
}

/// Where a near miss's closest text lies in the leaf as written, when it can be told: the
/// closest text is a piece of the leaf's *normalised* text (lower case, white space
/// collapsed, NFKC), so it is looked for as written, then ignoring ASCII case (in leaves of
/// bounded size). A leaf whose
/// normalisation changed more than that keeps only its leaf mark.
pub fn loose_span(leaf: &str, closest: &str) -> Option<(usize, usize)> {
    if closest.is_empty() {
        return None;
    }
    if let Some(at) = leaf.find(closest) {
        return Some((at, at + closest.len()));
    }
    let (hay, needle) = (leaf.as_bytes(), closest.as_bytes());
    // A naive scan: bounded, since a page is for a person and a near miss's leaf can be large.
    if hay.len().saturating_mul(needle.len()) > 1 << 26 {
        return None;
    }
    let at = hay.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle))?;
    // Equal ignoring ASCII case: the window's bytes are UTF-8 wherever the needle's are.
    (leaf.is_char_boundary(at) && leaf.is_char_boundary(at + needle.len())).then_some((at, at + needle.len()))
}

/// What the marks on one piece of text (a leaf, or a plain-text output) put on it: the
/// highlight inside it — the exact quote where verification found it, else a near miss's
/// closest text — and the marks that wrap the whole piece.
pub struct Highlight<'m> {
    /// The opening tag, the closing tag and the byte span of the highlight.
    pub inner: Option<(String, &'static str, (usize, usize))>,
    /// Every other mark, which wraps the piece.
    pub around: Vec<&'m Mark<'m>>,
}

/// The highlight of `marks` on `text`: the first quote mark whose quote verification finds
/// in it is the highlight; the others wrap it, and a wrapping near miss underlines its
/// closest text when there is no quote.
pub fn highlight<'m>(text: &str, marks: &[&'m Mark<'m>]) -> Highlight<'m> {
    let quote = marks.iter().copied().find_map(|m| {
        let q = m.quote.filter(|_| m.kind == Kind::Quote)?;
        exact_span(text, q).map(|span| (m, span))
    });
    let around: Vec<&Mark<'_>> =
        marks.iter().copied().filter(|m| quote.is_none_or(|(q, _)| !std::ptr::eq(*m, q))).collect();
    let inner = match quote {
        Some((m, span)) => {
            Some((format!("<mark data-ref=\"{}\" data-mark=\"quote\">", m.data_ref), "</mark>", span))
        }
        None => around.iter().find_map(|m| {
            let closest = m.quote.filter(|_| m.kind == Kind::Nearest)?;
            Some(("<span class=\"closest\">".to_string(), "</span>", loose_span(text, closest)?))
        }),
    };
    Highlight { inner, around }
}

/// The byte offset `chars` characters before `at`, not before `floor`.
pub fn back(s: &str, at: usize, floor: usize, chars: usize) -> usize {
    s[floor..at].char_indices().rev().nth(chars.saturating_sub(1)).map_or(floor, |(i, _)| floor + i)
}

/// The byte offset `chars` characters after `at`, not past `ceiling`.
pub fn forward(s: &str, at: usize, ceiling: usize, chars: usize) -> usize {
    s[at..ceiling].char_indices().nth(chars).map_or(ceiling, |(i, _)| at + i)
}
