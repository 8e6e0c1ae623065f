//! [`Engine`]: a verifier, the raw-output template and the threads, held together so that a
//! door only translates its types.

use groundcheck_core::{
    resolve_text_with, Bundle, Invocation, Limit, Policy, Report, ResolvedNode, Run, RunSet, Verdict,
    Verifier,
};
use groundcheck_files::{Lookup, Lookups, Template};
use rayon::prelude::*;

use crate::error::HostError;
use crate::stack::runs_inline;
use crate::threads::Threads;

/// Everything a verification needs besides its rows, built once and shared by every call
/// (it is `Send + Sync`): the core's `Verifier` under a policy (its cache of compiled paths
/// kept across calls), the template that finds raw outputs kept in files, and the engine's
/// threads.
pub struct Engine {
    verifier: Verifier,
    raw_outputs: Option<Template>,
    /// A pool of its own when a thread count was given; else the process's shared one.
    own_threads: Option<Threads>,
}

/// A report with what its rows' raw-output file lookups found: a door that tells people
/// about the lookups (the command line's counts line, the path tried for a row that found no
/// file) needs both, and only the engine knows the lookups it made.
#[derive(Debug)]
pub struct Verified {
    /// The report, as [`Engine::verify_rows`] gives it.
    pub report: Report,
    /// Every lookup made for it, in the runs' order (empty without a template).
    pub lookups: Lookups,
}

/// One row verified on its own ([`Engine::verify_each`]): its verdict, the run and session
/// that group it into a report, and what its file lookup found (`None` when nothing was looked
/// up). The row itself, raw output and all, is gone.
#[derive(Debug)]
pub struct Checked {
    /// The row's verdict.
    pub verdict: Verdict,
    /// The row's `run_id`.
    pub run_id: Option<String>,
    /// The row's `session_id`.
    pub session_id: Option<String>,
    /// What the row's raw-output file lookup found.
    pub lookup: Option<Lookup>,
}

impl Engine {
    /// An engine under `policy`, raw outputs looked up through `raw_outputs` when a row has
    /// none of its own, verifying on `threads` threads (`None`: one a core). No thread is
    /// started before the first call that needs one; engines without a count share the
    /// process's pool ([`Threads::shared`]).
    pub fn new(policy: Policy, raw_outputs: Option<Template>, threads: Option<usize>) -> Engine {
        Engine {
            verifier: Verifier::new(policy),
            raw_outputs,
            own_threads: threads.map(|n| Threads::new(Some(n))),
        }
    }

    /// The policy verdicts are decided under.
    pub fn policy(&self) -> &Policy {
        self.verifier.policy()
    }

    /// The raw-output template, if there is one.
    pub fn raw_outputs(&self) -> Option<&Template> {
        self.raw_outputs.as_ref()
    }

    /// The engine's threads, for a door that waits on them its own way (Python lets signal
    /// handlers run while it waits).
    pub fn threads(&self) -> &Threads {
        self.own_threads.as_ref().unwrap_or_else(|| Threads::shared())
    }

    /// The core's verifier, for a door that drives it itself (a stream verified while it is
    /// read).
    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// Looks up `invocation`'s raw output file, if it has no raw output of its own and there
    /// is a template, reading at most the policy's output size.
    pub fn attach(&self, invocation: &mut Invocation) {
        if let Some(template) = &self.raw_outputs {
            groundcheck_files::attach_one(
                template,
                invocation,
                self.policy().limits().get(Limit::OutputSize),
            );
        }
    }

    /// The verdict of one row, its raw output file looked up first. `inline` says the row's
    /// texts are too small to nest deeply (see [`crate::stack`]); anything else, and any row
    /// whose raw output is a file not seen yet, runs on the engine's threads.
    pub fn verify_row_where(&self, mut invocation: Invocation, inline: bool) -> Result<Verdict, HostError> {
        let mut work = move || {
            self.attach(&mut invocation);
            self.verifier.verify(&invocation)
        };
        if inline && self.raw_outputs.is_none() {
            Ok(work())
        } else {
            self.threads().install(work)
        }
    }

