//! An invocation's raw document, loaded lazily, once per invocation, for its refs to be
//! checked against: where it comes from (`source.rs`), how much of it is built (`routes.rs`:
//! located, `Value` or tree), and the views a search runs over (`views.rs`: the document as
//! written, and its expanded view, built only when a path selects nothing in the first), and
//! for a text that is not JSON its structured view (`structured.rs`: JSON Lines or YAML),
//! built only when a path selects nothing in the text, with that view's own expanded view.
//!
//! The expanded view (JSON inside strings replaced by what it holds, `json/expand.rs`) is
//! always our tree, built from the source text on every route, so the routes agree there too.

mod routes;
mod source;
mod structured;
mod views;

use crate::json::{Node, Tree};
use crate::leaves::Leaves;
use crate::path::{EvidencePath, Selection};
use crate::policy::{Limit, Policy};
use crate::report::ReadAs;
use std::sync::atomic::AtomicU64;

pub(crate) use self::routes::Route;
#[cfg(test)]
pub(crate) use self::routes::SERDE_MAX_DEPTH;
pub(crate) use self::source::{file_warning, Raw};
use self::structured::Structured;
pub(crate) use self::structured::{read_structured, structured_of_text, Reading};
use self::views::{Expansion, TreeDoc, View};

/// Documents loaded per route, and expanded views built (relaxed counters: a count, not an
/// order).
#[derive(Default)]
pub(crate) struct RouteCounts {
    pub(crate) located: AtomicU64,
    pub(crate) value: AtomicU64,
    pub(crate) tree: AtomicU64,
    pub(crate) expanded: AtomicU64,
}

/// Why a ref has no document to be checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Absent {
    /// No raw output and no complete preview.
    Unavailable,
    /// The document passes the size or depth limit.
    OverLimit(Limit),
}

/// A document, or one query on it, passes this limit: the ref is `limit_exceeded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverLimit(pub(crate) Limit);

impl From<OverLimit> for Absent {
    fn from(OverLimit(limit): OverLimit) -> Absent {
        Absent::OverLimit(limit)
    }
}

/// What running a search over a query of a view gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selected<F> {
    /// The query selected something, and the search found this in it.
    Found(F),
    /// The query selected nothing (or the view asked for does not exist).
    Nothing,
    /// The document, or the query on it, passes this limit.
    OverLimit(Limit),
}

/// A search of the nodes a path selected, run on whichever tree the document is.
pub(crate) trait Search {
    /// What the search finds.
    type Found;
    /// Searches `selection`, with the invocation's normalised leaves; a `Value` search may
    /// stop at a rewritten number instead.
    fn run<T: Tree>(
        &self,
        selection: &Selection<'_, T>,
        leaves: &mut Leaves,
    ) -> Result<Self::Found, T::Rewritten>;

    /// Searches the whole of a located document from its text, read without building its
    /// tree (`json/walk.rs`), when the search can: `None` when it needs the tree after all.
    fn run_text(&self, _text: &str, _policy: &Policy) -> Option<Result<Self::Found, OverLimit>> {
        None
    }
}

/// What a search runs over: what a path selects, or the whole document (`elsewhere`).
#[derive(Clone, Copy)]
pub(crate) enum Query<'p> {
    /// The nodes `path` (trimmed text `text`) selects.
    Path { text: &'p str, path: &'p EvidencePath },
    /// The root, `$`.
    Root,
}

/// Which of a document's views a whole-document search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// The document as written.
    Plain,
    /// JSON inside strings replaced by what it holds.
    Expanded,
    /// A text that is not JSON read as JSON Lines or YAML.
    Structured,
    /// The structured view with JSON inside its strings replaced by what it holds.
    StructuredExpanded,
}

impl Which {
    /// The views `elsewhere` reads, in order: a text with a structured view is read there
    /// first, then in that view's expanded view, and only then as the whole text.
    pub(crate) const WITH_STRUCTURED: [Which; 3] =
        [Which::Structured, Which::StructuredExpanded, Which::Plain];
    /// The views of any other document.
    pub(crate) const PLAIN: [Which; 2] = [Which::Plain, Which::Expanded];
}

/// What one search of a document gave, and on which view it was decided.
pub(crate) struct Searched<F> {
    /// The search's result, or a limit the document or the query passed.
    pub(crate) found: Result<F, OverLimit>,
    /// The path selected nothing in the document (or its structured view) but something (or
    /// passed a limit) in its expanded view, which gave `found`.
    pub(crate) descended: bool,
    /// The path selected nothing in the text, and the text's structured view, read this
    /// way, gave `found` (itself or through its expanded view).
    pub(crate) read_as: Option<ReadAs>,
}

