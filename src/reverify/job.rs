//! A job's identity and starting point. A job is named by everything that selects its rows,
//! decides its verdicts or shapes its totals; its checkpoint is stored under that name, so
//! `--resume` with the same arguments continues it, and any other arguments start another.

use groundcheck_store::{RunKey, Store, Window};

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
    /// `tools` and `runs` sorted; `compare_with` and `raw_outputs` only when given, so the
    /// jobs of earlier versions keep their names.
    pub fn new(
        policy: &str,
        window: &Window,
        tools: &[String],
        runs: &[String],
        shard: Shard,
        compare_with: Option<&str>,
        raw_outputs: Option<&str>,
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
            arguments.push_str(&format!(";raw_outputs={template}"));
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
    /// Set when `--resume` found a checkpoint.
    pub resumed: Option<Resumed>,
}

/// Lists the job's runs (`shard`'s share, only `runs` when given) and, with `resume`, skips
/// those its checkpoint says are done.
pub async fn start(
    store: &Store,
    window: &Window,
    shard: Shard,
    runs: &[String],
    identity: &Identity,
    resume: bool,
) -> Result<Start, Failure> {
    let mut keys: Vec<RunKey> = store.list_keys(window).await.map_err(database::failure)?;
    keys.retain(|k| shard.owns(k) && (runs.is_empty() || matches!(k, RunKey::Run(id) if runs.contains(id))));
    let runs_in_job = keys.len() as u64;
    let fresh = Start {
        keys,
        runs_in_job,
        rows_before: 0,
        last_before: None,
        tally: Tally::default(),
        resumed: None,
    };
    if !resume {
        return Ok(fresh);
    }
    let Some(checkpoint) = store.read_checkpoint(&identity.id).await.map_err(database::failure)? else {
        return Ok(fresh);
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
    let mut keys = fresh.keys;
    if checkpoint.done {
        keys.clear();
    } else {
        keys.retain(|k| *k > checkpoint.last);
    }
    let resumed =
        Resumed { runs: tally.runs, invocations: tally.invocations, already_complete: checkpoint.done };
    Ok(Start {
        keys,
        runs_in_job,
        rows_before: checkpoint.rows_done,
        last_before: Some(checkpoint.last),
        tally,
        resumed: Some(resumed),
    })
}
