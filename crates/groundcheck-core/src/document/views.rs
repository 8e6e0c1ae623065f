//! The forms a loaded document takes: the plain view its route built (what singular paths
//! located, a `serde_json::Value`, or our tree) and the expanded view
//! ([JSON inside strings](../../../docs/verification.md#json-inside-strings) replaced by
//! what it holds), each able to run a [`Search`] over what a query selects.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::source::Raw;
use super::{Absent, OverLimit, Query, Search, Selected};
use crate::address::AddressSet;
use crate::budget::OverBudget;
use crate::json::{
    expand, holds_at_most, may_hold_json, parse_with_depth_limit, to_serde_value, Expanded, Json, Node,
    Rewritten, Step, Tree, Twin,
};
use crate::leaves::Leaves;
use crate::path::Selection;
use crate::policy::{Limit, Limits, Policy};

/// The plain document, in the form its route built.
pub(crate) enum View<'a> {
    /// What each planned singular path (by trimmed text) selects, with its normalized path;
    /// the text; and our tree of it, once a search of the whole document needed one (the
    /// search could not read the text itself).
    Located { found: HashMap<String, Option<(String, Json)>>, text: &'a str, whole: Option<TreeDoc<'a>> },
    /// The text, parsed by serde_json; the text is kept for the fallback to our tree.
    Value { value: Value, text: &'a str },
    /// Our tree.
    Tree(TreeDoc<'a>),
}

impl<'a> View<'a> {
    /// Runs `search` over what `query` selects.
    ///
    /// A `Value` search that meets a selected number whose exponent serde_json rewrote
    /// (`1E3` → `1e+3`) cannot be trusted either way: the view becomes our tree, which keeps
    /// every text, for this ref and the invocation's later ones, and the search runs again.
    /// The leaves normalised from the `Value` are forgotten with it.
    pub(crate) fn search<S: Search>(
        &mut self,
        raw: Raw<'a>,
        query: Query<'_>,
        policy: &Policy,
        search: &S,
        leaves: &mut Leaves,
    ) -> Selected<S::Found> {
        match self {
            View::Located { found, whole, .. } => match query {
                Query::Path { text, .. } => {
                    let Some((normalized, doc)) = found.get(text).and_then(Option::as_ref) else {
                        return Selected::Nothing;
                    };
                    let selection = Selection::at_most_one(Some((normalized.clone(), doc.root())));
                    let Ok(found) = search.run(&selection, leaves);
                    Selected::Found(found)
                }
                Query::Root => match whole_tree(whole, raw, policy) {
                    Ok(Some(tree)) => tree.search(query, search, leaves, policy.limits.max_nodes),
                    Ok(None) => Selected::Nothing,
                    Err(OverLimit(l)) => Selected::OverLimit(l),
                },
            },
            View::Tree(tree) => tree.search(query, search, leaves, policy.limits.max_nodes),
            View::Value { value, text } => {
                let text: &'a str = text;
                let selection = match query {
                    Query::Path { path, .. } => match path.select_value(value, policy.limits.max_nodes) {
                        Ok(selection) => selection,
                        Err(OverBudget) => return Selected::OverLimit(Limit::Nodes),
                    },
                    Query::Root => Selection::at_most_one(Some(("$".to_string(), &*value))),
                };
                if selection.nodes.is_empty() {
                    return Selected::Nothing;
                }
                match search.run(&selection, leaves) {
                    Ok(found) => Selected::Found(found),
                    Err(Rewritten) => {
                        leaves.clear();
                        let mut tree = match TreeDoc::parse(text, policy) {
                            Ok(tree) => tree,
                            Err(OverLimit(l)) => return Selected::OverLimit(l),
                        };
                        let found = tree.search(query, search, leaves, policy.limits.max_nodes);
                        *self = View::Tree(tree);
                        found
                    }
                }
            }
        }
    }

    /// Whether the view has at most the node limit's nodes, containers included.
    pub(crate) fn fits(&mut self, raw: Raw<'a>, policy: &Policy) -> Result<bool, OverLimit> {
        let max = policy.limits.max_nodes;
        Ok(match self {
            View::Located { whole, .. } => {
                whole_tree(whole, raw, policy)?.is_none_or(|t| holds_at_most(t.doc.root(), max))
            }
            View::Value { value, .. } => holds_at_most(&*value, max),
            View::Tree(tree) => holds_at_most(tree.doc.root(), max),
        })
    }
}

/// Our tree of the whole document behind a located view, loaded on first need.
fn whole_tree<'t, 'a>(
    whole: &'t mut Option<TreeDoc<'a>>,
    raw: Raw<'a>,
    policy: &Policy,
) -> Result<Option<&'t mut TreeDoc<'a>>, OverLimit> {
    if whole.is_none() {
        *whole = match TreeDoc::load(raw, policy) {
            Ok(tree) => Some(tree),
            Err(Absent::OverLimit(l)) => return Err(OverLimit(l)),
            Err(Absent::Unavailable) => return Ok(None),
        };
    }
    Ok(whole.as_mut())
}

/// The expanded view of a document, built on first need.
pub(crate) enum Expansion {
    /// Not asked for yet.
    NotBuilt,
    /// No string of the document holds JSON: the expanded view is the plain one.
    Same,
    /// The view would pass the depth limit, or its document the size limit.
    OverLimit(Limit),
    /// Built.
    Built(ExpandedView),
}

impl Expansion {
    /// The expanded view of the document behind `plain`, built on first need; `None` when
    /// no string of it holds JSON; each build is counted in `built`. Our tree of the plain
    /// view is copied when there is one; the located and `Value` views have none, so the
    /// source is parsed again.
    pub(crate) fn get(
        &mut self,
        raw: Raw<'_>,
        plain: &View<'_>,
        policy: &Policy,
        built: &AtomicU64,
    ) -> Result<Option<&mut ExpandedView>, OverLimit> {
        if let Expansion::NotBuilt = self {
            built.fetch_add(1, Ordering::Relaxed);
            *self = Expansion::build(raw, plain, policy);
        }
        match self {
            Expansion::Built(view) => Ok(Some(view)),
            Expansion::Same | Expansion::NotBuilt => Ok(None),
            Expansion::OverLimit(l) => Err(OverLimit(*l)),
        }
    }

    /// The expanded view of `doc` (a structured view's tree), built on first need; `None`
    /// when no string of it holds JSON.
    pub(crate) fn get_of(
        &mut self,
        doc: &Json,
        policy: &Policy,
    ) -> Result<Option<&mut ExpandedView>, OverLimit> {
        if let Expansion::NotBuilt = self {
            *self = Expansion::expand(Cow::Borrowed(doc), policy);
        }
        match self {
            Expansion::Built(view) => Ok(Some(view)),
            Expansion::Same | Expansion::NotBuilt => Ok(None),
            Expansion::OverLimit(l) => Err(OverLimit(*l)),
        }
    }

    fn build(raw: Raw<'_>, plain: &View<'_>, policy: &Policy) -> Expansion {
        let doc: Cow<'_, Json> = match plain {
            // A text that is not JSON is one string, which holds no JSON: it would be JSON.
            View::Tree(tree) if tree.not_json => return Expansion::Same,
            View::Tree(tree) | View::Located { whole: Some(tree), .. } => Cow::Borrowed(&*tree.doc),
            // No string of the text can hold JSON: nothing to parse again (`may_hold_json`).
            View::Located { whole: None, text, .. } | View::Value { text, .. } if !may_hold_json(text) => {
                return Expansion::Same
            }
            View::Located { whole: None, .. } | View::Value { .. } => match TreeDoc::load(raw, policy) {
                Ok(tree) => tree.doc,
                Err(Absent::OverLimit(l)) => return Expansion::OverLimit(l),
                Err(Absent::Unavailable) => return Expansion::Same,
            },
        };
        Expansion::expand(doc, policy)
    }

    fn expand(doc: Cow<'_, Json>, policy: &Policy) -> Expansion {
        match expand(doc, policy.limits.max_depth) {
            Ok(Some(Expanded { doc, held })) => {
                Expansion::Built(ExpandedView { tree: TreeDoc::new(Cow::Owned(doc)), held, fits: None })
            }
            Ok(None) => Expansion::Same,
            Err(_) => Expansion::OverLimit(Limit::Depth),
        }
    }
}

