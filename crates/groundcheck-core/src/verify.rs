//! Turning invocations into verdicts: §3.2 (the raw document), §3.3 (each ref) and §3.4
//! (the invocation), in parallel over a run.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rayon::prelude::*;
use serde_json::Value;

use crate::claim::{read_claim, ClaimedRef, EvidenceRef};
use crate::invocation::{Invocation, RawOutput};
use crate::json::{locate, parse_with_depth_limit, to_serde_value, Json, JsonErrorKind, Tree, MAX_PATHS};
use crate::ladder::{Needle, Rewritten};
use crate::path::{EvidencePath, PathError, Selection};
use crate::policy::{Limits, Policy, Require};
use crate::report::{
    Reason, RefOutcome, RefReport, Report, RunReport, Source, Status, Summary, Verdict, Warning,
};
use crate::run::Run;

/// Verifies one invocation. Never panics; every input gets a verdict.
pub fn verify_invocation(invocation: &Invocation, policy: &Policy) -> Verdict {
    verify_with(invocation, policy, &PathCache::default(), true)
}

/// [`verify_invocation`] without the singular-path fast path: every document is parsed into
/// a tree. For the tests and benchmarks that prove both give the same verdicts.
#[doc(hidden)]
pub fn verify_invocation_general(invocation: &Invocation, policy: &Policy) -> Verdict {
    verify_with(invocation, policy, &PathCache::default(), false)
}

/// Verifies one run in parallel; the result equals the sequential one, byte for byte.
///
/// Paths are compiled once per distinct text for the whole run.
pub fn verify_run(run: &Run, policy: &Policy) -> RunReport {
    verify_run_with(run, policy, &PathCache::default())
}

/// Verifies several runs (in parallel) into one report, runs kept in the given order.
pub fn verify_runs(runs: &[Run], policy: &Policy) -> Report {
    let cache = PathCache::default();
    Report::new(runs.par_iter().map(|run| verify_run_with(run, policy, &cache)).collect())
}

fn verify_run_with(run: &Run, policy: &Policy, cache: &PathCache) -> RunReport {
    let mut verdicts: Vec<Verdict> =
        run.invocations.par_iter().map(|inv| verify_with(inv, policy, cache, true)).collect();
    verdicts.sort_by_key(|v| v.id);
    RunReport {
        run_id: run.run_id.clone(),
        session_id: run.session_id.clone(),
        summary: Summary::of(&verdicts),
        invocations: verdicts,
    }
}

/// A parsed path, or why it is not one; shared through the [`PathCache`].
type Compiled = Arc<Result<EvidencePath, PathError>>;

/// The distinct singular paths of an invocation (trimmed text, compiled) to locate.
type Plan = Vec<(String, Compiled)>;

/// Compiled paths shared by every invocation of a call, keyed by trimmed path text.
#[derive(Default)]
struct PathCache(RwLock<HashMap<String, Compiled>>);

impl PathCache {
    fn get(&self, path: &str) -> Compiled {
        if let Some(hit) = self.0.read().unwrap_or_else(|e| e.into_inner()).get(path) {
            return Arc::clone(hit);
        }
        let compiled = Arc::new(EvidencePath::parse(path));
        let mut map = self.0.write().unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(path.to_string()).or_insert(compiled))
    }
}

/// Where §3.2 finds the document, before anything is parsed.
fn source_of(inv: &Invocation) -> Source {
    if inv.raw_output.is_some() {
        Source::RawOutput
    } else if complete_preview(inv).is_some() {
        Source::Preview
    } else {
        Source::None
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

enum Document<'a> {
    Unavailable,
    OverLimit,
    /// Our tree; JSONPath queries run on its `Value` twin, built on first need.
    Ready {
        doc: DocRef<'a>,
        twin: Option<Value>,
    },
    /// The text parsed straight into the `Value` serde_json_path queries: one tree, not two.
    Value(Value),
    /// Only what the invocation's singular paths select, keyed by trimmed path text.
    Located(HashMap<String, Option<(String, Json)>>),
}

enum DocRef<'a> {
    Borrowed(&'a Json),
    Owned(Json),
}

impl DocRef<'_> {
    fn get(&self) -> &Json {
        match self {
            DocRef::Borrowed(j) => j,
            DocRef::Owned(j) => j,
        }
    }
}

