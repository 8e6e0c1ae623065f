//! `groundcheck reverify`: batch re-verification of stored runs, as one wing.
//!
//! [`reverify`] checks the request, names the job ([`job`]), finds where it starts (fresh, or
//! past its checkpoint with its stored totals), runs the streaming [`pipeline`] with a
//! [`progress`] bar while Ctrl-C is caught ([`interrupt`]), and ends with the [`summary`]
//! (rendered for people by [`human`]): the whole job's [`tally`] and the changes against
//! the verdicts stored before, spooled to disk ([`spool`]). `--shard` is [`shard`].

mod change;
mod human;
mod interrupt;
mod job;
mod output;
mod pipeline;
mod progress;
mod shard;
mod spool;
mod summary;
mod tally;

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use groundcheck_core::Policy;
use groundcheck_host::Engine;
use groundcheck_store::{redact, to_stored, JobProgress, RunKey, Store, Window};
use indicatif::ProgressBar;
use tokio::sync::watch;

pub use crate::reverify::output::Format;

use crate::database;
use crate::failure::{say, Failure};
use crate::otel::Sink;
use crate::output::Output;
use crate::reverify::human::count;
use crate::reverify::interrupt::{resume_command, Interrupts};
use crate::reverify::job::{Identity, Start};
use crate::reverify::pipeline::{Ended, Job};
use crate::reverify::progress::Progress;
use crate::reverify::shard::Shard;
use crate::reverify::spool::Spool;
use crate::reverify::summary::Summary;
use groundcheck_files::{LookupCounts, Template};

/// What to re-verify and how, as the command line gave it.
pub struct Request<'a> {
    /// The database, as given (its password is never printed).
    pub url: &'a str,
    /// The policy the verdicts are decided and stored under.
    pub policy: Policy,
    /// A stored policy key to compare with instead of the job's own policy.
    pub compare_with: Option<&'a str>,
    /// Where rows without a raw output of their own find one (`--raw-outputs`).
    pub raw_outputs: Option<Template>,
    /// How the summary is printed.
    pub format: Format,
    /// Rows created at or after / before these RFC 3339 times.
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
    /// Only rows of these tools, only these runs (empty: all).
    pub tools: Vec<String>,
    pub runs: Vec<String>,
    /// `K/N`: this worker's share of the runs.
    pub shard: Option<&'a str>,
    /// Verification threads (`None`: one per core).
    pub jobs: Option<usize>,
    /// Store verdicts and checkpoints; continue from the checkpoint.
    pub write: bool,
    pub resume: bool,
    /// `--write-without-raw-outputs`: write even when the template finds no file at all.
    pub write_without_raw_outputs: bool,
    /// Rows per batch: bounds memory and the work a crash loses.
    pub batch_rows: usize,
    /// The command line as given, from which an interrupted job's resume command is made.
    pub command_line: Vec<String>,
    /// `--otel`, `--otlp-endpoint`: each committed batch's verdicts as OpenTelemetry events.
    pub otel: Option<Sink>,
}

