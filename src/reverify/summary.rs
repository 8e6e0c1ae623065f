//! The `groundcheck.reverify/v1` summary a job ends with, built as one serde value; written
//! out by [`crate::reverify::output`], rendered for people by [`crate::reverify::human`].

use serde::Serialize;

use crate::reverify::tally::Tally;

/// A `from → to` count of the transition table.
#[derive(Debug, Serialize)]
pub struct Transition {
    /// The stored status (`new`: none), the status now, and how many invocations went so.
    pub from: String,
    pub to: String,
    pub count: u64,
}

/// What a resumed job had stored before this run (whose totals the summary includes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Resumed {
    /// Runs whose verdicts were stored before this run.
    pub runs: u64,
    /// Invocations whose verdicts were stored before this run.
    pub invocations: u64,
    /// The job had finished before: this run verified nothing.
    pub already_complete: bool,
}

/// The summary, in the schema's member order. Members that only some jobs have (`compared_with`,
/// `resumed`) are left out otherwise, so every other job's output is unchanged.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    /// `groundcheck.reverify/v1`.
    pub schema: &'static str,
    /// The job's policy key.
    pub policy: String,
    /// The policy whose stored verdicts the changes are against, when `--compare-with` named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// `K/N` (`1/1` without `--shard`).
    pub shard: String,
    /// Whether verdicts were stored (`--write`).
    pub written: bool,
    /// What was stored before, when `--resume` continued a job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<Resumed>,
    /// The whole job's totals (a resumed job's include what was stored before).
    pub summary: &'a Tally,
    /// The whole job's transition table.
    pub transitions: Vec<Transition>,
    /// This run's wall time.
    pub elapsed_seconds: f64,
    /// Invocations verified by this run, per second.
    pub rows_per_second: f64,
}

impl Summary<'_> {
    /// The policy the changes are against: `--compare-with`, else the job's own.
    pub fn baseline(&self) -> &str {
        self.compared_with.as_deref().unwrap_or(&self.policy)
    }

    /// The transition table of `tally`, in its order.
    pub fn transitions(tally: &Tally) -> Vec<Transition> {
        let rows = tally.transitions.iter();
        rows.map(|((from, to), count)| Transition { from: from.clone(), to: to.clone(), count: *count })
            .collect()
    }
}
