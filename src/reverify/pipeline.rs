//! The streaming `reverify` pipeline: read → verify → write, overlapping.
//!
//! A reader task walks the job's runs in order and sends bounded batches (whole runs, about
//! `batch_rows` rows, with the verdicts stored for them before) down a channel of depth two;
//! a verifier thread runs each batch on its own rayon pool; the writer stores each batch's
//! verdicts together with the job's checkpoint in one transaction and tallies them. Memory is
//! bounded by a few batches, never by the database. Any error stops all three stages and
//! leaves the checkpoint at the last committed batch.

use std::collections::HashMap;

use groundcheck_core::{verify_runs, Policy, Run, RunReport};
use groundcheck_store::{into_run, Checkpoint, JobProgress, RunKey, Store, StoredRow, Window};
use tokio::sync::mpsc;

use crate::database;
use crate::failure::Failure;
use crate::reverify::tally::{Outcome, Tally};

/// Everything a job needs to run.
pub struct Job<'a> {
    pub store: &'a Store,
    /// The runs to verify, in order, already narrowed to the shard and past any checkpoint.
    pub keys: Vec<RunKey>,
    pub window: Window,
    /// Only rows of these tools (empty: all).
    pub tools: Vec<String>,
    pub policy: Policy,
    pub batch_rows: usize,
    /// Threads for verification (`None`: one per core).
    pub jobs: Option<usize>,
    /// Where to store verdicts and progress (`--write`).
    pub write: Option<JobProgress<'a>>,
    /// Rows a resumed job had already done.
    pub rows_before: i64,
    /// Told of every finished batch: (runs, rows).
    pub on_batch: &'a dyn Fn(u64, u64),
    /// Where to list changes (`None`: only count them).
    pub changes: Option<crate::reverify::tally::Spool>,
}

struct Batch {
    runs: Vec<(RunKey, Vec<StoredRow>)>,
    previous: HashMap<i64, Outcome>,
    rows: usize,
}

struct Verified {
    runs: Vec<RunReport>,
    layers: HashMap<i64, Option<String>>,
    previous: HashMap<i64, Outcome>,
    keys: u64,
    last: Option<RunKey>,
}

/// Runs the job to the end (or the first error) and returns its tally.
pub async fn run(mut job: Job<'_>) -> Result<Tally, Failure> {
    let (batches_tx, batches_rx) = mpsc::channel::<Result<Batch, Failure>>(2);
    let (verified_tx, verified_rx) = mpsc::channel::<Verified>(2);
    let verifier = spawn_verifier(batches_rx, verified_tx, job.policy, job.jobs)?;

    let policy_key = job.policy.key();
    let spool = job.changes.take();
    let reader = read(&job, &policy_key, batches_tx);
    let (job, policy_key) = (&job, policy_key.as_str());
    // `move`: when the writer stops (on an error too) its receiver is dropped, which stops
    // the verifier, whose receiver then stops the reader. Borrowing it would deadlock them.
    let writer = async move {
        let mut tally = Tally { changes: spool, ..Tally::default() };
        let mut rows_done = job.rows_before;
        let mut last = None;
        let mut verified_rx = verified_rx;
        while let Some(batch) = verified_rx.recv().await {
            let verdicts: Vec<(Option<&str>, &groundcheck_core::Verdict)> = batch
                .runs
                .iter()
                .flat_map(|r| r.invocations.iter().map(move |v| (r.run_id.as_deref(), v)))
                .collect();
            rows_done += verdicts.len() as i64;
            if let (Some(progress), Some(key)) = (&job.write, &batch.last) {
                let checkpoint = Checkpoint { last: key.clone(), rows_done, done: false };
                job.store
                    .write_batch(
                        policy_key,
                        env!("CARGO_PKG_VERSION"),
                        &verdicts,
                        Some((progress, &checkpoint)),
                    )
                    .await
                    .map_err(database::failure)?;
            }
            for run in &batch.runs {
                tally.runs += 1;
                for v in &run.invocations {
                    let layer = batch.layers.get(&v.id).and_then(Option::as_deref);
                    tally
                        .add(run.run_id.as_deref(), v, layer, batch.previous.get(&v.id).copied())
                        .map_err(|e| Failure::input(format!("groundcheck: cannot spool the changes: {e}")))?;
                }
            }
            (job.on_batch)(batch.keys, verdicts.len() as u64);
            last = batch.last.or(last);
        }
        Ok::<_, Failure>((tally, rows_done, last))
    };
    let (read_result, write_result) = tokio::join!(reader, writer);
    // The verifier ends once both channels are closed.
    let verifier_result = verifier.join();
    let (tally, rows_done, last) = write_result?;
    read_result?;
    verifier_result.map_err(|_| Failure::input("groundcheck: the verifier thread panicked"))??;
    if let (Some(progress), Some(last)) = (&job.write, last) {
        let checkpoint = Checkpoint { last, rows_done, done: true };
        job.store
            .write_batch(policy_key, env!("CARGO_PKG_VERSION"), &[], Some((progress, &checkpoint)))
            .await
            .map_err(database::failure)?;
    }
    Ok(tally)
}

