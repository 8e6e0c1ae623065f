//! The `html` format: one self-contained page a person opens from disk to see the evidence
//! chain of a run — each invocation with its verdict, each quote inside the raw output at
//! its path, marked where it matched and where it came closest or was found instead.
//!
//! Tool outputs and claims are hostile: every text from them goes through
//! [`escape::text`], and a Content-Security-Policy `<meta>` allows nothing but the page's own
//! inline style and script, by their SHA-256 hashes (no network, no other script, no
//! images, no forms). The page is a function of the report, the rows and the policy: same
//! input, same bytes.
//!
//! The DOM contract tests and users rely on is documented in docs/evidence-page.md:
//! `article#inv-<id>` with `data-status`, `data-tool`, `data-mismatch`; each ref a
//! `[data-ref="<id>:<index>"]` with `data-outcome`; each highlight a `<mark>` with the ref's
//! `data-ref` and a `data-mark` of `quote`, `leaf`, `nearest` or `elsewhere`.

mod escape;
mod mark;
mod raw;
mod text;

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use groundcheck_core::{
    explain::{self, Finding},
    view::{expanded_document, pretty, raw_document, structured_document, Pretty},
    Invocation, Limits, Policy, RefOutcome, RefReport, Report, Run, RunReport, Rung, Source, Status, Verdict,
};
use sha2::{Digest, Sha256};

use self::escape::text;
use self::mark::{Kind, Mark};
use super::human::total;
use super::lookup::lookup;
use groundcheck_files::{row_key, Lookups};

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The most bytes of invocations one page holds. Past it, a browser takes minutes to draw a
/// page (100,000 invocations made 173 MB), so the invocations that need a person's eyes
/// come first — unsupported ones and claim mismatches, then `no_evidence`, then supported —
/// and what does not fit is counted on the page, run by run, instead of shown.
pub const PAGE_BUDGET: usize = 4 * 1024 * 1024;

/// Writes the page of `report`, whose raw outputs are those of `runs` (the runs it was
/// verified from), checked under `policy`.
pub fn write(report: &Report, runs: &[Run], policy: &Policy, lookups: &Lookups, out: &mut Vec<u8>) {
    let rows: HashMap<(Option<&str>, Option<&str>, i64), &Invocation> = runs
        .iter()
        .flat_map(|run| {
            run.invocations.iter().map(move |i| ((run.run_id.as_deref(), run.session_id.as_deref(), i.id), i))
        })
        .collect();
    let articles = articles_within(report, PAGE_BUDGET, |run, verdict, id| {
        let row = rows.get(&(run.run_id.as_deref(), run.session_id.as_deref(), verdict.id)).copied();
        let tried = lookups.tried(&row_key(run.run_id.as_deref(), run.session_id.as_deref(), verdict.id));
        let mut article = String::new();
        write_invocation(&mut article, id, verdict, row, tried.map(PathBuf::as_path), policy);
        article
    });
    let mut page = String::new();
    head(&mut page);
    let shown = articles.iter().flatten().filter(|a| a.is_some()).count();
    header(&mut page, report, shown);
    page.push_str("<main>\n");
    for (run, articles) in report.runs.iter().zip(articles) {
        write_run(&mut page, run, articles);
    }
    if report.runs.is_empty() {
        page.push_str("<p class=\"none\">No invocations found.</p>\n");
    }
    page.push_str("</main>\n");
    let _ = write!(page, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out.extend_from_slice(page.as_bytes());
}

/// Every invocation's article (by run, in report order), or `None` for one left off the
/// page: articles are written in order of need — unsupported or a claim mismatch, then
/// `no_evidence`, then supported — and kept while their bytes fit in `budget`.
fn articles_within(
    report: &Report,
    budget: usize,
    mut article: impl FnMut(&RunReport, &Verdict, &str) -> String,
) -> Vec<Vec<Option<String>>> {
    // Element ids in report order: an id repeated in another run gets `-2`, `-3`, ….
    let mut seen: HashMap<i64, usize> = HashMap::new();
    let ids: Vec<Vec<String>> = report
        .runs
        .iter()
        .map(|run| {
            run.invocations
                .iter()
                .map(|v| {
                    let n = seen.entry(v.id).or_insert(0);
                    *n += 1;
                    if *n == 1 {
                        format!("inv-{}", v.id)
                    } else {
                        format!("inv-{}-{n}", v.id)
                    }
                })
                .collect()
        })
        .collect();
    let need = |v: &Verdict| match v.status {
        _ if v.is_claim_mismatch() => 0,
        Status::Unsupported => 0,
        Status::NoEvidence => 1,
        Status::Supported => 2,
    };
    let mut order: Vec<(usize, usize)> = report
        .runs
        .iter()
        .enumerate()
        .flat_map(|(r, run)| (0..run.invocations.len()).map(move |i| (r, i)))
        .collect();
    order.sort_by_key(|&(r, i)| need(&report.runs[r].invocations[i]));
    let mut articles: Vec<Vec<Option<String>>> =
        report.runs.iter().map(|run| vec![None; run.invocations.len()]).collect();
    let mut used = 0;
    for (r, i) in order {
        let run = &report.runs[r];
        let written = article(run, &run.invocations[i], &ids[r][i]);
        if used + written.len() <= budget {
            used += written.len();
            articles[r][i] = Some(written);
        }
    }
    articles
}

/// The policy hash of an inline block, as CSP's `'sha256-…'` source names it.
fn hash(code: &str) -> String {
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(code.as_bytes())))
}

