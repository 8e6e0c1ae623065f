//! [`Engine`]: a verifier, the raw-output template and the threads, held together so that a
//! door only translates its types.

use groundcheck_core::{
    resolve_text_with, Bundle, Invocation, Limit, Policy, Report, ResolvedNode, RunSet, Verdict, Verifier,
};
use groundcheck_files::Template;

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
        let mut runs = runs.into_runs();
        let max = self.policy().limits().get(Limit::OutputSize);
        self.threads().install(|| {
            groundcheck_files::attach(self.raw_outputs.as_ref(), &mut runs, max);
            self.verifier.verify_runs(&runs)
        })
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
    use groundcheck_core::{ErrorKind, Status};

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
