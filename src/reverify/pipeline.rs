//! The streaming `reverify` pipeline: read → verify → write, overlapping.
//!
//! A reader task walks the job's runs in order and sends bounded batches (whole runs, about
//! `batch_rows` rows, with the verdicts stored for them before) down a channel of depth two;
//! a verifier thread hands each batch to the job's engine (its threads look the raw-output
//! files up and verify, [`Engine::verify_runs`]); the writer stores each batch's
//! verdicts together with the job's checkpoint and running totals in one transaction and
//! tallies them. Memory is bounded by a few batches, never by the database. Any error stops
//! all three stages and leaves the checkpoint at the last committed batch; so does a stop
//! request (Ctrl-C), after the batch being committed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use groundcheck_core::{Run, RunReport};
use groundcheck_host::{Engine, HostError};
use groundcheck_store::{
    into_run, Checkpoint, JobProgress, RunKey, Scope, Store, StoredRow, Window, MAX_KEYS,
};
use rayon::prelude::*;
use tokio::sync::{mpsc, watch};

use crate::database;
use crate::failure::Failure;
use crate::otel::Sink;
use crate::reverify::change::Outcome;
use crate::reverify::tally::Tally;
use groundcheck_files::LookupCounts;

/// Everything a job needs to run.
pub struct Job<'a> {
    /// Where rows are read and verdicts written.
    pub store: &'a Store,
    /// The runs to verify, in order, already narrowed to the shard and past any checkpoint.
    pub keys: Vec<RunKey>,
    /// Only rows created in this window.
    pub window: Window,
    /// Only rows of these tools (empty: all).
    pub tools: Vec<String>,
    /// The engine that verifies: the policy that decides (and names) the verdicts, the
    /// template where rows without a raw output of their own find one, and the threads
    /// (`--jobs`) the files are read and the runs verified on.
    pub engine: Arc<Engine>,
    /// Stop before writing a batch whose rows needed a file and found none, while no file was
    /// found before (`--write` with a template, without `--write-without-raw-outputs`).
    pub files_needed: bool,
    /// The policy whose stored verdicts the changes are against.
    pub baseline: String,
    /// Rows per batch (whole runs, so a batch may hold more).
    pub batch_rows: usize,
    /// Where to store verdicts and progress (`--write`).
    pub write: Option<JobProgress<'a>>,
    /// The runs the job covers, stored with its checkpoint.
    pub scope: Scope,
    /// What the job had done before this run: its rows, its last run, its totals (with the
    /// spool for this run's changes, when the output lists them).
    pub rows_before: i64,
    pub last_before: Option<RunKey>,
    pub tally: Tally,
    /// Told of every committed batch: (runs, rows).
    pub on_batch: &'a dyn Fn(u64, u64),
    /// Becomes `true` when the job should stop after the batch being committed.
    pub stop: watch::Receiver<bool>,
    /// `--otel`, `--otlp-endpoint`: told of every committed batch's verdicts.
    pub otel: Option<&'a RefCell<Sink>>,
}

/// How a job ended.
pub struct Ended {
    /// The whole job's totals, up to the last committed batch.
    pub tally: Tally,
    /// Rows the whole job has done (the checkpoint's count).
    pub rows_done: i64,
    /// Stopped on request before every run was done.
    pub interrupted: bool,
    /// Stopped before writing a batch whose rows found no raw-output file, none having been
    /// found before (see [`Job::files_needed`]): that batch's lookups.
    pub no_file: Option<LookupCounts>,
}

/// Runs as the reader sends them.
struct Batch {
    runs: Runs,
    /// Each row's retrieval layer (the tally counts by it).
    layers: HashMap<i64, Option<String>>,
    previous: HashMap<i64, Outcome>,
    /// Run keys read into the batch (a run whose rows were all filtered out counts too).
    keys: u64,
    last: Option<RunKey>,
    rows: usize,
}

/// A batch's rows, or already the core's runs. Turning rows into runs (parsing their JSON
/// columns) costs about an eighth of verifying them. With one verification thread, the reader,
/// which otherwise waits on that thread most of the time, does it, and that thread only
/// verifies. A wider pool does it in parallel, where a reader
/// doing it alone would be the stage everything waits for.
enum Runs {
    Rows(Vec<Vec<StoredRow>>),
    Converted(Vec<Run>),
}

impl Batch {
    /// An empty batch whose runs the reader converts (`convert`) or leaves to the pool.
    fn new(convert: bool) -> Batch {
        Batch {
            runs: if convert { Runs::Converted(Vec::new()) } else { Runs::Rows(Vec::new()) },
            layers: HashMap::new(),
            previous: HashMap::new(),
            keys: 0,
            last: None,
            rows: 0,
        }
    }
}

