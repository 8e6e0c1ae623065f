//! Turning invocations into verdicts: checking each ref
//! (docs/verification.md#checking-a-ref of the rules) against the document `document.rs`
//! loads, and classifying the invocation (docs/verification.md#classification), in parallel
//! over a run.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::cache::PathCache;
use crate::claim::{read_claim, ClaimedRef, EvidenceRef};
use std::cell::OnceCell;

use crate::document::{
    file_warning, Absent, Document, OverLimit, Raw, Route, RouteCounts, Search, Selected, Which,
};
use crate::elsewhere::{Elsewhere, Haystack};
use crate::invocation::Invocation;
use crate::json::Tree;
use crate::ladder::{Found, Needle};
use crate::leaves::Leaves;
use crate::normalize::normalize;
use crate::path::Selection;
use crate::policy::{Limit, Policy, Require, Rung};
use crate::report::{
    path_problem, Nearest, ReadAs, Reason, RefOutcome, RefReport, Report, RunReport, Status, Verdict, Warning,
};
use crate::run::Run;
use crate::score::Score;

/// The verification engine under one [`Policy`]: turns an [`Invocation`] into a [`Verdict`],
/// a [`Run`] into a [`RunReport`], runs into a [`Report`]. Never panics; every input gets a
/// verdict.
///
/// Owns its policy and the paths it compiled, which every later call shares (a run's refs
/// repeat the same few paths), so it is built once and reused: `Send + Sync`, no lifetime,
/// one per process or per binding object. Runs are verified in parallel (rayon) with exactly
/// the sequential result.
pub struct Verifier {
    policy: Policy,
    cache: PathCache,
    /// `false`: every document takes the tree route (see [`Verifier::tree_route_only`]).
    fast: bool,
    routes: RouteCounts,
}

impl Default for Verifier {
    /// A verifier under [`Policy::default`].
    fn default() -> Verifier {
        Verifier::new(Policy::default())
    }
}

impl Verifier {
    /// A verifier under `policy`, with no path compiled yet.
    pub fn new(policy: Policy) -> Verifier {
        Verifier { policy, cache: PathCache::default(), fast: true, routes: RouteCounts::default() }
    }

    /// The policy every verdict is given under.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The verdict of one invocation: for a caller that reads invocations one at a time and
    /// drops each raw output once verified (group the verdicts with
    /// [`VerdictSet`](crate::VerdictSet)).
    pub fn verify(&self, invocation: &Invocation) -> Verdict {
        verify_with(invocation, &self.policy, &self.cache, self.fast, &self.routes)
    }

    /// The report of one run, its invocations verified in parallel; equal, byte for byte, to
    /// verifying them one by one.
    pub fn verify_run(&self, run: &Run) -> RunReport {
        let verdicts = run.invocations.par_iter().map(|inv| self.verify(inv)).collect();
        RunReport::of(run.run_id.clone(), run.session_id.clone(), verdicts)
    }

    /// One report of several runs (verified in parallel), runs kept in the given order.
    pub fn verify_runs(&self, runs: &[Run]) -> Report {
        Report::new(runs.par_iter().map(|run| self.verify_run(run)).collect())
    }

    /// This verifier with the fast routes turned off: every document is parsed into our
    /// tree. The verdicts are the same — the tests and fuzz targets that prove it compare
    /// the two.
    #[doc(hidden)]
    pub fn tree_route_only(mut self) -> Verifier {
        self.fast = false;
        self
    }

    /// How many documents were loaded along each route so far, and how many expanded views
    /// were built: the tests that compare routes check that the route they mean to test was
    /// taken.
    #[doc(hidden)]
    pub fn route_counts(&self) -> RoutesTaken {
        let get = |n: &AtomicU64| n.load(Ordering::Relaxed);
        RoutesTaken {
            located: get(&self.routes.located),
            value: get(&self.routes.value),
            tree: get(&self.routes.tree),
            expanded: get(&self.routes.expanded),
        }
    }
}

