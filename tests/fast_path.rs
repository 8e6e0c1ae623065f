//! The singular-path fast path (documents located, not parsed) gives exactly the verdicts of
//! the general path (every document parsed into a tree), on every fixture, a generated corpus
//! and adversarial documents.

use groundcheck_core::{Bundle, Invocation, Json, Limit, Limits, Policy, RawOutput, Rung, Score, Verifier};

use crate::corpus;
use crate::harness::fixture_files;

#[path = "../fuzz/adversarial.rs"]
mod adversarial;

fn policies() -> Vec<Policy> {
    let mut all = vec![
        Policy::default(),
        Policy::default().with_max_rung(Rung::Exact),
        Policy::default()
            .with_max_rung(Rung::Fuzzy)
            .with_min_score(Score::from_thousandths(700).unwrap())
            .unwrap(),
    ];
    all.push(
        Policy::default().with_limits(
            Limits::default().with(Limit::Depth, 3).unwrap().with(Limit::OutputSize, 300).unwrap(),
        ),
    );
    all
}

/// Asserts that `inv` gets the same verdict on the fast routes and on the tree route under
/// every policy; returns whether the located route really ran for it (under some policy),
/// so that no comparison is the tree route compared with itself unnoticed.
fn assert_same(inv: &Invocation, what: &str) -> bool {
    let mut located = false;
    for policy in policies() {
        let fast = Verifier::new(policy);
        let general = Verifier::new(policy).tree_route_only();
        assert_eq!(fast.verify(inv), general.verify(inv), "{what}: id {} under {}", inv.id, policy.key());
        let taken = general.route_counts();
        assert!(taken.located == 0 && taken.value == 0, "{what}: the tree route took another: {taken:?}");
        located |= fast.route_counts().located > 0;
    }
    located
}

/// The invocation with an inline `raw_output` given as text instead, so the locator reads it.
fn as_text(inv: &Invocation) -> Invocation {
    let mut inv = inv.clone();
    if let Some(RawOutput::Json(doc)) = &inv.raw_output {
        inv.raw_output = Some(RawOutput::Text(doc.to_json_string()));
    }
    inv
}

#[test]
fn fixtures_get_the_same_verdicts_both_ways() {
    let mut checked = 0;
    for file in fixture_files() {
        let bundle = Bundle::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for inv in &bundle.invocations {
            assert_same(inv, &file.display().to_string());
            checked += usize::from(assert_same(&as_text(inv), &file.display().to_string()));
        }
    }
    // Counted by the verifier, not assumed from the raw output's type: a failed call, a
    // general path or a ref that needs no document takes no located route (74 today).
    assert!(checked >= 70, "the located route ran on {checked} fixture invocations");
}

#[test]
fn a_generated_corpus_gets_the_same_verdicts_both_ways() {
    let (mut n, mut located) = (0, 0);
    for text in corpus::bundles(23, 3_000, 1, 1.0, 1_000) {
        for inv in Bundle::parse(&text).unwrap().invocations {
            located += usize::from(assert_same(&inv, "corpus"));
            n += 1;
        }
    }
    assert_eq!(n, 3_000);
    assert!(located > 1_000, "the located route ran on {located} corpus invocations")
}

#[test]
fn adversarial_documents_get_the_same_verdicts_both_ways() {
    let refs = r#"{"evidence_status":"supported","evidence_refs":[
        {"raw_path":"$.a.b","text":"x"},{"raw_path":" $.a.c ","text":"y"},{"raw_path":"$.a[2].b[2]","text":"0.950"},
        {"raw_path":"$.a[0].b","text":"late"},{"raw_path":"$[0][0][0][0]","text":"deep"},{"raw_path":"$","text":"refused"},
        {"raw_path":"$.big","text":"789"},{"raw_path":"$.n","text":"1E+400"},{"raw_path":"$.m","text":"-0"},
        {"raw_path":"$.s","text":"connection ... later"},{"raw_path":"$['k']['']","text":"empty"},{"raw_path":"$.日志[0]","text":"消息"},
        {"raw_path":"$.a[","text":"x"},{"raw_path":"$.nope.deeper[3]","text":"x"},{"raw_path":"$.a","text":"   "}]}"#;
    for (i, raw) in adversarial::DOCUMENTS.iter().enumerate() {
        let inv = Invocation {
            id: i as i64,
            tool_name: "t".into(),
            retrieval_details: Some(Json::parse(refs).unwrap()),
            raw_output: Some(RawOutput::Text(raw.to_string())),
            ..Invocation::default()
        };
        assert!(assert_same(&inv, raw));
        // Each ref alone too: the plan differs with the set of paths.
        let all: serde_json::Value = serde_json::from_str(refs).unwrap();
        for r in all["evidence_refs"].as_array().unwrap() {
            let one = serde_json::json!({"evidence_refs": [r]}).to_string();
            let single = Invocation { retrieval_details: Some(Json::parse(&one).unwrap()), ..inv.clone() };
            assert_same(&single, &format!("{raw} with {r}"));
        }
    }
}
