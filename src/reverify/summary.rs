//! The `groundcheck.reverify/v1` summary a job ends with, built as one serde value and
//! written as `json` (the summary with every change as its last member), `jsonl` (one change
//! a line, then the summary) or `human` ([`crate::reverify::human`]).

use std::io::{self, BufWriter, Seek, Write};

use serde::Serialize;

use crate::output::Output;
use crate::reverify::spool::{Spool, Spooled};
use crate::reverify::tally::Tally;

/// How a job's summary is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The summary as tables, for people.
    Human,
    /// One JSON object with every change last.
    Json,
    /// One change a line, then the summary on one line.
    Jsonl,
}

/// A `from → to` count of the transition table.
#[derive(Debug, Serialize)]
pub struct Transition {
    /// The stored status (`new`: none), the status now, and how many invocations went so.
    pub from: String,
    pub to: String,
    pub count: u64,
}

/// What a resumed job had stored before this run (whose totals the summary includes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Resumed {
    /// Runs whose verdicts were stored before this run.
    pub runs: u64,
    /// Invocations whose verdicts were stored before this run.
    pub invocations: u64,
    /// The job had finished before: this run verified nothing.
    pub already_complete: bool,
}

/// The summary, in the schema's member order. Members that only some jobs have (`compared_with`,
/// `resumed`) are left out otherwise, so every other job's output is unchanged.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    /// `groundcheck.reverify/v1`.
    pub schema: &'static str,
    /// The job's policy key.
    pub policy: String,
    /// The policy whose stored verdicts the changes are against, when `--compare-with` named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// `K/N` (`1/1` without `--shard`).
    pub shard: String,
    /// Whether verdicts were stored (`--write`).
    pub written: bool,
    /// What was stored before, when `--resume` continued a job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<Resumed>,
    /// The whole job's totals (a resumed job's include what was stored before).
    pub summary: &'a Tally,
    /// The whole job's transition table.
    pub transitions: Vec<Transition>,
    /// This run's wall time.
    pub elapsed_seconds: f64,
    /// Invocations verified by this run, per second.
    pub rows_per_second: f64,
}

impl Summary<'_> {
    /// The policy the changes are against: `--compare-with`, else the job's own.
    pub fn baseline(&self) -> &str {
        self.compared_with.as_deref().unwrap_or(&self.policy)
    }

    /// The transition table of `tally`, in its order.
    pub fn transitions(tally: &Tally) -> Vec<Transition> {
        let rows = tally.transitions.iter();
        rows.map(|((from, to), count)| Transition { from: from.clone(), to: to.clone(), count: *count })
            .collect()
    }
}

/// The summary with the changes as its last member.
#[derive(Serialize)]
struct WithChanges<'a> {
    #[serde(flatten)]
    summary: &'a Summary<'a>,
    changes: &'a Spooled,
}

/// Puts the summary (and the spooled changes) into `out` in `format`. The `json` output is
/// serialized into a temporary file, so memory does not grow with the number of changes.
pub fn write(
    summary: &Summary<'_>,
    changes: Option<Spooled>,
    format: Format,
    out: &mut Output,
) -> io::Result<()> {
    match format {
        Format::Json => {
            let changes = match changes {
                Some(changes) => changes,
                None => Spool::new()?.finish()?,
            };
            let mut file = BufWriter::new(tempfile::tempfile()?);
            serde_json::to_writer_pretty(&mut file, &WithChanges { summary, changes: &changes })?;
            file.write_all(b"\n")?;
            let mut file = file.into_inner().map_err(|e| e.into_error())?;
            file.rewind()?;
            out.spool = Some(file);
        }
        Format::Jsonl => {
            out.spool = changes.map(Spooled::into_lines);
            out.tail = serde_json::to_vec(summary)?;
            out.tail.push(b'\n');
        }
        Format::Human => out.head = crate::reverify::human::render(summary).into_bytes(),
    }
    Ok(())
}
