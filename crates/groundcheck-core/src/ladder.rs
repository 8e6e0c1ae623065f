//! The matching ladder `exact` → `normalized` → `elided` (docs/verification.md#the-ladder), then, for a quote
//! none of them finds, the near-miss search of `nearest.rs` (the fuzzy rung and `nearest`).
//!
//! Each rung is tried on every selected leaf before the next rung is tried, so an exact hit
//! deep in the second node beats a normalized hit in the first. The needle is prepared once
//! per ref; leaves are normalised only when the exact rung failed, once per invocation
//! (`leaves.rs`).

use std::collections::HashSet;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::boundary::Whole;
use crate::distance::Quote;
use crate::json::{join, Step, Tree};
use crate::leaves::{Leaves, Normal};
use crate::nearest::{near, Near};
use crate::normalize::normalize;
use crate::policy::{Policy, Rung};
use crate::report::Nearest;
use crate::score::Score;

/// What the ladder found for one ref under a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// Verified on `rung` at the leaf `path`; `score` for the fuzzy rung.
    Hit { rung: Rung, path: String, score: Option<Score> },
    /// Not found; the closest selected leaf, when docs/verification.md#near-misses names one.
    Miss { nearest: Option<Nearest> },
}

/// A ref's `text`, prepared for every rung. Every rung counts only occurrences that split
/// no number (see `boundary.rs`).
///
/// Only the exact rung's needle is made at once: most quotes are found on it, so the
/// normalised text and its pieces are made on the first rung, search or `elsewhere` that
/// needs them, and each needle's finder on its first long search (`Whole`).
pub(crate) struct Needle<'t> {
    exact: Whole<'t>,
    text: &'t str,
    loose: OnceLock<Loose>,
    /// The normalised text's bit masks, built on the first miss (`None`: it normalises to
    /// nothing).
    quote: OnceLock<Option<Quote>>,
}

/// What the looser rungs search for.
struct Loose {
    /// The normalised text, also for the near-miss search.
    text: String,
    /// The normalised text; `None` when it normalises to nothing (only invisible
    /// characters), which matches no leaf: the empty string is in everything and proves
    /// nothing.
    normalized: Option<Whole<'static>>,
    /// The trimmed, non-empty pieces around `...`, when there are two or more.
    pieces: Option<Vec<Whole<'static>>>,
}

impl Loose {
    fn new(text: &str) -> Loose {
        let normalized = normalize(text);
        let pieces: Vec<Whole<'static>> = normalized
            .split("...")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| Whole::new(p).into_owned())
            .collect();
        let pieces = (normalized.contains("...") && pieces.len() >= 2).then_some(pieces);
        let whole = (!normalized.is_empty()).then(|| Whole::new(&normalized).into_owned());
        Loose { text: normalized, normalized: whole, pieces }
    }
}

impl<'t> Needle<'t> {
    pub(crate) fn new(text: &'t str) -> Needle<'t> {
        Needle { exact: Whole::new(text), text, loose: OnceLock::new(), quote: OnceLock::new() }
    }

    fn loose(&self) -> &Loose {
        self.loose.get_or_init(|| Loose::new(self.text))
    }

    /// The normalised quote as bit masks, for `nearest` and the fuzzy rung.
    fn quote(&self) -> Option<&Quote> {
        self.quote.get_or_init(|| Quote::new(&self.loose().text)).as_ref()
    }

    pub(crate) fn exact_in(&self, leaf: &str) -> bool {
        self.exact.find_from(leaf, 0).is_some()
    }

    pub(crate) fn normalized_in(&self, normalized_leaf: &str) -> bool {
        self.loose().normalized.as_ref().is_some_and(|n| n.find_from(normalized_leaf, 0).is_some())
    }

    /// Where the text may hold in `hay`, leaves laid end to end (`elsewhere.rs`): an
    /// occurrence, to be confirmed by [`Needle::exact_in`] on its leaf.
    pub(crate) fn exact_candidate(&self, hay: &[u8]) -> Option<usize> {
        self.exact.candidate(hay)
    }

    /// The normalised text (empty when it normalises to nothing, which no leaf holds).
    pub(crate) fn normalized_text(&self) -> &str {
        &self.loose().text
    }

    /// Whether the elided rung can hold anywhere: the normalised text has two or more pieces
    /// around `...`.
    pub(crate) fn elides(&self) -> bool {
        self.loose().pieces.is_some()
    }

    /// Every piece, in order and without overlap, each at its first occurrence after the
    /// previous one that splits no number (the earliest choice leaves the most room).
    pub(crate) fn elided_in(&self, normalized_leaf: &str) -> bool {
        let Some(pieces) = &self.loose().pieces else { return false };
        let mut from = 0;
        pieces.iter().all(|piece| match piece.find_from(normalized_leaf, from) {
            Some((_, end)) => {
                from = end;
                true
            }
            None => false,
        })
    }

    /// Whether the needle is found in `text` taken as one leaf on a rung up to `max` (the
    /// fuzzy rung aside): `in_preview`. `normalized` gives the text normalised, computed by
    /// the caller once for all of an invocation's refs.
    pub(crate) fn in_text<'n>(&self, text: &str, normalized: impl FnOnce() -> &'n str, max: Rung) -> bool {
        if self.exact_in(text) {
            return true;
        }
        if max == Rung::Exact {
            return false;
        }
        let normalized = normalized();
        self.normalized_in(normalized) || (max >= Rung::Elided && self.elided_in(normalized))
    }

