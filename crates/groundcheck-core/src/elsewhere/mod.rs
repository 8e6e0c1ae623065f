//! `elsewhere` (docs/verification.md#near-misses): the first leaf of the whole document, in
//! document order, that holds a quote the ref's path missed.
//!
//! Every failing ref asks the same document, so each view (as written, expanded) is read
//! once per invocation into a [`Haystack`]: the texts of all its leaves laid end to end with
//! where every leaf ends, and the same with ASCII letters in lower case. A quote is then one
//! SIMD substring search over a text instead of one per leaf (a thousand failing refs over
//! 80,000 log lines: one pass each, not 80,000 calls); an occurrence only names a candidate
//! leaf, which the ladder's own test confirms on that leaf alone — so an occurrence spanning
//! two leaves, or splitting a number, never counts. Rungs are searched in turn, each only
//! before the best leaf found so far.
//!
//! Leaves are normalised only when the normalized or elided rung could hold on them
//! (normalising every leaf of the document was most of the cost of a miss). The
//! quote's [`Anchor`] — its longest run of ASCII letters, digits and CJK ideographs once
//! normalised — is in the normalised text of every leaf either rung holds on; a leaf written
//! in ASCII, CJK ideographs and CJK or ASCII-like punctuation only ([`plain`]) holds the anchor
//! normalised only if its text with ASCII letters in lower case holds it, so such a leaf
//! without it is never normalised. Every other leaf is normalised when a rung reaches it, once
//! per invocation.
//!
//! The expanded view is searched only when the document as written has no such leaf, and
//! then only in what expansion added (the values that replaced strings): every other leaf
//! of it is a leaf of the document as written, just shown not to hold the quote, so the
//! first leaf found there is the first of the whole expanded view.
//!
//! A located document (a text only singular paths were asked of) has no tree. Its quick test
//! ([`quick`]) answers most quotes from the text alone: when every leaf is plain, a leaf
//! holding the quote lies between two unescaped `"` around an occurrence of the quote's
//! anchor, so only those stretches are read, and the winning leaf's path is found by one walk
//! of the text (`json/walk.rs`) that decodes nothing else. Otherwise the leaves are read
//! straight from the text; the tree is parsed only when an object repeats a key (the walk's
//! order is then not the tree's). A text none of whose strings could hold JSON has no
//! expanded view to search.

mod plain;
mod quick;

use std::cell::OnceCell;

use memchr::memmem;

use crate::document::{OverLimit, Search};
use crate::json::{text_leaf_path, text_leaves, TextLeaves, Tree};
use crate::ladder::{for_each_leaf, leaf_path, Needle};
use crate::leaves::Leaves;
use crate::normalize::normalize;
use crate::path::Selection;
use crate::policy::{Limit, Policy, Rung};

use plain::{lower_case, plain, Anchor};
use quick::Quick;

/// What `elsewhere` keeps of one view for all of an invocation's refs: its leaves, read on the
/// first ref that needs them, and for a located text its quick test, which rules out most
/// quotes before any leaf is read.
pub(crate) struct Haystack {
    quick: Option<Quick>,
    contents: OnceCell<Contents>,
}

impl Haystack {
    /// Whether the view was read from a text none of whose strings could hold JSON, so that
    /// the document has no expanded view.
    pub(crate) fn rules_out_expanded(&self) -> bool {
        match self.contents.get() {
            Some(contents) => contents.read == Read::Text { candidate: false },
            None => self.quick.as_ref().is_some_and(|quick| quick.has_no_expanded_view()),
        }
    }
}

/// A view's leaves, in document order: their texts as written, the same with ASCII letters
/// in lower case, and each leaf's normalised text once a rung needed it.
struct Contents {
    raw: Texts,
    /// `raw.all` with ASCII letters in lower case (the same length: `raw.ends` holds).
    lower: Vec<u8>,
    /// The leaves that are not [`plain`], in order: candidates whatever the anchor.
    not_plain: Vec<usize>,
    /// Each leaf's normalised text, computed on first need (the slots too).
    normal: OnceCell<Box<[OnceCell<String>]>>,
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

    fn start(&self, k: usize) -> usize {
        if k == 0 {
            0
        } else {
            self.ends[k - 1]
        }
    }

    fn push(&mut self, leaf: &str) {
        self.all.push_str(leaf);
        self.ends.push(self.all.len());
    }

