//! The `human` format: a table per run, the refs that failed (and those only a fuzzy match
//! verified) under each row, a summary line.

use std::io::{self, Write};
use std::path::PathBuf;

use groundcheck_core::explain::{self, Finding};
use groundcheck_core::{
    Limits, Nearest, RefOutcome, RefReport, Report, RunReport, Rung, Status, Summary, Verdict, Warning,
};

use super::lookup::lookup;
use crate::visible::visible;
use groundcheck_files::{row_key, Lookups};

/// Texts (quotes) are cut to this many characters; paths never are.
const TEXT_WIDTH: usize = 48;

/// Where the lines under a row start.
const UNDER_ROW: &str = "      ";

/// Writes the table of every run, a grand total when there is more than one, and, for a
/// report read from bundle files, how many files were read.
pub fn write(
    report: &Report,
    color: bool,
    files: Option<usize>,
    lookups: &Lookups,
    limits: &Limits,
    out: &mut dyn Write,
) -> io::Result<()> {
    let paint = Paint { on: color };
    for (i, run) in report.runs.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_run(run, paint, lookups, limits, out)?;
    }
    let files = files.map(|n| count(n, "bundle file", "bundle files"));
    if report.runs.is_empty() {
        let from = files.map(|f| format!(" in {f}")).unwrap_or_default();
        return writeln!(out, "no invocations found{from}");
    }
    if report.runs.len() > 1 {
        let total = total(report.runs.iter().map(|r| &r.summary));
        let runs = count(report.runs.len(), "run", "runs");
        writeln!(out)?;
        writeln!(out, "{}", paint.bold(&format!("total: {runs}, {}", counts(&total))))?;
    }
    if let Some(files) = files {
        writeln!(out, "{files} read")?;
    }
    Ok(())
}

fn write_run(
    run: &RunReport,
    paint: Paint,
    lookups: &Lookups,
    limits: &Limits,
    out: &mut dyn Write,
) -> io::Result<()> {
    let run_name = run.run_id.as_deref().map_or_else(|| "(no run_id)".to_string(), |r| visible(r, false));
    let session = run.session_id.as_deref().map_or_else(|| "(no session)".to_string(), |s| visible(s, false));
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
        if let Some(why) = &verdict.malformed {
            writeln!(out, "{UNDER_ROW}{}", visible(why, paint.on))?;
        }
        for r in verdict.refs.iter().filter(|r| shown(r)) {
            write_ref(r, paint, limits, out)?;
        }
        let key = row_key(run.run_id.as_deref(), run.session_id.as_deref(), verdict.id);
        let tried = lookups.tried(&key).map(PathBuf::as_path);
        for w in &verdict.warnings {
            let mut line = format!("warning {}", warning(*w));
            if let Some(lookup) = lookup(*w, tried) {
                line = format!("{line}: {}", visible(&lookup, false));
            }
            writeln!(out, "{UNDER_ROW}{}", paint.warn(&line))?;
        }
    }
    writeln!(out, "{}", counts(&run.summary))
}

/// `5 invocations: 4 supported, …; 1 claim mismatch`.
fn counts(s: &Summary) -> String {
    format!(
        "{}: {} supported, {} unsupported, {} no_evidence (no evidence found by this tool); {}",
        count(s.invocations, "invocation", "invocations"),
        s.supported,
        s.unsupported,
        s.no_evidence,
        count(s.claim_mismatches, "claim mismatch", "claim mismatches"),
    )
}

/// The counts of several runs added up (the grand total; the HTML page's header).
pub(super) fn total<'a>(summaries: impl Iterator<Item = &'a Summary>) -> Summary {
    summaries.fold(Summary::default(), |t, s| Summary {
        invocations: t.invocations + s.invocations,
        supported: t.supported + s.supported,
        unsupported: t.unsupported + s.unsupported,
        no_evidence: t.no_evidence + s.no_evidence,
        claim_mismatches: t.claim_mismatches + s.claim_mismatches,
    })
}