    /// Searches the leaves of `selected` rung by rung, then (on a miss) for the closest
    /// leaf. `base(i)` is the normalized path of `selected[i]`, formatted only for the leaf
    /// reported.
    ///
    /// `nested`: whether a selected node may lie inside another (only a path with `..`).
    pub(crate) fn find<T: Tree>(
        &self,
        selected: &[&T],
        base: impl Fn(usize) -> String,
        policy: &Policy,
        nested: bool,
        leaves: &mut Leaves,
    ) -> Result<Found, T::Rewritten> {
        // Nodes inside an earlier selected node (`$..*` selects every node *and* its
        // ancestors) hold only leaves already searched, in the same order: searching them
        // again cannot change the answer, and made `$..*` quadratic on deep documents.
        // Without `..` every selected node is at the same depth, so none holds another.
        let keep = if nested { outermost(selected) } else { (0..selected.len()).collect() };
        let nodes: Vec<&T> = keep.iter().map(|&i| selected[i]).collect();
        let base = |j: usize| base(keep[j]);
        let nodes_search =
            if nodes.len() >= PARALLEL_NODES { NodeSearch::Parallel } else { NodeSearch::InOrder };
        if let Some((rung, i, steps)) = self.climb(&nodes, policy.max_rung, leaves, nodes_search)? {
            return Ok(Found::Hit { rung, path: join(base(i), &steps), score: None });
        }
        // `ordinal` numbers a leaf of this very walk, so it is always found.
        let path_of = |ordinal: usize| {
            let (i, steps, _) =
                first_leaf(&nodes, |_, _, n| n == ordinal).unwrap_or((0, Vec::new(), nodes[0]));
            join(base(i), &steps)
        };
        let mut texts: Vec<(usize, &str)> = Vec::new();
        first_leaf(&nodes, |_, leaf, ordinal| {
            texts.push((ordinal, leaf));
            false
        });
        Ok(match near(self.quote(), &texts, policy, leaves) {
            Near::Fuzzy { ordinal, score } => {
                Found::Hit { rung: Rung::Fuzzy, path: path_of(ordinal), score: Some(score) }
            }
            Near::Nearest { ordinal, score, text } => {
                Found::Miss { nearest: Some(Nearest { score, path: path_of(ordinal), text }) }
            }
            Near::Nothing => Found::Miss { nearest: None },
        })
    }

