//! What a `reverify` job found: counts by status, reason, tool and retrieval layer, its failed
//! refs by how close they came, and the changes against the verdicts stored before it, with
//! their transition table. A writing job stores its tally with each batch ([`Tally::save`]),
//! so a resumed job reports the whole job.

use std::collections::BTreeMap;
use std::io;

use groundcheck_core::{RefOutcome, RefReport, Status, Verdict};
use serde::{Deserialize, Serialize};

use crate::reverify::change::{Change, Outcome};
use crate::reverify::spool::Spool;
use groundcheck_files::LookupCounts;

/// Status counts of one slice of the job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCounts {
    /// Invocations of each status.
    pub supported: u64,
    pub unsupported: u64,
    pub no_evidence: u64,
}

impl StatusCounts {
    fn add(&mut self, status: Status) {
        match status {
            Status::Supported => self.supported += 1,
            Status::Unsupported => self.unsupported += 1,
            Status::NoEvidence => self.no_evidence += 1,
        }
    }
}

/// A near miss scores at least this, in thousandths (`0.800`): about one edit in five
/// characters, a quote retyped or lightly edited rather than made up.
pub const NEAR_MISS_THOUSANDTHS: u16 = 800;

/// The job's failed refs (outcome `text_not_found` or `path_not_found`), each counted in the
/// first bucket it fits, so a reader sees at once whether the agent mostly points at the
/// wrong node, misquotes, or invents: the buckets add up to `total`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRefs {
    /// All of them.
    pub total: u64,
    /// The text is elsewhere in the output: mis-pointed.
    pub found_elsewhere: u64,
    /// Else a nearest candidate scores at least 0.800: misquoted.
    pub near_misses: u64,
    /// Else a nearest candidate scores below 0.800.
    pub far: u64,
    /// Neither: probably invented.
    pub no_candidate: u64,
}

impl FailedRefs {
    /// Counts `r` if it failed; other refs are not counted.
    fn add(&mut self, r: &RefReport) {
        if !matches!(r.outcome, RefOutcome::TextNotFound | RefOutcome::PathNotFound) {
            return;
        }
        self.total += 1;
        let bucket = match (&r.elsewhere, &r.nearest) {
            (Some(_), _) => &mut self.found_elsewhere,
            (None, Some(n)) if n.score.thousandths() >= NEAR_MISS_THOUSANDTHS => &mut self.near_misses,
            (None, Some(_)) => &mut self.far,
            (None, None) => &mut self.no_candidate,
        };
        *bucket += 1;
    }
}

/// The running totals of a job. Maps are ordered, so the output is deterministic.
#[derive(Debug, Default, Serialize)]
pub struct Tally {
    /// Invocations and runs verified.
    pub invocations: u64,
    pub runs: u64,
    /// By status (flattened into the summary object).
    #[serde(flatten)]
    pub status: StatusCounts,
    /// Invocations whose claimed status disagrees with the verdict.
    pub claim_mismatches: u64,
    /// The failed refs, by how close they came.
    pub failed_refs: FailedRefs,
    /// What the `--raw-outputs` lookups found (absent without a template, or when no row
    /// needed one).
    #[serde(skip_serializing_if = "LookupCounts::is_empty")]
    pub raw_output_files: LookupCounts,
    /// Invocations by reason; statuses by tool and by `retrieval_layer` (`(none)` if unset).
    pub by_reason: BTreeMap<String, u64>,
    pub by_tool: BTreeMap<String, StatusCounts>,
    pub by_retrieval_layer: BTreeMap<String, StatusCounts>,
    /// `from → to` status transitions against the stored verdicts; `new` when none.
    #[serde(skip)]
    pub transitions: BTreeMap<(String, String), u64>,
    /// Where changes go, when the output lists them.
    #[serde(skip)]
    pub changes: Option<Spool>,
}

/// A tally as stored with a job's checkpoint. No `#[serde(flatten)]`: with serde_json's
/// `arbitrary_precision` a flattened struct cannot read its numbers back.
#[derive(Serialize, Deserialize)]
struct Saved {
    invocations: u64,
    runs: u64,
    status: StatusCounts,
    claim_mismatches: u64,
    /// Absent from checkpoints written before failed refs were counted: those restore with
    /// zeros, and the resumed job counts only the refs it verifies itself.
    #[serde(default)]
    failed_refs: FailedRefs,
    /// Absent from checkpoints written before lookups were counted (restored as zeros).
    #[serde(default)]
    raw_output_files: LookupCounts,
    by_reason: BTreeMap<String, u64>,
    by_tool: BTreeMap<String, StatusCounts>,
    by_retrieval_layer: BTreeMap<String, StatusCounts>,
    transitions: Vec<(String, String, u64)>,
}

impl Tally {
    /// Counts one verdict. `layer` is the row's `retrieval_layer`; `before` what was stored.
    pub fn add(
        &mut self,
        run_id: Option<&str>,
        verdict: &Verdict,
        layer: Option<&str>,
        before: Option<Outcome>,
    ) -> io::Result<()> {
        self.invocations += 1;
        self.status.add(verdict.status);
        self.claim_mismatches += u64::from(verdict.is_claim_mismatch());
        verdict.refs.iter().for_each(|r| self.failed_refs.add(r));
        *self.by_reason.entry(verdict.reason.as_str().to_string()).or_default() += 1;
        self.by_tool.entry(verdict.tool_name.clone()).or_default().add(verdict.status);
        self.by_retrieval_layer.entry(layer.unwrap_or("(none)").to_string()).or_default().add(verdict.status);
        let to = Outcome { status: verdict.status, reason: verdict.reason };
        let from_name = before.map_or_else(|| "new".to_string(), |b| b.status.as_str().to_string());
        *self.transitions.entry((from_name, to.status.as_str().to_string())).or_default() += 1;
        if let (Some(spool), true) = (&mut self.changes, before != Some(to)) {
            spool.push(&Change { id: verdict.id, run_id: run_id.map(str::to_string), from: before, to })?;
        }
        Ok(())
    }

