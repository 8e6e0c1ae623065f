//! The checks of the three fuzz targets, one function each, shared by the cargo-fuzz targets
//! (`fuzz_targets/*.rs`, nightly, this package) and by `tests/fuzz_regressions.rs` (stable,
//! the workspace's test binary), which replays the saved inputs under `regressions/`. Both
//! include this file with `#[path]`: the fuzz package is outside the workspace, so there is
//! no crate to share. It depends on `groundcheck_core` only. Each function panics when a
//! check fails.
//!
//! # `bundle_parse`
//!
//! Fuzzes `Bundle::parse` (the fixture and `verify` file format) and `RunSet`.
//!
//! Input: any bytes; only UTF-8 text reaches the parser (a file that is not UTF-8 never does).
//! Asserts, besides "no panic, no hang, bounded memory":
//! - a bundle that parses survives `to_json_string` → `parse` unchanged, and writing it again
//!   gives the same text (the writer is a fixed point);
//! - `RunSet` refuses exactly the `id`s already seen in the same run (run id, or session for
//!   rows without one), keeps every invocation it accepted, and sorts each run by `id`.
//!
//! # `verify_invocation`
//!
//! Fuzzes verification: the fast routes of `Verifier::verify` (singular paths located in the
//! raw bytes; general JSONPath on a `Value` parsed straight from the text) against
//! `Verifier::tree_route_only` (always our own tree and its `Value` twin).
//!
//! Input layout (so that seeds are readable and the dictionary's tokens land in text):
//!
//! ```text
//! [flags] [mode] retrieval_details \0 raw output \0 output_preview
//! ```
//!
//! - `flags` bits 0-1 `success` (None, true, false, None); bits 2-3 `is_truncated` (None, false,
//!   true, false); bits 4-5 the raw output (none, text, parsed `Json` — text when it does not
//!   parse —, or text inside the string of an MCP-style wrapper, see `inside_strings`:
//!   JSON inside strings, encoded up to four times, possibly cut short); bit 6
//!   `retrieval_details` always a JSON string holding the section (else parsed when it parses);
//!   bit 7 `invalid_utf8`.
//! - `mode` bits 0-1 `output_length` (None, the preview's scalar values, its UTF-16 units, its
//!   bytes); bits 2-4 the third policy's rung and `require`; bits 5-7 its limits (a table of
//!   boundary values: serde_json's depth 127, the query ceiling, tiny limits). Rung 3 is the
//!   fuzzy rung, at `--min-score 0.5` so that inputs reach it.
//! - Sections are split at the first two NUL bytes and decoded lossily; an empty details
//!   section with bit 6 clear is `retrieval_details: None`; with fewer than two NULs there is
//!   no preview. (So raw output text never holds a NUL; a preview can.)
//!
//! Every invocation is verified under three policies: the default, a small-limits one, and
//! one chosen by `mode`. Asserts, besides "no panic, no hang, bounded memory": both engines
//! give equal verdicts, and each verdict keeps the report invariants that are certain
//! (`check_verdict`), the near-miss ones among them (`check_near_miss`: scores within
//! bounds, and every `elsewhere` path, used as the ref's path, verifies it). Under the
//! default policy `verify_run` on a one-row run agrees too.
//!
//! # `resolve`
//!
//! Fuzzes `resolve`: JSONPath (RFC 9535) and JSON Pointer (RFC 6901) on our own JSON tree.
//!
//! Input layout: `path \0 document`, split at the first NUL (neither a path nor JSON text can
//! hold a raw NUL) and decoded lossily; documents that `Json::parse` rejects are skipped.
//! Asserts, besides "no panic, no hang, bounded memory", for the first few selected nodes:
//! - the node's value is JSON text that parses;
//! - its normalized path, resolved again, selects exactly that node (or, on a document deeper
//!   than the query ceiling, is refused as too deep).

use std::collections::HashSet;

use groundcheck_core::{
    resolve, Bundle, ErrorKind, Invocation, Json, Limit, Limits, Policy, RawOutput, Reason, RefOutcome,
    RefReport, Require, RunSet, Rung, Score, Source, Status, Verdict, Verifier, Warning,
};