/// What [`Verifier::route_counts`] counts. A route is counted even when the text turns out
/// not to be JSON, or too deep, and the load ends on our tree or a limit.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoutesTaken {
    /// Documents located (singular paths read off the text, nothing parsed).
    pub located: u64,
    /// Documents parsed into a `serde_json` value.
    pub value: u64,
    /// Documents parsed into our tree.
    pub tree: u64,
    /// Expanded views (the JSON inside strings parsed) built: at most one per invocation.
    pub expanded: u64,
}

/// Checks the refs of one invocation in order, loading its document on the first ref that
/// needs it.
struct Checker<'a> {
    inv: &'a Invocation,
    raw: Raw<'a>,
    policy: &'a Policy,
    cache: &'a PathCache,
    routes: &'a RouteCounts,
    route: Route,
    document: Option<Result<Document<'a>, Absent>>,
    /// Some ref was decided on the expanded view (JSON inside strings).
    descended: bool,
    /// Some ref was decided on the structured view of a text that is not JSON, read so.
    read_as: Option<ReadAs>,
    /// Each view's leaves for `elsewhere` (as written; what the expanded view adds; the
    /// structured view; what its expanded view adds), read on the first ref that needs them.
    haystacks: [OnceCell<Haystack>; 4],
    /// The preview normalised, for `in_preview`: once for all the invocation's refs.
    preview_normalized: OnceCell<String>,
}

fn verify_with(
    inv: &Invocation,
    policy: &Policy,
    cache: &PathCache,
    fast: bool,
    routes: &RouteCounts,
) -> Verdict {
    let claim = read_claim(inv.retrieval_details.as_ref(), policy.limits.max_refs);
    let (source, raw) = Raw::of(inv);
    let mut warnings = Vec::new();
    if inv.invalid_utf8 {
        warnings.push(Warning::InvalidUtf8);
    }
    warnings.extend(file_warning(inv));
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
        malformed: None,
    };
    let refs = match &claim.refs {
        Ok(refs) => refs,
        Err(why) => {
            let malformed = verdict(Status::Unsupported, Reason::MalformedDetails, Vec::new(), warnings);
            return Verdict { malformed: Some(why.clone()), ..malformed };
        }
    };

    let real = refs.iter().filter(|r| !r.is_marker()).count();
    let has_marker = real < refs.len();
    if real > 0 && has_marker {
        warnings.push(Warning::MarkerWithRefs);
    }
    let failed = inv.success == Some(false);
    // A failed call's refs are not checked: no route is worth choosing.
    let route = Route::choose(raw, refs, policy, cache, fast && !failed);
    let mut checker = Checker {
        inv,
        raw,
        policy,
        cache,
        routes,
        route,
        document: None,
        descended: false,
        read_as: None,
        haystacks: Default::default(),
        preview_normalized: OnceCell::new(),
    };
    let reports: Vec<RefReport> =
        refs.iter().enumerate().map(|(index, r)| checker.report(index, r, failed)).collect();
    if let Some(read_as) = checker.read_as {
        warnings.push(read_as.warning());
    }
    if checker.descended {
        warnings.push(Warning::DescendedIntoString);
    }

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
    hit: Option<(Rung, String)>,
    score: Option<Score>,
    in_preview: Option<bool>,
    nearest: Option<Nearest>,
    elsewhere: Option<String>,
    limit: Option<Limit>,
}

impl From<RefOutcome> for Checked {
    fn from(outcome: RefOutcome) -> Checked {
        Checked {
            outcome,
            hit: None,
            score: None,
            in_preview: None,
            nearest: None,
            elsewhere: None,
            limit: None,
        }
    }
}

impl From<Limit> for Checked {
    /// `limit_exceeded`, naming the limit.
    fn from(limit: Limit) -> Checked {
        Checked { limit: Some(limit), ..RefOutcome::LimitExceeded.into() }
    }
}