    /// The counts and transitions as text to store with the checkpoint (changes are not kept).
    pub fn save(&self) -> String {
        let saved = Saved {
            invocations: self.invocations,
            runs: self.runs,
            status: self.status,
            claim_mismatches: self.claim_mismatches,
            failed_refs: self.failed_refs,
            raw_output_files: self.raw_output_files.clone(),
            by_reason: self.by_reason.clone(),
            by_tool: self.by_tool.clone(),
            by_retrieval_layer: self.by_retrieval_layer.clone(),
            transitions: self.transitions.iter().map(|((f, t), n)| (f.clone(), t.clone(), *n)).collect(),
        };
        serde_json::to_string(&saved).unwrap_or_default()
    }

    /// A tally [`save`](Tally::save)d before, without changes; `None` if `text` is not one.
    pub fn restore(text: &str) -> Option<Tally> {
        let saved: Saved = serde_json::from_str(text).ok()?;
        Some(Tally {
            invocations: saved.invocations,
            runs: saved.runs,
            status: saved.status,
            claim_mismatches: saved.claim_mismatches,
            failed_refs: saved.failed_refs,
            raw_output_files: saved.raw_output_files,
            by_reason: saved.by_reason,
            by_tool: saved.by_tool,
            by_retrieval_layer: saved.by_retrieval_layer,
            transitions: saved.transitions.into_iter().map(|(f, t, n)| ((f, t), n)).collect(),
            changes: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_tally_restores_every_count() {
        let mut tally = Tally { invocations: 7, runs: 2, claim_mismatches: 1, ..Tally::default() };
        tally.status = StatusCounts { supported: 4, unsupported: 2, no_evidence: 1 };
        tally.by_reason.insert("verified".into(), 4);
        tally.by_tool.insert("query_logs".into(), tally.status);
        tally.by_retrieval_layer.insert("(none)".into(), tally.status);
        tally.transitions.insert(("new".into(), "supported".into()), 4);
        tally.transitions.insert(("supported".into(), "unsupported".into()), 2);
        tally.failed_refs =
            FailedRefs { total: 4, found_elsewhere: 1, near_misses: 1, far: 1, no_candidate: 1 };
        let back = Tally::restore(&tally.save()).expect("restores");
        assert_eq!(back.save(), tally.save());
        assert_eq!(back.transitions, tally.transitions);
        assert_eq!((back.invocations, back.runs, back.status), (7, 2, tally.status));
        assert_eq!(back.failed_refs, tally.failed_refs);
        assert!(Tally::restore("{}").is_none());
        assert!(Tally::restore("not json").is_none());
    }

    /// A checkpoint stored before failed refs were counted still resumes, with zeros.
    #[test]
    fn a_tally_saved_without_failed_refs_restores() {
        let old = r#"{"invocations":3,"runs":1,"status":{"supported":3,"unsupported":0,"no_evidence":0},
            "claim_mismatches":0,"by_reason":{"verified":3},"by_tool":{},"by_retrieval_layer":{},
            "transitions":[["new","supported",3]]}"#;
        let back = Tally::restore(old).expect("restores");
        assert_eq!((back.invocations, back.failed_refs), (3, FailedRefs::default()));
    }

    fn failed(outcome: RefOutcome, elsewhere: bool, score: Option<u16>) -> RefReport {
        let nearest = score.map(|n| groundcheck_core::Nearest {
            score: groundcheck_core::Score::from_thousandths(n).expect("a score"),
            path: "$['m']".into(),
            text: "x".into(),
        });
        RefReport {
            index: 0,
            raw_path: Some("$.m".into()),
            text: Some("x".into()),
            outcome,
            rung: None,
            matched_path: None,
            score: None,
            in_preview: None,
            nearest,
            elsewhere: elsewhere.then(|| "$['n']".to_string()),
            limit: None,
            path_error: None,
            malformed: None,
        }
    }

    #[test]
    fn each_failed_ref_lands_in_the_first_bucket_it_fits() {
        let mut counts = FailedRefs::default();
        for r in [
            failed(RefOutcome::TextNotFound, true, Some(1000)), // elsewhere wins over a near miss
            failed(RefOutcome::PathNotFound, true, None),
            failed(RefOutcome::TextNotFound, false, Some(800)), // 0.800 is a near miss
            failed(RefOutcome::TextNotFound, false, Some(799)),
            failed(RefOutcome::TextNotFound, false, None),
            failed(RefOutcome::PathNotFound, false, None),
            failed(RefOutcome::InvalidPath, false, None), // not a failed ref
            failed(RefOutcome::Verified, false, None),
        ] {
            counts.add(&r);
        }
        assert_eq!(
            counts,
            FailedRefs { total: 6, found_elsewhere: 2, near_misses: 1, far: 1, no_candidate: 2 }
        );
    }
}