    fn leaf(&self, k: usize) -> &str {
        &self.all[self.start(k)..self.ends[k]]
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

impl Contents {
    /// `plain`: every leaf is known to be [`plain`] already.
    fn new(raw: Texts, read: Read, plain_text: bool) -> Contents {
        let (lower, ascii) = lower_case(&raw.all);
        let not_plain = if plain_text || ascii == raw.all.len() {
            Vec::new()
        } else {
            (0..raw.ends.len()).filter(|&k| !plain(raw.leaf(k))).collect()
        };
        let normal = OnceCell::new();
        Contents { raw, lower, not_plain, normal, read }
    }

    /// Reads the leaves under `nodes`, in order. Stops at a rewritten leaf, like every search.
    fn read<T: Tree>(nodes: &[&T]) -> Result<Contents, T::Rewritten> {
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
        let mut raw = Texts::with_capacity(texts.len(), texts.iter().map(|t| t.len()).sum());
        for leaf in texts {
            raw.push(leaf);
        }
        Ok(Contents::new(raw, Read::Tree, false))
    }

    /// Leaf `k`'s normalised text.
    fn normal(&self, k: usize) -> &str {
        let slots = self.normal.get_or_init(|| (0..self.raw.ends.len()).map(|_| OnceCell::new()).collect());
        slots[k].get_or_init(|| normalize(self.raw.leaf(k)))
    }

    /// The leaves before `limit` the normalized or elided rung may hold on, in order: every
    /// leaf that is not [`plain`], and the plain leaves holding every run of `anchor` in lower
    /// case (every leaf without an anchor).
    fn candidates(&self, anchor: Option<&Anchor>, limit: usize) -> Vec<usize> {
        let Some(Anchor(runs)) = anchor else { return (0..limit).collect() };
        let (anchor, others) = (&runs[0], &runs[1..]);
        let others: Vec<memmem::Finder<'_>> = others.iter().map(memmem::Finder::new).collect();
        let mut found = Vec::new();
        let hay = &self.lower[..];
        let finder = memmem::Finder::new(anchor.as_bytes());
        let mut at = 0;
        while at < hay.len() {
            let Some(start) = finder.find(&hay[at..]).map(|i| at + i) else { break };
            let k = self.raw.ends.partition_point(|&end| end <= start);
            if k >= limit {
                break;
            }
            if start + anchor.len() <= self.raw.ends[k] {
                let leaf = &hay[self.raw.start(k)..self.raw.ends[k]];
                if others.iter().all(|run| run.find(leaf).is_some()) {
                    found.push(k);
                }
                at = self.raw.ends[k];
            } else {
                at = start + 1;
            }
        }
        let not_plain = &self.not_plain[..self.not_plain.partition_point(|&k| k < limit)];
        if !not_plain.is_empty() {
            found.extend_from_slice(not_plain);
            found.sort_unstable();
            found.dedup();
        }
        found
    }

    /// Reads the leaves of a located document's text, or `None` when an object repeats a key
    /// (the tree's order is then not the text's).
    fn walk(text: &str, policy: &Policy, plain_text: bool) -> Option<Contents> {
        let TextLeaves { all, ends, nodes, candidate } = text_leaves(text, policy.limits.max_depth).ok()?;
        if nodes > policy.limits.max_nodes {
            return Some(Contents::new(Texts::default(), Read::TextOverLimit, true));
        }
        Some(Contents::new(Texts { all, ends }, Read::Text { candidate }, plain_text))
    }

    /// The index of the first leaf holding `needle` on a rung up to `max` (fuzzy aside).
    fn first_holding(&self, needle: &Needle<'_>, max: Rung) -> Option<usize> {
        let count = self.raw.ends.len();
        let mut best = self.raw.first(|hay| needle.exact_candidate(hay), |leaf| needle.exact_in(leaf), count);
        if max < Rung::Normalized || best == Some(0) || needle.normalized_text().is_empty() {
            return best;
        }
        let candidates =
            self.candidates(Anchor::of(needle.normalized_text()).as_ref(), best.unwrap_or(count));
        let normalized = candidates.iter().copied().find(|&k| needle.normalized_in(self.normal(k)));
        best = normalized.or(best);
        if max >= Rung::Elided && needle.elides() {
            let limit = best.unwrap_or(count);
            let elided = candidates
                .iter()
                .copied()
                .take_while(|&k| k < limit)
                .find(|&k| needle.elided_in(self.normal(k)));
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
        _leaves: &mut Leaves,
    ) -> Result<Option<String>, T::Rewritten> {
        let haystack = self.haystack.get_or_init(|| Haystack { quick: None, contents: OnceCell::new() });
        if haystack.contents.get().is_none() {
            let _ = haystack.contents.set(Contents::read(&selection.nodes)?);
        }
        let Some(contents) = haystack.contents.get() else { return Ok(None) };
        let found = contents.first_holding(self.needle, self.policy.loosest_exact_rung());
        Ok(found.map(|k| leaf_path(&selection.nodes, |i| selection.base(i), k)))
    }

    fn run_text(&self, text: &str, policy: &Policy) -> Option<Result<Option<String>, OverLimit>> {
        let haystack = self
            .haystack
            .get_or_init(|| Haystack { quick: Some(Quick::of(text)), contents: OnceCell::new() });
        if haystack.contents.get().is_none() {
            if let Some(quick) = &haystack.quick {
                if let Some(found) = quick.search(text, self.needle, policy) {
                    return Some(found);
                }
            }
            // A repeated key: nothing is kept, and the tree (read once) takes over.
            let _ = haystack.contents.set(Contents::walk(
                text,
                policy,
                haystack.quick.as_ref().is_some_and(|quick| quick.plain_text(text)),
            )?);
        }
        let contents = haystack.contents.get()?;
        match contents.read {
            Read::Tree => None,
            Read::TextOverLimit => Some(Err(OverLimit(Limit::Nodes))),
            Read::Text { .. } => {
                let found = contents.first_holding(self.needle, self.policy.loosest_exact_rung());
                let path =
                    |k| text_leaf_path(text, policy.limits.max_depth, k).unwrap_or_else(|| "$".to_string());
                Some(Ok(found.map(path)))
            }
        }
    }
}