impl<'a> Checker<'a> {
    fn report(&mut self, index: usize, claimed: &ClaimedRef, failed: bool) -> RefReport {
        let checked: Checked = match claimed {
            ClaimedRef::Marker { .. } => RefOutcome::NoEvidenceMarker.into(),
            ClaimedRef::Malformed { .. } => RefOutcome::MalformedRef.into(),
            ClaimedRef::Unread { .. } => Limit::Refs.into(),
            ClaimedRef::Evidence(r) if self.text_over_limit(&r.text) => Limit::TextLength.into(),
            ClaimedRef::Evidence(_) if failed => RefOutcome::NotChecked.into(),
            ClaimedRef::Evidence(r) => self.check(r),
        };
        let (raw_path, text) = claimed.echo();
        let (rung, matched_path) = checked.hit.unzip();
        let cache = self.cache;
        let path_error = raw_path.as_deref().and_then(|given| {
            path_problem(checked.outcome, given, |path| cache.get(path).as_ref().as_ref().err().cloned())
        });
        RefReport {
            index,
            path_error,
            raw_path,
            text,
            outcome: checked.outcome,
            rung,
            matched_path,
            score: checked.score,
            in_preview: checked.in_preview,
            nearest: checked.nearest,
            elsewhere: checked.elsewhere,
            limit: checked.limit,
            malformed: match claimed {
                ClaimedRef::Malformed { why, .. } => Some(why.clone()),
                _ => None,
            },
        }
    }

    fn text_over_limit(&self, text: &str) -> bool {
        let max = self.policy.limits.max_text_chars;
        text.len() > max && text.chars().count() > max
    }

    /// Steps 1-5 of docs/verification.md#checking-a-ref for a ref of a call that did not fail.
    fn check(&mut self, r: &EvidenceRef) -> Checked {
        if r.text.trim().is_empty() {
            return RefOutcome::EmptyText.into();
        }
        let (inv, policy, route) = (self.inv, self.policy, &self.route);
        let (raw, routes) = (self.raw, self.routes);
        let document = match self.document.get_or_insert_with(|| Document::load(raw, route, policy, routes)) {
            Ok(document) => document,
            Err(Absent::OverLimit(limit)) => return (*limit).into(),
            Err(Absent::Unavailable) => {
                let preview_normalized = &self.preview_normalized;
                let in_preview = inv.output_preview.as_deref().map(|p| {
                    let normalized = || preview_normalized.get_or_init(|| normalize(p)).as_str();
                    Needle::new(&r.text).in_text(p, normalized, policy.loosest_exact_rung())
                });
                return Checked { in_preview, ..RefOutcome::RawOutputUnavailable.into() };
            }
        };
        let path_text = r.raw_path.trim();
        let max_path = policy.limits.max_path_chars;
        if path_text.len() > max_path && path_text.chars().count() > max_path {
            return Limit::PathLength.into();
        }
        let compiled = self.cache.get(path_text);
        let path = match compiled.as_ref() {
            Ok(path) => path,
            Err(e) if e.limit => return Limit::PathLength.into(),
            Err(_) => return RefOutcome::InvalidPath.into(),
        };
        let ladder = Ladder { policy, needle: Needle::new(&r.text) };
        let searched = document.search(path_text, path, &ladder);
        self.descended |= searched.descended;
        self.read_as = self.read_as.or(searched.read_as);
        let mut checked = searched.found.unwrap_or_else(|OverLimit(limit)| limit.into());
        if matches!(checked.outcome, RefOutcome::PathNotFound | RefOutcome::TextNotFound) {
            checked.elsewhere = elsewhere(document, &ladder.needle, policy, &self.haystacks);
        }
        checked
    }
}