impl Runs {
    fn push(&mut self, rows: Vec<StoredRow>) {
        match self {
            Runs::Rows(all) => all.push(rows),
            Runs::Converted(runs) => runs.extend(into_run(rows)),
        }
    }

    /// The core's runs, converting here (run by run in parallel, on the calling pool) what
    /// the reader did not.
    fn into_core(self) -> Vec<Run> {
        match self {
            Runs::Rows(rows) => rows.into_par_iter().filter_map(into_run).collect(),
            Runs::Converted(runs) => runs,
        }
    }
}

struct Verified {
    runs: Vec<RunReport>,
    /// What the batch's raw-output file lookups found.
    lookups: LookupCounts,
    layers: HashMap<i64, Option<String>>,
    previous: HashMap<i64, Outcome>,
    keys: u64,
    last: Option<RunKey>,
}

/// Runs the job to the end, the first error, or a stop request.
pub async fn run(mut job: Job<'_>) -> Result<Ended, Failure> {
    let (batches_tx, batches_rx) = mpsc::channel::<Result<Batch, Failure>>(2);
    let (verified_tx, verified_rx) = mpsc::channel::<Verified>(2);
    let (verifier, threads) = spawn_verifier(batches_rx, verified_tx, Arc::clone(&job.engine))?;

    let policy_key = job.engine.policy().key();
    let tally = std::mem::take(&mut job.tally);
    let reader = read(&job, batches_tx, threads == 1);
    let (job, policy_key) = (&job, policy_key.as_str());
    // `move`: when the writer stops (on an error too) its receiver is dropped, which stops
    // the verifier, whose receiver then stops the reader. Borrowing it would deadlock them.
    let writer = async move {
        let mut tally = tally;
        let mut rows_done = job.rows_before;
        let mut last = job.last_before.clone();
        let mut verified_rx = verified_rx;
        let mut stop = job.stop.clone();
        loop {
            // A stop request wins over a batch that is ready: that batch is not committed.
            let batch = tokio::select! {
                biased;
                _ = stop.wait_for(|stop| *stop) => return Ok((tally, rows_done, last, true, None)),
                batch = verified_rx.recv() => batch,
            };
            let Some(batch) = batch else { break };
            let none_found = tally.raw_output_files.found == 0 && batch.lookups.found == 0;
            if job.files_needed && none_found && batch.lookups.total() > 0 {
                return Ok((tally, rows_done, last, false, Some(batch.lookups)));
            }
            let verdicts: Vec<(Option<&str>, &groundcheck_core::Verdict)> = batch
                .runs
                .iter()
                .flat_map(|r| r.invocations.iter().map(move |v| (r.run_id.as_deref(), v)))
                .collect();
            count(&mut tally, &batch)?;
            rows_done += verdicts.len() as i64;
            last = batch.last.clone().or(last);
            if let (Some(progress), Some(key)) = (&job.write, &batch.last) {
                let checkpoint = Checkpoint { last: key.clone(), rows_done, done: false, scope: job.scope };
                job.store
                    .write_job_batch(
                        policy_key,
                        env!("CARGO_PKG_VERSION"),
                        &verdicts,
                        progress,
                        &checkpoint,
                        &tally.save(),
                    )
                    .await
                    .map_err(database::failure)?;
            }
            (job.on_batch)(batch.keys, verdicts.len() as u64);
            if let Some(otel) = job.otel {
                otel.borrow_mut().runs(&batch.runs);
            }
        }
        Ok::<_, Failure>((tally, rows_done, last, false, None))
    };
    let (read_result, write_result) = tokio::join!(reader, writer);
    // The verifier ends once both channels are closed.
    let verifier_result = verifier.join();
    let (tally, rows_done, last, writer_stopped, no_file) = write_result?;
    let read_everything = read_result?;
    verifier_result.map_err(|_| Failure::input("verification thread: panicked (a bug in groundcheck)"))??;
    if no_file.is_some() {
        return Ok(Ended { tally, rows_done, interrupted: false, no_file });
    }
    let interrupted = writer_stopped || !read_everything;
    // Done only once every stage has ended well: a reader that failed also closes the
    // writer's channel, and must not look like the end of the job.
    if let (Some(progress), Some(last), false) = (&job.write, last, interrupted) {
        let checkpoint = Checkpoint { last, rows_done, done: true, scope: job.scope };
        job.store
            .write_job_batch(policy_key, env!("CARGO_PKG_VERSION"), &[], progress, &checkpoint, &tally.save())
            .await
            .map_err(database::failure)?;
    }
    Ok(Ended { tally, rows_done, interrupted, no_file: None })
}

