//! `gen_ai.evaluation.explanation`: why the verdict is what it is, for a person reading a
//! trace — the reason with its counts, then one short sentence per ref that failed (with the
//! near-miss and found-elsewhere hints), at most [`FAILED_REFS_SHOWN`] of them, so a record
//! stays small however many refs an invocation claims.

use std::fmt::Write;

use groundcheck_core::{Reason, RefOutcome, RefReport, Verdict};

use crate::score::RefCounts;

/// Failed refs described in one explanation; the rest are counted.
pub const FAILED_REFS_SHOWN: usize = 5;

/// Characters of a quote or a path echoed in a sentence; longer ones end with `…`.
pub const ECHO_CHARS: usize = 80;

/// The explanation of `verdict`.
pub fn explain(verdict: &Verdict) -> String {
    let counts = RefCounts::of(verdict);
    let mut text = format!(
        "{}: {} ({} of {} real refs verified)",
        verdict.reason.as_str(),
        reason_sentence(verdict.reason),
        counts.verified,
        counts.real
    );
    if let Some(why) = &verdict.malformed {
        let _ = write!(text, "; {}", clip(why));
    }
    let failed: Vec<&RefReport> = verdict.refs.iter().filter(|r| failed(r)).collect();
    for r in failed.iter().take(FAILED_REFS_SHOWN) {
        let _ = write!(text, "; {}", ref_sentence(r));
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

fn reason_sentence(reason: Reason) -> &'static str {
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

/// `ref 1 text_not_found: "conn refused" under $.logs[0]; nearest 0.857 "connection refused"
/// at $['logs'][0]['message']` — what failed, then what came closest or where the text is.
fn ref_sentence(r: &RefReport) -> String {
    let text = r.text.as_deref().map_or("(no text)".to_string(), |t| format!("\"{}\"", clip(t)));
    let path = r.raw_path.as_deref().map_or("(no raw_path)".to_string(), clip);
    let mut s = format!("ref {} {}: {text} under {path}", r.index, r.outcome.as_str());
    match r.outcome {
        RefOutcome::TextNotFound | RefOutcome::PathNotFound => {
            if let Some(elsewhere) = &r.elsewhere {
                let _ = write!(s, ", found elsewhere at {}", clip(elsewhere));
            }
            if let Some(n) = &r.nearest {
                let _ = write!(s, ", nearest {} \"{}\" at {}", n.score, clip(&n.text), clip(&n.path));
            }
            if r.elsewhere.is_none() && r.nearest.is_none() {
                s.push_str(", nothing close anywhere in the output (probably invented)");
            }
        }
        RefOutcome::RawOutputUnavailable => s.push_str(match r.in_preview {
            Some(true) => ", no raw output to check (the preview has the text)",
            Some(false) => ", no raw output to check (not in the preview either)",
            None => ", no raw output to check",
        }),
        RefOutcome::MalformedRef => {
            if let Some(why) = &r.malformed {
                let _ = write!(s, ", {}", clip(why));
            }
        }
        RefOutcome::LimitExceeded => {
            if let Some(limit) = r.limit {
                let _ = write!(s, ", past the {} limit", limit.as_str());
            }
        }
        _ => {}
    }
    s
}

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
    use groundcheck_core::{Nearest, Score, Source, Status};

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

    fn verdict(refs: Vec<RefReport>) -> Verdict {
        Verdict {
            id: 7,
            tool_name: "query_logs".into(),
            status: Status::Unsupported,
            reason: Reason::NotVerified,
            claimed_status: Some("supported".into()),
            claim_agrees: Some(false),
            source: Source::RawOutput,
            refs,
            warnings: Vec::new(),
            malformed: None,
        }
    }

    #[test]
    fn a_near_miss_names_its_score_text_and_leaf() {
        let mut r = failed_ref(0, RefOutcome::TextNotFound);
        r.nearest = Some(Nearest {
            score: "0.857".parse::<Score>().unwrap(),
            path: "$['logs'][0]['message']".into(),
            text: "connection refused".into(),
        });
        assert_eq!(
            explain(&verdict(vec![r])),
            "not_verified: none of the cited evidence is in the tool's raw output (0 of 1 real refs \
             verified); ref 0 text_not_found: \"conn refused\" under $.logs[0], nearest 0.857 \
             \"connection refused\" at $['logs'][0]['message']"
        );
    }

    #[test]
    fn failed_refs_past_the_limit_are_counted_not_described() {
        let refs = (0..FAILED_REFS_SHOWN + 3).map(|i| failed_ref(i, RefOutcome::PathNotFound)).collect();
        let text = explain(&verdict(refs));
        assert_eq!(text.matches("probably invented").count(), FAILED_REFS_SHOWN);
        assert!(text.ends_with("; and 3 more failed refs"), "{text}");
    }

    #[test]
    fn a_limit_exceeded_ref_names_its_limit() {
        let mut r = failed_ref(0, RefOutcome::LimitExceeded);
        r.limit = Some(groundcheck_core::Limit::Depth);
        assert!(explain(&verdict(vec![r]))
            .ends_with("ref 0 limit_exceeded: \"conn refused\" under $.logs[0], past the depth limit"));
    }

    #[test]
    fn long_quotes_are_clipped() {
        let mut r = failed_ref(0, RefOutcome::TextNotFound);
        r.text = Some("x".repeat(10_000));
        let text = explain(&verdict(vec![r]));
        assert!(text.len() < 400, "{}", text.len());
        assert!(text.contains('…'));
    }
}
