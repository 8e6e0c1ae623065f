//! `--compare-with POLICY`: after a policy change, the changes are against the
//! verdicts stored under the old policy, not all `new`; a policy never stored is refused.

use serde_json::Value;

use super::{fixture_statuses, gc, json, transitions};
use crate::engines;

const ELIDED: &str = "require=all;match=elided";

#[test]
fn a_policy_change_is_compared_with_the_verdicts_stored_under_the_old_policy() {
    let elided = fixture_statuses(&[]);
    let exact = fixture_statuses(&["--match", "exact"]);
    let demoted =
        elided.iter().zip(&exact).filter(|(a, b)| a.1 == "supported" && b.1 == "unsupported").count();
    assert!(demoted > 0, "the fixtures hold elisions and normalised quotes that exact refuses");
    for engine in engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        assert_eq!(gc(url, &["migrate"]).code, 0);
        assert_eq!(gc(url, &["import", "fixtures"]).code, 0);

        // Nothing stored under any policy yet: refused in one line naming the flag.
        let refused = gc(url, &["reverify", "--match", "exact", "--compare-with", ELIDED]);
        assert_eq!(refused.code, 2, "{name}: {}", refused.stderr);
        assert!(refused.stdout.is_empty(), "{name}");
        assert_eq!(refused.stderr.lines().count(), 1, "{name}: {}", refused.stderr);
        assert!(
            refused
                .stderr
                .starts_with(&format!("--compare-with: no verdicts are stored under {ELIDED:?} in "))
                && refused.stderr.contains("(none is stored yet)"),
            "{name}: {}",
            refused.stderr
        );

        assert_eq!(gc(url, &["reverify", "--write"]).code, 0, "{name}: the elided verdicts are stored");
        let compare = ["reverify", "--match", "exact", "--compare-with", ELIDED, "--format", "json"];
        let exact = json(&gc(url, &compare));
        assert_eq!(exact["policy"], "require=all;match=exact", "{name}");
        assert_eq!(exact["compared_with"], ELIDED, "{name}");
        let table = transitions(&exact);
        assert!(
            table.iter().all(|(from, _, _)| from != "new"),
            "{name}: every invocation had a verdict: {table:?}"
        );
        let total = elided.len() as u64;
        assert_eq!(table.iter().map(|(_, _, n)| n).sum::<u64>(), total, "{name}: the table adds up");
        assert!(
            table.contains(&("supported".into(), "unsupported".into(), demoted as u64)),
            "{name}: {table:?}"
        );
        let changes = exact["changes"].as_array().unwrap();
        assert!(changes.len() >= demoted, "{name}");
        let ladder: Vec<&Value> = changes.iter().filter(|c| c["id"] == 1201).collect();
        assert_eq!(ladder.len(), 1, "{name}: 1201 quotes with an elision, exact refuses it");
        assert_eq!(ladder[0]["from"], serde_json::json!({"status": "supported", "reason": "verified"}));
        assert_eq!(ladder[0]["to"]["status"], "unsupported");

        // The default stays the job's own policy: nothing is stored under `exact`, all new.
        let own = json(&gc(url, &["reverify", "--match", "exact", "--format", "json"]));
        assert!(transitions(&own).iter().all(|(from, _, _)| from == "new"), "{name}");
        assert!(own.get("compared_with").is_none(), "{name}: only when asked for");

        // People see which policy the changes are against, and the marked transitions.
        let human = gc(url, &["reverify", "--match", "exact", "--compare-with", ELIDED]);
        assert_eq!(human.code, 0, "{name}: {}", human.stderr);
        assert!(human.stdout.contains(&format!("changes against the verdicts stored before ({ELIDED}):\n")));
        let line = format!("supported → unsupported {demoted}  *\n");
        assert!(human.stdout.contains(&line), "{name}: {}", human.stdout);

        // A key never stored names those that are.
        let unknown = gc(url, &["reverify", "--compare-with", "require=any;match=exact"]);
        assert_eq!(unknown.code, 2, "{name}");
        assert!(unknown.stderr.ends_with(&format!("(stored: {ELIDED})\n")), "{name}: {}", unknown.stderr);
        assert!(!unknown.stderr.contains("groundcheck-test-pw"), "{name}: never the password");
    }
}
