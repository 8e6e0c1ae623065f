//! `elsewhere` (docs/verification.md#near-misses): the first leaf of the whole document, in document order, that holds a
//! quote the ref's path missed.
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
//! Leaves are normalised only when the normalized or elided rung could hold on them (issue
//! #31: normalising every leaf of the document was most of the cost of a miss). The
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
//! A located document (a text only singular paths were asked of) has no tree: its leaves are
//! read straight from the text (`json/walk.rs`), the winning leaf's path found by a second
//! walk, and the tree is parsed only when an object repeats a key (the walk's order is then
//! not the tree's). That walk also tells whether any string could hold JSON; when none can,
//! there is no expanded view to search.

use std::cell::OnceCell;

use memchr::memmem;

use crate::document::{OverLimit, Search};
use crate::json::{may_hold_json, text_leaf_path, text_leaves, TextLeaves, Tree};
use crate::ladder::{for_each_leaf, leaf_path, Needle};
use crate::leaves::Leaves;
use crate::normalize::normalize;
use crate::path::Selection;
use crate::policy::{Limit, Policy, Rung};

/// What `elsewhere` keeps of one view for all of an invocation's refs: its leaves, read on the
/// first ref that needs them, and for a located text its quick test, which rules out most
/// quotes before any leaf is read.
pub(crate) struct Haystack {
    quick: Option<Quick>,
    contents: OnceCell<Contents>,
}

/// A located text in which every leaf is [`plain`] and written without `\u` escapes, so that
/// every run of ASCII letters, digits and ideographs of a leaf (in lower case) is a run of the
/// text (in lower case): a quote one of whose [`Anchor`] runs is not in the text is in no leaf,
/// on any rung — the exact one included, the quote as written being then a piece of a plain
/// leaf, whose normalised runs are its own in lower case.
struct Quick {
    /// The text with ASCII letters in lower case.
    lower: String,
    /// Whether every leaf is [`plain`] and written without `\u` escapes (the whole text is),
    /// found on the first quote whose runs are not all in the text.
    plain: OnceCell<bool>,
    /// No string of the text can hold JSON ([`may_hold_json`]): it has no expanded view;
    /// found on the first quote ruled out.
    no_json: OnceCell<bool>,
}

impl Quick {
    fn of(text: &str) -> Quick {
        let mut lower = text.to_string();
        lower.make_ascii_lowercase();
        Quick { lower, plain: OnceCell::new(), no_json: OnceCell::new() }
    }

    /// Whether no leaf of `text` (this quick test's) can hold `needle` on any rung.
    fn rules_out(&self, text: &str, needle: &Needle<'_>) -> bool {
        let Some(Anchor(runs)) = Anchor::of(needle.normalized_text()) else { return false };
        let absent =
            runs.iter().take(4).any(|run| memmem::find(self.lower.as_bytes(), run.as_bytes()).is_none());
        let ruled_out = absent && self.plain_text(text);
        if ruled_out {
            self.no_json.get_or_init(|| !may_hold_json(text));
        }
        ruled_out
    }

    /// Whether every leaf of `text` (this quick test's) is [`plain`] and written without `\u`
    /// escapes.
    fn plain_text(&self, text: &str) -> bool {
        *self.plain.get_or_init(|| memmem::find(text.as_bytes(), b"\\u").is_none() && plain(text))
    }
}

impl Haystack {
    /// Whether the view was read from a text none of whose strings could hold JSON, so that
    /// the document has no expanded view.
    pub(crate) fn rules_out_expanded(&self) -> bool {
        match self.contents.get() {
            Some(contents) => contents.read == Read::Text { candidate: false },
            None => self.quick.as_ref().is_some_and(|quick| quick.no_json.get() == Some(&true)),
        }
    }
}