/// `1 run`, `2 runs`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn row(v: &Verdict) -> [String; 6] {
    let claimed = match (&v.claimed_status, v.claim_agrees) {
        (None, _) => "-".to_string(),
        (Some(c), Some(false)) => format!("{} (mismatch)", visible(c, false)),
        (Some(c), _) => visible(c, false),
    };
    let real = v.refs.iter().filter(|r| r.outcome != RefOutcome::NoEvidenceMarker).count();
    let verified = v.refs.iter().filter(|r| r.outcome == RefOutcome::Verified).count();
    [
        v.id.to_string(),
        visible(&v.tool_name, false),
        v.status.as_str().to_string(),
        v.reason.as_str().to_string(),
        claimed,
        format!("{verified}/{real}"),
    ]
}

/// Whether a ref gets its own line under its row: every ref that did not verify, and those a
/// fuzzy match verified — their quote is not the output's text, so a reader should see how
/// close it came.
fn shown(r: &RefReport) -> bool {
    r.outcome != RefOutcome::Verified || r.rung == Some(Rung::Fuzzy)
}

/// `ref 1  text_not_found  "0.950"  $.data.result[0].value[1]`: the quote (cut to
/// [`TEXT_WIDTH`]), then the path exactly as given, last on the line so that it can be
/// copied whole; under it, what was found about it ([`finding_line`]).
fn write_ref(r: &RefReport, paint: Paint, limits: &Limits, out: &mut dyn Write) -> io::Result<()> {
    let text = r.text.as_deref().map_or("(no text)".to_string(), |t| quoted(t, paint));
    let path = r.raw_path.as_deref().map_or("(no raw_path)".to_string(), |p| visible(p, paint.on));
    let hint = match (r.in_preview, r.score) {
        (Some(in_preview), _) => format!(" ({})", explain::preview(in_preview)),
        (None, Some(score)) => format!(" (fuzzy, score {score})"),
        (None, None) => String::new(),
    };
    let head = format!("ref {}  ", r.index);
    writeln!(out, "{UNDER_ROW}{head}{}{hint}  {text}  {path}", r.outcome.as_str())?;
    // Aligned under the outcome, as `resolve`'s message is.
    let under = format!("{UNDER_ROW}{}", " ".repeat(head.chars().count()));
    for line in explain::findings(r).iter().filter_map(|f| finding_line(f, paint, limits)) {
        writeln!(out, "{under}{line}")?;
    }
    Ok(())
}

/// One finding about a failed ref, in the core's words laid out as the table does: for a
/// text or path not found, the lines that tell a mis-pointed ref (`found elsewhere  PATH`),
/// a misquote (a near miss with a high score) and an invention (neither) apart, the first
/// deciding which; then why a path was refused, the limit hit, or why a ref is malformed.
/// Paths come last on their line, so they can be copied whole. `None` for what the ref's
/// own line already says (whether the preview holds the text).
fn finding_line(finding: &Finding<'_>, paint: Paint, limits: &Limits) -> Option<String> {
    Some(match *finding {
        Finding::Elsewhere(at) => format!("{}  {}", explain::ELSEWHERE, visible(at, paint.on)),
        Finding::Nearest(nearest) => nearest_line(nearest, paint),
        // Every character is there: only the digit rule or the policy kept it out.
        Finding::AllThere => format!("({})", explain::ALL_THERE),
        Finding::NoRawOutput(_) => return None,
        Finding::PathError(error) => error.to_string(),
        Finding::Malformed(why) => visible(why, paint.on),
        words => words.words(limits)?.into_owned(),
    })
}

/// `nearest 0.944  "connection refused by pee"  $['logs'][0]['message']`: the score, the
/// closest text (normalised, as it was compared) and the leaf it is in.
fn nearest_line(nearest: &Nearest, paint: Paint) -> String {
    let path = visible(&nearest.path, paint.on);
    format!("{} {}  {}  {path}", explain::NEAREST, nearest.score, quoted(&nearest.text, paint))
}

/// A text between double quotes, cut to [`TEXT_WIDTH`], hidden characters made visible.
fn quoted(text: &str, paint: Paint) -> String {
    format!("\"{}\"", visible(&clip(text), paint.on))
}

/// A warning's name and what it means.
fn warning(w: Warning) -> String {
    format!("{}: {}", w.as_str(), explain::warning(w))
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

/// A quote cut to [`TEXT_WIDTH`] characters, `…` marking the cut.
fn clip(s: &str) -> String {
    if s.chars().count() <= TEXT_WIDTH {
        s.to_string()
    } else {
        let mut clipped: String = s.chars().take(TEXT_WIDTH - 1).collect();
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

    fn warn(self, s: &str) -> String {
        self.wrap("33", s)
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
