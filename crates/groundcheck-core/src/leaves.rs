//! The normalised text of an invocation's leaves, computed once and shared by every ref
//! that needs it: the `normalized` and `elided` rungs, `nearest`, the fuzzy rung and
//! `elsewhere`. A thousand failing refs over one large output cost one normalisation of it,
//! not a thousand (NFKC is the most expensive step of a miss).
//!
//! A leaf is known by the address and length of its text, which identify it while the tree
//! holding it lives: the owner ([`crate::document::Document`]) keeps its trees for the whole
//! invocation and clears this cache when it replaces one. Texts live in one arena, so an
//! entry costs a few words, not an allocation; past [`BUDGET`] bytes leaves are normalised
//! again on each use instead of being kept — slower, never different.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::address::AddressMap;
use crate::normalize::normalize;

/// The most the cache holds, arena and index together: four times the default size limit
/// of a document, so any document within the limits has its leaves normalised once.
const BUDGET: usize = 256 * 1024 * 1024;

/// What one index entry costs besides its text (key, span, hash-table slack).
const ENTRY_COST: usize = 48;

/// Leaves this many or more are normalised on rayon when normalised together.
const PARALLEL_LEAVES: usize = 256;

/// The normalised text of each of `leaves`, in order, on rayon when there are many.
fn normalize_each(leaves: &[&str]) -> Vec<String> {
    if leaves.len() >= PARALLEL_LEAVES {
        leaves.par_iter().map(|leaf| normalize(leaf)).collect()
    } else {
        leaves.iter().map(|leaf| normalize(leaf)).collect()
    }
}

/// An invocation's normalised leaves.
#[derive(Default)]
pub(crate) struct Leaves {
    index: AddressMap<(usize, usize), Span>,
    arena: String,
}

/// Where a leaf's normalised text lies in the arena, and its length in scalar values.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    chars: usize,
}

/// A leaf's normalised text and its length in scalar values.
pub(crate) struct Normal<'s> {
    pub(crate) text: Cow<'s, str>,
    pub(crate) chars: usize,
}

impl Normal<'_> {
    fn owned(text: String) -> Normal<'static> {
        let chars = text.chars().count();
        Normal { text: Cow::Owned(text), chars }
    }
}

fn key(leaf: &str) -> (usize, usize) {
    (leaf.as_ptr() as usize, leaf.len())
}

impl Leaves {
    /// The normalised text of `leaf`, kept for the next ref that asks.
    pub(crate) fn normal(&mut self, leaf: &str) -> Normal<'_> {
        if !self.index.contains_key(&key(leaf)) {
            let text = normalize(leaf);
            if !self.keep(leaf, &text) {
                return Normal::owned(text);
            }
        }
        self.lookup(leaf)
    }

    /// The normalised text of `leaf`, from the cache or computed now (read-only, so rayon
    /// tasks can share it after [`Leaves::prepare`]).
    pub(crate) fn lookup(&self, leaf: &str) -> Normal<'_> {
        self.get(leaf).unwrap_or_else(|| Normal::owned(normalize(leaf)))
    }

    /// Normalises every leaf of `leaves` not kept yet, on rayon when there are many.
    pub(crate) fn prepare(&mut self, leaves: &[&str]) {
        let missing: Vec<&str> =
            leaves.iter().copied().filter(|l| !self.index.contains_key(&key(l))).collect();
        let normalised = normalize_each(&missing);
        for (leaf, text) in missing.into_iter().zip(normalised) {
            if !self.keep(leaf, &text) {
                break;
            }
        }
    }

    /// Forgets every leaf: their tree is about to be dropped, and its addresses reused.
    pub(crate) fn clear(&mut self) {
        self.index.clear();
        self.arena.clear();
    }

    fn get(&self, leaf: &str) -> Option<Normal<'_>> {
        self.index
            .get(&key(leaf))
            .map(|span| Normal { text: Cow::Borrowed(&self.arena[span.start..span.end]), chars: span.chars })
    }

    /// Keeps `text` as `leaf`'s normalised text, unless the budget is spent.
    fn keep(&mut self, leaf: &str, text: &str) -> bool {
        if self.arena.len() + text.len() + (self.index.len() + 1) * ENTRY_COST > BUDGET {
            return false;
        }
        let start = self.arena.len();
        self.arena.push_str(text);
        let span = Span { start, end: self.arena.len(), chars: text.chars().count() };
        self.index.insert(key(leaf), span);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leaf_is_normalised_once_and_known_by_its_address() {
        let doc =
            [String::from("ＣＯＮＮＥＣＴＩＯＮ  Refused"), String::from("ＣＯＮＮＥＣＴＩＯＮ  Refused")];
        let mut leaves = Leaves::default();
        assert_eq!(leaves.normal(&doc[0]).text, "connection refused");
        assert_eq!(leaves.index.len(), 1);
        leaves.prepare(&[&doc[0], &doc[1]]);
        assert_eq!(leaves.index.len(), 2, "equal texts at two addresses are two leaves");
        assert_eq!(leaves.lookup(&doc[1]).chars, 18);
        assert_eq!(leaves.arena.len(), 36, "nothing normalised twice");
        leaves.clear();
        assert!(leaves.get(&doc[0]).is_none());
    }
}