/// The `bundle_parse` target on one input.
pub fn bundle_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(bundle) = Bundle::parse(text) else { return };

    let written = bundle.to_json_string();
    let again =
        Bundle::parse(&written).unwrap_or_else(|e| panic!("a written bundle does not parse: {e}\n{written}"));
    assert_eq!(again, bundle, "the bundle changed in a write/parse round trip");
    assert_eq!(again.to_json_string(), written, "writing is not a fixed point");

    // Run grouping: the key is the run id, or the session for rows without one
    // (docs/verification.md#bundles).
    let mut runs = RunSet::default();
    let mut seen = HashSet::new();
    let mut accepted = 0;
    for inv in bundle.invocations {
        let key = (inv.run_id.is_some(), inv.run_id.clone().or(inv.session_id.clone()), inv.id);
        let fresh = seen.insert(key);
        assert_eq!(runs.push(inv).is_ok(), fresh, "RunSet refused a fresh id or took a repeat");
        accepted += usize::from(fresh);
    }
    let runs = runs.into_runs();
    assert_eq!(runs.iter().map(|r| r.invocations.len()).sum::<usize>(), accepted);
    for run in &runs {
        assert!(run.invocations.windows(2).all(|w| w[0].id < w[1].id), "a run is not sorted by id");
    }
}

/// The `verify_invocation` target on one input.
pub fn verify(data: &[u8]) {
    let Some(inv) = invocation(data) else { return };
    let mode = data[1];
    for policy in [Policy::default(), small_policy(), chosen_policy(mode)] {
        let fast = Verifier::new(policy).verify(&inv);
        let general = Verifier::new(policy).tree_route_only().verify(&inv);
        assert_eq!(fast, general, "fast and general verdicts differ under {policy:?}");
        check_verdict(&inv, &policy, &fast);
    }
    let mut runs = RunSet::default();
    runs.push(inv.clone()).expect("one row cannot repeat an id");
    let run = &runs.into_runs()[0];
    let verifier = Verifier::default();
    let report = verifier.verify_run(run);
    assert_eq!(report.invocations, [verifier.verify(&inv)], "verify_run differs");
}

/// Decodes the input layout described in the module docs; `None` when it is too short.
fn invocation(data: &[u8]) -> Option<Invocation> {
    let [flags, mode, rest @ ..] = data else { return None };
    let mut sections = rest.splitn(3, |&b| b == 0).map(|s| String::from_utf8_lossy(s).into_owned());
    let details = sections.next().unwrap_or_default();
    let raw = sections.next().unwrap_or_default();
    let preview = sections.next();

    let retrieval_details = match (flags >> 6 & 1, details.is_empty()) {
        (0, true) => None,
        (0, false) => Some(Json::parse(&details).unwrap_or_else(|_| Json::string(&details))),
        _ => Some(Json::string(&details)),
    };
    let raw_output = match flags >> 4 & 3 {
        0 => None,
        2 => Some(Json::parse(&raw).map_or(RawOutput::Text(raw), RawOutput::Json)),
        3 => Some(RawOutput::Text(inside_strings(&raw))),
        _ => Some(RawOutput::Text(raw)),
    };
    let output_length = preview.as_deref().and_then(|p| match mode & 3 {
        0 => None,
        1 => i64::try_from(p.chars().count()).ok(),
        2 => i64::try_from(p.encode_utf16().count()).ok(),
        _ => i64::try_from(p.len()).ok(),
    });
    Some(Invocation {
        id: 7,
        tool_name: "fuzz".into(),
        success: [None, Some(true), Some(false), None][usize::from(flags & 3)],
        is_truncated: [None, Some(false), Some(true), Some(false)][usize::from(flags >> 2 & 3)],
        invalid_utf8: flags >> 7 == 1,
        retrieval_details,
        raw_output,
        output_preview: preview,
        output_length,
        ..Invocation::default()
    })
}

