//! A verdict in words: the one place where a reason, a warning, a limit and each thing found
//! about a failed ref are put in words, so the `human` table, the HTML page, OpenTelemetry's
//! explanation and the MCP server's text say the same fact the same way.
//!
//! Each format keeps its own composition (a table's columns, a page's markup, a sentence a
//! trace shows) and its own way of echoing what a row wrote (shown whole, escaped, or cut):
//! [`findings`] gives a ref's facts with their operands, and the format lays them out, taking
//! the words from here. [`verdict`] is the one-paragraph composition that OpenTelemetry's
//! `gen_ai.evaluation.explanation` and the MCP server's text share.
//!
//! ```
//! use groundcheck_core::{explain, Invocation, Json, Limits, Policy, RawOutput, Verifier};
//!
//! let invocation = Invocation {
//!     id: 7,
//!     tool_name: "query_logs".into(),
//!     retrieval_details: Some(Json::parse(
//!         r#"{"evidence_refs": [{"raw_path": "$.logs[0]", "text": "conection refused"},
//!                               {"raw_path": "$.logs[0]", "text": "pool exhausted"}]}"#,
//!     )?),
//!     raw_output: Some(RawOutput::Text(r#"{"logs": ["connection refused", "pool exhausted"]}"#.into())),
//!     ..Invocation::default()
//! };
//! let verdict = Verifier::new(Policy::default()).verify(&invocation);
//! assert_eq!(
//!     explain::verdict(&verdict, &Limits::default()),
//!     "not_verified: none of the cited evidence is in the tool's raw output (0 of 2 real refs \
//!      verified); ref 0 text_not_found: \"conection refused\" under $.logs[0], nearest 0.941 \
//!      \"connection refused\" at $['logs'][0]; ref 1 text_not_found: \"pool exhausted\" under \
//!      $.logs[0], found elsewhere at $['logs'][1], nearest 0.428 \"on refused\" at $['logs'][0]"
//! );
//! # Ok::<(), groundcheck_core::Error>(())
//! ```

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::error::Error;
use crate::policy::{Limit, Limits};
use crate::report::{Nearest, ReadAs, Reason, RefOutcome, RefReport, Verdict, Warning};
use crate::score::Score;

/// Failed refs [`verdict`] describes; the rest are counted, so a paragraph stays small
/// however many refs an invocation claims.
pub const FAILED_REFS_SHOWN: usize = 5;

/// Characters of a quote, a path or a message [`verdict`] echoes; longer ones end with `…`.
pub const ECHO_CHARS: usize = 80;

/// The label of a quote found at another leaf of the output ([`Finding::Elsewhere`]).
pub const ELSEWHERE: &str = "found elsewhere";

/// The label of the closest text under the path ([`Finding::Nearest`]).
pub const NEAREST: &str = "nearest";

/// Under a `nearest` of score 1.000: every character of the quote is in the leaf, so only
/// the rule that a match never splits a number, or a stricter `--match`, kept it out.
pub const ALL_THERE: &str = "all of it is there, but only by splitting a number or on a looser --match";

/// A `raw_output_unavailable` ref: there was nothing to look in.
pub const NO_RAW_OUTPUT: &str = "no raw output to check against";