/// The expanded view, with where the values that replaced strings lie in it.
pub(crate) struct ExpandedView {
    pub(crate) tree: TreeDoc<'static>,
    /// Their addresses; `None` when the root itself replaced a string.
    held: Option<AddressSet>,
    /// Whether it has at most the node limit's nodes, once counted.
    fits: Option<bool>,
}

impl ExpandedView {
    /// Runs `search` over what the view adds to the document as written: the values that
    /// replaced strings, in document order (everything else in it is the document as
    /// written); the whole view when the root itself replaced a string.
    pub(crate) fn search_held<S: Search>(
        &mut self,
        policy: &Policy,
        search: &S,
        leaves: &mut Leaves,
    ) -> Selected<S::Found> {
        let root = self.tree.doc.root();
        if !*self.fits.get_or_insert_with(|| holds_at_most(root, policy.limits.max_nodes)) {
            return Selected::OverLimit(Limit::Nodes);
        }
        let Some(held) = &self.held else {
            return self.tree.search(Query::Root, search, leaves, policy.limits.max_nodes);
        };
        let selection = Selection::found_in(root, outermost_held(root, held));
        let Ok(found) = search.run(&selection, leaves);
        Selected::Found(found)
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

/// Our tree of the document, with what its queries need, built on first need.
pub(crate) struct TreeDoc<'a> {
    pub(crate) doc: Cow<'a, Json>,
    /// The document is a text that is not JSON, read as one string.
    pub(crate) not_json: bool,
    depth: OnceCell<usize>,
    /// The `serde_json::Value` twin JSONPath queries run on.
    twin: Option<Twin>,
}

impl<'a> TreeDoc<'a> {
    pub(crate) fn new(doc: Cow<'a, Json>) -> TreeDoc<'a> {
        TreeDoc { doc, not_json: false, depth: OnceCell::new(), twin: None }
    }

    /// A text that is not JSON, as one string (so `$` selects it).
    pub(crate) fn not_json(text: &str) -> TreeDoc<'a> {
        TreeDoc { not_json: true, ..TreeDoc::new(Cow::Owned(Json::string(text))) }
    }

