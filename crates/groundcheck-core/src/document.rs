//! An invocation's raw document: where it comes from (the raw output, else a raw-output file
//! the caller read, else a preview that is provably complete, else nothing) and how much of it is built, along one of three routes
//! chosen once per invocation. The routes change no verdict; they differ only in cost.
//!
//! - **Located**: the raw output is text and every checked ref's path is singular. The text
//!   is validated in one pass and only what the paths select is parsed (`json::locate`).
//! - **Value**: text for general paths, parsed straight into the `serde_json::Value` that
//!   serde_json_path queries (the workspace builds serde_json with `arbitrary_precision`, so
//!   numbers keep their text — all but exponents, see [`Document::search`]).
//! - **Tree**: our own [`Json`] tree, which keeps every number's text and has no depth limit
//!   of its own; JSONPath queries run on its `Value` twin, built on first need. It takes the
//!   raw output given as JSON, text serde_json rejects (not JSON, or deeper than
//!   [`SERDE_MAX_DEPTH`]) and every document of [`crate::verify_invocation_general`].
//!
//! A path that selects nothing in the document is run again on its *expanded view* (see
//! `json/expand.rs`: JSON inside strings replaced by what it holds), always our tree, built
//! once per invocation from the source text on every route, so the routes agree there too.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;

use serde_json::Value;

use crate::address::AddressSet;
use crate::cache::{Compiled, PathCache};
use crate::claim::ClaimedRef;
use crate::invocation::{Invocation, RawOutput, RawOutputFile};
use crate::json::{
    expand, holds_at_most, locate, parse_with_depth_limit, to_serde_value, Expanded, Json, JsonErrorKind,
    Node, Rewritten, Step, Tree, MAX_PATHS,
};
use crate::leaves::Leaves;
use crate::path::{EvidencePath, Selection};
use crate::policy::{Limits, Policy};
use crate::report::{Source, Warning};

/// The deepest document serde_json parses (its recursion limit); deeper ones take the tree.
pub(crate) const SERDE_MAX_DEPTH: usize = 127;

/// Where the document comes from, decided before anything is parsed: the row's raw output,
/// else a raw-output file that was read, else a complete preview, else nothing.
pub(crate) fn source_of(inv: &Invocation) -> Source {
    if inv.raw_output.is_some() {
        Source::RawOutput
    } else if matches!(inv.raw_output_file, Some(RawOutputFile::Read(_) | RawOutputFile::OverLimit)) {
        Source::File
    } else if complete_preview(inv).is_some() {
        Source::Preview
    } else {
        Source::None
    }
}

/// The warning a raw-output file lookup gives, if any (only for rows without a raw output).
pub(crate) fn file_warning(inv: &Invocation) -> Option<Warning> {
    if inv.raw_output.is_some() {
        return None;
    }
    match inv.raw_output_file.as_ref()? {
        RawOutputFile::Read(_) | RawOutputFile::OverLimit => None,
        RawOutputFile::PathUnsafe => Some(Warning::RawOutputPathUnsafe),
        RawOutputFile::Missing => Some(Warning::RawOutputMissing),
        RawOutputFile::Unreadable => Some(Warning::RawOutputUnreadable),
    }
}

/// The preview, when it provably is the whole output: not truncated, and `output_length`
/// equal to its length in scalar values or in UTF-16 code units (a JVM writer counts those).
fn complete_preview(inv: &Invocation) -> Option<&str> {
    let preview = inv.output_preview.as_deref()?;
    let length = inv.output_length?;
    let fits = |n: usize| i64::try_from(n).is_ok_and(|n| n == length);
    let complete = inv.is_truncated == Some(false)
        && (fits(preview.chars().count()) || fits(preview.encode_utf16().count()));
    complete.then_some(preview)
}

/// The document as text, when it is given as text (or is a file's text, or a complete
/// preview).
fn raw_text(inv: &Invocation) -> Option<&str> {
    match (&inv.raw_output, &inv.raw_output_file) {
        (Some(RawOutput::Text(text)), _) => Some(text),
        (Some(RawOutput::Json(_)), _) => None,
        (None, Some(RawOutputFile::Read(text))) => Some(text),
        // Over the size limit: the tree route says so.
        (None, Some(RawOutputFile::OverLimit)) => None,
        (None, _) => complete_preview(inv),
    }
}

