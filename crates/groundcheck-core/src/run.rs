//! Grouping invocations into runs (docs/verification.md#bundles merging,
//! docs/verification.md#the-report order).

use std::collections::{HashMap, HashSet};

use crate::error::{Error, ErrorKind};
use crate::invocation::Invocation;
use crate::report::{Report, RunReport, Verdict};

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
    slots: Slots,
}

impl RunSet {
    /// Adds one invocation to its run.
    pub fn push(&mut self, invocation: Invocation) -> Result<(), Error> {
        let slot =
            self.slots.slot(&invocation.run_id, &invocation.session_id, invocation.id, |run, session| {
                self.runs.push(Run {
                    run_id: run.clone(),
                    session_id: session.clone(),
                    invocations: Vec::new(),
                })
            })?;
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

/// Verdicts grouped into runs exactly as [`RunSet`] groups their invocations, for a caller
/// that verifies each invocation as it reads it ([`Verifier`](crate::Verifier)) and drops its
/// raw output at once, instead of holding every raw output until
/// [`verify_runs`](crate::Verifier::verify_runs). Pushed in the same order, it gives the same
/// report, byte for byte.
#[derive(Debug, Default)]
pub struct VerdictSet {
    /// Each run's keys and verdicts, in order of first appearance.
    runs: Vec<(Option<String>, Option<String>, Vec<Verdict>)>,
    slots: Slots,
}

impl VerdictSet {
    /// Adds the verdict of an invocation of run `run_id` (or, without one, of session
    /// `session_id`).
    pub fn push(
        &mut self,
        run_id: &Option<String>,
        session_id: &Option<String>,
        verdict: Verdict,
    ) -> Result<(), Error> {
        let slot = self.slots.slot(run_id, session_id, verdict.id, |run, session| {
            self.runs.push((run.clone(), session.clone(), Vec::new()))
        })?;
        self.runs[slot].2.push(verdict);
        Ok(())
    }

    /// The report: runs in order of first appearance, verdicts by `id`.
    pub fn into_report(self) -> Report {
        Report::new(
            self.runs
                .into_iter()
                .map(|(run, session, verdicts)| RunReport::of(run, session, verdicts))
                .collect(),
        )
    }
}

/// Which run each (run, session) key is, and the ids each run has seen.
#[derive(Debug, Default)]
struct Slots {
    index: HashMap<RunKey, usize>,
    ids: Vec<HashSet<i64>>,
    /// Invocations pushed so far: the position an error names.
    pushed: usize,
}

impl Slots {
    /// The index of the run of (`run`, `session`), after `new_run` made it if it is new;
    /// refuses `id` if that run has it already.
    fn slot(
        &mut self,
        run: &Option<String>,
        session: &Option<String>,
        id: i64,
        new_run: impl FnOnce(&Option<String>, &Option<String>),
    ) -> Result<usize, Error> {
        let key = match run {
            Some(run) => RunKey::Run(run.clone()),
            None => RunKey::Session(session.clone()),
        };
        let next = self.ids.len();
        let slot = *self.index.entry(key).or_insert(next);
        if slot == next {
            new_run(run, session);
            self.ids.push(HashSet::new());
        }
        let position = self.pushed;
        self.pushed += 1;
        if !self.ids[slot].insert(id) {
            let run = run.as_deref().unwrap_or("(none)");
            return Err(Error::new(ErrorKind::DuplicateId, format!("id {id} appears twice in run {run}"))
                .in_invocation(position, Some("id")));
        }
        Ok(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bundle, Policy, Verifier};

    /// Invocations of several files, runs and sessions (some rows without `run_id`), pushed
    /// in file order.
    fn invocations() -> Vec<Invocation> {
        [
            include_str!("../../../fixtures/01_order_svc_5xx_spike.json"),
            include_str!("../../../fixtures/14_sessions_without_run_id.json"),
            include_str!("../../../fixtures/15_two_runs_one_file.json"),
            include_str!("../../../fixtures/25_near_misses.json"),
        ]
        .into_iter()
        .flat_map(|text| Bundle::parse(text).unwrap().invocations)
        .collect()
    }

    #[test]
    fn verdicts_grouped_as_read_give_the_report_of_the_runs() {
        let policy = Policy::default();
        let mut runs = RunSet::default();
        let (verifier, mut verdicts) = (Verifier::new(policy), VerdictSet::default());
        for inv in invocations() {
            verdicts.push(&inv.run_id, &inv.session_id, verifier.verify(&inv)).unwrap();
            runs.push(inv).unwrap();
        }
        let expected = verifier.verify_runs(&runs.into_runs());
        assert!(expected.runs.len() > 3, "several runs, sessions without a run among them");
        assert_eq!(verdicts.into_report(), expected);
    }

    /// Rows of runs that alternate, and rows without a run whose sessions alternate: each
    /// lands in its own run whatever came just before it, and a repeated id is refused even
    /// when other runs' rows came between.
    #[test]
    fn alternating_runs_are_grouped_and_checked_alike() {
        let row = |id, run: Option<&str>, session: Option<&str>| Invocation {
            id,
            run_id: run.map(String::from),
            session_id: session.map(String::from),
            tool_name: "t".into(),
            ..Invocation::default()
        };
        let rows = [
            row(1, Some("a"), Some("s")),
            row(1, Some("b"), Some("s")),
            row(2, Some("a"), Some("s")),
            row(1, None, Some("s")),
            row(1, None, Some("t")),
            row(2, None, Some("s")),
            row(3, Some("a"), None),
            row(2, None, None),
            row(1, Some("s"), None),
        ];
        let mut runs = RunSet::default();
        for inv in rows {
            runs.push(inv).unwrap();
        }
        let grouped: Vec<(Option<String>, Option<String>, Vec<i64>)> = runs
            .into_runs()
            .into_iter()
            .map(|r| (r.run_id, r.session_id, r.invocations.iter().map(|i| i.id).collect()))
            .collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            grouped,
            [
                (s("a"), s("s"), vec![1, 2, 3]),
                (s("b"), s("s"), vec![1]),
                (None, s("s"), vec![1, 2]),
                (None, s("t"), vec![1]),
                (None, None, vec![2]),
                // A run named like a session is not that session's rows.
                (s("s"), None, vec![1]),
            ]
        );
        let mut runs = RunSet::default();
        runs.push(row(1, Some("a"), None)).unwrap();
        runs.push(row(1, Some("b"), None)).unwrap();
        assert!(runs.push(row(1, Some("a"), None)).is_err(), "another run's row between");
        assert!(runs.push(row(1, Some("b"), None)).is_err(), "the last run's own row");
    }

    #[test]
    fn both_refuse_the_same_repeated_id() {
        let policy = Policy::default();
        let mut all = invocations();
        let again = all[all.len() / 2].clone();
        all.push(again);
        let mut runs = RunSet::default();
        let (verifier, mut verdicts) = (Verifier::new(policy), VerdictSet::default());
        let mut refused = (None, None);
        for inv in all {
            if let Err(e) = verdicts.push(&inv.run_id, &inv.session_id, verifier.verify(&inv)) {
                refused.0.get_or_insert(e);
            }
            if let Err(e) = runs.push(inv) {
                refused.1.get_or_insert(e);
            }
        }
        assert!(refused.0.is_some());
        assert_eq!(refused.0, refused.1);
    }
}
