//! Fuzzes `Bundle::parse` (the fixture and `verify` file format) and `RunSet`.
//!
//! Input: any bytes; only UTF-8 text reaches the parser (a file that is not UTF-8 never does).
//! Asserts, besides "no panic, no hang, bounded memory":
//! - a bundle that parses survives `to_json_string` → `parse` unchanged, and writing it again
//!   gives the same text (the writer is a fixed point);
//! - `RunSet` refuses exactly the `id`s already seen in the same run (run id, or session for
//!   rows without one), keeps every invocation it accepted, and sorts each run by `id`.
//!
//! `tests/fuzz_regressions.rs` replays `fuzz/regressions/bundle_parse/` through the same
//! checks on stable Rust; keep the two in step.
#![no_main]

use std::collections::HashSet;

use groundcheck_core::{Bundle, RunSet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(bundle) = Bundle::parse(text) else { return };

    let written = bundle.to_json_string();
    let again =
        Bundle::parse(&written).unwrap_or_else(|e| panic!("a written bundle does not parse: {e}\n{written}"));
    assert_eq!(again, bundle, "the bundle changed in a write/parse round trip");
    assert_eq!(again.to_json_string(), written, "writing is not a fixed point");

    // Run grouping: the key is the run id, or the session for rows without one (§2).
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
});