    /// The tree of a raw document (borrowed when it is given as JSON).
    pub(crate) fn load(raw: Raw<'a>, policy: &Policy) -> Result<TreeDoc<'a>, Absent> {
        match raw {
            Raw::Json(doc) if doc.depth() > policy.limits.max_depth => Err(Absent::OverLimit(Limit::Depth)),
            Raw::Json(doc) => Ok(TreeDoc::new(Cow::Borrowed(doc))),
            Raw::Text(text) => Ok(TreeDoc::parse(text, policy)?),
            Raw::OverLimit => Err(Absent::OverLimit(Limit::OutputSize)),
            Raw::Absent => Err(Absent::Unavailable),
        }
    }

    /// The tree of a text document: its JSON, or the whole text as one string if it is not
    /// JSON (so `$` selects it).
    pub(crate) fn parse(text: &str, policy: &Policy) -> Result<TreeDoc<'a>, OverLimit> {
        if text.len() > policy.limits.max_output_bytes {
            return Err(OverLimit(Limit::OutputSize));
        }
        match parse_with_depth_limit(text, policy.limits.max_depth) {
            Ok(doc) => Ok(TreeDoc::new(Cow::Owned(doc))),
            Err(e) if e.too_deep() => Err(OverLimit(Limit::Depth)),
            Err(_) => Ok(TreeDoc::not_json(text)),
        }
    }

    /// Runs `search` over what `query` selects. JSONPath never runs on a document deeper
    /// than [`Limits::QUERY_DEPTH_CEILING`] (serde_json_path recurses per level); pointers do.
    ///
    /// A path that selects more than `max_nodes` nodes, or would build a list past the
    /// budget on its way, is over the node limit, found before the list is built.
    pub(crate) fn search<S: Search>(
        &mut self,
        query: Query<'_>,
        search: &S,
        leaves: &mut Leaves,
        max_nodes: usize,
    ) -> Selected<S::Found> {
        let doc: &Json = &self.doc;
        let Query::Path { path, .. } = query else {
            let Ok(found) = search.run(&Selection::at_most_one(Some(("$".to_string(), doc.root()))), leaves);
            return Selected::Found(found);
        };
        let twin = if path.needs_value() {
            if *self.depth.get_or_init(|| doc.depth()) > Limits::QUERY_DEPTH_CEILING {
                return Selected::OverLimit(Limit::Depth);
            }
            Some(&**self.twin.get_or_insert_with(|| to_serde_value(doc.root())))
        } else {
            None
        };
        let Ok(selection) = path.select(doc.root(), twin, max_nodes) else {
            return Selected::OverLimit(Limit::Nodes);
        };
        if selection.nodes.is_empty() {
            return Selected::Nothing;
        }
        let Ok(found) = search.run(&selection, leaves);
        Selected::Found(found)
    }
}