    /// The verdict of one row, on the engine's threads (see [`Engine::verify_row_where`] for
    /// a row known to be small).
    pub fn verify_row(&self, invocation: Invocation) -> Result<Verdict, HostError> {
        self.verify_row_where(invocation, false)
    }

    /// The report of `invocations` grouped into runs as `groundcheck verify` groups a
    /// bundle's (an `id` twice in a run is an error naming the second), their raw output
    /// files looked up, verified in parallel on the engine's threads.
    pub fn verify_rows(&self, invocations: Vec<Invocation>) -> Result<Report, HostError> {
        let mut runs = RunSet::default();
        for invocation in invocations {
            runs.push(invocation)?;
        }
        Ok(self.verify_runs(&mut runs.into_runs())?.report)
    }

    /// The report of runs already grouped (a database's runs, or a batch of them), with
    /// what their lookups found: the raw output file of each row without its own looked up
    /// first, all of it in parallel on the engine's threads. The rows stay in `runs`, each
    /// file read into its row, for a door that shows them beside the report (a page).
    pub fn verify_runs(&self, runs: &mut [Run]) -> Result<Verified, HostError> {
        self.threads().install(|| {
            let lookups = self.look_up_here(runs);
            Verified { report: self.verifier.verify_runs(runs), lookups }
        })
    }

    /// Looks up the raw output file of every row of `runs` without its own, reading each
    /// into its row, in parallel on the engine's threads, and verifies nothing: for a door
    /// that hands the rows on (`groundcheck export` writes the files' texts into bundles).
    pub fn look_up(&self, runs: &mut [Run]) -> Result<Lookups, HostError> {
        self.threads().install(|| self.look_up_here(runs))
    }

    /// [`Engine::look_up`] on the calling thread's pool.
    fn look_up_here(&self, runs: &mut [Run]) -> Lookups {
        let max = self.policy().limits().get(Limit::OutputSize);
        groundcheck_files::attach(self.raw_outputs.as_ref(), runs, max)
    }

    /// Rows verified each on its own, not grouped (a door that reads many inputs groups
    /// their verdicts itself, to name the input an `id` repeats in), in parallel on the
    /// engine's threads, each row's raw output file looked up just before it is verified
    /// and the row dropped once it is: memory holds the verdicts, never every raw output.
    /// In the rows' order. A verdict is the one the same row gets in a run.
    pub fn verify_each(&self, invocations: Vec<Invocation>) -> Result<Vec<Checked>, HostError> {
        let max = self.policy().limits().get(Limit::OutputSize);
        let check = |mut invocation: Invocation| {
            let lookup = self
                .raw_outputs
                .as_ref()
                .and_then(|t| groundcheck_files::attach_one(t, &mut invocation, max));
            let verdict = self.verifier.verify(&invocation);
            Checked { verdict, run_id: invocation.run_id, session_id: invocation.session_id, lookup }
        };
        self.threads().install(|| invocations.into_par_iter().map(check).collect())
    }

    /// The report of a bundle's text, as `groundcheck verify` gives it for the same file.
    pub fn verify_bundle(&self, text: &str) -> Result<Report, HostError> {
        self.verify_rows(Bundle::parse(text)?.invocations)
    }

    /// What `path` selects in `document`, read as a raw output's text is (JSON, else its
    /// JSON Lines or YAML view), under the policy's limits — what `groundcheck resolve`
    /// prints with the same limit flags.
    pub fn resolve(&self, document: &str, path: &str) -> Result<Vec<ResolvedNode>, HostError> {
        let limits = self.policy().limits();
        let work = || resolve_text_with(path, document, &limits);
        let resolved = if runs_inline([document, path]) { work() } else { self.threads().install(work)? };
        Ok(resolved?)
    }
}

#[cfg(test)]
mod tests {
    use groundcheck_core::{ErrorKind, RawOutputFile, Status};
    use groundcheck_files::Found;

    use super::*;
    use crate::rows;

