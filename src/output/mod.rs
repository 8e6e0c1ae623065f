//! Writing reports: `json` (the `groundcheck.report/v1` object), `jsonl` (one invocation a
//! line), the `human` table and the `html` evidence page.

mod html;
mod human;
mod lookup;

use std::io::{self, IsTerminal, Write};

use groundcheck_core::{Policy, Report, Run, Status, Verdict};
use serde::Serialize;

use crate::args::{FailOn, Format};
use crate::failure::{say, Failure};
use groundcheck_files::Lookups;

/// What a command prints, held back until it has succeeded: a head, an optional spooled
/// middle (large listings live in a temporary file, not in memory), a tail, and notes for
/// stderr (things a person should know that are not part of the output, such as folders
/// that were not read). A failing command prints none of it, only its one line.
#[derive(Debug, Default)]
pub struct Output {
    pub head: Vec<u8>,
    pub spool: Option<std::fs::File>,
    pub tail: Vec<u8>,
    pub notes: Vec<String>,
}

impl Output {
    /// Writes the output to `w`, then the notes to stderr, one a line, so they come after the
    /// output on a terminal and never mix into what a pipeline reads.
    pub fn write_to(self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&self.head)?;
        if let Some(mut file) = self.spool {
            io::copy(&mut io::BufReader::new(&mut file), w)?;
        }
        w.write_all(&self.tail)?;
        w.flush()?;
        self.notes.iter().for_each(|note| say(note));
        Ok(())
    }
}

/// What a report was made from, for the formats that show more than the report: the runs
/// (their raw outputs, for the `html` page), the policy they were checked under, for
/// bundle files how many were read (the `human` summary says so), and the raw-output files
/// looked up (a row that found none names the path tried).
pub struct Made<'a> {
    pub runs: &'a [Run],
    pub policy: &'a Policy,
    pub files: Option<usize>,
    pub lookups: &'a Lookups,
}

/// Writes `report` to `out` in `format`; `human` is coloured when stdout is a terminal and
/// `NO_COLOR` is unset.
pub fn write_report(
    report: &Report,
    format: Format,
    made: &Made<'_>,
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let color =
        format == Format::Human && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    write_format(report, format, color, made, out)
        .map_err(|e| Failure::input(format!("cannot format the report: {e}")))
}

/// The exit code `--fail-on` asks for: 1 when its condition holds anywhere in the report.
pub fn exit_code(report: &Report, fail_on: FailOn) -> u8 {
    let verdicts = || report.runs.iter().flat_map(|r| &r.invocations);
    let met = match fail_on {
        FailOn::Never => false,
        FailOn::Unsupported => verdicts().any(|v| v.status == Status::Unsupported),
        FailOn::ClaimMismatch => verdicts().any(Verdict::is_claim_mismatch),
    };
    u8::from(met)
}

fn write_format(
    report: &Report,
    format: Format,
    color: bool,
    made: &Made<'_>,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, report)?;
            writeln!(out)
        }
        Format::Jsonl => {
            for run in &report.runs {
                for verdict in &run.invocations {
                    let line = Line {
                        run_id: run.run_id.as_deref(),
                        session_id: run.session_id.as_deref(),
                        verdict,
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                    writeln!(out)?;
                }
            }
            Ok(())
        }
        Format::Human => human::write(report, color, made.files, made.lookups, &made.policy.limits(), out),
        Format::Html => {
            html::write(report, made.runs, made.policy, made.lookups, out);
            Ok(())
        }
    }
}

/// A `jsonl` line: the verdict with its run's id and session first, so lines can be grouped
/// by run — and, for rows without a `run_id`, by session — without the rest of the report.
#[derive(Serialize)]
struct Line<'a> {
    run_id: Option<&'a str>,
    session_id: Option<&'a str>,
    #[serde(flatten)]
    verdict: &'a Verdict,
}