impl<F> Searched<F> {
    fn on_plain(found: Result<F, OverLimit>, descended: bool) -> Searched<F> {
        Searched { found, descended, read_as: None }
    }
}

/// A loaded document under its policy: the view its route built, the expanded view (built
/// only when a path selects nothing in the first), and the normalised text of every leaf a
/// ref needed normalised.
pub(crate) struct Document<'a> {
    raw: Raw<'a>,
    policy: &'a Policy,
    routes: &'a RouteCounts,
    plain: View<'a>,
    expanded: Expansion,
    /// A text that is not JSON read as JSON Lines or YAML, built on first need.
    structured: Structured,
    /// Whether the document as written has at most the node limit's nodes, once counted.
    plain_fits: Option<bool>,
    /// Keyed by the address of leaves of the trees above: cleared whenever one is replaced.
    leaves: Leaves,
}

impl<'a> Document<'a> {
    /// Loads `raw` along `route`. Outcomes are the same on every route.
    pub(crate) fn load(
        raw: Raw<'a>,
        route: &Route,
        policy: &'a Policy,
        routes: &'a RouteCounts,
    ) -> Result<Document<'a>, Absent> {
        let taken = match route {
            Route::Located { .. } => &routes.located,
            Route::Value { .. } => &routes.value,
            Route::Tree { .. } => &routes.tree,
        };
        taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let plain = route.load(raw, policy)?;
        Ok(Document {
            raw,
            policy,
            routes,
            plain,
            expanded: Expansion::NotBuilt,
            structured: Structured::NotBuilt,
            plain_fits: None,
            leaves: Leaves::default(),
        })
    }

    /// Runs `path` (whose trimmed text is `path_text`) and `search` over what it selects: in
    /// the document as written and, only when that selects nothing, in its expanded view — or,
    /// for a text that is not JSON, in its structured view and then that view's expanded view.
    ///
    /// This is where the one fallback between routes happens: a selected number whose
    /// exponent serde_json rewrote (`1E3` → `1e+3`) turns a `Value` view into our tree.
    pub(crate) fn search<S: Search>(
        &mut self,
        path_text: &str,
        path: &EvidencePath,
        search: &S,
    ) -> Searched<S::Found> {
        let query = Query::Path { text: path_text, path };
        match self.plain.search(self.raw, query, self.policy, search, &mut self.leaves) {
            Selected::Found(found) => return Searched::on_plain(Ok(found), false),
            Selected::OverLimit(l) => return Searched::on_plain(Err(OverLimit(l)), false),
            Selected::Nothing => {}
        }
        if let Some(text) = self.not_json_text() {
            return self.search_structured(text, query, search);
        }
        match self.expanded.get(self.raw, &self.plain, self.policy, &self.routes.expanded) {
            Ok(Some(view)) => {
                match view.tree.search(query, search, &mut self.leaves, self.policy.limits.max_nodes) {
                    Selected::Found(found) => Searched::on_plain(Ok(found), true),
                    Selected::OverLimit(l) => Searched::on_plain(Err(OverLimit(l)), true),
                    Selected::Nothing => Searched::on_plain(Ok(self.nothing(search)), false),
                }
            }
            Ok(None) => Searched::on_plain(Ok(self.nothing(search)), false),
            Err(over) => Searched::on_plain(Err(over), true),
        }
    }

    /// The text, when the document is a text that is not JSON (read as one string).
    fn not_json_text(&self) -> Option<&'a str> {
        match (&self.plain, self.raw) {
            (View::Tree(tree), Raw::Text(text)) if tree.not_json => Some(text),
            _ => None,
        }
    }

    /// Whether the document is a text that is not JSON and has a structured view (within
    /// the limits or not), built here on first need.
    pub(crate) fn has_structured(&mut self) -> bool {
        let Some(text) = self.not_json_text() else { return false };
        !matches!(self.structured.get(text, self.policy), Ok(None))
    }

    /// [`Document::search`] on the structured view of `text`, the text itself having
    /// selected nothing.
    fn search_structured<S: Search>(
        &mut self,
        text: &str,
        query: Query<'_>,
        search: &S,
    ) -> Searched<S::Found> {
        let policy = self.policy;
        let view = match self.structured.get(text, policy) {
            Ok(Some(view)) => view,
            Ok(None) => return Searched::on_plain(Ok(self.nothing(search)), false),
            Err((read_as, limit)) => {
                return Searched { found: Err(OverLimit(limit)), descended: false, read_as: Some(read_as) }
            }
        };
        let read_as = Some(view.read_as);
        let (found, descended) =
            match view.tree.search(query, search, &mut self.leaves, self.policy.limits.max_nodes) {
                Selected::Found(found) => (Ok(found), false),
                Selected::OverLimit(l) => (Err(OverLimit(l)), false),
                Selected::Nothing => match view.expanded(policy) {
                    Ok(Some(expanded)) => match expanded.tree.search(
                        query,
                        search,
                        &mut self.leaves,
                        self.policy.limits.max_nodes,
                    ) {
                        Selected::Found(found) => (Ok(found), true),
                        Selected::OverLimit(l) => (Err(OverLimit(l)), true),
                        Selected::Nothing => return Searched::on_plain(Ok(self.nothing(search)), false),
                    },
                    Ok(None) => return Searched::on_plain(Ok(self.nothing(search)), false),
                    Err(over) => (Err(over), true),
                },
            };
        Searched { found, descended, read_as }
    }

    /// Runs `search` over a whole view: the root of the document as written, or what the
    /// expanded view adds to it (`ExpandedView::search_held`); [`Selected::Nothing`] when the
    /// expanded view is asked for and no string of the document holds JSON. A view with more
    /// nodes than the node limit is not searched: [`Selected::OverLimit`].
    pub(crate) fn search_whole<S: Search>(&mut self, which: Which, search: &S) -> Selected<S::Found> {
        let policy = self.policy;
        match which {
            Which::Plain => {
                if let View::Located { text, whole: None, .. } = &self.plain {
                    match search.run_text(text, policy) {
                        Some(Ok(found)) => return Selected::Found(found),
                        Some(Err(OverLimit(l))) => return Selected::OverLimit(l),
                        None => {}
                    }
                }
                let fits = match self.plain_fits {
                    Some(fits) => fits,
                    None => match self.plain.fits(self.raw, policy) {
                        Ok(fits) => *self.plain_fits.insert(fits),
                        Err(OverLimit(l)) => return Selected::OverLimit(l),
                    },
                };
                if !fits {
                    return Selected::OverLimit(Limit::Nodes);
                }
                self.plain.search(self.raw, Query::Root, policy, search, &mut self.leaves)
            }
            Which::Expanded => {
                let view = self.expanded.get(self.raw, &self.plain, policy, &self.routes.expanded);
                match view {
                    Ok(Some(view)) => view.search_held(policy, search, &mut self.leaves),
                    Ok(None) => Selected::Nothing,
                    Err(OverLimit(l)) => Selected::OverLimit(l),
                }
            }
            Which::Structured | Which::StructuredExpanded => {
                let Some(text) = self.not_json_text() else { return Selected::Nothing };
                let view = match self.structured.get(text, policy) {
                    Ok(Some(view)) => view,
                    Ok(None) => return Selected::Nothing,
                    Err((_, limit)) => return Selected::OverLimit(limit),
                };
                if which == Which::Structured {
                    if !view.fits(policy) {
                        return Selected::OverLimit(Limit::Nodes);
                    }
                    return view.tree.search(Query::Root, search, &mut self.leaves, policy.limits.max_nodes);
                }
                match view.expanded(policy) {
                    Ok(Some(expanded)) => expanded.search_held(policy, search, &mut self.leaves),
                    Ok(None) => Selected::Nothing,
                    Err(OverLimit(l)) => Selected::OverLimit(l),
                }
            }
        }
    }

    /// What `search` gives for a selection of no node.
    fn nothing<S: Search>(&mut self, search: &S) -> S::Found {
        let Ok(found) = search.run(&Selection::<Node>::at_most_one(None), &mut self.leaves);
        found
    }
}

/// `inv`'s raw document as verification reads it, as our tree: for showing to a person
/// ([`crate::view::raw_document`]). `None` when there is none, or it passes a limit.
pub(crate) fn tree_of<'a>(
    inv: &'a crate::invocation::Invocation,
    policy: &Policy,
) -> Option<std::borrow::Cow<'a, crate::json::Json>> {
    TreeDoc::load(Raw::of(inv).1, policy).ok().map(|tree| tree.doc)
}

/// `inv`'s raw document read as JSON Lines or YAML, when it is a text that is not JSON and
/// has a structured view within the limits: for showing to a person.
pub(crate) fn structured_of(
    inv: &crate::invocation::Invocation,
    policy: &Policy,
) -> Option<(ReadAs, crate::json::Json)> {
    let text = Raw::of(inv).1.text()?;
    match structured_of_text(text, policy) {
        Reading::View(read_as, doc) => Some((read_as, doc)),
        Reading::Over(..) | Reading::None => None,
    }
}