/// A view's leaves, in document order: their texts as written, the same with ASCII letters
/// in lower case, and each leaf's normalised text once a rung needed it.
struct Contents {
    raw: Texts,
    /// `raw.all` with ASCII letters in lower case (the same length: `raw.ends` holds).
    lower: String,
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

/// The runs of the normalised quote made of ASCII letters and digits (lower case already) and
/// CJK ideographs, longest first: the normalised text of every leaf the normalized or elided
/// rung holds on contains each of them. (An elided piece is a part of the normalised quote
/// between `...`s, trimmed, so each run lies inside one piece, and every piece must hold.)
struct Anchor(Vec<String>);

impl Anchor {
    fn of(normalized: &str) -> Option<Anchor> {
        let mut runs: Vec<String> = normalized
            .split(|c: char| !anchoring(c))
            .filter(|run| !run.is_empty())
            .map(String::from)
            .collect();
        runs.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        runs.dedup();
        (!runs.is_empty()).then_some(Anchor(runs))
    }
}

/// A character an [`Anchor`] is made of.
fn anchoring(c: char) -> bool {
    c.is_ascii_alphanumeric() || ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// The non-ASCII characters of a [`plain`] text: CJK ideographs, and punctuation (CJK, general,
/// full-width) that normalises to neither an ASCII letter or digit nor an ideograph (tested
/// below, character by character and beside ASCII letters).
const PLAIN: [std::ops::RangeInclusive<char>; 5] = [
    '\u{4e00}'..='\u{9fff}',
    '\u{3000}'..='\u{3029}',
    '\u{2010}'..='\u{2027}',
    '\u{ff01}'..='\u{ff0f}',
    '\u{ff1a}'..='\u{ff20}',
];

/// Whether every character of `leaf` is ASCII or [`PLAIN`]. Normalising such a text maps
/// each ASCII letter or digit to its lower case and each ideograph to itself, every other
/// character to characters that are neither, and combines no two characters (NFKC composes
/// none of these): so a run of letters, digits and ideographs in its normalised text is a run
/// of its text with ASCII letters in lower case.
fn plain(leaf: &str) -> bool {
    let bytes = leaf.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.len() - i >= 16 && bytes[i..i + 16].is_ascii() {
            i += 16;
            continue;
        }
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
        } else if (0xe5..=0xe9).contains(&b) || (b == 0xe4 && bytes.get(i + 1).is_some_and(|&c| c >= 0xb8)) {
            // U+4E00..=U+9FFF, the ideographs, written in three bytes.
            i += 3;
        } else {
            let Some(c) = leaf.get(i..).and_then(|rest| rest.chars().next()) else { return false };
            if !PLAIN.iter().any(|range| range.contains(&c)) {
                return false;
            }
            i += c.len_utf8();
        }
    }
    true
}

impl Contents {
    /// `plain`: every leaf is known to be [`plain`] already.
    fn new(raw: Texts, read: Read, plain_text: bool) -> Contents {
        let mut lower = raw.all.clone();
        lower.make_ascii_lowercase();
        let not_plain = if plain_text || raw.all.is_ascii() {
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
        let hay = self.lower.as_bytes();
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
            if haystack.quick.as_ref().is_some_and(|quick| quick.rules_out(text, self.needle)) {
                return Some(Ok(None));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`plain`] rests on, character by character over every [`PLAIN`] character, alone
    /// and between ASCII letters: normalising it gives no ASCII letter or digit, and no
    /// ideograph but itself; it joins nothing to its neighbours.
    #[test]
    fn plain_characters_normalise_to_no_anchor_but_themselves() {
        for c in PLAIN.iter().flat_map(|range| range.clone()) {
            let alone: String = normalize(&c.to_string()).chars().filter(|&n| anchoring(n)).collect();
            let expected = if anchoring(c) { c.to_string() } else { String::new() };
            assert_eq!(alone, expected, "U+{:04X}", c as u32);
            let beside: String = normalize(&format!("a{c}Z9")).chars().filter(|&n| anchoring(n)).collect();
            assert_eq!(beside, format!("a{expected}z9"), "U+{:04X}", c as u32);
            assert!(plain(&format!("x{c}y")));
        }
        for text in ["é", "Ａ", "㎏", "①", "ﬁ", "İ", "\u{212a}", "\u{3038}", "a\u{301}", "Привет"]
        {
            assert!(!plain(text), "{text}");
        }
        assert!(plain("订单服务 order-svc 调用超时 after 3000ms（重试）…"));
    }

    /// The quick test rules out only quotes no rung finds: every leaf's own text, any case,
    /// elided or not, is still looked for.
    #[test]
    fn the_quick_test_keeps_every_quote_a_rung_finds() {
        let text = r#"{"a":["订单服务 Order-SVC 调用超时 after 3000ms","x\ty  Z"],"n":0.950}"#;
        let quick = Quick::of(text);
        for (quote, found) in [
            ("订单服务 order-svc", true),
            ("ORDER-SVC   调用超时", true),
            ("订单服务 … 3000ms", true),
            ("x y z", true),
            ("0.950", true),
            ("payment-svc", false),
            ("3001ms", false),
            ("订单服务 … 3000ms recovered", false),
        ] {
            assert_eq!(!quick.rules_out(text, &Needle::new(quote)), found, "{quote}");
        }
        assert!(quick.plain_text(text) && quick.no_json.get() == Some(&true));
        for text in [r#"{"a":"\u0041"}"#, r#"{"a":"Ｃ"}"#] {
            assert!(!Quick::of(text).rules_out(text, &Needle::new("payment")), "{text}");
        }
    }
}