/// The raw section as JSON inside a string, the way MCP servers return tool output: the text
/// of `{"content":[{"type":"text","text":…}]}`. A leading `!` wraps it twice (JSON encoded
/// twice), a leading `~` cuts the text in half first (a string holding cut-short JSON); both
/// may repeat, up to four layers.
fn inside_strings(raw: &str) -> String {
    let mut text = raw;
    let mut layers = 1;
    let mut cut = false;
    while let Some(rest) = text.strip_prefix('!').filter(|_| layers < 4) {
        layers += 1;
        text = rest;
    }
    if let Some(rest) = text.strip_prefix('~') {
        cut = true;
        text = rest;
    }
    let mut text = text.to_string();
    if cut {
        let mut half = text.len() / 2;
        while !text.is_char_boundary(half) {
            half -= 1;
        }
        text.truncate(half);
    }
    for _ in 0..layers {
        let inner = serde_json::to_string(&text).unwrap_or_default();
        text = format!(r#"{{"content":[{{"type":"text","text":{inner}}}]}}"#);
    }
    text
}

/// Limits small enough that fuzz inputs hit every one of them.
fn small_policy() -> Policy {
    let small = [
        (Limit::Depth, 3),
        (Limit::Nodes, 5),
        (Limit::Refs, 3),
        (Limit::TextLength, 20),
        (Limit::PathLength, 30),
        (Limit::OutputSize, 200),
    ];
    small
        .into_iter()
        .fold(Policy::default(), |p, (limit, n)| p.with_limit(limit, n).expect("a limit of at least 1"))
}

/// A policy picked by `mode`: any rung, either `require`, and limits at the engines' seams
/// (serde_json parses at most 127 levels; JSONPath never runs deeper than the query ceiling).
fn chosen_policy(mode: u8) -> Policy {
    let d = Limits::default();
    let limits = match mode >> 5 {
        0 => d,
        1 => d.with(Limit::Depth, 127).unwrap(),
        2 => d.with(Limit::Depth, 128).unwrap(),
        3 => d.with(Limit::Depth, 1).unwrap(),
        4 => d.with(Limit::Nodes, 1).unwrap().with(Limit::Refs, 1).unwrap(),
        5 => d.with(Limit::TextLength, 4).unwrap().with(Limit::PathLength, 6).unwrap(),
        // The smallest output limit a policy may have: every raw output text is over it.
        6 => d.with(Limit::OutputSize, 1).unwrap(),
        _ => d.with(Limit::Depth, Limits::QUERY_DEPTH_CEILING as i128 + 1).unwrap(),
    };
    let fuzzy = mode >> 2 & 3 == 3;
    // A low threshold under the fuzzy rung, so that fuzz inputs reach it.
    let min_score =
        if fuzzy { Score::from_thousandths(500).unwrap_or(Score::DEFAULT_MIN) } else { Score::DEFAULT_MIN };
    Policy::default()
        .with_max_rung([Rung::Exact, Rung::Normalized, Rung::Elided, Rung::Fuzzy][usize::from(mode >> 2 & 3)])
        .with_require(if mode >> 4 & 1 == 1 { Require::Any } else { Require::All })
        .with_limits(limits)
        .with_min_score(min_score)
        .expect("a threshold above 0")
}

/// The report invariants of docs/verification.md#classification that hold for every input.
fn check_verdict(inv: &Invocation, policy: &Policy, v: &Verdict) {
    assert_eq!((v.id, v.tool_name.as_str()), (inv.id, inv.tool_name.as_str()));
    assert_eq!(v.status == Status::Supported, v.reason == Reason::Verified, "{v:?}");
    if v.reason == Reason::MalformedDetails {
        assert!(v.status == Status::Unsupported && v.refs.is_empty(), "{v:?}");
    }
    if v.status == Status::NoEvidence {
        assert!(matches!(v.reason, Reason::ToolFailed | Reason::NoEvidenceMarker | Reason::NoRefs), "{v:?}");
    }
    if inv.raw_output.is_some() {
        assert_eq!(v.source, Source::RawOutput);
    }
    let claimed = v.claimed_status.as_deref().and_then(|c| c.parse::<Status>().ok());
    assert_eq!(v.claim_agrees, claimed.map(|c| c == v.status), "{v:?}");
    assert!(v.warnings.windows(2).all(|w| w[0] < w[1]), "warnings out of order or repeated: {v:?}");
    if v.warnings.contains(&Warning::DescendedIntoString) {
        let decided = |r: &&RefReport| !matches!(r.outcome, RefOutcome::PathNotFound);
        assert!(v.refs.iter().any(|r| decided(&r)), "descended, but every ref is path_not_found: {v:?}");
    }
    for (i, r) in v.refs.iter().enumerate() {
        assert_eq!(r.index, i, "{v:?}");
        let verified = r.outcome == RefOutcome::Verified;
        assert_eq!(r.rung.is_some(), verified, "{r:?}");
        assert_eq!(r.matched_path.is_some(), verified, "{r:?}");
        assert!(r.rung.is_none_or(|rung| rung <= policy.max_rung()), "{r:?} under {policy:?}");
        assert!(r.matched_path.as_ref().is_none_or(|p| p.starts_with('$')), "{r:?}");
        let unavailable = r.outcome == RefOutcome::RawOutputUnavailable;
        assert_eq!(r.in_preview.is_some(), unavailable && inv.output_preview.is_some(), "{r:?}");
        if i >= policy.limits().get(Limit::Refs) {
            assert_eq!(r.outcome, RefOutcome::LimitExceeded, "{r:?}");
        }
        if inv.success == Some(false) {
            assert!(!verified, "a failed call's ref verified: {r:?}");
        }
        check_near_miss(inv, policy, r);
    }
}

/// The near-miss fields of docs/verification.md#near-misses: `score` only on a fuzzy match
/// and at least the threshold; `nearest` only on `text_not_found`, its score in (0, 1] and
/// its text non-empty; and `elsewhere` only on `path_not_found` / `text_not_found`, naming
/// a leaf that, used as the ref's path, verifies the ref (on a rung up to the policy's,
/// fuzzy aside).
fn check_near_miss(inv: &Invocation, policy: &Policy, r: &RefReport) {
    let fuzzy = r.rung == Some(Rung::Fuzzy);
    assert_eq!(r.score.is_some(), fuzzy, "{r:?}");
    assert!(r.score.is_none_or(|s| s >= policy.min_score() && s <= Score::ONE), "{r:?}");
    if let Some(nearest) = &r.nearest {
        assert_eq!(r.outcome, RefOutcome::TextNotFound, "{r:?}");
        assert!(nearest.score > Score::from_thousandths(0).unwrap() && nearest.score <= Score::ONE, "{r:?}");
        assert!(!nearest.text.is_empty() && nearest.path.starts_with('$'), "{r:?}");
    }
    let Some(elsewhere) = &r.elsewhere else { return };
    assert!(matches!(r.outcome, RefOutcome::PathNotFound | RefOutcome::TextNotFound), "{r:?}");
    let text = r.text.as_deref().expect("a checked ref has a text");
    let mut again = inv.clone();
    let refs = serde_json::json!({"evidence_refs": [{"raw_path": elsewhere, "text": text}]});
    again.retrieval_details = Some(Json::parse(&refs.to_string()).expect("serde_json writes JSON"));
    // The path a report prints may be longer than the policy's path limit.
    let limits = policy.limits().with(Limit::PathLength, usize::MAX as i128).unwrap();
    let exact = policy.with_max_rung(policy.max_rung().min(Rung::Elided)).with_limits(limits);
    let verdict = Verifier::new(exact).verify(&again);
    assert_eq!(
        verdict.refs[0].outcome,
        RefOutcome::Verified,
        "elsewhere {elsewhere} does not hold {r:?}: {verdict:?}"
    );
}

/// Re-resolving every node of `$..*` on a big document would be quadratic: check a few.
const RECHECKED: usize = 8;

/// The `resolve` target on one input.
pub fn resolve_path(data: &[u8]) {
    let (path, doc) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let path = String::from_utf8_lossy(path);
    let Ok(doc) = Json::parse(&String::from_utf8_lossy(doc)) else { return };
    let Ok(nodes) = resolve(&path, &doc) else { return };
    for node in nodes.iter().take(RECHECKED) {
        assert!(Json::parse(&node.value).is_ok(), "{node:?} is not JSON");
        match resolve(&node.path, &doc) {
            Ok(again) => assert_eq!(again, std::slice::from_ref(node), "{node:?} does not resolve to itself"),
            Err(e) if e.kind() == ErrorKind::TooDeep && doc.depth() > Limits::QUERY_DEPTH_CEILING => {}
            Err(e) => panic!("the normalized path of {node:?} does not resolve: {e}"),
        }
    }
}
