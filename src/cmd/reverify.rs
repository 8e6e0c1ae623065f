//! `groundcheck reverify`: arguments, job identity, resume, progress and the report.

use std::io::IsTerminal;
use std::time::Instant;

use groundcheck_core::Policy;
use groundcheck_store::{to_stored, JobProgress, RunKey, Window};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::args::Format;
use crate::database;
use crate::failure::Failure;
use crate::output::Output;
use crate::reverify::pipeline::{self, Job};
use crate::reverify::shard::{fnv1a, Shard};
use crate::reverify::tally::{Spool, Tally};

pub struct ReverifyArgs<'a> {
    pub url: &'a str,
    pub policy: Policy,
    pub format: Format,
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
    pub tools: Vec<String>,
    pub runs: Vec<String>,
    pub shard: Option<&'a str>,
    pub jobs: Option<usize>,
    pub write: bool,
    pub resume: bool,
    pub batch_rows: usize,
}

pub async fn reverify(args: ReverifyArgs<'_>, out: &mut Output) -> Result<u8, Failure> {
    if args.resume && !args.write {
        return Err(Failure::input("--resume needs --write: the checkpoint is stored with the verdicts"));
    }
    if args.jobs == Some(0) || args.batch_rows == 0 {
        return Err(Failure::input("--jobs and --batch-rows must be at least 1"));
    }
    let shard = args.shard.map(Shard::parse).transpose().map_err(Failure::input)?.unwrap_or(Shard::ALL);
    let stored = |flag: &str, t: Option<&str>| {
        t.map(|t| to_stored(t).map_err(|e| Failure::input(format!("--{flag}: {e}")))).transpose()
    };
    let window = Window { since: stored("since", args.since)?, until: stored("until", args.until)? };

    // The job is named by everything that selects its rows and decides its verdicts.
    let mut tools = args.tools.clone();
    tools.sort();
    let mut runs = args.runs.clone();
    runs.sort();
    let arguments = format!(
        "policy={};since={};until={};tools={};runs={};shard={shard}",
        args.policy.key(),
        window.since.as_deref().unwrap_or(""),
        window.until.as_deref().unwrap_or(""),
        tools.join(","),
        runs.join(","),
    );
    let job_id = format!("{:016x}", fnv1a(arguments.bytes()));

    let store =
        if args.write { database::open(args.url).await? } else { database::open_read_only(args.url).await? };
    let mut keys: Vec<RunKey> = store.list_keys(&window).await.map_err(database::failure)?;
    keys.retain(|k| shard.owns(k) && (runs.is_empty() || matches!(k, RunKey::Run(id) if runs.contains(id))));
    let mut rows_before = 0;
    if args.resume {
        if let Some(checkpoint) = store.read_checkpoint(&job_id).await.map_err(database::failure)? {
            rows_before = checkpoint.rows_done;
            if checkpoint.done {
                keys.clear();
            } else {
                keys.retain(|k| *k > checkpoint.last);
            }
        }
    }

    let bar = progress_bar(keys.len() as u64);
    let rows_seen = std::cell::Cell::new(0u64);
    let started = Instant::now();
    let on_batch = |runs: u64, rows: u64| {
        rows_seen.set(rows_seen.get() + rows);
        let rate = rows_seen.get() as f64 / started.elapsed().as_secs_f64().max(1e-3);
        bar.inc(runs);
        bar.set_message(format!("{} rows, {rate:.0} rows/s", rows_seen.get()));
    };
    let changes = match args.format {
        Format::Human => None,
        Format::Json => Some(Spool::new(true)),
        Format::Jsonl => Some(Spool::new(false)),
    };
    let changes =
        changes.transpose().map_err(|e| Failure::input(format!("groundcheck: cannot spool changes: {e}")))?;
    let job = Job {
        store: &store,
        keys,
        window,
        tools,
        policy: args.policy,
        batch_rows: args.batch_rows,
        jobs: args.jobs,
        write: args.write.then_some(JobProgress { job: &job_id, arguments: &arguments }),
        rows_before,
        on_batch: &on_batch,
        changes,
    };
    let result = pipeline::run(job).await;
    bar.finish_and_clear();
    store.close().await;
    let mut tally = result?;
    let spool = tally.changes.take().map(Spool::finish).transpose();
    let spool =
        spool.map_err(|e| Failure::input(format!("groundcheck: cannot read the spooled changes: {e}")))?;
    let seconds = started.elapsed().as_secs_f64();
    let report = Summary {
        schema: "groundcheck.reverify/v1",
        policy: args.policy.key(),
        shard: shard.to_string(),
        written: args.write,
        summary: &tally,
        transitions: tally
            .transitions
            .iter()
            .map(|((from, to), count)| Transition { from: from.clone(), to: to.clone(), count: *count })
            .collect(),
        elapsed_seconds: (seconds * 1000.0).round() / 1000.0,
        rows_per_second: if seconds > 0.0 { (tally.invocations as f64 / seconds).round() } else { 0.0 },
    };
    write_summary(&report, spool, args.format, out);
    Ok(0)
}