/// Runs the job and puts its summary into `out`.
pub async fn reverify(mut request: Request<'_>, out: &mut Output) -> Result<u8, Failure> {
    if request.resume && !request.write {
        return Err(Failure::input("--resume: needs --write: the checkpoint is stored with the verdicts"));
    }
    if request.jobs == Some(0) {
        return Err(Failure::input("--jobs: must be at least 1"));
    }
    if request.batch_rows == 0 {
        return Err(Failure::input("--batch-rows: must be at least 1"));
    }
    let shard = request.shard.map(Shard::parse).transpose().map_err(Failure::input)?.unwrap_or(Shard::ALL);
    let stored = |flag: &str, t: Option<&str>| t.map(|t| window_time(flag, t)).transpose();
    let window = Window { since: stored("since", request.since)?, until: stored("until", request.until)? };
    // Ctrl-C is heard from here on, before anything can wait (a server, a lock): a second one
    // stops at once in every state, and each commit is atomic, so `--resume` stays exact.
    let (stop_tx, stop_rx) = watch::channel(false);
    let bar: Arc<OnceLock<ProgressBar>> = Arc::default();
    let hard_stop = {
        let (bar, said) = (Arc::clone(&bar), stopped_at_once(&request));
        move || {
            if let Some(bar) = bar.get() {
                bar.finish_and_clear();
            }
            say(&said);
        }
    };
    let _interrupts = Interrupts::watch(stop_tx, hard_stop)
        .map_err(|e| Failure::input(format!("SIGINT: cannot catch it: {e}")))?;
    // Without --write nothing is stored: a reader needs no write access to the database.
    let store = if request.write {
        database::open(request.url).await?
    } else {
        database::open_read_only(request.url).await?
    };
    if !request.tools.is_empty() {
        out.notes.extend(unknown_tools(&store, &request.tools).await?);
    }
    if !request.runs.is_empty() {
        out.notes.extend(unknown_runs(&store, &request.runs).await?);
    }
    let otel = request.otel.take().map(RefCell::new);
    let watched = Watched { stop: stop_rx, bar: &bar };
    let result = run(&request, &store, shard, window, otel.as_ref(), watched, out).await;
    // From here the command ends by itself: a Ctrl-C now changes nothing (and one that is
    // already stopping the process is let finish, so only one last line is printed).
    interrupt::ending();
    store.close().await;
    // The events of committed batches are kept when the job was interrupted, too: they are
    // verdicts, and `--resume` does not verify those runs again.
    match (otel.map(RefCell::into_inner), result) {
        (Some(sink), Ok(code)) => sink.finish(out).map(|()| code),
        (Some(sink), Err(failure)) if failure.interrupted => {
            let _ = sink.finish(out);
            Err(failure)
        }
        (_, result) => result,
    }
}

/// `--since` / `--until`: an RFC 3339 time, or a plain date (`2026-11-30`) meaning that
/// day's start in UTC, as the stored `created_at` is UTC; the stored form.
fn window_time(flag: &str, text: &str) -> Result<String, Failure> {
    let b = text.as_bytes();
    let is_date = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    let time = if is_date { format!("{text}T00:00:00Z") } else { text.to_string() };
    to_stored(&time).map_err(|_| {
        Failure::input(format!(
            "--{flag}: {text:?} is not a date-time (expected RFC 3339, e.g. 2026-11-30T10:00:01Z, or a date, \
             2026-11-30, meaning its start in UTC)"
        ))
    })
}

/// The note for the `--tool` values no row has: each is named, with the closest tool names
/// there are (a typo), and the tools there are.
async fn unknown_tools(store: &Store, tools: &[String]) -> Result<Option<String>, Failure> {
    const SHOWN: u32 = 20;
    /// The most tool names read to find the closest ones: a `tool_invocation` has a handful.
    const COMPARED: u32 = 10_000;
    let missing = store.missing_tools(tools).await.map_err(database::failure)?;
    if missing.is_empty() {
        return Ok(None);
    }
    let all = store.tool_names(COMPARED).await.map_err(database::failure)?;
    let near: Vec<String> = missing.iter().flat_map(|t| closest(t, &all)).collect();
    let names: Vec<String> = all.into_iter().take(SHOWN as usize + 1).collect();
    let flags: Vec<String> = missing.iter().map(|t| format!("--tool {t}")).collect();
    let there = match names.len() {
        0 => "tool_invocation has no rows".to_string(),
        n if n > SHOWN as usize => format!("its tools include {}, …", names[..SHOWN as usize].join(", ")),
        _ => format!("its tools: {}", names.join(", ")),
    };
    let which = if missing.len() == 1 { "this tool" } else { "these tools" };
    let mean = match near.is_empty() {
        true => String::new(),
        false => format!("did you mean {}? ", near.join(", ")),
    };
    Ok(Some(format!(
        "{}: no row of tool_invocation has {which}, so none is verified for it ({mean}{there})",
        flags.join(", ")
    )))
}

/// The note for the `--run` values no run has: each is named, with the closest run ids.
async fn unknown_runs(store: &Store, runs: &[String]) -> Result<Option<String>, Failure> {
    let keys = store.list_keys(&Window::default()).await.map_err(database::failure)?;
    let ids: Vec<String> = keys
        .into_iter()
        .filter_map(|k| match k {
            RunKey::Run(id) => Some(id),
            RunKey::Session(_) => None,
        })
        .collect();
    let missing: Vec<&String> = runs.iter().filter(|r| !ids.contains(r)).collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let flags: Vec<String> = missing.iter().map(|r| format!("--run {r}")).collect();
    let near: Vec<String> = missing.iter().flat_map(|r| closest(r, &ids)).collect();
    let which = if missing.len() == 1 { "this run_id" } else { "these run_ids" };
    let there = match (ids.len(), near.is_empty()) {
        (0, _) => " (tool_invocation has no runs)".to_string(),
        (_, false) => format!(" (did you mean {}?)", near.join(", ")),
        (_, true) => String::new(),
    };
    Ok(Some(format!(
        "{}: no row of tool_invocation has {which}, so none is verified{there}",
        flags.join(", ")
    )))
}