    /// The exact, normalized and elided rungs up to `max`, each over every leaf of `selected`
    /// before the next: the rung, the index of the selected node holding the first leaf it
    /// holds on, and the steps down to that leaf.
    ///
    /// The exact rung stops at a rewritten leaf too: its text as written is unknown, so
    /// neither a hit after it nor a miss can be trusted. It is the only rung that must check:
    /// later rungs run only when it visited every leaf without stopping.
    fn climb<'d, T: Tree>(
        &self,
        selected: &[&'d T],
        max: Rung,
        leaves: &mut Leaves,
        nodes: NodeSearch,
    ) -> Result<Option<RungHit<'d>>, T::Rewritten> {
        for rung in [Rung::Exact, Rung::Normalized, Rung::Elided] {
            if rung > max || (rung == Rung::Elided && !self.elides()) {
                break;
            }
            let hit = match nodes {
                // Leaves are normalised as the rung reaches them, and kept for later refs.
                NodeSearch::InOrder => {
                    first_leaf(selected, |node, leaf, _| self.holds(rung, node, leaf, |l| leaves.normal(l)))
                }
                // Normalised all at once (on rayon) before the first loose rung reads them.
                NodeSearch::Parallel => {
                    if rung == Rung::Normalized {
                        let mut texts = Vec::new();
                        first_leaf(selected, |_, leaf, _| {
                            texts.push(leaf);
                            false
                        });
                        leaves.prepare(&texts);
                    }
                    let leaves = &*leaves;
                    first_leaf_in_parallel(selected, |node, leaf| {
                        self.holds(rung, node, leaf, |l| leaves.lookup(l))
                    })
                }
            };
            if let Some((i, steps, leaf)) = hit {
                if let Some(rewritten) = leaf.rewritten() {
                    return Err(rewritten);
                }
                return Ok(Some((rung, i, steps)));
            }
        }
        Ok(None)
    }

    /// Whether the needle holds on `rung` in `leaf` (a leaf of `node`; its normalised text
    /// from `normal`); on the exact rung, also true at a rewritten number, to stop there.
    #[inline]
    fn holds<'l, T: Tree>(
        &self,
        rung: Rung,
        node: &T,
        leaf: &'l str,
        normal: impl FnOnce(&'l str) -> Normal<'_>,
    ) -> bool {
        match rung {
            Rung::Exact => node.rewritten().is_some() || self.exact_in(leaf),
            Rung::Normalized => self.normalized_in(&normal(leaf).text),
            _ => self.elided_in(&normal(leaf).text),
        }
    }
}

/// Where a rung held: the rung, the index of the selected node, the steps down to the leaf.
type RungHit<'d> = (Rung, usize, Vec<Step<'d>>);

/// How [`Needle::climb`] visits the selected nodes: in order on the calling thread, or node
/// by node on rayon, the first node in order with a hit winning (so the result is the
/// sequential one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeSearch {
    InOrder,
    Parallel,
}

/// [`first_leaf`] over each selected node on rayon: the first node in order holding a leaf
/// that passes `test` wins.
fn first_leaf_in_parallel<'d, T: Tree>(
    selected: &[&'d T],
    test: impl Fn(&'d T, &'d str) -> bool + Sync,
) -> Option<(usize, Vec<Step<'d>>, &'d T)> {
    selected.par_iter().enumerate().find_map_first(|(i, node)| {
        first_leaf(std::slice::from_ref(node), |n, leaf, _| test(n, leaf))
            .map(|(_, steps, leaf)| (i, steps, leaf))
    })
}

/// The indexes of the selected nodes that are not inside an earlier selected node (nor the
/// same node again), in order. Each node of the document is visited at most once unless an
/// ancestor is selected after its descendant (a union such as `$[0][0],$[0]`).
fn outermost<T: Tree>(selected: &[&T]) -> Vec<usize> {
    if selected.len() < 2 {
        return (0..selected.len()).collect();
    }
    let address = |node: &T| node as *const T as usize;
    let mut seen: HashSet<usize> = HashSet::new();
    let mut keep = Vec::with_capacity(selected.len());
    let mut stack: Vec<(&T, usize, Option<Step<'_>>)> = Vec::new();
    for (i, &node) in selected.iter().enumerate() {
        if seen.contains(&address(node)) {
            continue;
        }
        keep.push(i);
        stack.push((node, 0, None));
        while let Some((node, _, _)) = stack.pop() {
            if seen.insert(address(node)) {
                node.push_children(0, &mut stack);
            }
        }
    }
    keep
}

/// Selections of at least this many nodes are searched node by node on rayon, so that one
/// invocation citing thousands of nodes (`$.logs[*]` over a large output) does not keep a
/// run on one core. Below it, splitting costs more than it saves.
const PARALLEL_NODES: usize = 256;

/// Visits the leaves under `nodes` in document order while `visit` returns true.
pub(crate) fn for_each_leaf<'d, T: Tree>(nodes: &[&'d T], mut visit: impl FnMut(&'d T, &'d str) -> bool) {
    first_leaf(nodes, |node, leaf, _| !visit(node, leaf));
}

