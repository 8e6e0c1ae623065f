//! The `human` format: a table per run, the refs that failed under each row, a summary line.

use std::io::{self, Write};

use groundcheck_core::{RefOutcome, RefReport, Report, RunReport, Status, Verdict};

const TEXT_WIDTH: usize = 48;

pub fn write(report: &Report, color: bool, out: &mut dyn Write) -> io::Result<()> {
    let paint = Paint { on: color };
    for (i, run) in report.runs.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_run(run, paint, out)?;
    }
    if report.runs.is_empty() {
        writeln!(out, "no invocations found")?;
    }
    Ok(())
}

fn write_run(run: &RunReport, paint: Paint, out: &mut dyn Write) -> io::Result<()> {
    let run_name = run.run_id.as_deref().unwrap_or("(no run_id)");
    let session = run.session_id.as_deref().unwrap_or("(no session)");
    writeln!(out, "{}  session {session}", paint.bold(&format!("run {run_name}")))?;

    let rows: Vec<[String; 6]> = run.invocations.iter().map(row).collect();
    let header = ["ID", "TOOL", "STATUS", "REASON", "CLAIMED", "REFS"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    write_cells(&header, &widths, |_, s| paint.dim(s), out)?;
    for (verdict, cells) in run.invocations.iter().zip(&rows) {
        write_cells(
            cells,
            &widths,
            |col, s| if col == 2 { paint.status(verdict.status, s) } else { s.to_string() },
            out,
        )?;
        for r in verdict.refs.iter().filter(|r| r.outcome != RefOutcome::Verified) {
            writeln!(out, "      {}", ref_line(r))?;
        }
    }
    let s = &run.summary;
    writeln!(
        out,
        "{} invocations: {} supported, {} unsupported, {} no_evidence (no evidence found by this tool); {} claim mismatches",
        s.invocations, s.supported, s.unsupported, s.no_evidence, s.claim_mismatches
    )
}

fn row(v: &Verdict) -> [String; 6] {
    let claimed = match (&v.claimed_status, v.claim_agrees) {
        (None, _) => "-".to_string(),
        (Some(c), Some(false)) => format!("{c} (mismatch)"),
        (Some(c), _) => c.clone(),
    };
    let real = v.refs.iter().filter(|r| r.outcome != RefOutcome::NoEvidenceMarker).count();
    let verified = v.refs.iter().filter(|r| r.outcome == RefOutcome::Verified).count();
    [
        v.id.to_string(),
        v.tool_name.clone(),
        v.status.as_str().to_string(),
        v.reason.as_str().to_string(),
        claimed,
        format!("{verified}/{real}"),
    ]
}

fn ref_line(r: &RefReport) -> String {
    // Paths are echoed as given, so they may hold line breaks; escape them like texts.
    let path = r
        .raw_path
        .as_deref()
        .map_or("(no raw_path)".to_string(), |p| clip(&p.escape_debug().to_string(), TEXT_WIDTH));
    let text = r.text.as_deref().map_or("(no text)".to_string(), |t| format!("{:?}", clip(t, TEXT_WIDTH)));
    let hint = match r.in_preview {
        Some(true) => " (found in the preview)",
        Some(false) => " (not in the preview either)",
        None => "",
    };
    format!("ref {}  {}{hint}  {path}  {text}", r.index, r.outcome.as_str())
}

fn write_cells(
    cells: &[String; 6],
    widths: &[usize; 6],
    style: impl Fn(usize, &str) -> String,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut line = String::from("  ");
    for (col, (cell, width)) in cells.iter().zip(widths).enumerate() {
        let pad = width.saturating_sub(cell.chars().count());
        line.push_str(&style(col, cell));
        if col + 1 < cells.len() {
            line.push_str(&" ".repeat(pad + 2));
        }
    }
    writeln!(out, "{line}")
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut clipped: String = s.chars().take(max - 1).collect();
        clipped.push('…');
        clipped
    }
}

#[derive(Clone, Copy)]
struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }

    fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }

    fn status(self, status: Status, s: &str) -> String {
        let code = match status {
            Status::Supported => "32",
            Status::Unsupported => "31",
            Status::NoEvidence => "33",
        };
        self.wrap(code, s)
    }
}