/// The names of `among` closest to `given` by edit distance (at most three, each within a
/// third of its length, at least two edits): what a typo most likely meant.
fn closest(given: &str, among: &[String]) -> Vec<String> {
    let limit = (given.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &String)> =
        among.iter().map(|name| (edit_distance(given, name), name)).filter(|(d, _)| *d <= limit).collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, name)| name.clone()).collect()
}

/// Levenshtein distance, in characters (short names only: a row of the table at a time).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// What the job hears of Ctrl-C: whether to stop, and where to put the progress bar that a
/// second Ctrl-C clears.
struct Watched<'a> {
    stop: watch::Receiver<bool>,
    bar: &'a OnceLock<ProgressBar>,
}

async fn run(
    request: &Request<'_>,
    store: &Store,
    shard: Shard,
    window: Window,
    otel: Option<&RefCell<Sink>>,
    watched: Watched<'_>,
    out: &mut Output,
) -> Result<u8, Failure> {
    let policy = request.policy.key();
    let baseline = request.compare_with.unwrap_or(&policy).to_string();
    if let Some(key) = request.compare_with {
        check_stored(store, key).await?;
    }
    let (mut tools, mut runs) = (request.tools.clone(), request.runs.clone());
    tools.sort();
    runs.sort();
    let raw_outputs = request.raw_outputs.as_ref();
    let identity = Identity::new(&policy, &window, &tools, &runs, shard, request.compare_with, raw_outputs);
    let start = job::start(store, &window, shard, &runs, &tools, &policy, &identity, request.resume).await?;
    let Start { keys, runs_in_job, rows_before, last_before, mut tally, resumed, scope, after_finished } =
        start;
    if let Some(rows) = after_finished {
        out.notes.push(format!(
            "{}: the job with these arguments had finished ({}); this run verified the {} with rows \
             not verified under {policy} since",
            store.display_url(),
            count(u64::try_from(rows).unwrap_or(0), "invocation", "invocations"),
            count(runs_in_job, "run", "runs"),
        ));
    }
    if request.format != Format::Human {
        tally.changes =
            Some(Spool::new().map_err(|e| temp_failure("cannot spool the changes to a temporary file", &e))?);
    }

    let progress = Progress::new(keys.len() as u64);
    let _ = watched.bar.set(progress.bar());
    let on_batch = |runs: u64, rows: u64| progress.batch(runs, rows);
    let write = request.write.then_some(JobProgress { job: &identity.id, arguments: &identity.arguments });
    let job = Job {
        store,
        keys,
        window,
        tools,
        engine: Arc::new(Engine::new(request.policy, request.raw_outputs.clone(), request.jobs)),
        files_needed: request.write && request.raw_outputs.is_some() && !request.write_without_raw_outputs,
        baseline: baseline.clone(),
        batch_rows: request.batch_rows,
        write,
        scope,
        rows_before,
        last_before,
        tally,
        on_batch: &on_batch,
        stop: watched.stop,
        otel,
    };
    let started = Instant::now();
    let ended = pipeline::run(job).await;
    progress.clear();
    let mut ended = ended.map_err(|failure| stopped_by(request, failure))?;
    if let Some(refused) = &ended.no_file {
        return Err(no_file_line(request, refused, &ended));
    }
    if ended.interrupted {
        return Err(Failure::interrupted(interrupted_line(request, &ended, runs_in_job)));
    }

    let changes = ended.tally.changes.take().map(Spool::finish).transpose();
    let changes =
        changes.map_err(|e| temp_failure("cannot read back the changes spooled to a temporary file", &e))?;
    let seconds = started.elapsed().as_secs_f64();
    let verified_now = ended.tally.invocations.saturating_sub(resumed.map_or(0, |r| r.invocations));
    let summary = Summary {
        schema: "groundcheck.reverify/v1",
        policy,
        compared_with: request.compare_with.map(str::to_string),
        shard: shard.to_string(),
        written: request.write,
        resumed,
        transitions: Summary::transitions(&ended.tally),
        summary: &ended.tally,
        elapsed_seconds: (seconds * 1000.0).round() / 1000.0,
        rows_per_second: if seconds > 0.0 { (verified_now as f64 / seconds).round() } else { 0.0 },
    };
    // `--otel -`: standard output is the OTLP lines', so the summary is not printed.
    if !otel.is_some_and(|o| o.borrow().takes_stdout()) {
        output::write(&summary, changes, request.format, out)
            .map_err(|e| temp_failure("cannot write the summary to a temporary file", &e))?;
    }
    Ok(0)
}