/// The raw output as text, when it is given as text (or is a complete preview).
fn raw_text(inv: &Invocation) -> Option<&str> {
    match &inv.raw_output {
        Some(RawOutput::Text(text)) => Some(text),
        Some(RawOutput::Json(_)) => None,
        None => complete_preview(inv),
    }
}

/// Loads the document for `plan`'s singular paths only: validated whole, but only the
/// selected values parsed. Outcomes are exactly [`load_document`]'s.
fn locate_document<'a>(text: &str, plan: &[(String, Compiled)], policy: &Policy) -> Document<'a> {
    if text.len() > policy.limits.max_output_bytes {
        return Document::OverLimit;
    }
    let singular: Vec<(Vec<crate::json::Seg<'_>>, String)> = plan
        .iter()
        .filter_map(|(_, path)| path.as_ref().as_ref().ok().and_then(EvidencePath::singular))
        .collect();
    let segs: Vec<_> = singular.iter().map(|(segs, _)| segs.clone()).collect();
    match locate(text, &segs, policy.limits.max_depth) {
        Ok(spans) => Document::Located(
            plan.iter()
                .zip(singular.iter().zip(spans))
                .map(|((key, _), ((_, normalized), span))| {
                    let found =
                        span.and_then(|r| Json::parse(&text[r]).ok()).map(|doc| (normalized.clone(), doc));
                    (key.clone(), found)
                })
                .collect(),
        ),
        Err(e) if matches!(e.kind, JsonErrorKind::TooDeep(_)) => Document::OverLimit,
        Err(_) => Document::Ready { doc: DocRef::Owned(Json::string(text)), twin: None },
    }
}

/// The deepest document serde_json parses (its recursion limit); deeper ones take the tree.
pub(crate) const SERDE_MAX_DEPTH: usize = 127;

/// Loads a text document for general paths as a `Value` when serde_json accepts it (then it
/// is valid JSON no deeper than [`SERDE_MAX_DEPTH`], so within any depth limit at least that
/// large); anything else — not JSON, or deeper — goes to [`load_document`], which decides
/// exactly as §3.2 and §6 say. A smaller depth limit also takes the tree: the limit counts the
/// text's nesting, including values a repeated key discards, which a `Value` no longer has.
fn value_document<'a>(inv: &'a Invocation, text: &str, policy: &Policy) -> Document<'a> {
    let limits = &policy.limits;
    if text.len() > limits.max_output_bytes {
        return Document::OverLimit;
    }
    if limits.max_depth < SERDE_MAX_DEPTH {
        return load_document(inv, policy);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Document::Value(v),
        Err(_) => load_document(inv, policy),
    }
}

fn load_document<'a>(inv: &'a Invocation, policy: &Policy) -> Document<'a> {
    let limits = &policy.limits;
    let text = match &inv.raw_output {
        Some(RawOutput::Json(doc)) if doc.depth() > limits.max_depth => return Document::OverLimit,
        Some(RawOutput::Json(doc)) => return Document::Ready { doc: DocRef::Borrowed(doc), twin: None },
        Some(RawOutput::Text(text)) => text.as_str(),
        None => match complete_preview(inv) {
            Some(preview) => preview,
            None => return Document::Unavailable,
        },
    };
    if text.len() > limits.max_output_bytes {
        return Document::OverLimit;
    }
    match parse_with_depth_limit(text, limits.max_depth) {
        Ok(doc) => Document::Ready { doc: DocRef::Owned(doc), twin: None },
        Err(e) if matches!(e.kind, JsonErrorKind::TooDeep(_)) => Document::OverLimit,
        Err(_) => Document::Ready { doc: DocRef::Owned(Json::string(text)), twin: None },
    }
}

struct Checker<'a> {
    inv: &'a Invocation,
    policy: &'a Policy,
    cache: &'a PathCache,
    document: Option<Document<'a>>,
    /// Set when every checked ref's path is singular and the raw output is text.
    plan: Option<Plan>,
    /// Whether the fast routes (located singular paths, the `Value` document) may be taken.
    fast: bool,
}

