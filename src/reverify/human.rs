//! The summary for people: totals, failed refs by how close they came, tables by reason, tool
//! and retrieval layer, and the transition table against the stored verdicts.

use std::fmt::Write;

use crate::reverify::summary::Summary;
use crate::reverify::tally::{FailedRefs, NEAR_MISS_THOUSANDTHS};

/// `n` and the noun, singular for exactly one: `1 run`, `2 runs`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The summary as text, one line per fact.
pub fn render(report: &Summary<'_>) -> String {
    let t = report.summary;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "reverify ({}, shard {}{}): {} in {}, {} rows/s",
        report.policy,
        report.shard,
        if report.written { ", written" } else { ", nothing written" },
        count(t.invocations, "invocation", "invocations"),
        count(t.runs, "run", "runs"),
        report.rows_per_second
    );
    if let Some(before) = report.resumed {
        let stored = format!(
            "{} ({})",
            count(before.runs, "run", "runs"),
            count(before.invocations, "invocation", "invocations")
        );
        if before.already_complete {
            let _ =
                writeln!(s, "  already complete: nothing left to verify; the totals are the finished job's");
        } else {
            let now = format!(
                "{} ({})",
                count(t.runs.saturating_sub(before.runs), "run", "runs"),
                count(t.invocations.saturating_sub(before.invocations), "invocation", "invocations")
            );
            let _ = writeln!(
                s,
                "  resumed: {stored} were stored before, {now} now; the totals are the whole job's"
            );
        }
    }
    let _ = writeln!(
        s,
        "  {} supported, {} unsupported, {} no_evidence (no evidence found by this tool); {}",
        t.status.supported,
        t.status.unsupported,
        t.status.no_evidence,
        count(t.claim_mismatches, "claim mismatch", "claim mismatches")
    );
    let _ = writeln!(s, "  {}", failed_refs(&t.failed_refs));
    if let Some(line) = t.raw_output_files.line(None) {
        let _ = writeln!(s, "  {line}");
    }
    let _ = writeln!(s, "\nby reason:");
    for (reason, n) in &t.by_reason {
        let _ = writeln!(s, "  {reason:<22} {n}");
    }
    for (title, table) in [("by tool", &t.by_tool), ("by retrieval_layer", &t.by_retrieval_layer)] {
        let width = table.keys().map(|k| k.chars().count()).max().unwrap_or(0).max(4);
        let _ = writeln!(s, "\n{title}:");
        let _ =
            writeln!(s, "  {:<width$}  {:>9}  {:>11}  {:>11}", "", "supported", "unsupported", "no_evidence");
        for (name, c) in table {
            let _ = writeln!(
                s,
                "  {name:<width$}  {:>9}  {:>11}  {:>11}",
                c.supported, c.unsupported, c.no_evidence
            );
        }
    }
    let _ = writeln!(s, "\nchanges against the verdicts stored before ({}):", report.baseline());
    for tr in &report.transitions {
        let marker = if tr.from == tr.to { "" } else { "  *" };
        let _ = writeln!(s, "  {:>11} → {:<11} {}{marker}", tr.from, tr.to, tr.count);
    }
    s
}

/// `failed refs: 12 — 3 found elsewhere (mis-pointed), 5 near misses (score ≥ 0.8,
/// misquoted), 2 far, 2 with no candidate (probably invented)`; `failed refs: 0` alone.
fn failed_refs(f: &FailedRefs) -> String {
    if f.total == 0 {
        return "failed refs: 0".to_string();
    }
    format!(
        "failed refs: {} — {} found elsewhere (mis-pointed), {} (score ≥ {}, misquoted), {} far, {} with \
         no candidate (probably invented)",
        f.total,
        f.found_elsewhere,
        count(f.near_misses, "near miss", "near misses"),
        // `0.8`: the threshold as a person writes it.
        f64::from(NEAR_MISS_THOUSANDTHS) / 1000.0,
        f.far,
        f.no_candidate
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reverify::summary::Resumed;
    use crate::reverify::tally::Tally;

    fn summary(tally: &Tally) -> Summary<'_> {
        Summary {
            schema: "groundcheck.reverify/v1",
            policy: "require=all;match=elided".into(),
            compared_with: None,
            shard: "1/1".into(),
            written: true,
            resumed: None,
            summary: tally,
            transitions: Summary::transitions(tally),
            elapsed_seconds: 1.0,
            rows_per_second: 1.0,
        }
    }

    // Guards: "1 invocations in 1 runs", "1 claim mismatches".
    #[test]
    fn one_of_a_thing_is_singular() {
        let one = Tally { invocations: 1, runs: 1, claim_mismatches: 1, ..Tally::default() };
        let text = render(&summary(&one));
        assert!(text
            .starts_with("reverify (require=all;match=elided, shard 1/1, written): 1 invocation in 1 run, "));
        assert!(text.contains("; 1 claim mismatch\n"), "{text}");
        let two = Tally { invocations: 2, runs: 2, claim_mismatches: 0, ..Tally::default() };
        let text = render(&summary(&two));
        assert!(
            text.contains(": 2 invocations in 2 runs, ") && text.contains("; 0 claim mismatches\n"),
            "{text}"
        );
    }

    #[test]
    fn a_resumed_job_says_so() {
        let tally = Tally { invocations: 30, runs: 3, ..Tally::default() };
        let mut report = summary(&tally);
        report.resumed = Some(Resumed { runs: 1, invocations: 10, already_complete: false });
        let text = render(&report);
        assert!(text.contains(
            "\n  resumed: 1 run (10 invocations) were stored before, 2 runs (20 invocations) now;"
        ));
        report.resumed = Some(Resumed { runs: 3, invocations: 30, already_complete: true });
        assert!(render(&report).contains("\n  already complete: nothing left to verify;"));
    }

    #[test]
    fn failed_refs_follow_the_status_line() {
        let mut tally = Tally { invocations: 9, runs: 1, ..Tally::default() };
        let text = render(&summary(&tally));
        assert!(text.contains("; 0 claim mismatches\n  failed refs: 0\n\nby reason:"), "{text}");
        tally.failed_refs =
            FailedRefs { total: 12, found_elsewhere: 3, near_misses: 5, far: 2, no_candidate: 2 };
        let text = render(&summary(&tally));
        assert!(
            text.contains(
                "\n  failed refs: 12 — 3 found elsewhere (mis-pointed), 5 near misses (score ≥ 0.8, \
                 misquoted), 2 far, 2 with no candidate (probably invented)\n"
            ),
            "{text}"
        );
        tally.failed_refs = FailedRefs { total: 1, near_misses: 1, ..FailedRefs::default() };
        assert!(render(&summary(&tally)).contains(", 1 near miss (score ≥ 0.8, misquoted), 0 far,"));
    }
}