/// How an invocation's document is loaded, chosen once from its raw output and its refs.
pub(crate) enum Route<'a> {
    /// Only what these singular paths (trimmed text, compiled) select is parsed.
    Located { text: &'a str, plan: Vec<(String, Compiled)> },
    /// One `serde_json::Value`, when serde_json accepts the text.
    Value { text: &'a str },
    /// Our own tree.
    Tree,
}

impl<'a> Route<'a> {
    /// The cheapest route for `refs` (`fast: false` always takes the tree).
    pub(crate) fn choose(
        inv: &'a Invocation,
        refs: &[ClaimedRef],
        policy: &Policy,
        cache: &PathCache,
        fast: bool,
    ) -> Route<'a> {
        match raw_text(inv) {
            Some(text) if fast => match singular_plan(refs, policy, cache) {
                Some(plan) => Route::Located { text, plan },
                None => Route::Value { text },
            },
            _ => Route::Tree,
        }
    }
}

/// The distinct singular paths to locate, when every ref that will be checked has one
/// (invalid and over-long paths aside: they need no document). `None`: a general path.
fn singular_plan(refs: &[ClaimedRef], policy: &Policy, cache: &PathCache) -> Option<Vec<(String, Compiled)>> {
    let mut plan: Vec<(String, Compiled)> = Vec::new();
    for r in refs {
        let ClaimedRef::Evidence(r) = r else { continue };
        let path = r.raw_path.trim();
        if path.chars().count() > policy.limits.max_path_chars || plan.iter().any(|(p, _)| p == path) {
            continue;
        }
        let compiled = cache.get(path);
        match compiled.as_ref() {
            Err(_) => continue,
            Ok(p) if p.singular().is_none() => return None,
            Ok(_) => plan.push((path.to_string(), compiled)),
        }
    }
    (!plan.is_empty() && plan.len() <= MAX_PATHS).then_some(plan)
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

/// A loaded document: the view its route built, and the expanded view (JSON inside
/// strings replaced by what it holds), built only when a path selects nothing in the first,
/// and the normalised text of every leaf a ref needed normalised.
pub(crate) struct Document<'a> {
    inv: &'a Invocation,
    plain: View<'a>,
    /// `Ok(None)`: no string of the document holds JSON, so the expanded view is the plain one.
    expanded: Option<Result<Option<ExpandedView>, OverLimit>>,
    /// Whether the document as written has at most the node limit's nodes, once counted.
    plain_fits: Option<bool>,
    /// Keyed by the address of leaves of the trees above: cleared whenever one is replaced.
    leaves: Leaves,
}

