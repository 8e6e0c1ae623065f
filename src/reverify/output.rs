//! Writing a job's summary: `json` (the summary with every change as its last member),
//! `jsonl` (one change a line, then the summary) or `human` ([`crate::reverify::human`]).

use std::io::{self, BufWriter, Seek, Write};

use serde::Serialize;

use crate::output::Output;
use crate::reverify::spool::{Spool, Spooled};
use crate::reverify::summary::Summary;

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
