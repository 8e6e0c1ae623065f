//! `gen_ai.evaluation.score.value`: the share of an invocation's real refs that verified.

use groundcheck_core::{RefOutcome, Verdict};

/// An invocation's real refs (every ref but the no-evidence markers) and how many verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefCounts {
    /// Real refs, those past `--max-refs` included (they count as not verified).
    pub real: usize,
    /// Of which verified.
    pub verified: usize,
}

impl RefCounts {
    /// Counts `verdict`'s refs.
    pub fn of(verdict: &Verdict) -> RefCounts {
        let real = verdict.refs.iter().filter(|r| r.outcome != RefOutcome::NoEvidenceMarker).count();
        let verified = verdict.refs.iter().filter(|r| r.outcome == RefOutcome::Verified).count();
        RefCounts { real, verified }
    }

    /// `verified / real` in [0, 1]; `None` without real refs, where a share means nothing:
    /// every `no_evidence` verdict (it has none, by docs/verification.md#classification
    /// rows 3–5), and `unsupported` with `malformed_details` or `claimed_without_refs`. The
    /// label still says the status.
    pub fn share(self) -> Option<f64> {
        (self.real > 0).then(|| self.verified as f64 / self.real as f64)
    }
}