/// One thing a report says about a ref that did not verify, with what it names: a format
/// echoes the operands its own way and takes the words from [`Finding::words`] or the labels.
#[derive(Debug, Clone, Copy)]
pub enum Finding<'a> {
    /// The quote is at this leaf of the whole output: the path points at the wrong node.
    Elsewhere(&'a str),
    /// The selected leaf that came closest: a high score is a misquote.
    Nearest(&'a Nearest),
    /// The nearest leaf scored 1.000 ([`ALL_THERE`]).
    AllThere,
    /// Neither a near miss nor the text elsewhere: probably invented.
    NothingClose(RefOutcome),
    /// No raw output to check; whether the preview holds the text, when there is one.
    NoRawOutput(Option<bool>),
    /// Why the path is not a path (or passes a limit of its own), as `resolve` says it.
    PathError(&'a Error),
    /// The limit the ref hit ([`limit`]).
    Limit(Limit),
    /// What is wrong with a malformed ref.
    Malformed(&'a str),
}

impl Finding<'_> {
    /// The sentence of a finding that echoes nothing a row wrote; `None` for those that do
    /// ([`Finding::Elsewhere`], [`Finding::Nearest`], [`Finding::PathError`],
    /// [`Finding::Malformed`]), which each format lays out and echoes itself.
    pub fn words(&self, limits: &Limits) -> Option<Cow<'static, str>> {
        match *self {
            Finding::AllThere => Some(ALL_THERE.into()),
            Finding::NothingClose(outcome) => Some(nothing_close(outcome).into()),
            Finding::NoRawOutput(in_preview) => Some(match in_preview.map(preview) {
                Some(preview) => format!("{NO_RAW_OUTPUT} ({preview})").into(),
                None => NO_RAW_OUTPUT.into(),
            }),
            Finding::Limit(l) => Some(limit(l, limits).into()),
            Finding::Elsewhere(_) | Finding::Nearest(_) | Finding::PathError(_) | Finding::Malformed(_) => {
                None
            }
        }
    }
}

/// What a report says about `r`, in the order a reader needs it: for a text or path not
/// found, where the text is instead and what came closest (or that nothing did); for a
/// missing raw output, whether the preview holds the text; then why the path was refused,
/// the limit hit, or why the ref is malformed. Empty for a ref that verified or a marker.
pub fn findings(r: &RefReport) -> Vec<Finding<'_>> {
    let mut found = Vec::new();
    match r.outcome {
        RefOutcome::TextNotFound | RefOutcome::PathNotFound => {
            if let Some(path) = &r.elsewhere {
                found.push(Finding::Elsewhere(path));
            }
            if let Some(nearest) = &r.nearest {
                found.push(Finding::Nearest(nearest));
                if nearest.score == Score::ONE {
                    found.push(Finding::AllThere);
                }
            }
            if found.is_empty() {
                found.push(Finding::NothingClose(r.outcome));
            }
        }
        RefOutcome::RawOutputUnavailable => found.push(Finding::NoRawOutput(r.in_preview)),
        _ => {}
    }
    match (&r.path_error, r.limit, &r.malformed) {
        (Some(error), _, _) => found.push(Finding::PathError(error)),
        (None, Some(l), _) => found.push(Finding::Limit(l)),
        (None, None, Some(why)) => found.push(Finding::Malformed(why)),
        (None, None, None) => {}
    }
    found
}

/// Why the verdict has its reason, in a few words (the reason's name says it for machines).
pub fn reason(reason: Reason) -> &'static str {
    match reason {
        Reason::MalformedDetails => "retrieval_details is not a readable claim",
        Reason::ClaimedWithoutRefs => "the claim says supported but cites no evidence",
        Reason::ToolFailed => "the tool call failed, so its output is not evidence",
        Reason::NoEvidenceMarker => "the agent marked the call as yielding no evidence",
        Reason::NoRefs => "the claim cites no evidence",
        Reason::Verified => "the cited evidence is in the tool's raw output",
        Reason::PartiallyVerified => "some cited evidence is not in the tool's raw output",
        Reason::NotVerified => "none of the cited evidence is in the tool's raw output",
    }
}

/// What a failed ref with neither a near miss nor the text elsewhere says. `elsewhere`
/// searches the whole output up to the policy's loosest rung; a near miss is looked for only
/// under the path, which for `path_not_found` selects nothing.
pub fn nothing_close(outcome: RefOutcome) -> &'static str {
    match outcome {
        RefOutcome::PathNotFound => "the text is nowhere in the output (probably invented)",
        _ => concat!(
            "nothing under the path comes close, and the text is nowhere else in the output ",
            "(probably invented)"
        ),
    }
}

/// Whether the preview of a row without a raw output holds the quote.
pub fn preview(in_preview: bool) -> &'static str {
    if in_preview {
        "found in the preview"
    } else {
        "not in the preview either"
    }
}

/// Which limit a `limit_exceeded` ref hit, and the flag (with the value it had) that would
/// let the ref be checked; the bindings' setting has the flag's name with `_` for `-`.
pub fn limit(limit: Limit, limits: &Limits) -> String {
    let flag = format!("--{} {}", limit.setting().replace('_', "-"), limits.get(limit));
    let name = limit.as_str();
    match limit {
        Limit::OutputSize => format!("the raw output is longer than {flag} bytes (limit {name})"),
        Limit::Depth => format!(
            "the document nests deeper than {flag} (limit {name}; a JSONPath query never runs past {} levels)",
            Limits::QUERY_DEPTH_CEILING
        ),
        Limit::TextLength => format!("the text is longer than {flag} characters (limit {name})"),
        Limit::PathLength => {
            format!("the raw_path is longer than {flag} characters, or nests deeper than a path may (limit {name})")
        }
        Limit::Nodes => format!("the path selects more than {flag} nodes (limit {name})"),
        Limit::Refs => format!("only the first {flag} refs are read (limit {name})"),
    }
}

