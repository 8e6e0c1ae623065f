//! Writing reports in the formats of SPEC §4: `json`, `jsonl` and the `human` table.

mod human;

use std::io::{self, Write};

use groundcheck_core::{Report, Verdict};
use serde::Serialize;

use crate::args::Format;

/// Writes `report` to `out` in `format`.
pub fn write_report(report: &Report, format: Format, color: bool, out: &mut dyn Write) -> io::Result<()> {
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
