//! Grouping invocations into runs (§2 merging, §4 order).

use std::collections::{HashMap, HashSet};

use crate::invocation::Invocation;

/// The invocations of one diagnosis run (or, for rows without `run_id`, of one session).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Run {
    /// The run's id; `None` groups rows without one by `session_id`.
    pub run_id: Option<String>,
    /// The first invocation's session, in input order.
    pub session_id: Option<String>,
    /// Invocations; [`RunSet::into_runs`] sorts them by `id`.
    pub invocations: Vec<Invocation>,
}

/// An `id` seen twice in one run: bundles are rejected for it (§2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("id {id} appears twice in run {}", run.as_deref().unwrap_or("(none)"))]
pub struct DuplicateId {
    /// The repeated id.
    pub id: i64,
    /// The run it repeats in.
    pub run: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RunKey {
    Run(String),
    Session(Option<String>),
}

/// Collects invocations from any number of bundles or database reads into runs, in order of
/// first appearance, refusing an `id` repeated within a run.
#[derive(Debug, Default)]
pub struct RunSet {
    runs: Vec<Run>,
    index: HashMap<RunKey, usize>,
    ids: Vec<HashSet<i64>>,
}

impl RunSet {
    /// Adds one invocation to its run.
    pub fn push(&mut self, invocation: Invocation) -> Result<(), DuplicateId> {
        let key = match &invocation.run_id {
            Some(run) => RunKey::Run(run.clone()),
            None => RunKey::Session(invocation.session_id.clone()),
        };
        let slot = *self.index.entry(key).or_insert_with(|| {
            self.runs.push(Run {
                run_id: invocation.run_id.clone(),
                session_id: invocation.session_id.clone(),
                invocations: Vec::new(),
            });
            self.ids.push(HashSet::new());
            self.runs.len() - 1
        });
        if !self.ids[slot].insert(invocation.id) {
            return Err(DuplicateId { id: invocation.id, run: invocation.run_id });
        }
        self.runs[slot].invocations.push(invocation);
        Ok(())
    }

    /// The runs in order of first appearance, each sorted by `id`.
    pub fn into_runs(self) -> Vec<Run> {
        let mut runs = self.runs;
        for run in &mut runs {
            run.invocations.sort_by_key(|i| i.id);
        }
        runs
    }
}
