//! `elsewhere` (docs/verification.md#near-misses): the first leaf of the whole document, in document order, that holds a
//! quote the ref's path missed.
//!
//! Every failing ref asks the same document, so each view (as written, expanded) is read
//! once per invocation into a [`Haystack`]: the texts of all its leaves, and their
//! normalised texts, each laid end to end with where every leaf ends. A quote is then one
//! SIMD substring search over each text instead of one per leaf (a thousand failing refs
//! over 80,000 log lines: one pass each, not 80,000 calls); an occurrence only names a
//! candidate leaf, which the ladder's own test confirms on that leaf alone — so an
//! occurrence spanning two leaves, or splitting a number, never counts. Rungs are searched
//! in turn, each only before the best leaf found so far.
//!
//! The expanded view is searched only when the document as written has no such leaf, and
//! then only in what expansion added (the values that replaced strings): every other leaf
//! of it is a leaf of the document as written, just shown not to hold the quote, so the
//! first leaf found there is the first of the whole expanded view.
//!
//! A located document (a text only singular paths were asked of) has no tree: its leaves are
//! read straight from the text (`json/walk.rs`), the winning leaf's path found by a second
//! walk, and the tree is parsed only when an object repeats a key (the walk's order is then
//! not the tree's). That walk also tells whether any string could hold JSON; when none can,
//! there is no expanded view to search.

use std::cell::OnceCell;

use crate::document::{OverLimit, Search};
use crate::json::{text_leaf_path, text_leaves, TextLeaves, Tree};
use crate::ladder::{for_each_leaf, leaf_path, Needle};
use crate::leaves::{normalize_each, Leaves};
use crate::path::Selection;
use crate::policy::{Limit, Policy, Rung};

/// A view's leaves as two texts (as written, normalised), in document order.
pub(crate) struct Haystack {
    raw: Texts,
    normal: Texts,
    read: Read,
}

/// How a [`Haystack`] was read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// From a tree.
    Tree,
    /// From a located document's text; `candidate`: some string could hold JSON.
    Text { candidate: bool },
    /// From a located document's text, which has more values than the node limit (nothing
    /// is kept): every search of it is [`OverLimit`].
    TextOverLimit,
}

/// Leaf texts laid end to end; `ends[k]` is where leaf `k` ends.
#[derive(Default)]
struct Texts {
    all: String,
    ends: Vec<usize>,
}

impl Texts {
    fn with_capacity(leaves: usize, bytes: usize) -> Texts {
        Texts { all: String::with_capacity(bytes), ends: Vec::with_capacity(leaves) }
    }

    fn push(&mut self, leaf: &str) {
        self.all.push_str(leaf);
        self.ends.push(self.all.len());
    }

    fn leaf(&self, k: usize) -> &str {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.all[start..self.ends[k]]
    }

    /// The first leaf before `limit` holding an occurrence of `find`'s needle that `holds`
    /// confirms on the leaf alone.
    fn first(
        &self,
        find: impl Fn(&[u8]) -> Option<usize>,
        holds: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Option<usize> {
        let bytes = self.all.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let start = at + find(&bytes[at..])?;
            let k = self.ends.partition_point(|&end| end <= start);
            if k >= limit {
                return None;
            }
            if holds(self.leaf(k)) {
                return Some(k);
            }
            at = self.ends[k];
        }
        None
    }
}

impl Haystack {
    /// Reads the leaves under `nodes`, in order. Stops at a rewritten leaf, like every search.
    fn read<T: Tree>(nodes: &[&T], leaves: &mut Leaves) -> Result<Haystack, T::Rewritten> {
        let mut texts = Vec::new();
        let mut rewritten = None;
        for_each_leaf(nodes, |node, leaf| {
            rewritten = node.rewritten();
            texts.push(leaf);
            rewritten.is_none()
        });
        if let Some(rewritten) = rewritten {
            return Err(rewritten);
        }
        // The leaves no ref's path selected are normalised here, on rayon when many.
        leaves.prepare(&texts);
        let mut raw = Texts::with_capacity(texts.len(), texts.iter().map(|t| t.len()).sum());
        let mut normal = Texts::with_capacity(texts.len(), raw.all.capacity());
        for leaf in texts {
            raw.push(leaf);
            normal.push(&leaves.lookup(leaf).text);
        }
        Ok(Haystack { raw, normal, read: Read::Tree })
    }