fn head(page: &mut String) {
    let csp = format!(
        "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
        hash(STYLE),
        hash(SCRIPT)
    );
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>groundcheck evidence</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    );
}

/// The run header: the counts over every run, the `no_evidence` wording, how many
/// invocations are on the page, the filters.
fn header(page: &mut String, report: &Report, shown: usize) {
    let total = total(report.runs.iter().map(|r| &r.summary));
    let _ = writeln!(
        page,
        "<header>\n<h1>groundcheck evidence</h1>\n<p id=\"totals\" data-runs=\"{runs}\" data-invocations=\"{i}\" \
         data-supported=\"{s}\" data-unsupported=\"{u}\" data-no-evidence=\"{n}\" data-claim-mismatches=\"{m}\">\
         {runs} {run_word} · {i} invocations · <span class=\"status supported\">{s} supported</span> · \
         <span class=\"status unsupported\">{u} unsupported</span> · <span class=\"status no_evidence\">{n} no_evidence</span> · \
         {m} claim {mismatch_word}</p>\n<p class=\"note\">no_evidence means no evidence found by this tool, never that the \
         fault is absent.</p>",
        runs = report.runs.len(),
        run_word = if report.runs.len() == 1 { "run" } else { "runs" },
        i = total.invocations,
        s = total.supported,
        u = total.unsupported,
        n = total.no_evidence,
        m = total.claim_mismatches,
        mismatch_word = if total.claim_mismatches == 1 { "mismatch" } else { "mismatches" },
    );
    if shown < total.invocations {
        let _ = writeln!(
            page,
            "<p id=\"left-out\" class=\"note\" data-shown=\"{shown}\" data-left-out=\"{left}\">{shown} of {all} \
             invocations are on this page, those that need a look first (unsupported and claim mismatches, then \
             no_evidence, then supported): a page holds at most {mib} MiB of invocations. Each run says what it \
             leaves out; the JSON report has everything, and a page of fewer runs (RUN_ID, --session) shows more.</p>",
            left = total.invocations - shown,
            all = total.invocations,
            mib = PAGE_BUDGET / (1024 * 1024),
        );
    }
    let tools: BTreeSet<&str> =
        report.runs.iter().flat_map(|r| &r.invocations).map(|v| v.tool_name.as_str()).collect();
    page.push_str("<form id=\"filters\" hidden>\n");
    for status in [Status::Supported, Status::Unsupported, Status::NoEvidence] {
        let name = status.as_str();
        let _ = writeln!(
            page,
            "<label><input type=\"checkbox\" name=\"status\" value=\"{name}\" checked> {name}</label>"
        );
    }
    page.push_str("<label>tool <select id=\"tool\"><option value=\"\">all</option>");
    for tool in tools {
        let tool = text(tool);
        let _ = write!(page, "<option value=\"{tool}\">{tool}</option>");
    }
    page.push_str(
        "</select></label>\n<label><input type=\"checkbox\" id=\"mismatch\"> only claim mismatches</label>\n\
         <label>search <input type=\"search\" id=\"search\"></label>\n<output id=\"shown\"></output>\n</form>\n</header>\n",
    );
}

