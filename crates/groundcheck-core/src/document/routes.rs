//! How much of a document is built, chosen once per invocation from its raw document and its
//! refs, before anything is parsed. The routes change no verdict; they differ only in cost.
//!
//! - **Located**: the document is text and every checked ref's path is singular. The text
//!   is validated in one pass and only what the paths select is parsed (`json::locate`).
//! - **Value**: text for general paths, parsed straight into the `serde_json::Value` that
//!   serde_json_path queries (the workspace builds serde_json with `arbitrary_precision`, so
//!   numbers keep their text — all but exponents, see [`Document::search`](super::Document::search)).
//! - **Tree**: our own [`Json`] tree, which keeps every number's text and has no depth limit
//!   of its own. It takes the raw output given as JSON, text serde_json rejects (not JSON, or
//!   deeper than [`SERDE_MAX_DEPTH`]) and every document of a verifier told to take it alone.

use serde_json::Value;

use super::source::Raw;
use super::views::{TreeDoc, View};
use super::{Absent, OverLimit};
use crate::cache::{Compiled, PathCache};
use crate::claim::ClaimedRef;
use crate::json::{holds_more_values_than, locate, parse_with_depth_limit, MAX_PATHS};
use crate::path::EvidencePath;
use crate::policy::{Limit, Policy};

/// The deepest document serde_json parses (its recursion limit); deeper ones take the tree.
pub(crate) const SERDE_MAX_DEPTH: usize = 127;

/// How an invocation's document is loaded. `general`: a ref that will be checked has a
/// general path, which runs on a tree of the whole document ([`GENERAL_VALUES_PER_NODE`]).
pub(crate) enum Route {
    /// Only what these singular paths (trimmed text, compiled) select is parsed.
    Located { plan: Vec<(String, Compiled)> },
    /// One `serde_json::Value`, when serde_json accepts the text.
    Value { general: bool },
    /// Our own tree.
    Tree { general: bool },
}

/// A general path runs on a text of at most this many values per value of the node limit
/// (1,600,000 under the default limits): its tree costs memory per value, whatever the value's
/// length, and no general query may make an invocation's memory more than a bounded multiple of
/// what the node limit allows. Past it, every ref reaching the document is `limit_exceeded`
/// (`nodes`), on every route.
pub(crate) const GENERAL_VALUES_PER_NODE: usize = 16;

impl Route {
    /// The cheapest route for `refs` over `raw` (`fast: false` always takes the tree).
    pub(crate) fn choose(
        raw: Raw<'_>,
        refs: &[ClaimedRef],
        policy: &Policy,
        cache: &PathCache,
        fast: bool,
    ) -> Route {
        match raw.text() {
            Some(_) if fast => match singular_plan(refs, policy, cache) {
                Some(plan) if !plan.is_empty() && plan.len() <= MAX_PATHS => Route::Located { plan },
                Some(_) => Route::Value { general: false },
                None => Route::Value { general: true },
            },
            _ => Route::Tree { general: has_general_path(refs, policy, cache) },
        }
    }

    /// The document of `raw` (text when the route is not the tree), built along this route.
    pub(crate) fn load<'a>(&self, raw: Raw<'a>, policy: &Policy) -> Result<View<'a>, Absent> {
        match (self, raw) {
            (Route::Located { plan }, Raw::Text(text)) => Ok(located(text, plan, policy)?),
            (Route::Value { general }, Raw::Text(text)) => {
                too_many_values(text, *general, policy)?;
                value(raw, text, policy)
            }
            (Route::Tree { general }, Raw::Text(text)) => {
                too_many_values(text, *general, policy)?;
                TreeDoc::load(raw, policy).map(View::Tree)
            }
            _ => TreeDoc::load(raw, policy).map(View::Tree),
        }
    }
}

/// The node limit's refusal of a text too large in values for a general path's tree
/// ([`GENERAL_VALUES_PER_NODE`]); the output size limit is judged first.
fn too_many_values(text: &str, general: bool, policy: &Policy) -> Result<(), Absent> {
    let limits = &policy.limits;
    let cap = limits.max_nodes.saturating_mul(GENERAL_VALUES_PER_NODE);
    if general && text.len() <= limits.max_output_bytes && holds_more_values_than(text, cap) {
        return Err(Absent::OverLimit(Limit::Nodes));
    }
    Ok(())
}

/// Whether a ref that will be checked has a valid general path (not of the singular subset).
fn has_general_path(refs: &[ClaimedRef], policy: &Policy, cache: &PathCache) -> bool {
    refs.iter().any(|r| {
        let ClaimedRef::Evidence(r) = r else { return false };
        let path = r.raw_path.trim();
        path.chars().count() <= policy.limits.max_path_chars
            && matches!(cache.get(path).as_ref(), Ok(p) if !p.is_singular())
    })
}

/// The distinct singular paths to locate, when every ref that will be checked has one
/// (invalid and over-long paths aside: they need no document). `None`: a general path (the
/// caller decides whether the plan is worth locating: not empty, at most [`MAX_PATHS`]).
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
            Ok(p) if !p.is_singular() => return None,
            Ok(_) => plan.push((path.to_string(), compiled)),
        }
    }
    Some(plan)
}

/// Loads the text for `plan`'s singular paths only: validated whole, but only the selected
/// values parsed. Not JSON: the whole text is one string, on our tree.
fn located<'a>(text: &'a str, plan: &[(String, Compiled)], policy: &Policy) -> Result<View<'a>, OverLimit> {
    if text.len() > policy.limits.max_output_bytes {
        return Err(OverLimit(Limit::OutputSize));
    }
    let (segs, normalized): (Vec<_>, Vec<_>) = plan
        .iter()
        .filter_map(|(_, path)| path.as_ref().as_ref().ok().and_then(EvidencePath::singular))
        .unzip();
    match locate(text, &segs, policy.limits.max_depth) {
        Ok(spans) => Ok(View::Located {
            found: plan
                .iter()
                .zip(normalized.into_iter().zip(spans))
                .map(|((key, _), (normalized, span))| {
                    let found = span
                        .and_then(|r| parse_with_depth_limit(&text[r], usize::MAX).ok())
                        .map(|doc| (normalized, doc));
                    (key.clone(), found)
                })
                .collect(),
            text,
            whole: None,
        }),
        Err(e) if e.too_deep() => Err(OverLimit(Limit::Depth)),
        Err(_) => Ok(View::Tree(TreeDoc::not_json(text))),
    }
}

/// Loads text for general paths as a `Value` when serde_json accepts it (then it is valid
/// JSON no deeper than [`SERDE_MAX_DEPTH`], so within any depth limit at least that large);
/// anything else — not JSON, or deeper — takes our tree, which decides it exactly. A smaller
/// depth limit takes the tree too: the limit counts the text's nesting, including values a
/// repeated key discards, which a `Value` no longer has.
fn value<'a>(raw: Raw<'a>, text: &'a str, policy: &Policy) -> Result<View<'a>, Absent> {
    let limits = &policy.limits;
    if text.len() > limits.max_output_bytes {
        return Err(Absent::OverLimit(Limit::OutputSize));
    }
    if limits.max_depth >= SERDE_MAX_DEPTH {
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            return Ok(View::Value { value, text });
        }
    }
    TreeDoc::load(raw, policy).map(View::Tree)
}
