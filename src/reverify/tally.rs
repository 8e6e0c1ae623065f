//! What a `reverify` job found: counts by status, reason, tool and retrieval layer, and the
//! changes against the verdicts stored before it, with their transition table. A writing job
//! stores its tally with each batch ([`Tally::save`]), so a resumed job reports the whole job.

use std::collections::BTreeMap;
use std::io;

use groundcheck_core::{Status, Verdict};
use serde::{Deserialize, Serialize};

use crate::reverify::change::{Change, Outcome};
use crate::reverify::spool::Spool;

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
        let back = Tally::restore(&tally.save()).expect("restores");
        assert_eq!(back.save(), tally.save());
        assert_eq!(back.transitions, tally.transitions);
        assert_eq!((back.invocations, back.runs, back.status), (7, 2, tally.status));
        assert!(Tally::restore("{}").is_none());
        assert!(Tally::restore("not json").is_none());
    }
}