/// One run: its header, the articles on the page, and a count of those left off it.
fn write_run(page: &mut String, run: &RunReport, articles: Vec<Option<String>>) {
    let name = run.run_id.as_deref().map_or_else(|| "(no run_id)".to_string(), text);
    let session = run.session_id.as_deref().map_or_else(|| "(no session)".to_string(), text);
    let s = &run.summary;
    let _ = writeln!(
        page,
        "<section class=\"run\" data-run=\"{name}\">\n<h2>run <code>{name}</code> <small>session <code>{session}</code></small></h2>\n\
         <p class=\"counts\">{} invocations · {} supported · {} unsupported · {} no_evidence · {} claim mismatches</p>",
        s.invocations, s.supported, s.unsupported, s.no_evidence, s.claim_mismatches
    );
    let (mut supported, mut unsupported, mut no_evidence) = (0, 0, 0);
    for (verdict, article) in run.invocations.iter().zip(articles) {
        match (article, verdict.status) {
            (Some(article), _) => page.push_str(&article),
            (None, Status::Supported) => supported += 1,
            (None, Status::Unsupported) => unsupported += 1,
            (None, Status::NoEvidence) => no_evidence += 1,
        }
    }
    let total = supported + unsupported + no_evidence;
    if total > 0 {
        let _ = writeln!(
            page,
            "<p class=\"left-out note\" data-left-out=\"{total}\">{total} more invocations of this run are not on the page \
             ({supported} supported, {unsupported} unsupported, {no_evidence} no_evidence).</p>"
        );
    }
    page.push_str("</section>\n");
}