/// The plain document, in the form its route built.
enum View<'a> {
    /// What each planned singular path (by trimmed text) selects, with its normalized path;
    /// the text; and our tree of it, once a search of the whole document needed one (the
    /// search could not read the text itself).
    Located { found: HashMap<String, Option<(String, Json)>>, text: &'a str, whole: Option<TreeDoc<'a>> },
    /// The text, parsed by serde_json; the text is kept for the fallback to our tree.
    Value { value: Value, text: &'a str },
    /// Our tree.
    Tree(TreeDoc<'a>),
}

/// What one search of a document gave, and whether it was decided on the expanded view.
pub(crate) struct Searched<F> {
    /// The search's result, or a limit the document or the query passed.
    pub(crate) found: Result<F, OverLimit>,
    /// The path selected nothing in the document but something (or passed a limit) in its
    /// expanded view, which gave `found`.
    pub(crate) descended: bool,
}

impl<'a> Document<'a> {
    /// Loads the document of `inv` along `route`. Outcomes are the same on every route.
    pub(crate) fn load(
        inv: &'a Invocation,
        route: &Route<'a>,
        policy: &Policy,
    ) -> Result<Document<'a>, Absent> {
        let plain = match route {
            Route::Located { text, plan } => located(text, plan, policy)?,
            Route::Value { text } => value(inv, text, policy)?,
            Route::Tree => View::Tree(TreeDoc::load(inv, policy)?),
        };
        Ok(Document { inv, plain, expanded: None, plain_fits: None, leaves: Leaves::default() })
    }

    /// Runs `path` (whose trimmed text is `path_text`) and `search` over what it selects: in
    /// the document as written and, only when that selects nothing, in its expanded view.
    pub(crate) fn search<S: Search>(
        &mut self,
        path_text: &str,
        path: &EvidencePath,
        policy: &Policy,
        search: &S,
    ) -> Searched<S::Found> {
        let query = Query::Path { text: path_text, path };
        match self.plain.search(self.inv, query, policy, search, &mut self.leaves) {
            Ok(Some(found)) => return Searched { found: Ok(found), descended: false },
            Err(over) => return Searched { found: Err(over), descended: false },
            Ok(None) => {}
        }
        match self.search_expanded(query, policy, search) {
            Ok(None) => Searched { found: Ok(self.nothing(search)), descended: false },
            Ok(Some(found)) => Searched { found: Ok(found), descended: true },
            Err(over) => Searched { found: Err(over), descended: true },
        }
    }

    /// Runs `search` over a whole view: the root of the document as written, or what the
    /// expanded view adds to it (`ExpandedView::search_held`); `None` when the expanded view is asked for
    /// and no string of the document holds JSON. A view with more nodes than the node limit
    /// is not searched: [`OverLimit`].
    pub(crate) fn search_whole<S: Search>(
        &mut self,
        which: Which,
        policy: &Policy,
        search: &S,
    ) -> Result<Option<S::Found>, OverLimit> {
        match which {
            Which::Plain => {
                if let View::Located { text, whole: None, .. } = &self.plain {
                    if let Some(found) = search.run_text(text, policy) {
                        return found.map(Some);
                    }
                }
                let fits = match self.plain_fits {
                    Some(fits) => fits,
                    None => *self.plain_fits.insert(self.plain.fits(self.inv, policy)?),
                };
                if !fits {
                    return Err(OverLimit);
                }
                self.plain.search(self.inv, Query::Root, policy, search, &mut self.leaves)
            }
            Which::Expanded => match expanded_of(&mut self.expanded, self.inv, &self.plain, policy)? {
                Some(view) => view.search_held(policy, search, &mut self.leaves),
                None => Ok(None),
            },
        }
    }

    fn search_expanded<S: Search>(
        &mut self,
        query: Query<'_>,
        policy: &Policy,
        search: &S,
    ) -> Result<Option<S::Found>, OverLimit> {
        match expanded_of(&mut self.expanded, self.inv, &self.plain, policy)? {
            Some(view) => view.tree.search(query, search, &mut self.leaves),
            None => Ok(None),
        }
    }

    /// What `search` gives for a selection of no node.
    fn nothing<S: Search>(&mut self, search: &S) -> S::Found {
        let Ok(found) = search.run(&Selection::<Node>::at_most_one(None), &mut self.leaves);
        found
    }
}

/// The expanded view of `inv`'s document: the rare path, taken by a ref whose path selected
/// nothing. Our tree of the plain view is copied when there is one; the located and `Value`
/// views have none, so the source is parsed again.
fn expanded_view(
    inv: &Invocation,
    plain: &View<'_>,
    policy: &Policy,
) -> Result<Option<ExpandedView>, OverLimit> {
    let doc: Cow<'_, Json> = match plain {
        View::Tree(tree) | View::Located { whole: Some(tree), .. } => Cow::Borrowed(&*tree.doc),
        View::Located { whole: None, .. } | View::Value { .. } => match TreeDoc::load(inv, policy) {
            Ok(tree) => tree.doc,
            Err(Absent::OverLimit) => return Err(OverLimit),
            Err(Absent::Unavailable) => return Ok(None),
        },
    };
    match expand(doc, policy.limits.max_depth) {
        Ok(Some(Expanded { doc, held })) => {
            Ok(Some(ExpandedView { tree: TreeDoc::new(Cow::Owned(doc)), held, fits: None }))
        }
        Ok(None) => Ok(None),
        Err(_) => Err(OverLimit),
    }
}