/// The first leaf of the whole document that holds the quote
/// (docs/verification.md#near-misses `elsewhere`): in the document as written, else in its
/// expanded view — where only what expansion added can hold it, the rest being the document
/// as written; none in a view past the node limit. A text with a structured view is
/// searched in that view, then in what its expanded view adds, and only then as the whole text.
fn elsewhere(
    document: &mut Document<'_>,
    needle: &Needle<'_>,
    policy: &Policy,
    haystacks: &[OnceCell<Haystack>; 4],
) -> Option<String> {
    let order: &[Which] = if document.has_structured() { &Which::WITH_STRUCTURED } else { &Which::PLAIN };
    for &which in order {
        let haystack = &haystacks[which as usize];
        match document.search_whole(which, &Elsewhere { needle, policy, haystack }) {
            Selected::Found(Some(path)) => return Some(path),
            // No string of the text could hold JSON: it has no expanded view.
            Selected::Found(None) if haystack.get().is_some_and(Haystack::rules_out_expanded) => return None,
            Selected::Found(None) | Selected::Nothing => {}
            Selected::OverLimit(_) => return None,
        }
    }
    None
}

/// Steps 4 and 5 of docs/verification.md#checking-a-ref as a [`Search`]: the selected
/// nodes' leaves, rung by rung.
struct Ladder<'a> {
    policy: &'a Policy,
    needle: Needle<'a>,
}

impl Search for Ladder<'_> {
    type Found = Checked;

    fn run<T: Tree>(
        &self,
        selection: &Selection<'_, T>,
        leaves: &mut Leaves,
    ) -> Result<Checked, T::Rewritten> {
        if selection.nodes.is_empty() {
            return Ok(RefOutcome::PathNotFound.into());
        }
        if selection.nodes.len() > self.policy.limits.max_nodes {
            return Ok(Limit::Nodes.into());
        }
        let found = self.needle.find(
            &selection.nodes,
            |i| selection.base(i),
            self.policy,
            selection.nested,
            leaves,
        )?;
        Ok(match found {
            Found::Hit { rung, path, score } => {
                Checked { hit: Some((rung, path)), score, ..RefOutcome::Verified.into() }
            }
            Found::Miss { nearest } => Checked { nearest, ..RefOutcome::TextNotFound.into() },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::RawOutput;
    use crate::json::Json;
    use crate::normalize::tests::CALLS;
    use std::cell::Cell;

    /// A thousand failing refs over one output normalise each leaf once, not once per ref:
    /// the ladder, `nearest` and `elsewhere` share the invocation's normalised leaves.
    #[test]
    fn leaves_are_normalised_once_per_invocation() {
        let logs: Vec<String> = (0..20).map(|i| format!("line {i}: Connection Refused by peer")).collect();
        let raw = serde_json::json!({ "logs": logs }).to_string();
        for path in ["$.logs[*]", "$.logs[3]"] {
            let refs: Vec<_> = (0..1000)
                .map(|i| serde_json::json!({"raw_path": path, "text": format!("deadlock {i}")}))
                .collect();
            let details = serde_json::json!({ "evidence_refs": refs }).to_string();
            let inv = Invocation {
                retrieval_details: Some(Json::parse(&details).unwrap()),
                raw_output: Some(RawOutput::Text(raw.clone())),
                ..Invocation::default()
            };
            for fast in [true, false] {
                let before = CALLS.with(Cell::get);
                let verdict = verify_with(
                    &inv,
                    &Policy::default(),
                    &PathCache::default(),
                    fast,
                    &RouteCounts::default(),
                );
                let calls = CALLS.with(Cell::get) - before;
                assert!(verdict
                    .refs
                    .iter()
                    .all(|r| r.outcome == RefOutcome::TextNotFound && r.nearest.is_some()));
                // One per ref's text, one per leaf (the located route parses logs[3] apart
                // from the whole tree `elsewhere` reads: one more).
                assert!(calls <= 1000 + 20 + 1, "{path} (fast: {fast}): {calls} normalisations");
            }
        }
    }
}
