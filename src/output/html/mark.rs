//! The marks the page puts on a raw output: which ref, how (`data-mark`), on which line —
//! shared by the JSON layout (`raw.rs`) and the plain-text one (`text.rs`).

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
