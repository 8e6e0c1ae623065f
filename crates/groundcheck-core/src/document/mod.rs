//! An invocation's raw document, loaded lazily, once per invocation, for its refs to be
//! checked against: where it comes from (`source.rs`), how much of it is built (`routes.rs`:
//! located, `Value` or tree), and the views a search runs over (`views.rs`: the document as
//! written, and its expanded view, built only when a path selects nothing in the first).
//!
//! The expanded view (JSON inside strings replaced by what it holds, `json/expand.rs`) is
//! always our tree, built from the source text on every route, so the routes agree there too.

mod routes;
mod source;
mod views;

use crate::json::{Node, Tree};
use crate::leaves::Leaves;
use crate::path::{EvidencePath, Selection};
use crate::policy::Policy;
use std::sync::atomic::AtomicU64;

pub(crate) use self::routes::Route;
#[cfg(test)]
pub(crate) use self::routes::SERDE_MAX_DEPTH;
pub(crate) use self::source::{file_warning, Raw};
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
    OverLimit,
}

/// A document, or one query on it, passes a limit: the ref is `limit_exceeded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverLimit;

impl From<OverLimit> for Absent {
    fn from(OverLimit: OverLimit) -> Absent {
        Absent::OverLimit
    }
}

/// What running a search over a query of a view gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selected<F> {
    /// The query selected something, and the search found this in it.
    Found(F),
    /// The query selected nothing (or the view asked for does not exist).
    Nothing,
    /// The document, or the query on it, passes a limit.
    OverLimit,
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

/// Which of a document's two views a whole-document search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// The document as written.
    Plain,
    /// JSON inside strings replaced by what it holds.
    Expanded,
}

/// What one search of a document gave, and whether it was decided on the expanded view.
pub(crate) struct Searched<F> {
    /// The search's result, or a limit the document or the query passed.
    pub(crate) found: Result<F, OverLimit>,
    /// The path selected nothing in the document but something (or passed a limit) in its
    /// expanded view, which gave `found`.
    pub(crate) descended: bool,
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
            Route::Value => &routes.value,
            Route::Tree => &routes.tree,
        };
        taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let plain = route.load(raw, policy)?;
        Ok(Document {
            raw,
            policy,
            routes,
            plain,
            expanded: Expansion::NotBuilt,
            plain_fits: None,
            leaves: Leaves::default(),
        })
    }

    /// Runs `path` (whose trimmed text is `path_text`) and `search` over what it selects: in
    /// the document as written and, only when that selects nothing, in its expanded view.
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
            Selected::Found(found) => return Searched { found: Ok(found), descended: false },
            Selected::OverLimit => return Searched { found: Err(OverLimit), descended: false },
            Selected::Nothing => {}
        }
        match self.expanded.get(self.raw, &self.plain, self.policy, &self.routes.expanded) {
            Ok(Some(view)) => match view.tree.search(query, search, &mut self.leaves) {
                Selected::Found(found) => Searched { found: Ok(found), descended: true },
                Selected::OverLimit => Searched { found: Err(OverLimit), descended: true },
                Selected::Nothing => Searched { found: Ok(self.nothing(search)), descended: false },
            },
            Ok(None) => Searched { found: Ok(self.nothing(search)), descended: false },
            Err(OverLimit) => Searched { found: Err(OverLimit), descended: true },
        }
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
                        Some(Err(OverLimit)) => return Selected::OverLimit,
                        None => {}
                    }
                }
                let fits = match self.plain_fits {
                    Some(fits) => fits,
                    None => match self.plain.fits(self.raw, policy) {
                        Ok(fits) => *self.plain_fits.insert(fits),
                        Err(OverLimit) => return Selected::OverLimit,
                    },
                };
                if !fits {
                    return Selected::OverLimit;
                }
                self.plain.search(self.raw, Query::Root, policy, search, &mut self.leaves)
            }
            Which::Expanded => {
                let view = self.expanded.get(self.raw, &self.plain, policy, &self.routes.expanded);
                match view {
                    Ok(Some(view)) => view.search_held(policy, search, &mut self.leaves),
                    Ok(None) => Selected::Nothing,
                    Err(OverLimit) => Selected::OverLimit,
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
