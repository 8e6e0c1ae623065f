//! `elsewhere` (§3.7): the first leaf of the whole document, in document order, that holds a
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

use std::cell::OnceCell;

use crate::document::Search;
use crate::json::{holds_at_most, Tree};
use crate::ladder::{first_leaf_path, Needle};
use crate::leaves::Leaves;
use crate::path::Selection;
use crate::policy::{Policy, Rung};

/// A view's leaves as two texts (as written, normalised), in document order.
pub(crate) struct Haystack {
    raw: Texts,
    normal: Texts,
}

/// Leaf texts laid end to end; `ends[k]` is where leaf `k` ends.
#[derive(Default)]
struct Texts {
    all: String,
    ends: Vec<usize>,
}

impl Texts {
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
    /// Reads the leaves under `root`; `None` when the view has more nodes than `max_nodes`
    /// (then `elsewhere` is not looked for). Stops at a rewritten leaf, like every search.
    fn read<T: Tree>(
        root: &T,
        max_nodes: usize,
        leaves: &mut Leaves,
    ) -> Result<Option<Haystack>, T::Rewritten> {
        if !holds_at_most(root, max_nodes) {
            return Ok(None);
        }
        let (mut raw, mut normal) = (Texts::default(), Texts::default());
        let mut rewritten = None;
        crate::ladder::for_each_leaf(root, |node, leaf| {
            rewritten = node.rewritten();
            if rewritten.is_none() {
                raw.push(leaf);
                normal.push(&leaves.normal(leaf).text);
            }
            rewritten.is_none()
        });
        match rewritten {
            Some(rewritten) => Err(rewritten),
            None => Ok(Some(Haystack { raw, normal })),
        }
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

/// `elsewhere` as a [`Search`] of one view's root, reading the view's [`Haystack`] on the
/// first ref that asks.
pub(crate) struct Elsewhere<'a> {
    pub(crate) needle: &'a Needle<'a>,
    pub(crate) policy: &'a Policy,
    /// `Some(None)`: the view has more nodes than the node limit.
    pub(crate) haystack: &'a OnceCell<Option<Haystack>>,
}

/// What [`Elsewhere`] found in one view.
pub(crate) enum Whole {
    /// The normalized path of the first leaf holding the quote.
    At(String),
    /// No leaf holds it.
    Nowhere,
    /// The view has more nodes than the node limit: not searched.
    TooLarge,
}

impl Search for Elsewhere<'_> {
    type Found = Whole;

    fn run<T: Tree>(&self, selection: &Selection<'_, T>, leaves: &mut Leaves) -> Result<Whole, T::Rewritten> {
        let Some(&root) = selection.nodes.first() else { return Ok(Whole::Nowhere) };
        if self.haystack.get().is_none() {
            let read = Haystack::read(root, self.policy.limits.max_nodes, leaves)?;
            let _ = self.haystack.set(read);
        }
        let Some(Some(haystack)) = self.haystack.get() else { return Ok(Whole::TooLarge) };
        Ok(match haystack.first_holding(self.needle, self.policy.loosest_exact_rung()) {
            Some(k) => Whole::At(first_leaf_path(root, k)),
            None => Whole::Nowhere,
        })
    }
}