/// Reads the job's runs in order and sends them in batches of about `batch_rows` rows.
async fn read(
    job: &Job<'_>,
    policy_key: &str,
    tx: mpsc::Sender<Result<Batch, Failure>>,
) -> Result<(), Failure> {
    let mut batch = Batch { runs: Vec::new(), previous: HashMap::new(), rows: 0 };
    for key in &job.keys {
        let read = async {
            let mut rows = job.store.read_key(key, &job.window).await?;
            if !job.tools.is_empty() {
                rows.retain(|r| job.tools.contains(&r.tool_name));
            }
            let previous = job.store.read_key_verdicts(policy_key, key).await?;
            Ok::<_, groundcheck_store::StoreError>((rows, previous))
        };
        let (rows, previous) = match read.await {
            Ok(found) => found,
            Err(e) => {
                let failure = database::failure(e);
                let _ = tx.send(Err(Failure::input(failure.message.clone()))).await;
                return Err(failure);
            }
        };
        batch.rows += rows.len();
        batch.previous.extend(
            previous
                .into_iter()
                .map(|s| (s.verdict.id, Outcome { status: s.verdict.status, reason: s.verdict.reason })),
        );
        batch.runs.push((key.clone(), rows));
        if batch.rows >= job.batch_rows {
            let full =
                std::mem::replace(&mut batch, Batch { runs: Vec::new(), previous: HashMap::new(), rows: 0 });
            if tx.send(Ok(full)).await.is_err() {
                return Ok(()); // the writer stopped; its error is the one reported
            }
        }
    }
    if !batch.runs.is_empty() {
        let _ = tx.send(Ok(batch)).await;
    }
    Ok(())
}

type VerifierHandle = std::thread::JoinHandle<Result<(), Failure>>;

/// The verifier thread: batches in, verdicts out, on a rayon pool of `jobs` threads.
fn spawn_verifier(
    mut rx: mpsc::Receiver<Result<Batch, Failure>>,
    tx: mpsc::Sender<Verified>,
    policy: Policy,
    jobs: Option<usize>,
) -> Result<VerifierHandle, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .thread_name(|i| format!("groundcheck-verify-{i}"))
        .build()
        .map_err(|e| Failure::input(format!("groundcheck: cannot start the verification threads: {e}")))?;
    Ok(std::thread::spawn(move || {
        while let Some(batch) = rx.blocking_recv() {
            let batch = batch?;
            let keys = batch.runs.len() as u64;
            let last = batch.runs.last().map(|(key, _)| key.clone());
            let mut layers = HashMap::new();
            let runs: Vec<Run> = batch
                .runs
                .into_iter()
                .filter_map(|(_, rows)| {
                    layers.extend(rows.iter().map(|row| (row.id, row.retrieval_layer.clone())));
                    into_run(rows)
                })
                .collect();
            let report = pool.install(|| verify_runs(&runs, &policy));
            let verified = Verified { runs: report.runs, layers, previous: batch.previous, keys, last };
            if tx.blocking_send(verified).is_err() {
                break;
            }
        }
        Ok(())
    }))
}