/// What a warning means.
pub fn warning(w: Warning) -> &'static str {
    match w {
        Warning::InvalidUtf8 => {
            "a text column or raw-output file was not valid UTF-8 and was read with U+FFFD replacements"
        }
        Warning::RawOutputPathUnsafe => {
            "the --raw-outputs path could leave the template's folder (a value it needs, a link on the way, or a file with more than one hard link without --allow-hard-links), so no file was read"
        }
        Warning::RawOutputMissing => "the --raw-outputs file does not exist",
        Warning::RawOutputUnreadable => "the --raw-outputs file could not be read",
        Warning::MarkerWithRefs => "no-evidence markers beside real refs were ignored",
        Warning::ReadAsJsonLines => {
            "the output is not JSON; a path selected nothing in it as text and was run on it read as JSON Lines (one value a line)"
        }
        Warning::ReadAsYaml => {
            "the output is not JSON; a path selected nothing in it as text and was run on it read as YAML (every scalar a string as written)"
        }
        Warning::DescendedIntoString => {
            "a path selected nothing as written and was run on the JSON inside its strings"
        }
    }
}

/// How a text that is not JSON was read, for people: `YAML`, `JSON Lines`.
pub fn read_as(read_as: ReadAs) -> &'static str {
    match read_as {
        ReadAs::JsonLines => "JSON Lines",
        ReadAs::Yaml => "YAML",
    }
}

/// `verdict` in one paragraph, for a trace or a model: `reason: sentence (V of R real refs
/// verified)`, why the details are malformed, then each failed ref (at most
/// [`FAILED_REFS_SHOWN`], the rest counted) as `ref I outcome: "quote" under path` and its
/// [`findings`] — `found elsewhere at path`, `nearest S "text" at path`, the other findings'
/// [`words`](Finding::words) — each echo cut to [`ECHO_CHARS`]. `limits` are those the
/// verdict was made under, named in a limit's sentence.
pub fn verdict(verdict: &Verdict, limits: &Limits) -> String {
    let real = verdict.refs.iter().filter(|r| r.outcome != RefOutcome::NoEvidenceMarker).count();
    let verified = verdict.refs.iter().filter(|r| r.outcome == RefOutcome::Verified).count();
    let mut text = format!(
        "{}: {} ({verified} of {real} real refs verified)",
        verdict.reason.as_str(),
        reason(verdict.reason)
    );
    if let Some(why) = &verdict.malformed {
        let _ = write!(text, "; {}", clip(why));
    }
    let failed: Vec<&RefReport> = verdict.refs.iter().filter(|r| failed(r)).collect();
    for r in failed.iter().take(FAILED_REFS_SHOWN) {
        let _ = write!(text, "; {}", ref_sentence(r, limits));
    }
    if failed.len() > FAILED_REFS_SHOWN {
        let _ = write!(text, "; and {} more failed refs", failed.len() - FAILED_REFS_SHOWN);
    }
    text
}

/// A real ref that did not verify (markers are not evidence, so they cannot fail).
fn failed(r: &RefReport) -> bool {
    !matches!(r.outcome, RefOutcome::Verified | RefOutcome::NoEvidenceMarker)
}

/// `ref 1 text_not_found: "conn refused" under $.logs[0], nearest 0.857 "connection refused"
/// at $['logs'][0]['message']`: what failed, then what was found about it.
fn ref_sentence(r: &RefReport, limits: &Limits) -> String {
    let text = r.text.as_deref().map_or("(no text)".to_string(), |t| format!("\"{}\"", clip(t)));
    let path = r.raw_path.as_deref().map_or("(no raw_path)".to_string(), clip);
    let mut s = format!("ref {} {}: {text} under {path}", r.index, r.outcome.as_str());
    for finding in findings(r) {
        let _ = match finding {
            Finding::Elsewhere(at) => write!(s, ", {ELSEWHERE} at {}", clip(at)),
            Finding::Nearest(n) => {
                write!(s, ", {NEAREST} {} \"{}\" at {}", n.score, clip(&n.text), clip(&n.path))
            }
            Finding::AllThere => write!(s, " ({ALL_THERE})"),
            Finding::PathError(error) => write!(s, ", {}", clip(&error.to_string())),
            Finding::Malformed(why) => write!(s, ", {}", clip(why)),
            words => write!(s, ", {}", words.words(limits).unwrap_or_default()),
        };
    }
    s
}

