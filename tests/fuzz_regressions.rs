//! Replays every input saved under `fuzz/regressions/<target>/` through the checks of the
//! cargo-fuzz target of that name, on stable Rust, so a fixed fuzz finding stays fixed.
//!
//! The checks are copied plainly from `fuzz/fuzz_targets/*.rs` (the fuzz package is built
//! on nightly, outside the workspace, so there is no shared crate); keep the two in step.
//! Files directly in `fuzz/regressions/` (its README) are not inputs.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use groundcheck_core::{
    resolve, verify_invocation, verify_invocation_general, verify_run, Bundle, Invocation, Json, Limits,
    Policy, RawOutput, Reason, RefOutcome, Require, ResolveError, RunSet, Rung, Source, Status, Verdict,
};

use crate::harness::repo;

/// What a fuzz target checks on one input (it panics when a check fails).
type Check = fn(&[u8]);

/// The targets, each with the check its fuzz target runs on one input.
const TARGETS: [(&str, Check); 3] =
    [("bundle_parse", bundle_parse), ("verify_invocation", verify), ("resolve", resolve_path)];

/// The saved inputs of one target, sorted; none when its folder does not exist.
fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = repo("fuzz/regressions").join(target);
    let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

/// How long one input may take. The fuzzers stop at 10 s (`-timeout=10`, release build);
/// this is a debug build, but every saved input takes milliseconds once its bug is fixed,
/// and the hangs kept here take minutes while they are not.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// Runs `check` on every input, each on its own thread within [`TIME_LIMIT`]: how many ran,
/// and each input that panicked or overran (all of them, not just the first).
fn replay(target: &str, check: Check) -> (usize, Vec<String>) {
    let files = inputs(target);
    let failed: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let bytes = fs::read(file).unwrap();
            let (done, finished) = mpsc::channel();
            // A panic drops `done` unsent; an overrun leaves the thread behind until the
            // test binary exits.
            thread::spawn(move || {
                check(&bytes);
                let _ = done.send(());
            });
            match finished.recv_timeout(TIME_LIMIT) {
                Ok(()) => None,
                Err(RecvTimeoutError::Disconnected) => Some(format!("{}: panicked", file.display())),
                Err(RecvTimeoutError::Timeout) => {
                    Some(format!("{}: still running after {TIME_LIMIT:?}", file.display()))
                }
            }
        })
        .collect();
    (files.len(), failed)
}

/// Every saved input of every target passes its target's checks.
#[test]
fn saved_fuzz_inputs_pass_their_targets_checks() {
    let root = repo("fuzz/regressions");
    assert!(root.is_dir(), "{} is missing", root.display());
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !path.is_dir() || TARGETS.iter().any(|(t, _)| *t == name),
            "{}: not a fuzz target's folder",
            path.display()
        );
    }
    let mut failed = Vec::new();
    for (target, check) in TARGETS {
        let (n, failures) = replay(target, check);
        println!("fuzz regressions: {n} {target} input(s) replayed");
        failed.extend(failures);
    }
    assert!(failed.is_empty(), "these saved fuzz inputs fail again: {failed:#?}");
}

// ---------------------------------------------------------------------------------------------
// bundle_parse (fuzz/fuzz_targets/bundle_parse.rs)
// ---------------------------------------------------------------------------------------------

/// A parsed bundle survives a write/parse round trip; `RunSet` refuses exactly repeated ids.
fn bundle_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(bundle) = Bundle::parse(text) else { return };

    let written = bundle.to_json_string();
    let again = Bundle::parse(&written).unwrap_or_else(|e| panic!("a written bundle does not parse: {e}"));
    assert_eq!(again, bundle, "the bundle changed in a write/parse round trip");
    assert_eq!(again.to_json_string(), written, "writing is not a fixed point");

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

// ---------------------------------------------------------------------------------------------
// verify_invocation (fuzz/fuzz_targets/verify_invocation.rs; its docs describe the layout)
// ---------------------------------------------------------------------------------------------