/// `--compare-with` must name a policy with stored verdicts: against nothing, every
/// invocation would be `new`, which is never what a comparison is for.
async fn check_stored(store: &Store, key: &str) -> Result<(), Failure> {
    if store.policy_is_stored(key).await.map_err(database::failure)? {
        return Ok(());
    }
    let stored = store.stored_policies().await.map_err(database::failure)?;
    let known = match stored.is_empty() {
        true => "none is stored yet".to_string(),
        false => format!("stored: {}", stored.join(", ")),
    };
    Err(Failure::input(format!(
        "--compare-with: no verdicts are stored under {key:?} in {} ({known})",
        store.display_url()
    )))
}

/// What an interrupted job did and how to go on, in one line about its database.
fn interrupted_line(request: &Request<'_>, ended: &Ended, runs_in_job: u64) -> String {
    let url = redact(request.url);
    if !request.write {
        return format!(
            "{url}: interrupted after verifying {} of {}; nothing was written (no --write)",
            ended.tally.runs,
            count(runs_in_job, "run", "runs")
        );
    }
    let rows = u64::try_from(ended.rows_done).unwrap_or(0);
    format!(
        "{url}: interrupted: {} of {} ({}) of this job are committed; resume with: {}",
        ended.tally.runs,
        count(runs_in_job, "run", "runs"),
        count(rows, "invocation", "invocations"),
        resume_command(&request.command_line, request.url)
    )
}

/// The line of a job stopped before writing a batch whose rows needed raw-output files and
/// found none, none having been found before: the template is most likely wrong.
fn no_file_line(request: &Request<'_>, refused: &LookupCounts, ended: &Ended) -> Failure {
    let why = refused.none_found().unwrap_or_default();
    let template = request.raw_outputs.as_ref().map_or("", Template::as_str);
    let before = match ended.tally.invocations {
        0 => "nothing was written".to_string(),
        n => format!(
            "that batch was not written (the {} verified before it, which needed no file, are kept)",
            count(n, "invocation", "invocations")
        ),
    };
    Failure::input(format!(
        "{}: --raw-outputs {template}: {why}; {before}: check the template, or pass \
         --write-without-raw-outputs to store the verdicts anyway",
        redact(request.url)
    ))
}

/// A job that failed on its way (a database that stopped answering, a write refused): with
/// `--write` its committed batches are kept, and the line says how to go on from them.
fn stopped_by(request: &Request<'_>, failure: Failure) -> Failure {
    if !request.write || failure.interrupted {
        return failure;
    }
    Failure::input(format!(
        "{}; the batches committed before it are kept; resume with: {}",
        failure.message,
        resume_command(&request.command_line, request.url)
    ))
}

fn stopped_at_once(request: &Request<'_>) -> String {
    let url = redact(request.url);
    match request.write {
        true => format!(
            "{url}: interrupted again: stopped at once, committed batches are kept; resume with: {}",
            resume_command(&request.command_line, request.url)
        ),
        false => format!("{url}: interrupted again: stopped at once; nothing was written (no --write)"),
    }
}

/// A temporary file that failed, named by its folder.
fn temp_failure(what: &str, err: &std::io::Error) -> Failure {
    Failure::input(format!("{}: {what}: {err}", std::env::temp_dir().display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_names_are_a_typo_away() {
        assert_eq!(edit_distance("query_log", "query_logs"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let names: Vec<String> = ["query_logs", "query_metrics", "kubectl_get"].map(String::from).to_vec();
        assert_eq!(closest("query_log", &names), ["query_logs"]);
        assert_eq!(closest("nosuchtool", &names), Vec::<String>::new());
    }
}