/// `s` cut to [`ECHO_CHARS`] characters, `…` marking the cut.
fn clip(s: &str) -> String {
    if s.chars().count() <= ECHO_CHARS {
        return s.to_string();
    }
    let mut clipped: String = s.chars().take(ECHO_CHARS - 1).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Source, Status};
    use crate::ErrorKind;

    fn failed_ref(index: usize, outcome: RefOutcome) -> RefReport {
        RefReport {
            index,
            raw_path: Some("$.logs[0]".into()),
            text: Some("conn refused".into()),
            outcome,
            rung: None,
            matched_path: None,
            score: None,
            in_preview: None,
            nearest: None,
            elsewhere: None,
            limit: None,
            path_error: None,
            malformed: None,
        }
    }

    fn with(reason: Reason, refs: Vec<RefReport>) -> Verdict {
        Verdict {
            id: 7,
            tool_name: "query_logs".into(),
            status: Status::Unsupported,
            reason,
            claimed_status: Some("supported".into()),
            claim_agrees: Some(false),
            source: Source::RawOutput,
            refs,
            warnings: Vec::new(),
            malformed: None,
        }
    }

    /// The paragraph of one failed ref, past the reason and counts.
    fn said(r: RefReport) -> String {
        let text = verdict(&with(Reason::NotVerified, vec![r]), &Limits::default());
        let (_, tail) = text.split_once("(0 of 1 real refs verified); ").expect("one failed ref");
        tail.to_string()
    }

    fn nearest(score: &str) -> Nearest {
        Nearest {
            score: score.parse().unwrap(),
            path: "$['logs'][0]['message']".into(),
            text: "connection refused".into(),
        }
    }

    #[test]
    fn every_reason_has_its_sentence_after_its_name() {
        for &r in Reason::ALL {
            let text = verdict(&with(r, Vec::new()), &Limits::default());
            assert_eq!(text, format!("{}: {} (0 of 0 real refs verified)", r.as_str(), reason(r)));
        }
        assert_eq!(reason(Reason::ToolFailed), "the tool call failed, so its output is not evidence");
    }

    #[test]
    fn a_near_miss_names_its_score_text_and_leaf() {
        let mut r = failed_ref(0, RefOutcome::TextNotFound);
        r.nearest = Some(nearest("0.857"));
        assert_eq!(
            verdict(&with(Reason::NotVerified, vec![r]), &Limits::default()),
            "not_verified: none of the cited evidence is in the tool's raw output (0 of 1 real refs \
             verified); ref 0 text_not_found: \"conn refused\" under $.logs[0], nearest 0.857 \
             \"connection refused\" at $['logs'][0]['message']"
        );
    }

    #[test]
    fn a_near_miss_of_score_one_says_all_of_it_is_there() {
        let mut r = failed_ref(0, RefOutcome::TextNotFound);
        r.nearest = Some(nearest("1.000"));
        assert!(matches!(findings(&r)[..], [Finding::Nearest(_), Finding::AllThere]));
        assert_eq!(
            said(r),
            "ref 0 text_not_found: \"conn refused\" under $.logs[0], nearest 1.000 \"connection refused\" at \
             $['logs'][0]['message'] (all of it is there, but only by splitting a number or on a looser --match)"
        );
    }

    #[test]
    fn the_text_elsewhere_comes_before_the_near_miss() {
        let mut r = failed_ref(2, RefOutcome::TextNotFound);
        r.elsewhere = Some("$['logs'][3]".into());
        r.nearest = Some(nearest("0.500"));
        assert!(matches!(findings(&r)[..], [Finding::Elsewhere("$['logs'][3]"), Finding::Nearest(_)]));
        assert_eq!(
            said(r),
            "ref 2 text_not_found: \"conn refused\" under $.logs[0], found elsewhere at $['logs'][3], \
             nearest 0.500 \"connection refused\" at $['logs'][0]['message']"
        );
    }

    #[test]
    fn nothing_close_says_which_search_found_nothing() {
        assert_eq!(
            said(failed_ref(0, RefOutcome::PathNotFound)),
            "ref 0 path_not_found: \"conn refused\" under $.logs[0], the text is nowhere in the output \
             (probably invented)"
        );
        assert_eq!(
            said(failed_ref(0, RefOutcome::TextNotFound)),
            "ref 0 text_not_found: \"conn refused\" under $.logs[0], nothing under the path comes close, and \
             the text is nowhere else in the output (probably invented)"
        );
    }

    #[test]
    fn a_missing_raw_output_says_what_the_preview_holds() {
        let limits = Limits::default();
        let mut r = failed_ref(0, RefOutcome::RawOutputUnavailable);
        let words = |r: &RefReport| findings(r)[0].words(&limits).unwrap().into_owned();
        assert_eq!(words(&r), "no raw output to check against");
        r.in_preview = Some(true);
        assert_eq!(words(&r), "no raw output to check against (found in the preview)");
        r.in_preview = Some(false);
        assert_eq!(words(&r), "no raw output to check against (not in the preview either)");
        assert_eq!(
            said(r),
            "ref 0 raw_output_unavailable: \"conn refused\" under $.logs[0], no raw output to check against \
             (not in the preview either)"
        );
    }

    #[test]
    fn a_limit_names_its_flag_with_the_value_it_had() {
        let limits = Limits::default().with(Limit::Nodes, 500).unwrap();
        assert_eq!(
            limit(Limit::Nodes, &limits),
            "the path selects more than --max-nodes 500 nodes (limit nodes)"
        );
        assert_eq!(
            limit(Limit::Depth, &Limits::default().with(Limit::Depth, 3).unwrap()),
            format!(
                "the document nests deeper than --max-depth 3 (limit depth; a JSONPath query never runs past {} levels)",
                Limits::QUERY_DEPTH_CEILING
            )
        );
        for &l in Limit::ALL {
            let sentence = limit(l, &limits);
            let flag = format!("--{} {}", l.setting().replace('_', "-"), limits.get(l));
            assert!(
                sentence.contains(&flag) && sentence.contains(&format!("(limit {}", l.as_str())),
                "{sentence}"
            );
        }
        let mut r = failed_ref(0, RefOutcome::LimitExceeded);
        r.limit = Some(Limit::Refs);
        assert_eq!(
            said(r),
            format!(
                "ref 0 limit_exceeded: \"conn refused\" under $.logs[0], only the first --max-refs {} refs are \
                 read (limit refs)",
                Limits::default().get(Limit::Refs)
            )
        );
    }

    #[test]
    fn an_invalid_path_says_why_and_a_path_error_comes_before_its_limit() {
        let mut r = failed_ref(0, RefOutcome::InvalidPath);
        r.raw_path = Some("$[".into());
        let error = Error::new(ErrorKind::Path, "unexpected end of path");
        r.path_error = Some(error.clone());
        r.limit = Some(Limit::PathLength);
        assert!(matches!(findings(&r)[..], [Finding::PathError(_)]));
        assert_eq!(said(r), format!("ref 0 invalid_path: \"conn refused\" under $[, {error}"));
    }

    #[test]
    fn a_malformed_ref_says_what_is_wrong_with_it() {
        let mut r = failed_ref(1, RefOutcome::MalformedRef);
        r.text = None;
        r.raw_path = None;
        r.malformed = Some("unknown key rawPath; did you mean raw_path?".into());
        assert_eq!(
            said(r),
            "ref 1 malformed_ref: (no text) under (no raw_path), unknown key rawPath; did you mean raw_path?"
        );
    }

    #[test]
    fn refs_that_verified_and_markers_have_no_findings() {
        assert!(findings(&failed_ref(0, RefOutcome::Verified)).is_empty());
        assert!(findings(&failed_ref(0, RefOutcome::NoEvidenceMarker)).is_empty());
        let mut v = with(Reason::Verified, vec![failed_ref(0, RefOutcome::Verified)]);
        v.refs.push(failed_ref(1, RefOutcome::NoEvidenceMarker));
        assert!(verdict(&v, &Limits::default()).ends_with("(1 of 1 real refs verified)"));
    }

    #[test]
    fn failed_refs_past_the_limit_are_counted_not_described() {
        let refs = (0..FAILED_REFS_SHOWN + 3).map(|i| failed_ref(i, RefOutcome::PathNotFound)).collect();
        let text = verdict(&with(Reason::NotVerified, refs), &Limits::default());
        assert_eq!(text.matches("probably invented").count(), FAILED_REFS_SHOWN);
        assert!(text.ends_with("; and 3 more failed refs"), "{text}");
    }

    #[test]
    fn long_echoes_are_clipped_and_malformed_details_said() {
        let mut r = failed_ref(0, RefOutcome::TextNotFound);
        r.text = Some("x".repeat(10_000));
        let mut v = with(Reason::MalformedDetails, vec![r]);
        v.malformed = Some("y".repeat(10_000));
        let text = verdict(&v, &Limits::default());
        assert!(text.len() < 500, "{}", text.len());
        assert_eq!(text.matches('…').count(), 2, "{text}");
    }

    #[test]
    fn every_warning_and_view_has_its_words() {
        for &w in Warning::ALL {
            assert!(!warning(w).is_empty());
        }
        assert_eq!((read_as(ReadAs::Yaml), read_as(ReadAs::JsonLines)), ("YAML", "JSON Lines"));
    }
}