/// `tried` is the raw-output file looked for and not read, if any.
fn write_invocation(
    page: &mut String,
    id: &str,
    v: &Verdict,
    row: Option<&Invocation>,
    tried: Option<&Path>,
    policy: &Policy,
) {
    let status = v.status.as_str();
    let tool = text(&v.tool_name);
    let _ = writeln!(
        page,
        "<article id=\"{id}\" class=\"inv\" data-status=\"{status}\" data-tool=\"{tool}\" data-mismatch=\"{}\">\n\
         <div class=\"head\"><h3><span class=\"status {status}\">{status}</span> <code>#{}</code> {tool}</h3>",
        v.is_claim_mismatch(),
        v.id
    );
    page.push_str("<dl>");
    let _ = write!(page, "<dt>reason</dt><dd>{}</dd>", v.reason.as_str());
    let claimed = match (&v.claimed_status, v.claim_agrees) {
        (None, _) => "none".to_string(),
        (Some(c), Some(true)) => format!("{} (agrees)", text(c)),
        (Some(c), Some(false)) => format!("{} <strong class=\"mismatch\">(claim mismatch)</strong>", text(c)),
        (Some(c), None) => format!("{} (not a status)", text(c)),
    };
    let _ = write!(page, "<dt>claimed</dt><dd>{claimed}</dd><dt>source</dt><dd>{}</dd>", v.source.as_str());
    if let Some(why) = &v.malformed {
        let _ = write!(page, "<dt>malformed</dt><dd>{}</dd>", text(why));
    }
    for w in &v.warnings {
        let _ = write!(page, "<dt>warning</dt><dd><code>{}</code>: {}", w.as_str(), explain::warning(*w));
        if let Some(lookup) = lookup(*w, tried) {
            let _ = write!(page, ": {}", text(&lookup));
        }
        page.push_str("</dd>");
    }
    page.push_str("</dl></div>\n");

    let data_ref = |r: &RefReport| format!("{}:{}", v.id, r.index);
    let mut marks: Vec<Mark<'_>> = v.refs.iter().flat_map(|r| marks_of(r, data_ref(r))).collect();
    let paths: Vec<&str> = marks.iter().map(|m| m.path).collect();
    let doc = row.and_then(|inv| raw_document(inv, policy));
    let plain = doc.as_deref().map(|doc| pretty(doc, &paths));
    if let Some(plain) = &plain {
        for (m, line) in marks.iter_mut().zip(&plain.found) {
            m.line = *line;
        }
    }
    // A ref decided on a view of the output names a leaf of that view: a text that is not
    // JSON read as JSON Lines or YAML, and the JSON inside strings expanded (of that view,
    // when there is one). Each mark is shown in the first view that has its leaf.
    let missing = plain.is_some() && marks.iter().any(|m| m.line.is_none());
    let structured = if missing { row.and_then(|inv| structured_document(inv, policy)) } else { None };
    let expanded_doc = match (&structured, missing) {
        (_, false) => None,
        (Some((_, view)), true) => expanded_document(view, policy),
        (None, true) => doc.as_deref().and_then(|doc| expanded_document(doc, policy)),
    };
    let read_as = structured.as_ref().map(|(read_as, _)| format!("read as {}", explain::read_as(*read_as)));
    let mut laid_out: Vec<(Pretty<'_>, String)> = Vec::new();
    if let (Some((_, view)), Some(label)) = (&structured, &read_as) {
        laid_out.push((pretty(view, &paths), label.clone()));
    }
    if let Some(view) = &expanded_doc {
        let label = match &read_as {
            Some(read_as) => format!("{read_as}, with JSON inside strings expanded"),
            None => "with JSON inside strings expanded".to_string(),
        };
        laid_out.push((pretty(view, &paths), label));
    }
    let mut placed: Vec<bool> = marks.iter().map(|m| m.line.is_some()).collect();
    let mut inside: Vec<Vec<Mark<'_>>> = Vec::new();
    for (view, _) in &laid_out {
        let mut here = Vec::new();
        for ((m, line), placed) in marks.iter().zip(&view.found).zip(placed.iter_mut()) {
            if let (false, Some(line)) = (*placed, line) {
                here.push(Mark { line: Some(*line), ..m.clone() });
                *placed = true;
            }
        }
        inside.push(here);
    }
    let mut views: Vec<(Option<&Pretty<'_>>, &[Mark<'_>], Option<&str>)> =
        vec![(plain.as_ref(), &marks[..], None)];
    for ((view, label), here) in laid_out.iter().zip(&inside) {
        views.push((Some(view), here, Some(label)));
    }

    page.push_str("<ol class=\"refs\">\n");
    for r in &v.refs {
        write_ref(page, &data_ref(r), r, &views, row, &policy.limits());
    }
    page.push_str("</ol>\n");
    if let Some(plain) = &plain {
        write_whole(page, plain, &marks, None);
    } else if v.source == Source::None {
        let missing = v.warnings.iter().find_map(|w| lookup(*w, tried));
        match missing {
            Some(lookup) => {
                let _ = writeln!(page, "<p class=\"note\">No raw output was captured for this call; its --raw-outputs file: {}.</p>", text(&lookup));
            }
            None => page.push_str("<p class=\"note\">No raw output was captured for this call.</p>\n"),
        }
    }
    for ((view, label), here) in laid_out.iter().zip(&inside) {
        if !here.is_empty() {
            write_whole(page, view, here, Some(label));
        }
    }
    page.push_str("</article>\n");
}

/// The marks a ref puts on the raw output: where it verified, or where it came closest and
/// where the text is instead.
fn marks_of(r: &RefReport, data_ref: String) -> Vec<Mark<'_>> {
    let mark = |kind, path, quote| Mark {
        data_ref: data_ref.clone(),
        path,
        index: r.index,
        kind,
        quote,
        line: None,
    };
    let mut marks = Vec::new();
    match (r.outcome, &r.matched_path) {
        (RefOutcome::Verified, Some(path)) if r.rung == Some(Rung::Exact) => {
            marks.push(mark(Kind::Quote, path, r.text.as_deref()));
        }
        (RefOutcome::Verified, Some(path)) => marks.push(mark(Kind::Leaf, path, None)),
        _ => {
            if let Some(nearest) = &r.nearest {
                marks.push(mark(Kind::Nearest, &nearest.path, Some(&nearest.text)));
            }
            if let Some(path) = &r.elsewhere {
                marks.push(mark(Kind::Elsewhere, path, None));
            }
        }
    }
    marks
}

