//! Raw outputs that are YAML or JSON Lines (docs/verification.md#yaml-and-json-lines), verified
//! on every route: the generator of `fuzz/structured.rs` (the `structured_views` fuzz target's,
//! included here with `#[path]`) driven by a seeded xorshift. `cargo test` runs a few thousand
//! cases; `GROUNDCHECK_STRUCTURED_CASES=1000000` runs a million (see `fuzz/README.md`, "Runs").

use groundcheck_core::{Invocation, Json, RawOutput, Verifier, Warning};
use serde_json::json;

#[path = "../fuzz/structured.rs"]
mod structured;

use structured::{check, text, verifiers, Bytes, Rng};

#[test]
fn every_route_gives_the_same_verdict_on_generated_yaml_and_json_lines() {
    let cases: u64 =
        std::env::var("GROUNDCHECK_STRUCTURED_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3_000);
    let seed: u64 =
        std::env::var("GROUNDCHECK_STRUCTURED_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(27);
    let verifiers = verifiers();
    let mut rng = Rng(seed | 1);
    let started = std::time::Instant::now();
    for case in 0..cases {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check(&mut rng, &verifiers, case as i64)
        }));
        if let Err(e) = run {
            panic!("seed {seed}, case {case}: {e:?}");
        }
    }
    // Every route was exercised: located (singular paths), `Value` (general ones) and the tree.
    for (fast, tree) in &verifiers {
        let (taken, all_tree) = (fast.route_counts(), tree.route_counts());
        assert!(taken.located > 0 && taken.value > 0 && all_tree.tree > 0, "{taken:?} {all_tree:?}");
    }
    if cases > 3_000 {
        eprintln!("{cases} cases (seed {seed}) in {:?}", started.elapsed());
    }
}

/// The generator makes what it is meant to: texts of each view, and texts with none.
#[test]
fn the_generator_makes_both_views_and_texts_without_one() {
    let mut rng = Rng(27);
    let (mut yaml_views, mut lines_views, mut none) = (0, 0, 0);
    for _ in 0..400 {
        let raw = text(&mut rng);
        let details = json!({"evidence_refs": [{"raw_path": "$.zz.zz", "text": "q"}, {"raw_path": "$[0]", "text": "q"}]});
        let inv = Invocation {
            retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
            raw_output: Some(RawOutput::Text(raw)),
            ..Invocation::default()
        };
        let v = Verifier::default().verify(&inv);
        match v.warnings.first() {
            Some(Warning::ReadAsYaml) => yaml_views += 1,
            Some(Warning::ReadAsJsonLines) => lines_views += 1,
            _ => none += 1,
        }
    }
    assert!(yaml_views > 40 && lines_views > 40 && none > 40, "{yaml_views} {lines_views} {none}");
}

/// The fuzz target's reading of its bytes: any input is a case (running out of bytes reads
/// zeros), here a few hundred short inputs.
#[test]
fn any_bytes_make_a_case_the_routes_agree_on() {
    let verifiers = verifiers();
    for seed in 0..=255u8 {
        let data: Vec<u8> = (0..(usize::from(seed) % 97))
            .map(|i| seed.wrapping_mul(31).wrapping_add((i as u8).wrapping_mul(7)))
            .collect();
        check(&mut Bytes(&data), &verifiers, i64::from(seed));
    }
    check(&mut Bytes(&[]), &verifiers, 0);
}