/// The expanded view, with where the values that replaced strings lie in it.
struct ExpandedView {
    tree: TreeDoc<'static>,
    /// Their addresses; `None` when the root itself replaced a string.
    held: Option<AddressSet>,
    /// Whether it has at most the node limit's nodes, once counted.
    fits: Option<bool>,
}

/// The expanded view, built on first need; `None` when no string of the document holds JSON.
fn expanded_of<'v>(
    expanded: &'v mut Option<Result<Option<ExpandedView>, OverLimit>>,
    inv: &Invocation,
    plain: &View<'_>,
    policy: &Policy,
) -> Result<Option<&'v mut ExpandedView>, OverLimit> {
    match expanded.get_or_insert_with(|| expanded_view(inv, plain, policy)) {
        Ok(view) => Ok(view.as_mut()),
        Err(over) => Err(*over),
    }
}

impl ExpandedView {
    /// Runs `search` over what the view adds to the document as written: the values that
    /// replaced strings, in document order (everything else in it is the document as
    /// written); the whole view when the root itself replaced a string.
    fn search_held<S: Search>(
        &mut self,
        policy: &Policy,
        search: &S,
        leaves: &mut Leaves,
    ) -> Result<Option<S::Found>, OverLimit> {
        let root = self.tree.doc.root();
        if !*self.fits.get_or_insert_with(|| holds_at_most(root, policy.limits.max_nodes)) {
            return Err(OverLimit);
        }
        let Some(held) = &self.held else { return self.tree.search(Query::Root, search, leaves) };
        let selection = Selection::found_in(root, outermost_held(root, held));
        let Ok(found) = search.run(&selection, leaves);
        Ok(Some(found))
    }
}

/// The nodes of `root` whose address is in `held` and that lie inside no other such node,
/// in document order.
fn outermost_held<'d>(root: &'d Node, held: &AddressSet) -> Vec<&'d Node> {
    let mut found = Vec::new();
    let mut stack: Vec<(&'d Node, usize, Option<Step<'d>>)> = vec![(root, 0, None)];
    while let Some((node, _, _)) = stack.pop() {
        if held.contains(&(node as *const Node as usize)) {
            found.push(node);
        } else {
            node.push_children(0, &mut stack);
        }
    }
    found
}

impl<'a> View<'a> {
    /// Runs `search` over what `query` selects; `None` when it selects nothing.
    ///
    /// A `Value` search that meets a selected number whose exponent serde_json rewrote
    /// (`1E3` → `1e+3`) cannot be trusted either way: the view becomes our tree, which keeps
    /// every text, for this ref and the invocation's later ones, and the search runs again.
    /// The leaves normalised from the `Value` are forgotten with it.
    fn search<S: Search>(
        &mut self,
        inv: &'a Invocation,
        query: Query<'_>,
        policy: &Policy,
        search: &S,
        leaves: &mut Leaves,
    ) -> Result<Option<S::Found>, OverLimit> {
        match self {
            View::Located { found, whole, .. } => match query {
                Query::Path { text, .. } => {
                    let Some((normalized, doc)) = found.get(text).and_then(Option::as_ref) else {
                        return Ok(None);
                    };
                    let selection = Selection::at_most_one(Some((normalized.clone(), doc.root())));
                    let Ok(found) = search.run(&selection, leaves);
                    Ok(Some(found))
                }
                Query::Root => match whole_tree(whole, inv, policy)? {
                    Some(tree) => tree.search(query, search, leaves),
                    None => Ok(None),
                },
            },
            View::Tree(tree) => tree.search(query, search, leaves),
            View::Value { value, text } => {
                let text: &'a str = text;
                let selection = match query {
                    Query::Path { path, .. } => path.select_value(value),
                    Query::Root => Selection::at_most_one(Some(("$".to_string(), &*value))),
                };
                if selection.nodes.is_empty() {
                    return Ok(None);
                }
                match search.run(&selection, leaves) {
                    Ok(found) => Ok(Some(found)),
                    Err(Rewritten) => {
                        leaves.clear();
                        let mut tree = TreeDoc::parse(text, policy)?;
                        let found = tree.search(query, search, leaves);
                        *self = View::Tree(tree);
                        found
                    }
                }
            }
        }
    }