/// The normalized path of leaf number `k` (from 0, in document order) under `nodes`, whose
/// own paths `base` gives.
pub(crate) fn leaf_path<T: Tree>(nodes: &[&T], base: impl Fn(usize) -> String, k: usize) -> String {
    match first_leaf(nodes, |_, _, ordinal| ordinal == k) {
        Some((i, steps, _)) => join(base(i), &steps),
        None => String::from("$"),
    }
}

/// Visits leaves depth-first in document order across all selected nodes; `test` gets the
/// leaf text and its ordinal. Returns the index of the selected node holding the first leaf
/// that passes `test`, and the steps from that node down to the leaf.
fn first_leaf<'d, T: Tree>(
    selected: &[&'d T],
    mut test: impl FnMut(&'d T, &'d str, usize) -> bool,
) -> Option<(usize, Vec<Step<'d>>, &'d T)> {
    let mut ordinal = 0;
    let mut steps: Vec<Step<'d>> = Vec::new();
    let mut stack: Vec<(&'d T, usize, Option<Step<'d>>)> = Vec::new();
    for (i, &node) in selected.iter().enumerate() {
        steps.clear();
        stack.push((node, 0, None));
        while let Some((node, depth, step)) = stack.pop() {
            steps.truncate(depth);
            if let Some(step) = step {
                steps.push(step);
            }
            match node.leaf_text() {
                None => node.push_children(steps.len(), &mut stack),
                Some(text) => {
                    if test(node, text, ordinal) {
                        return Some((i, steps, node));
                    }
                    ordinal += 1;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::path::EvidencePath;
    use crate::Json;

    fn policy(max_rung: Rung) -> Policy {
        Policy { max_rung, ..Policy::default() }
    }

    fn found(path: &str, doc: &str, text: &str, policy: &Policy) -> Found {
        let doc = Json::parse(doc).unwrap();
        let selection = EvidencePath::parse(path).unwrap().select(doc.root(), None, usize::MAX).unwrap();
        let mut leaves = Leaves::default();
        let Ok(found) = Needle::new(text).find(
            &selection.nodes,
            |i| selection.base(i),
            policy,
            selection.nested,
            &mut leaves,
        );
        found
    }

    fn find(path: &str, doc: &str, text: &str, max: Rung) -> Option<(Rung, String)> {
        match found(path, doc, text, &policy(max)) {
            Found::Hit { rung, path, .. } => Some((rung, path)),
            Found::Miss { .. } => None,
        }
    }

    #[test]
    fn parallel_search_finds_what_the_sequential_one_finds() {
        // 600 nodes: late exact hits must beat early normalized ones, as in order.
        let mut items: Vec<String> =
            (0..600).map(|i| format!(r#"{{"m":"line {i} ok","n":[{i}]}}"#)).collect();
        items[40] = r#"{"m":"Connection   REFUSED here"}"#.into();
        items[450] = r#"{"m":"x","n":["connection refused"]}"#.into();
        items[500] = r#"{"m":"dial tcp 10.0.0.7 ... then refused"}"#.into();
        let doc = Json::parse(&format!("[{}]", items.join(","))).unwrap();
        let selection = EvidencePath::parse("$[*]").unwrap().select(doc.root(), None, usize::MAX).unwrap();
        assert!(selection.nodes.len() >= PARALLEL_NODES);
        for (text, max) in [
            ("connection refused", Rung::Elided),
            ("connection refused", Rung::Exact),
            ("CONNECTION REFUSED HERE", Rung::Elided),
            ("dial tcp ... refused", Rung::Elided),
            ("line 599 ok", Rung::Exact),
            ("599", Rung::Normalized),
            ("absent", Rung::Elided),
        ] {
            let needle = Needle::new(text);
            let base = |i| selection.base(i);
            let climb = |nodes| {
                let found = needle.climb(&selection.nodes, max, &mut Leaves::default(), nodes);
                found.map(|hit| hit.map(|(rung, i, steps)| (rung, join(base(i), &steps))))
            };
            assert_eq!(climb(NodeSearch::Parallel), climb(NodeSearch::InOrder), "{text}");
        }
        assert_eq!(
            Needle::new("connection refused").find(
                &selection.nodes,
                |i| selection.base(i),
                &Policy::default(),
                false,
                &mut Leaves::default()
            ),
            Ok(Found::Hit { rung: Rung::Exact, path: "$[450]['n'][0]".into(), score: None })
        );
    }

    #[test]
    fn nodes_inside_earlier_selected_nodes_are_searched_once() {
        // A comb 300 deep: `$..*` selects every node and every ancestor of it.
        let mut doc = String::from("\"bottom needle\"");
        for level in 0..300 {
            doc = format!(r#"["leaf {level}", {doc}]"#);
        }
        let doc = Json::parse(&doc).unwrap();
        let selection = EvidencePath::parse("$..*").unwrap().select(doc.root(), None, usize::MAX).unwrap();
        assert_eq!(outermost(&selection.nodes), [0, 1], "the root's two children hold everything");
        assert!(selection.nested);
        let found = Needle::new("BOTTOM needle").find(
            &selection.nodes,
            |i| selection.base(i),
            &Policy::default(),
            true,
            &mut Leaves::default(),
        );
        let Ok(Found::Hit { path, .. }) = found else { panic!("{found:?}") };
        assert_eq!(path.matches("[1]").count(), 300, "{path}");
        assert_eq!(outermost(&[doc.root(), doc.root()]), [0], "the same node twice");
    }

    #[test]
    fn exact_rung_on_every_leaf_before_normalized() {
        let doc = r#"[{"m":"Connection Refused"},{"m":"connection refused"}]"#;
        assert_eq!(
            find("$[*]", doc, "connection refused", Rung::Elided),
            Some((Rung::Exact, "$[1]['m']".into()))
        );
    }

    #[test]
    fn normalized_rung() {
        let doc = r#"{"m":"Dial TCP:   Connection\nRefused"}"#;
        assert_eq!(
            find("$", doc, "connection refused", Rung::Elided),
            Some((Rung::Normalized, "$['m']".into()))
        );
        assert_eq!(find("$", doc, "connection refused", Rung::Exact), None);
    }

    #[test]
    fn elided_rung_needs_two_pieces_in_order_in_one_leaf() {
        let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused","n":"timeout"}"#;
        assert_eq!(find("$", doc, "dial tcp … refused", Rung::Elided), Some((Rung::Elided, "$['m']".into())));
        assert_eq!(find("$", doc, "dial tcp ... refused", Rung::Normalized), None);
        assert_eq!(find("$", doc, "refused ... dial", Rung::Elided), None);
        assert_eq!(find("$", doc, "dial tcp ... timeout", Rung::Elided), None, "pieces must share a leaf");
        assert_eq!(
            find("$", doc, "dial tcp 10.0.0.7...", Rung::Elided),
            None,
            "a lone trailing ... does not elide"
        );
    }

    #[test]
    fn pieces_do_not_overlap() {
        let doc = r#"{"m":"abcabc"}"#;
        assert!(find("$", doc, "abca ... abc", Rung::Elided).is_none());
        assert!(find("$", doc, "abc ... abc", Rung::Elided).is_some());
    }

    #[test]
    fn numbers_match_by_text_as_written_and_keys_are_not_searched() {
        let doc = r#"{"p95": 0.950, "n": 1e3, "ok": true, "missing": null}"#;
        assert_eq!(find("$", doc, "0.950", Rung::Elided).map(|h| h.1), Some("$['p95']".into()));
        assert!(find("$", doc, "0.95 ", Rung::Exact).is_none());
        assert!(find("$", doc, "1000", Rung::Elided).is_none());
        assert!(find("$", doc, "p95", Rung::Elided).is_none());
        assert_eq!(find("$", doc, "true", Rung::Exact).map(|h| h.1), Some("$['ok']".into()));
        assert_eq!(find("$", doc, "null", Rung::Exact).map(|h| h.1), Some("$['missing']".into()));
    }
}