fn progress_bar(runs: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(runs);
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {msg}, eta {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

#[derive(Serialize)]
struct Transition {
    from: String,
    to: String,
    count: u64,
}

#[derive(Serialize)]
struct Summary<'a> {
    schema: &'static str,
    policy: String,
    shard: String,
    written: bool,
    summary: &'a Tally,
    transitions: Vec<Transition>,
    elapsed_seconds: f64,
    rows_per_second: f64,
}

fn write_summary(
    report: &Summary<'_>,
    spool: Option<(std::fs::File, u64)>,
    format: Format,
    out: &mut Output,
) {
    match format {
        Format::Json => {
            // The summary object, then the spooled changes as its last member.
            let mut head = serde_json::to_vec_pretty(report).unwrap_or_default();
            head.truncate(head.len().saturating_sub(2)); // "\n}"
            head.extend_from_slice(b",\n  \"changes\": [");
            let count = spool.as_ref().map_or(0, |(_, n)| *n);
            out.head = head;
            out.spool = spool.map(|(file, _)| file);
            out.tail = if count == 0 { b"]\n}\n".to_vec() } else { b"\n  ]\n}\n".to_vec() };
        }
        Format::Jsonl => {
            out.spool = spool.map(|(file, _)| file);
            out.tail = serde_json::to_vec(report).unwrap_or_default();
            out.tail.push(b'\n');
        }
        Format::Human => out.head = human(report).into_bytes(),
    }
}

fn human(report: &Summary<'_>) -> String {
    use std::fmt::Write;
    let t = report.summary;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "reverify ({}, shard {}{}): {} invocations in {} runs, {} rows/s",
        report.policy,
        report.shard,
        if report.written { ", written" } else { ", nothing written" },
        t.invocations,
        t.runs,
        report.rows_per_second
    );
    let _ = writeln!(
        s,
        "  {} supported, {} unsupported, {} no_evidence (no evidence found by this tool); {} claim mismatches",
        t.status.supported, t.status.unsupported, t.status.no_evidence, t.claim_mismatches
    );
    let _ = writeln!(s, "\nby reason:");
    for (reason, n) in &t.by_reason {
        let _ = writeln!(s, "  {reason:<22} {n}");
    }
    for (title, table) in [("by tool", &t.by_tool), ("by retrieval_layer", &t.by_retrieval_layer)] {
        let width = table.keys().map(|k| k.chars().count()).max().unwrap_or(0).max(4);
        let _ = writeln!(s, "\n{title}:");
        let _ =
            writeln!(s, "  {:<width$}  {:>9}  {:>11}  {:>11}", "", "supported", "unsupported", "no_evidence");
        for (name, c) in table {
            let _ = writeln!(
                s,
                "  {name:<width$}  {:>9}  {:>11}  {:>11}",
                c.supported, c.unsupported, c.no_evidence
            );
        }
    }
    let _ = writeln!(s, "\nchanges against the verdicts stored before ({}):", report.policy);
    for tr in &report.transitions {
        let marker = if tr.from == tr.to { "" } else { "  *" };
        let _ = writeln!(s, "  {:>11} → {:<11} {}{marker}", tr.from, tr.to, tr.count);
    }
    s
}