    /// Whether the view has at most the node limit's nodes, containers included.
    fn fits(&mut self, inv: &'a Invocation, policy: &Policy) -> Result<bool, OverLimit> {
        let max = policy.limits.max_nodes;
        Ok(match self {
            View::Located { whole, .. } => {
                whole_tree(whole, inv, policy)?.is_none_or(|t| holds_at_most(t.doc.root(), max))
            }
            View::Value { value, .. } => holds_at_most(&*value, max),
            View::Tree(tree) => holds_at_most(tree.doc.root(), max),
        })
    }
}

/// Our tree of the whole document behind a located view, loaded on first need.
fn whole_tree<'t, 'a>(
    whole: &'t mut Option<TreeDoc<'a>>,
    inv: &'a Invocation,
    policy: &Policy,
) -> Result<Option<&'t mut TreeDoc<'a>>, OverLimit> {
    if whole.is_none() {
        *whole = match TreeDoc::load(inv, policy) {
            Ok(tree) => Some(tree),
            Err(Absent::OverLimit) => return Err(OverLimit),
            Err(Absent::Unavailable) => return Ok(None),
        };
    }
    Ok(whole.as_mut())
}

/// Loads the text for `plan`'s singular paths only: validated whole, but only the selected
/// values parsed. Not JSON: the whole text is one string, on our tree.
fn located<'a>(text: &'a str, plan: &[(String, Compiled)], policy: &Policy) -> Result<View<'a>, OverLimit> {
    if text.len() > policy.limits.max_output_bytes {
        return Err(OverLimit);
    }
    let singular: Vec<_> = plan
        .iter()
        .filter_map(|(_, path)| path.as_ref().as_ref().ok().and_then(EvidencePath::singular))
        .collect();
    let segs: Vec<_> = singular.iter().map(|(segs, _)| segs.clone()).collect();
    match locate(text, &segs, policy.limits.max_depth) {
        Ok(spans) => Ok(View::Located {
            found: plan
                .iter()
                .zip(singular.iter().zip(spans))
                .map(|((key, _), ((_, normalized), span))| {
                    let found =
                        span.and_then(|r| Json::parse(&text[r]).ok()).map(|doc| (normalized.clone(), doc));
                    (key.clone(), found)
                })
                .collect(),
            text,
            whole: None,
        }),
        Err(e) if matches!(e.kind, JsonErrorKind::TooDeep(_)) => Err(OverLimit),
        Err(_) => Ok(View::Tree(TreeDoc::new(Cow::Owned(Json::string(text))))),
    }
}

/// Loads text for general paths as a `Value` when serde_json accepts it (then it is valid
/// JSON no deeper than [`SERDE_MAX_DEPTH`], so within any depth limit at least that large);
/// anything else — not JSON, or deeper — takes our tree, which decides it exactly. A smaller
/// depth limit takes the tree too: the limit counts the text's nesting, including values a
/// repeated key discards, which a `Value` no longer has.
fn value<'a>(inv: &'a Invocation, text: &'a str, policy: &Policy) -> Result<View<'a>, Absent> {
    let limits = &policy.limits;
    if text.len() > limits.max_output_bytes {
        return Err(Absent::OverLimit);
    }
    if limits.max_depth >= SERDE_MAX_DEPTH {
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            return Ok(View::Value { value, text });
        }
    }
    TreeDoc::load(inv, policy).map(View::Tree)
}

/// Our tree of the document, with what its queries need, built on first need.
pub(crate) struct TreeDoc<'a> {
    doc: Cow<'a, Json>,
    depth: OnceCell<usize>,
    /// The `serde_json::Value` twin JSONPath queries run on.
    twin: Option<Value>,
}

