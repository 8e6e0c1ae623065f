//! A job's identity and starting point. A job is named by everything that selects its rows,
//! decides its verdicts or shapes its totals; its checkpoint is stored under that name, so
//! `--resume` with the same arguments continues it, and any other arguments start another.
//!
//! What `--resume` does depends on the checkpoint it finds:
//!
//! - none, or no `--resume`: a new job over every selected run (scope `all`);
//! - an unfinished job: that job, exactly past its last committed run (a retried worker
//!   verifies nothing twice and skips nothing), over the runs of its scope;
//! - a finished job: a new job (scope `new`) over the runs that have a row without a verdict
//!   under the policy — the rows added since, in whole runs — with totals of its own; when there
//!   is none, nothing is verified and the finished job is reported as complete.
//!
//! So the same command run on a schedule (a CronJob) verifies each new row once, and never
//! again what is stored; a full re-verification (after an engine upgrade) is the command
//! without `--resume`.

use groundcheck_files::Template;
use groundcheck_store::{RunKey, Scope, Store, Window};

use crate::database;
use crate::failure::Failure;
use crate::reverify::shard::{fnv1a, Shard};
use crate::reverify::summary::Resumed;
use crate::reverify::tally::Tally;

/// The name of a job: its arguments as text (stored for people) and their hash (the key).
pub struct Identity {
    /// `policy=…;since=…;…`, stored beside the checkpoint for people.
    pub arguments: String,
    /// Its 64-bit FNV-1a hash in hex: the checkpoint's key.
    pub id: String,
}

impl Identity {
    /// `tools` and `runs` sorted; `compare_with` and `raw_outputs` only when given (and hard
    /// links only when allowed), so the jobs of earlier versions keep their names.
    pub fn new(
        policy: &str,
        window: &Window,
        tools: &[String],
        runs: &[String],
        shard: Shard,
        compare_with: Option<&str>,
        raw_outputs: Option<&Template>,
    ) -> Identity {
        let mut arguments = format!(
            "policy={policy};since={};until={};tools={};runs={};shard={shard}",
            window.since.as_deref().unwrap_or(""),
            window.until.as_deref().unwrap_or(""),
            tools.join(","),
            runs.join(","),
        );
        if let Some(baseline) = compare_with {
            arguments.push_str(&format!(";compare={baseline}"));
        }
        if let Some(template) = raw_outputs {
            arguments.push_str(&format!(";raw_outputs={}", template.as_str()));
            if template.allows_hard_links() {
                arguments.push_str(";hard_links=allowed");
            }
        }
        let id = format!("{:016x}", fnv1a(arguments.bytes()));
        Identity { arguments, id }
    }
}

/// Where a job starts.
pub struct Start {
    /// The runs left to verify, in order.
    pub keys: Vec<RunKey>,
    /// Every run of the job, done or not.
    pub runs_in_job: u64,
    /// The checkpoint's rows, last run and totals (empty for a fresh job).
    pub rows_before: i64,
    pub last_before: Option<RunKey>,
    pub tally: Tally,
    /// Set when `--resume` continued a job (or found it complete with nothing new).
    pub resumed: Option<Resumed>,
    /// The runs the job covers.
    pub scope: Scope,
    /// Set when a finished job was followed by a new one over the runs with rows not
    /// verified yet: the finished job's rows.
    pub after_finished: Option<i64>,
}

impl Start {
    /// A new job over `keys`, nothing verified yet.
    fn new_job(keys: Vec<RunKey>, scope: Scope, after_finished: Option<i64>) -> Start {
        Start {
            runs_in_job: keys.len() as u64,
            keys,
            rows_before: 0,
            last_before: None,
            tally: Tally::default(),
            resumed: None,
            scope,
            after_finished,
        }
    }
}

/// Lists the job's runs (`shard`'s share, only `runs` when given) and, with `resume`, skips
/// those its checkpoint says are done — or, after a finished job, lists only the runs with
/// rows not verified under `policy` (of `tools`, when given), as the module says.
#[allow(clippy::too_many_arguments)]
pub async fn start(
    store: &Store,
    window: &Window,
    shard: Shard,
    runs: &[String],
    tools: &[String],
    policy: &str,
    identity: &Identity,
    resume: bool,
) -> Result<Start, Failure> {
    let selected = |mut keys: Vec<RunKey>| {
        keys.retain(|k| {
            shard.owns(k) && (runs.is_empty() || matches!(k, RunKey::Run(id) if runs.contains(id)))
        });
        keys
    };
    let unverified = || async {
        let keys = store.list_unverified_keys(policy, window, tools).await.map_err(database::failure)?;
        Ok::<_, Failure>(selected(keys))
    };
    let checkpoint = match resume {
        true => store.read_checkpoint(&identity.id).await.map_err(database::failure)?,
        false => None,
    };
    // A finished job with rows not verified since: a new job over their runs.
    if let Some(finished) = checkpoint.as_ref().filter(|c| c.done) {
        let keys = unverified().await?;
        if !keys.is_empty() {
            return Ok(Start::new_job(keys, Scope::Unverified, Some(finished.rows_done)));
        }
    }
    let Some(checkpoint) = checkpoint else {
        let keys = selected(store.list_keys(window).await.map_err(database::failure)?);
        return Ok(Start::new_job(keys, Scope::All, None));
    };
    let totals = store.read_job_totals(&identity.id).await.map_err(database::failure)?;
    // No totals: a checkpoint written before they were stored. Totals that do not read back
    // would silently restart the counts, so they stop the job instead.
    let tally = match totals.as_deref() {
        None => Tally::default(),
        Some(text) => Tally::restore(text).ok_or_else(|| {
            Failure::input(format!(
                "--resume: the stored totals of job {} cannot be read; run the job again without --resume",
                identity.id
            ))
        })?,
    };
    let (mut keys, runs_in_job) = match (checkpoint.done, checkpoint.scope) {
        (true, _) => (Vec::new(), tally.runs),
        (false, Scope::All) => {
            let keys = selected(store.list_keys(window).await.map_err(database::failure)?);
            let runs_in_job = keys.len() as u64;
            (keys, runs_in_job)
        }
        // The runs done so far have no row left without a verdict: what is listed past the
        // checkpoint is what this job has left.
        (false, Scope::Unverified) => {
            let keys: Vec<RunKey> =
                unverified().await?.into_iter().filter(|k| *k > checkpoint.last).collect();
            let runs_in_job = tally.runs + keys.len() as u64;
            (keys, runs_in_job)
        }
    };
    keys.retain(|k| *k > checkpoint.last);
    let resumed =
        Resumed { runs: tally.runs, invocations: tally.invocations, already_complete: checkpoint.done };
    Ok(Start {
        keys,
        runs_in_job,
        rows_before: checkpoint.rows_done,
        last_before: Some(checkpoint.last),
        tally,
        resumed: Some(resumed),
        scope: checkpoint.scope,
        after_finished: None,
    })
}