/// The singular paths to locate, when every ref that will be checked has one (invalid paths
/// aside: they need no document) and the raw output is text. `None`: parse the whole tree.
fn singular_plan(inv: &Invocation, refs: &[ClaimedRef], policy: &Policy, cache: &PathCache) -> Option<Plan> {
    raw_text(inv)?;
    let mut plan: Plan = Vec::new();
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

fn verify_with(inv: &Invocation, policy: &Policy, cache: &PathCache, fast: bool) -> Verdict {
    let claim = read_claim(inv.retrieval_details.as_ref(), policy.limits.max_refs);
    let source = source_of(inv);
    let mut warnings = Vec::new();
    if inv.invalid_utf8 {
        warnings.push(Warning::InvalidUtf8);
    }
    let verdict = |status, reason, refs, warnings| Verdict {
        id: inv.id,
        tool_name: inv.tool_name.clone(),
        status,
        reason,
        claim_agrees: agrees(claim.claimed_status.as_deref(), status),
        claimed_status: claim.claimed_status.clone(),
        source,
        refs,
        warnings,
    };
    let Some(refs) = &claim.refs else {
        return verdict(Status::Unsupported, Reason::MalformedDetails, Vec::new(), warnings);
    };

    let real = refs.iter().filter(|r| !r.is_marker()).count();
    let has_marker = real < refs.len();
    if real > 0 && has_marker {
        warnings.push(Warning::MarkerWithRefs);
    }
    let failed = inv.success == Some(false);
    let plan = if fast && !failed { singular_plan(inv, refs, policy, cache) } else { None };
    let mut checker = Checker { inv, policy, cache, document: None, plan, fast };
    let reports: Vec<RefReport> =
        refs.iter().enumerate().map(|(index, r)| checker.report(index, r, failed)).collect();

    let (status, reason) = if real == 0 {
        if claim.claimed_status.as_deref() == Some(Status::Supported.as_str()) {
            (Status::Unsupported, Reason::ClaimedWithoutRefs)
        } else if failed {
            (Status::NoEvidence, Reason::ToolFailed)
        } else if has_marker {
            (Status::NoEvidence, Reason::NoEvidenceMarker)
        } else {
            (Status::NoEvidence, Reason::NoRefs)
        }
    } else if failed {
        (Status::Unsupported, Reason::ToolFailed)
    } else {
        let verified = reports.iter().filter(|r| r.outcome == RefOutcome::Verified).count();
        if verified == real || (verified > 0 && policy.require == Require::Any) {
            (Status::Supported, Reason::Verified)
        } else if verified > 0 {
            (Status::Unsupported, Reason::PartiallyVerified)
        } else {
            (Status::Unsupported, Reason::NotVerified)
        }
    };
    verdict(status, reason, reports, warnings)
}

fn agrees(claimed: Option<&str>, status: Status) -> Option<bool> {
    Some(claimed?.parse::<Status>().ok()? == status)
}

/// The outcome of one ref, with the details that go with it.
struct Checked {
    outcome: RefOutcome,
    hit: Option<(crate::policy::Rung, String)>,
    in_preview: Option<bool>,
}

impl From<RefOutcome> for Checked {
    fn from(outcome: RefOutcome) -> Checked {
        Checked { outcome, hit: None, in_preview: None }
    }
}

impl<'a> Checker<'a> {
    fn report(&mut self, index: usize, claimed: &ClaimedRef, failed: bool) -> RefReport {
        let checked: Checked = match claimed {
            ClaimedRef::Marker { .. } => RefOutcome::NoEvidenceMarker.into(),
            ClaimedRef::Malformed { .. } => RefOutcome::MalformedRef.into(),
            ClaimedRef::Unread { .. } => RefOutcome::LimitExceeded.into(),
            ClaimedRef::Evidence(r) if self.text_over_limit(&r.text) => RefOutcome::LimitExceeded.into(),
            ClaimedRef::Evidence(_) if failed => RefOutcome::NotChecked.into(),
            ClaimedRef::Evidence(r) => self.check(r),
        };
        let (raw_path, text) = claimed.echo();
        let (rung, matched_path) = checked.hit.unzip();
        RefReport {
            index,
            raw_path,
            text,
            outcome: checked.outcome,
            rung,
            matched_path,
            in_preview: checked.in_preview,
        }
    }

    fn text_over_limit(&self, text: &str) -> bool {
        let max = self.policy.limits.max_text_chars;
        text.len() > max && text.chars().count() > max
    }

    /// Steps 1-5 of §3.3 for a ref of a call that did not fail.
    fn check(&mut self, r: &EvidenceRef) -> Checked {
        if r.text.trim().is_empty() {
            return RefOutcome::EmptyText.into();
        }
        let (inv, policy, plan, fast) = (self.inv, self.policy, &self.plan, self.fast);
        let document = self.document.get_or_insert_with(|| match (plan, raw_text(inv)) {
            (Some(plan), Some(text)) => locate_document(text, plan, policy),
            (None, Some(text)) if fast => value_document(inv, text, policy),
            _ => load_document(inv, policy),
        });
        if let Document::Unavailable = document {
            let in_preview = inv
                .output_preview
                .as_deref()
                .map(|p| Needle::new(&r.text).rung_in_text(p, policy.max_rung).is_some());
            return Checked { outcome: RefOutcome::RawOutputUnavailable, hit: None, in_preview };
        }
        if let Document::OverLimit = document {
            return RefOutcome::LimitExceeded.into();
        }
        let path_text = r.raw_path.trim();
        let max_path = policy.limits.max_path_chars;
        if path_text.len() > max_path && path_text.chars().count() > max_path {
            return RefOutcome::LimitExceeded.into();
        }
        let compiled = self.cache.get(path_text);
        let path = match compiled.as_ref() {
            Ok(path) => path,
            Err(e) if e.limit => return RefOutcome::LimitExceeded.into(),
            Err(_) => return RefOutcome::InvalidPath.into(),
        };
        match document {
            Document::Unavailable | Document::OverLimit => {
                debug_assert!(false, "both returned above");
                RefOutcome::LimitExceeded.into()
            }
            Document::Located(found) => {
                let found = found.get(path_text).and_then(Option::as_ref);
                let (bases, nodes): (Vec<String>, Vec<&crate::json::Node>) =
                    found.map(|(normalized, doc)| (normalized.clone(), doc.root())).into_iter().unzip();
                on_tree(matched(policy, r, &nodes, |i| bases[i].clone(), false))
            }
            Document::Value(value) => {
                if let Ok(checked) = matched_in(policy, r, &path.select_value(value)) {
                    return checked;
                }
                // A selected number's exponent was rewritten by serde_json: match on our tree.
                *document = load_document(inv, policy);
                self.check(r)
            }
            Document::Ready { doc, twin } => {
                let doc = doc.get();
                if path.needs_value() && doc.depth() > Limits::QUERY_DEPTH_CEILING {
                    return RefOutcome::LimitExceeded.into();
                }
                if path.needs_value() && twin.is_none() {
                    *twin = Some(to_serde_value(doc.root()));
                }
                on_tree(matched_in(policy, r, &path.select(doc.root(), twin.as_ref())))
            }
        }
    }
}

fn matched_in<T: Tree>(
    policy: &Policy,
    r: &EvidenceRef,
    selection: &Selection<'_, T>,
) -> Result<Checked, Rewritten> {
    matched(policy, r, &selection.nodes, |i| selection.base(i), selection.nested)
}

/// The outcome on our own tree, where every leaf keeps its text, so [`Rewritten`] cannot occur.
fn on_tree(checked: Result<Checked, Rewritten>) -> Checked {
    checked.unwrap_or_else(|Rewritten| {
        debug_assert!(false, "a Node leaf is never rewritten");
        RefOutcome::TextNotFound.into()
    })
}

/// Steps 4 and 5 of §3.3 on the selected nodes; `base(i)` is the normalized path of `selected[i]`.
fn matched<T: Tree>(
    policy: &Policy,
    r: &EvidenceRef,
    selected: &[&T],
    base: impl Fn(usize) -> String,
    nested: bool,
) -> Result<Checked, Rewritten> {
    if selected.is_empty() {
        return Ok(RefOutcome::PathNotFound.into());
    }
    if selected.len() > policy.limits.max_nodes {
        return Ok(RefOutcome::LimitExceeded.into());
    }
    Ok(match Needle::new(&r.text).find(selected, base, policy.max_rung, nested)? {
        Some(hit) => Checked { outcome: RefOutcome::Verified, hit: Some(hit), in_preview: None },
        None => RefOutcome::TextNotFound.into(),
    })
}
