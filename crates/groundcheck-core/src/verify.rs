//! Turning invocations into verdicts: checking each ref (§3.3 of the rules) against the
//! document `document.rs` loads, and classifying the invocation (§3.4), in parallel over a
//! run.

use rayon::prelude::*;

use crate::cache::PathCache;
use crate::claim::{read_claim, ClaimedRef, EvidenceRef};
use std::cell::OnceCell;

use crate::document::{file_warning, source_of, Absent, Document, OverLimit, Route, Search, Which};
use crate::elsewhere::{Elsewhere, Haystack};
use crate::invocation::Invocation;
use crate::json::Tree;
use crate::ladder::{Found, Needle};
use crate::leaves::Leaves;
use crate::normalize::normalize;
use crate::path::Selection;
use crate::policy::{Policy, Require, Rung};
use crate::report::{Nearest, Reason, RefOutcome, RefReport, Report, RunReport, Status, Verdict, Warning};
use crate::run::Run;
use crate::score::Score;

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

/// Verifies invocations one at a time, as a caller reads them, sharing compiled paths across
/// every call (and threads): a reader that cannot hold every raw output until
/// [`verify_runs`] verifies each invocation, drops its raw output, and groups the verdicts
/// with [`VerdictSet`](crate::VerdictSet). Each verdict is [`verify_invocation`]'s.
pub struct Verifier<'p> {
    policy: &'p Policy,
    cache: PathCache,
}

impl<'p> Verifier<'p> {
    /// A verifier under `policy`, with no path compiled yet.
    pub fn new(policy: &'p Policy) -> Verifier<'p> {
        Verifier { policy, cache: PathCache::default() }
    }

    /// The verdict of one invocation.
    pub fn verify(&self, invocation: &Invocation) -> Verdict {
        verify_with(invocation, self.policy, &self.cache, true)
    }
}

fn verify_run_with(run: &Run, policy: &Policy, cache: &PathCache) -> RunReport {
    let verdicts = run.invocations.par_iter().map(|inv| verify_with(inv, policy, cache, true)).collect();
    RunReport::of(run.run_id.clone(), run.session_id.clone(), verdicts)
}

/// Checks the refs of one invocation in order, loading its document on the first ref that
/// needs it.
struct Checker<'a> {
    inv: &'a Invocation,
    policy: &'a Policy,
    cache: &'a PathCache,
    route: Route<'a>,
    document: Option<Result<Document<'a>, Absent>>,
    /// Some ref was decided on the expanded view (JSON inside strings).
    descended: bool,
    /// Each view's leaves for `elsewhere` (as written; what the expanded view adds), read on
    /// the first ref that needs them.
    haystacks: [OnceCell<Haystack>; 2],
    /// The preview normalised, for `in_preview`: once for all the invocation's refs.
    preview_normalized: OnceCell<String>,
}

fn verify_with(inv: &Invocation, policy: &Policy, cache: &PathCache, fast: bool) -> Verdict {
    let claim = read_claim(inv.retrieval_details.as_ref(), policy.limits.max_refs);
    let source = source_of(inv);
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
    // A failed call's refs are not checked: no route is worth choosing.
    let route = Route::choose(inv, refs, policy, cache, fast && !failed);
    let mut checker = Checker {
        inv,
        policy,
        cache,
        route,
        document: None,
        descended: false,
        haystacks: Default::default(),
        preview_normalized: OnceCell::new(),
    };
    let reports: Vec<RefReport> =
        refs.iter().enumerate().map(|(index, r)| checker.report(index, r, failed)).collect();
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
}

impl From<RefOutcome> for Checked {
    fn from(outcome: RefOutcome) -> Checked {
        Checked { outcome, hit: None, score: None, in_preview: None, nearest: None, elsewhere: None }
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
            score: checked.score,
            in_preview: checked.in_preview,
            nearest: checked.nearest,
            elsewhere: checked.elsewhere,
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
        let (inv, policy, route) = (self.inv, self.policy, &self.route);
        let document = match self.document.get_or_insert_with(|| Document::load(inv, route, policy)) {
            Ok(document) => document,
            Err(Absent::OverLimit) => return RefOutcome::LimitExceeded.into(),
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
            return RefOutcome::LimitExceeded.into();
        }
        let compiled = self.cache.get(path_text);
        let path = match compiled.as_ref() {
            Ok(path) => path,
            Err(e) if e.limit => return RefOutcome::LimitExceeded.into(),
            Err(_) => return RefOutcome::InvalidPath.into(),
        };
        let ladder = Ladder { policy, needle: Needle::new(&r.text) };
        let searched = document.search(path_text, path, policy, &ladder);
        self.descended |= searched.descended;
        let mut checked = searched.found.unwrap_or_else(|OverLimit| RefOutcome::LimitExceeded.into());
        if matches!(checked.outcome, RefOutcome::PathNotFound | RefOutcome::TextNotFound) {
            checked.elsewhere = elsewhere(document, &ladder.needle, policy, &self.haystacks);
        }
        checked
    }
}

/// The first leaf of the whole document that holds the quote (§3.7 `elsewhere`): in the
/// document as written, else in its expanded view — where only what expansion added can
/// hold it, the rest being the document as written; none in a view past the node limit.
fn elsewhere(
    document: &mut Document<'_>,
    needle: &Needle<'_>,
    policy: &Policy,
    haystacks: &[OnceCell<Haystack>; 2],
) -> Option<String> {
    for (which, haystack) in [Which::Plain, Which::Expanded].into_iter().zip(haystacks) {
        match document.search_whole(which, policy, &Elsewhere { needle, policy, haystack }) {
            Ok(Some(Some(path))) => return Some(path),
            // No string of the text could hold JSON: it has no expanded view.
            Ok(Some(None)) if haystack.get().is_some_and(Haystack::rules_out_expanded) => return None,
            Ok(Some(None)) => {}
            Ok(None) | Err(OverLimit) => return None,
        }
    }
    None
}

/// Steps 4 and 5 of §3.3 as a [`Search`]: the selected nodes' leaves, rung by rung.
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
            return Ok(RefOutcome::LimitExceeded.into());
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
                let verdict = verify_with(&inv, &Policy::default(), &PathCache::default(), fast);
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