/// Counts the verdicts of `batch` into `tally` (and spools their changes).
fn count(tally: &mut Tally, batch: &Verified) -> Result<(), Failure> {
    tally.raw_output_files.merge(&batch.lookups);
    for run in &batch.runs {
        tally.runs += 1;
        for v in &run.invocations {
            let layer = batch.layers.get(&v.id).and_then(Option::as_deref);
            let before = batch.previous.get(&v.id).copied();
            tally.add(run.run_id.as_deref(), v, layer, before).map_err(|e| {
                let dir = std::env::temp_dir();
                Failure::input(format!(
                    "{}: cannot spool the changes to a temporary file: {e}",
                    dir.display()
                ))
            })?;
        }
    }
    Ok(())
}

/// Reads the job's runs in order and sends them in batches of about `batch_rows` rows, until
/// the last run or a stop request. `Ok(true)`: every run was sent.
///
/// Runs are read a list at a time, two queries per list ([`Store::read_keys`]): per run, the
/// round trips cost more than the rows. A list holds about as many runs as fill the batch,
/// judged by the runs read so far, so memory stays within about two batches.
async fn read(
    job: &Job<'_>,
    tx: mpsc::Sender<Result<Batch, Failure>>,
    convert: bool,
) -> Result<bool, Failure> {
    let mut batch = Batch::new(convert);
    let (mut keys, mut keys_read, mut rows_read) = (job.keys.as_slice(), 0usize, 0usize);
    while !keys.is_empty() {
        if *job.stop.borrow() {
            return Ok(false); // the writer commits nothing more either
        }
        let wanted = job.batch_rows.saturating_sub(batch.rows).max(1);
        let n = match keys_read {
            0 => 1,
            _ => (wanted * keys_read).div_ceil(rows_read.max(1)),
        };
        let (list, rest) = keys.split_at(n.clamp(1, MAX_KEYS).min(keys.len()));
        keys = rest;
        // Two connections at once: the stored outcomes are read while the rows are decoded.
        let read = async {
            let (rows, previous) = tokio::join!(
                job.store.read_keys(list, &job.window),
                job.store.read_keys_outcomes(&job.baseline, list)
            );
            Ok::<_, groundcheck_store::StoreError>((rows?, previous?))
        };
        let (rows, previous) = match read.await {
            Ok(found) => found,
            Err(e) => {
                let failure = database::failure(e);
                let _ = tx.send(Err(Failure::input(failure.message.clone()))).await;
                return Err(failure);
            }
        };
        let mut previous: HashMap<i64, Outcome> =
            previous.into_iter().map(|s| (s.id, Outcome { status: s.status, reason: s.reason })).collect();
        keys_read += list.len();
        for (key, mut rows) in list.iter().zip(rows) {
            rows_read += rows.len();
            if !job.tools.is_empty() {
                rows.retain(|r| job.tools.contains(&r.columns.tool_name));
            }
            batch.rows += rows.len();
            // A list may end in the next batch: each batch takes the stored verdicts of its rows.
            batch.previous.extend(rows.iter().filter_map(|r| previous.remove_entry(&r.columns.id)));
            batch.layers.extend(rows.iter().map(|row| (row.columns.id, row.columns.retrieval_layer.clone())));
            batch.runs.push(rows);
            batch.keys += 1;
            batch.last = Some(key.clone());
            if batch.rows >= job.batch_rows {
                let full = std::mem::replace(&mut batch, Batch::new(convert));
                if tx.send(Ok(full)).await.is_err() {
                    return Ok(false); // the writer stopped; its error is the one reported
                }
            }
        }
    }
    if batch.keys > 0 && tx.send(Ok(batch)).await.is_err() {
        return Ok(false);
    }
    Ok(true)
}

type VerifierHandle = std::thread::JoinHandle<Result<(), Failure>>;

/// The verifier thread: batches in, verdicts out, each batch on the engine's threads (their
/// count is returned with the handle). One engine for the whole job: its compiled paths serve
/// every batch.
fn spawn_verifier(
    mut rx: mpsc::Receiver<Result<Batch, Failure>>,
    tx: mpsc::Sender<Verified>,
    engine: Arc<Engine>,
) -> Result<(VerifierHandle, usize), Failure> {
    let pool = engine.threads().pool().map_err(|e| match e {
        HostError::Threads(e) => {
            Failure::input(format!("--jobs: cannot start the verification threads: {e}"))
        }
        other => other.into(),
    })?;
    let threads = pool.current_num_threads();
    let handle = std::thread::spawn(move || {
        while let Some(batch) = rx.blocking_recv() {
            let Batch { runs, layers, previous, keys, last, .. } = batch?;
            // Files are read there, in parallel, one batch at a time: memory stays bounded.
            let verified = engine.threads().install(|| engine.verify_runs(&mut runs.into_core()))??;
            let verified = Verified {
                runs: verified.report.runs,
                lookups: verified.lookups.counts,
                layers,
                previous,
                keys,
                last,
            };
            if tx.blocking_send(verified).is_err() {
                break;
            }
        }
        Ok(())
    });
    Ok((handle, threads))
}