    fn row(id: i64, run: &str) -> String {
        format!(
            r#"{{"id": {id}, "run_id": "{run}", "tool_name": "q", "raw_output": {{"m": "disk full"}},
                "retrieval_details": {{"evidence_refs": [{{"raw_path": "$.m", "text": "disk full"}}]}}}}"#
        )
    }

    #[test]
    fn rows_verify_as_the_same_rows_in_a_bundle() {
        // A raw output given as an object: in a bundle a string would be a JSON string.
        let engine = Engine::new(Policy::default(), None, Some(2));
        let rows = [row(2, "a"), row(1, "b"), row(1, "a")];
        let report = engine.verify_rows(rows::invocations(&rows).unwrap()).unwrap();
        let bundle = format!(r#"{{"invocations": [{}]}}"#, rows.join(","));
        let bundled = engine.verify_bundle(&bundle).unwrap();
        assert_eq!(report, bundled);
        assert_eq!(report.runs.len(), 2);
        assert!(report.runs.iter().flat_map(|r| &r.invocations).all(|v| v.status == Status::Supported));
    }

    #[test]
    fn rows_verified_each_on_their_own_get_their_verdicts_in_runs_with_their_lookups() {
        let root = std::env::temp_dir().join(format!("groundcheck-host-each-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("1.json"), r#"{"m": "disk full"}"#).unwrap();
        let template: Template = format!("{}/{{id}}.json", root.display()).parse().unwrap();
        let engine = Engine::new(Policy::default(), Some(template), Some(2));
        let bare = |id: i64| {
            format!(
                r#"{{"id": {id}, "run_id": "a", "tool_name": "q",
                    "retrieval_details": {{"evidence_refs": [{{"raw_path": "$.m", "text": "disk full"}}]}}}}"#
            )
        };
        let rows = [bare(1), bare(2), row(3, "a")];
        let each = engine.verify_each(rows::invocations(&rows).unwrap()).unwrap();
        let mut runs = RunSet::default();
        rows::invocations(&rows).unwrap().into_iter().for_each(|inv| runs.push(inv).unwrap());
        let mut runs = runs.into_runs();
        let Verified { report, lookups } = engine.verify_runs(&mut runs).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        let verdicts: Vec<&Verdict> = each.iter().map(|c| &c.verdict).collect();
        assert_eq!(verdicts, report.runs[0].invocations.iter().collect::<Vec<_>>());
        assert!(each.iter().all(|c| c.run_id.as_deref() == Some("a")));
        let statuses: Vec<&str> = verdicts.iter().map(|v| v.status.as_str()).collect();
        assert_eq!(statuses, ["supported", "unsupported", "supported"], "row 2 finds no file");
        let found: Vec<Option<Found>> = each.iter().map(|c| c.lookup.as_ref().map(|l| l.found)).collect();
        assert_eq!(
            found,
            [Some(Found::File), Some(Found::Missing), None],
            "a row's own raw output: no lookup"
        );
        assert_eq!((lookups.counts.found, lookups.counts.missing.count), (1, 1));
        assert!(matches!(runs[0].invocations[0].raw_output_file, Some(RawOutputFile::Read(_))));
    }

    #[test]
    fn an_id_twice_in_a_run_names_the_row() {
        let engine = Engine::new(Policy::default(), None, Some(1));
        let invocations = rows::invocations(&[row(1, "a"), row(1, "b"), row(1, "a")]).unwrap();
        let Err(HostError::Core(e)) = engine.verify_rows(invocations) else { panic!("a repeated id") };
        assert_eq!((e.kind(), e.invocation(), e.field()), (ErrorKind::DuplicateId, Some(2), Some("id")));
    }

    #[test]
    fn resolve_holds_the_policys_limits() {
        let policy = Policy::default().with_limit(Limit::Nodes, 2).unwrap();
        let engine = Engine::new(policy, None, Some(1));
        assert_eq!(engine.resolve("[1, 2]", "$[*]").unwrap().len(), 2);
        let Err(HostError::Core(e)) = engine.resolve("[1, 2, 3]", "$[*]") else { panic!("past max_nodes") };
        assert_eq!(e.limit(), Some(Limit::Nodes));
    }
}