/// One ref: its path and quote as given, its outcome and what it means, then the excerpt of
/// the raw output around its marks (or the preview, when there is no raw output).
fn write_ref(
    page: &mut String,
    data_ref: &str,
    r: &RefReport,
    views: &[(Option<&Pretty<'_>>, &[Mark<'_>], Option<&str>)],
    row: Option<&Invocation>,
    limits: &Limits,
) {
    let outcome = r.outcome.as_str();
    let _ = write!(page, "<li data-ref=\"{data_ref}\" data-outcome=\"{outcome}\">\n<p class=\"ref\">");
    let _ = write!(page, "<span class=\"outcome {outcome}\">{outcome}</span> ");
    match &r.raw_path {
        Some(path) => {
            let _ = write!(page, "<code class=\"path\">{}</code> ", text(path));
        }
        None => page.push_str("<em>no raw_path</em> "),
    }
    match &r.text {
        Some(quote) => {
            let _ = write!(page, "<q>{}</q>", text(quote));
        }
        None => page.push_str("<em>no text</em>"),
    }
    page.push_str("</p>\n");
    for line in explanation(r, limits) {
        let _ = writeln!(page, "<p class=\"why\">{line}</p>");
    }
    for &(laid, marks, label) in views {
        let Some(laid) = laid else { continue };
        if marks.iter().any(|m| m.index == r.index && m.line.is_some()) {
            if let Some(label) = label {
                let _ = writeln!(page, "<p class=\"why\">In the output {label}:</p>");
            }
            raw::excerpt(page, laid, marks, r.index);
        }
    }
    if views[0].0.is_none() && r.outcome == RefOutcome::RawOutputUnavailable {
        if let Some(preview) = row.and_then(|inv| inv.output_preview.as_deref()) {
            let _ = write!(
                page,
                "<p class=\"why\">The preview (not the whole output):</p>\n<pre class=\"preview\">{}</pre>\n",
                text(preview)
            );
        }
    }
    page.push_str("</li>\n");
}

/// What a ref's outcome means, one sentence a line (HTML): the rung and leaf that verified
/// it, or for a failure what was found about it, in the core's words ([`explain::findings`]):
/// the nearest candidate, where the text is instead, that nothing is close, what the preview
/// holds, why the path was refused, the limit hit.
fn explanation(r: &RefReport, limits: &Limits) -> Vec<String> {
    let path = |p: &str| format!("<code class=\"path\">{}</code>", text(p));
    if r.outcome == RefOutcome::Verified {
        let rung = r.rung.map_or("", Rung::as_str);
        let score = r.score.map(|s| format!(" (score {s})")).unwrap_or_default();
        return r
            .matched_path
            .iter()
            .map(|at| format!("Found on the <strong>{rung}</strong> rung{score} at {}.", path(at)))
            .collect();
    }
    let findings = explain::findings(r);
    let lines = findings.iter().map(|finding| match *finding {
        Finding::Elsewhere(at) => format!(
            "<span class=\"elsewhere\">{}</span> in the output, at {}: the path points at the wrong node.",
            capitalized(explain::ELSEWHERE),
            path(at)
        ),
        Finding::Nearest(n) => format!(
            "<span class=\"nearest\">{}</span> {} at {}: <q>{}</q>",
            capitalized(explain::NEAREST),
            n.score,
            path(&n.path),
            text(&n.text)
        ),
        Finding::AllThere => format!("({})", explain::ALL_THERE),
        Finding::NothingClose(outcome) => format!("{}.", explain::nothing_close(outcome)),
        Finding::NoRawOutput(_) => format!("{}.", capitalized(&finding.words(limits).unwrap_or_default())),
        Finding::PathError(error) => text(&error.to_string()),
        Finding::Malformed(why) => text(why),
        Finding::Limit(_) => text(&finding.words(limits).unwrap_or_default()),
    });
    lines.collect()
}

/// `s` with its first letter a capital, to begin a sentence of the page.
fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The whole raw output behind a fold, when it fits; else a line saying only the excerpts
/// are shown.
fn write_whole(page: &mut String, laid: &Pretty<'_>, marks: &[Mark<'_>], label: Option<&str>) {
    let view = label.map(|label| format!(", {label}")).unwrap_or_default();
    let lines = text::of(laid).map_or(laid.lines.len(), text::line_count);
    if raw::fits_whole(laid) {
        let _ = write!(page, "<details class=\"raw\"><summary>raw output ({lines} lines{view})</summary>");
        raw::whole(page, laid, marks);
        page.push_str("</details>\n");
    } else {
        let _ = writeln!(
            page,
            "<p class=\"note\">The raw output has {lines} lines{view}: past {} lines or {} KiB of text only the excerpts above are shown.</p>",
            raw::WHOLE_MAX_LINES,
            raw::WHOLE_MAX_BYTES / 1024
        );
    }
}