impl<'a> TreeDoc<'a> {
    fn new(doc: Cow<'a, Json>) -> TreeDoc<'a> {
        TreeDoc { doc, depth: OnceCell::new(), twin: None }
    }

    /// The tree of `inv`'s raw output (borrowed when it is given as JSON) or complete preview.
    fn load(inv: &'a Invocation, policy: &Policy) -> Result<TreeDoc<'a>, Absent> {
        match &inv.raw_output {
            Some(RawOutput::Json(doc)) if doc.depth() > policy.limits.max_depth => Err(Absent::OverLimit),
            Some(RawOutput::Json(doc)) => Ok(TreeDoc::new(Cow::Borrowed(doc))),
            Some(RawOutput::Text(text)) => Ok(TreeDoc::parse(text, policy)?),
            None => match (&inv.raw_output_file, complete_preview(inv)) {
                (Some(RawOutputFile::Read(text)), _) => Ok(TreeDoc::parse(text, policy)?),
                (Some(RawOutputFile::OverLimit), _) => Err(Absent::OverLimit),
                (_, Some(preview)) => Ok(TreeDoc::parse(preview, policy)?),
                (_, None) => Err(Absent::Unavailable),
            },
        }
    }

    /// The tree of a text document: its JSON, or the whole text as one string if it is not
    /// JSON (so `$` selects it).
    fn parse(text: &str, policy: &Policy) -> Result<TreeDoc<'a>, OverLimit> {
        if text.len() > policy.limits.max_output_bytes {
            return Err(OverLimit);
        }
        match parse_with_depth_limit(text, policy.limits.max_depth) {
            Ok(doc) => Ok(TreeDoc::new(Cow::Owned(doc))),
            Err(e) if matches!(e.kind, JsonErrorKind::TooDeep(_)) => Err(OverLimit),
            Err(_) => Ok(TreeDoc::new(Cow::Owned(Json::string(text)))),
        }
    }

    /// Runs `search` over what `query` selects; `None` when it selects nothing. JSONPath
    /// never runs on a document deeper than [`Limits::QUERY_DEPTH_CEILING`] (serde_json_path
    /// recurses per level); pointers do.
    fn search<S: Search>(
        &mut self,
        query: Query<'_>,
        search: &S,
        leaves: &mut Leaves,
    ) -> Result<Option<S::Found>, OverLimit> {
        let doc: &Json = &self.doc;
        let Query::Path { path, .. } = query else {
            let Ok(found) = search.run(&Selection::at_most_one(Some(("$".to_string(), doc.root()))), leaves);
            return Ok(Some(found));
        };
        let twin = if path.needs_value() {
            if *self.depth.get_or_init(|| doc.depth()) > Limits::QUERY_DEPTH_CEILING {
                return Err(OverLimit);
            }
            Some(&*self.twin.get_or_insert_with(|| to_serde_value(doc.root())))
        } else {
            None
        };
        let selection = path.select(doc.root(), twin);
        if selection.nodes.is_empty() {
            return Ok(None);
        }
        let Ok(found) = search.run(&selection, leaves);
        Ok(Some(found))
    }
}

/// `inv`'s raw document as verification reads it (the raw output, else a raw-output file
/// that was read, else a complete preview; text that is not JSON is one string), for showing
/// to a person: the HTML page lays it out and marks the leaves a report names. `None` when
/// there is no document, or it passes the size or depth limit.
pub fn raw_document<'a>(inv: &'a Invocation, policy: &Policy) -> Option<Cow<'a, Json>> {
    TreeDoc::load(inv, policy).ok().map(|tree| tree.doc)
}

/// The expanded view of `doc` (JSON inside strings replaced by what it holds, as
/// verification reads it when a path selects nothing in the document as written), or
/// `None` when no string holds JSON or the view would pass the depth limit. Paths a report
/// gives for refs decided on the expanded view name leaves of this view.
pub fn expanded_document(doc: &Json, policy: &Policy) -> Option<Json> {
    match expand(Cow::Borrowed(doc), policy.limits.max_depth) {
        Ok(Some(Expanded { doc, .. })) => Some(doc),
        Ok(None) | Err(_) => None,
    }
}
