//! Writing reports in the formats of SPEC §4: `json`, `jsonl` and the `human` table.

mod human;

use std::io::{self, IsTerminal, Write};

use groundcheck_core::{Report, Status, Verdict};
use serde::Serialize;

use crate::args::{FailOn, Format};
use crate::failure::Failure;

/// What a command prints, held back until it has succeeded: a head, an optional spooled
/// middle (large listings live in a temporary file, not in memory), and a tail.
#[derive(Debug, Default)]
pub struct Output {
    pub head: Vec<u8>,
    pub spool: Option<std::fs::File>,
    pub tail: Vec<u8>,
}

impl Output {
    /// Writes everything to `w`.
    pub fn write_to(self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&self.head)?;
        if let Some(mut file) = self.spool {
            io::copy(&mut io::BufReader::new(&mut file), w)?;
        }
        w.write_all(&self.tail)?;
        w.flush()
    }
}

/// Writes `report` to `out` in `format`; `human` is coloured when stdout is a terminal and
/// `NO_COLOR` is unset.
pub fn write_report(report: &Report, format: Format, out: &mut Vec<u8>) -> Result<(), Failure> {
    let color =
        format == Format::Human && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    write_format(report, format, color, out)
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

fn write_format(report: &Report, format: Format, color: bool, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, report)?;
            writeln!(out)
        }
        Format::Jsonl => {
            for run in &report.runs {
                for verdict in &run.invocations {
                    serde_json::to_writer(&mut *out, &Line { run_id: run.run_id.as_deref(), verdict })?;
                    writeln!(out)?;
                }
            }
            Ok(())
        }
        Format::Human => human::write(report, color, out),
    }
}

/// A `jsonl` line: the verdict with its run's id first.
#[derive(Serialize)]
struct Line<'a> {
    run_id: Option<&'a str>,
    #[serde(flatten)]
    verdict: &'a Verdict,
}