    /// Reads the leaves of a located document's text, or `None` when an object repeats a key
    /// (the tree's order is then not the text's).
    fn walk(text: &str, policy: &Policy) -> Option<Haystack> {
        let TextLeaves { all, ends, nodes, candidate } = text_leaves(text, policy.limits.max_depth).ok()?;
        if nodes > policy.limits.max_nodes {
            let empty = || Texts { all: String::new(), ends: Vec::new() };
            return Some(Haystack { raw: empty(), normal: empty(), read: Read::TextOverLimit });
        }
        let raw = Texts { all, ends };
        let leaves: Vec<&str> = (0..raw.ends.len()).map(|k| raw.leaf(k)).collect();
        let mut normal = Texts::with_capacity(leaves.len(), raw.all.len());
        for leaf in normalize_each(&leaves) {
            normal.push(&leaf);
        }
        Some(Haystack { raw, normal, read: Read::Text { candidate } })
    }

    /// Whether the view was read from a text none of whose strings could hold JSON, so that
    /// the document has no expanded view.
    pub(crate) fn rules_out_expanded(&self) -> bool {
        self.read == Read::Text { candidate: false }
    }

    /// The index of the first leaf holding `needle` on a rung up to `max` (fuzzy aside).
    fn first_holding(&self, needle: &Needle<'_>, max: Rung) -> Option<usize> {
        let count = self.raw.ends.len();
        let mut best = self.raw.first(|hay| needle.exact_candidate(hay), |leaf| needle.exact_in(leaf), count);
        if max >= Rung::Normalized {
            let limit = best.unwrap_or(count);
            let normalized = self.normal.first(
                |hay| needle.normalized_candidate(hay),
                |leaf| needle.normalized_in(leaf),
                limit,
            );
            best = normalized.or(best);
        }
        if max >= Rung::Elided {
            let limit = best.unwrap_or(count);
            let elided =
                self.normal.first(|hay| needle.elided_candidate(hay), |leaf| needle.elided_in(leaf), limit);
            best = elided.or(best);
        }
        best
    }
}

/// `elsewhere` as a [`Search`] of one view (its root, or what the expanded view adds),
/// reading the view's [`Haystack`] on the first ref that asks.
pub(crate) struct Elsewhere<'a> {
    pub(crate) needle: &'a Needle<'a>,
    pub(crate) policy: &'a Policy,
    pub(crate) haystack: &'a OnceCell<Haystack>,
}

impl Search for Elsewhere<'_> {
    /// The normalized path of the first leaf holding the quote.
    type Found = Option<String>;

    fn run<T: Tree>(
        &self,
        selection: &Selection<'_, T>,
        leaves: &mut Leaves,
    ) -> Result<Option<String>, T::Rewritten> {
        if self.haystack.get().is_none() {
            let read = Haystack::read(&selection.nodes, leaves)?;
            let _ = self.haystack.set(read);
        }
        let Some(haystack) = self.haystack.get() else { return Ok(None) };
        let found = haystack.first_holding(self.needle, self.policy.loosest_exact_rung());
        Ok(found.map(|k| leaf_path(&selection.nodes, |i| selection.base(i), k)))
    }

    fn run_text(&self, text: &str, policy: &Policy) -> Option<Result<Option<String>, OverLimit>> {
        if self.haystack.get().is_none() {
            // A repeated key: nothing is kept, and the tree (read once) takes over.
            let _ = self.haystack.set(Haystack::walk(text, policy)?);
        }
        let haystack = self.haystack.get()?;
        match haystack.read {
            Read::Tree => None,
            Read::TextOverLimit => Some(Err(OverLimit(Limit::Nodes))),
            Read::Text { .. } => {
                let found = haystack.first_holding(self.needle, self.policy.loosest_exact_rung());
                let path =
                    |k| text_leaf_path(text, policy.limits.max_depth, k).unwrap_or_else(|| "$".to_string());
                Some(Ok(found.map(path)))
            }
        }
    }
}