/// Fast and general engines agree under three policies, and every verdict keeps its invariants.
fn verify(data: &[u8]) {
    let Some(inv) = invocation(data) else { return };
    for policy in [Policy::default(), small_policy(), chosen_policy(data[1])] {
        let fast = verify_invocation(&inv, &policy);
        let general = verify_invocation_general(&inv, &policy);
        assert_eq!(fast, general, "fast and general verdicts differ under {policy:?}");
        check_verdict(&inv, &policy, &fast);
    }
    let mut runs = RunSet::default();
    runs.push(inv.clone()).expect("one row cannot repeat an id");
    let report = verify_run(&runs.into_runs()[0], &Policy::default());
    assert_eq!(report.invocations, [verify_invocation(&inv, &Policy::default())], "verify_run differs");
}

/// `[flags] [mode] details \0 raw \0 preview`, as the fuzz target decodes it.
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

/// Limits small enough that fuzz inputs hit every one of them.
fn small_policy() -> Policy {
    Policy {
        limits: Limits {
            max_depth: 3,
            max_nodes: 5,
            max_refs: 3,
            max_text_chars: 20,
            max_path_chars: 30,
            max_output_bytes: 200,
        },
        ..Policy::default()
    }
}

/// The policy the input's `mode` byte picks: rung, `require`, and limits at the engines' seams.
fn chosen_policy(mode: u8) -> Policy {
    let d = Limits::default();
    let limits = match mode >> 5 {
        0 => d,
        1 => Limits { max_depth: 127, ..d },
        2 => Limits { max_depth: 128, ..d },
        3 => Limits { max_depth: 1, ..d },
        4 => Limits { max_nodes: 1, max_refs: 1, ..d },
        5 => Limits { max_text_chars: 4, max_path_chars: 6, ..d },
        6 => Limits { max_output_bytes: 0, ..d },
        _ => Limits { max_depth: Limits::QUERY_DEPTH_CEILING + 1, ..d },
    };
    Policy {
        max_rung: [Rung::Exact, Rung::Normalized, Rung::Elided, Rung::Elided][usize::from(mode >> 2 & 3)],
        require: if mode >> 4 & 1 == 1 { Require::Any } else { Require::All },
        limits,
    }
}

/// The report invariants of SPEC §3.4 and §4 that hold for every input.
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
    let claimed = match v.claimed_status.as_deref() {
        Some("supported") => Some(Status::Supported),
        Some("unsupported") => Some(Status::Unsupported),
        Some("no_evidence") => Some(Status::NoEvidence),
        _ => None,
    };
    assert_eq!(v.claim_agrees, claimed.map(|c| c == v.status), "{v:?}");
    for (i, r) in v.refs.iter().enumerate() {
        assert_eq!(r.index, i, "{v:?}");
        let verified = r.outcome == RefOutcome::Verified;
        assert_eq!(r.rung.is_some(), verified, "{r:?}");
        assert_eq!(r.matched_path.is_some(), verified, "{r:?}");
        assert!(r.rung.is_none_or(|rung| rung <= policy.max_rung), "{r:?} under {policy:?}");
        assert!(r.matched_path.as_ref().is_none_or(|p| p.starts_with('$')), "{r:?}");
        let unavailable = r.outcome == RefOutcome::RawOutputUnavailable;
        assert_eq!(r.in_preview.is_some(), unavailable && inv.output_preview.is_some(), "{r:?}");
        if i >= policy.limits.max_refs {
            assert_eq!(r.outcome, RefOutcome::LimitExceeded, "{r:?}");
        }
        if inv.success == Some(false) {
            assert!(!verified, "a failed call's ref verified: {r:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// resolve (fuzz/fuzz_targets/resolve.rs)
// ---------------------------------------------------------------------------------------------

/// `path \0 document`: every selected node's value is JSON and its normalized path finds it again.
fn resolve_path(data: &[u8]) {
    let (path, doc) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let path = String::from_utf8_lossy(path);
    let Ok(doc) = Json::parse(&String::from_utf8_lossy(doc)) else { return };
    let Ok(nodes) = resolve(&path, &doc) else { return };
    for node in nodes.iter().take(8) {
        assert!(Json::parse(&node.value).is_ok(), "{node:?} is not JSON");
        match resolve(&node.path, &doc) {
            Ok(again) => assert_eq!(again, std::slice::from_ref(node), "{node:?} does not resolve to itself"),
            Err(ResolveError::TooDeep { .. }) if doc.depth() > Limits::QUERY_DEPTH_CEILING => {}
            Err(e) => panic!("the normalized path of {node:?} does not resolve: {e}"),
        }
    }
}
