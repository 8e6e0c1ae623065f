//! The JSONPath Compliance Test Suite
//! (<https://github.com/jsonpath-standard/jsonpath-compliance-test-suite>) run through
//! `groundcheck_core::resolve`, the resolution `groundcheck resolve` and every evidence ref use.
//!
//! The suite is vendored in `tests/data/jsonpath-cts/` (its README names the source commit;
//! LICENSE and NOTICE are the suite's own) and compiled into the test binary, so it always runs:
//! there is nothing to find at run time and nothing to skip.

use groundcheck_core::{resolve, Json};
use serde_json::Value;

/// At most this many failure lines are printed.
const MAX_LINES: usize = 40;

/// The vendored suite, `tests/data/jsonpath-cts/cts.json`, byte for byte.
const SUITE: &str = include_str!("data/jsonpath-cts/cts.json");

/// The suite's test cases.
fn load_suite() -> Vec<Value> {
    let suite: Value = serde_json::from_str(SUITE).expect("tests/data/jsonpath-cts/cts.json is JSON");
    let tests = suite["tests"].as_array().expect("the suite has a `tests` array").clone();
    assert!(!tests.is_empty(), "the vendored suite holds no test cases");
    tests
}

/// One alternative the suite accepts: the node values and their normalized paths.
struct Expected {
    values: Vec<Value>,
    paths: Vec<String>,
}

fn expected_alternatives(case: &Value) -> Vec<Expected> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("result paths are an array")
            .iter()
            .map(|p| p.as_str().expect("a result path is a string").to_string())
            .collect()
    };
    let values = |v: &Value| -> Vec<Value> { v.as_array().expect("a result is an array").clone() };
    if let Some(result) = case.get("result") {
        vec![Expected { values: values(result), paths: strings(&case["result_paths"]) }]
    } else {
        let results = case["results"].as_array().expect("`result` or `results`");
        let paths = case["results_paths"].as_array().expect("`results_paths` beside `results`");
        assert_eq!(results.len(), paths.len(), "results and results_paths differ in length");
        results.iter().zip(paths).map(|(r, p)| Expected { values: values(r), paths: strings(p) }).collect()
    }
}

/// Runs one case; `Err` describes the failure as "expected ..., got ...".
fn run_case(case: &Value) -> Result<(), String> {
    let selector = case["selector"].as_str().ok_or("the case has no string selector")?;
    if case.get("invalid_selector").and_then(Value::as_bool) == Some(true) {
        // Any document will do: an invalid selector must be rejected before it is run.
        let doc = Json::parse("{}").expect("{} is JSON");
        return match resolve(selector, &doc) {
            Err(_) => Ok(()),
            Ok(nodes) => Err(format!(
                "expected the selector to be rejected, got {} node(s) {:?}",
                nodes.len(),
                nodes.iter().map(|n| &n.path).collect::<Vec<_>>()
            )),
        };
    }
    // The document goes in as text, the way raw outputs do.
    let text = serde_json::to_string(&case["document"]).expect("documents serialize");
    let doc = Json::parse(&text).map_err(|e| format!("the document did not parse: {e}"))?;
    let nodes =
        resolve(selector, &doc).map_err(|e| format!("expected a valid selector, got the error `{e}`"))?;
    let mut got_values = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let v: Value = serde_json::from_str(&n.value)
            .map_err(|e| format!("node {} has a value that is not JSON ({e}): {}", n.path, n.value))?;
        got_values.push(v);
    }
    let got_paths: Vec<String> = nodes.iter().map(|n| n.path.clone()).collect();
    let alternatives = expected_alternatives(case);
    if alternatives.iter().any(|e| e.values == got_values && e.paths == got_paths) {
        return Ok(());
    }
    let show = |values: &[Value], paths: &[String]| {
        format!("{} {}", Value::Array(values.to_vec()), serde_json::to_string(paths).unwrap())
    };
    let expected: Vec<String> = alternatives.iter().map(|e| show(&e.values, &e.paths)).collect();
    Err(format!("expected {}, got {}", expected.join(" or "), show(&got_values, &got_paths)))
}

/// Runs `cases`, returning how many ran and the failures as `name: problem` lines.
fn run_cases<'a>(cases: impl Iterator<Item = &'a Value>) -> (usize, Vec<String>) {
    let mut ran = 0;
    let mut failures = Vec::new();
    for case in cases {
        ran += 1;
        let name = case["name"].as_str().unwrap_or("(unnamed case)");
        // A panic is a failure of its own case, not the end of the run.
        let outcome = std::panic::catch_unwind(|| run_case(case))
            .unwrap_or_else(|_| Err("the library panicked".to_string()));
        if let Err(problem) = outcome {
            failures.push(format!("{name} (selector {}): {problem}", case["selector"]));
        }
    }
    (ran, failures)
}

fn report(failures: &[String], ran: usize) -> String {
    let mut lines: Vec<String> = failures.iter().take(MAX_LINES).cloned().collect();
    if failures.len() > MAX_LINES {
        lines.push(format!("... and {} more", failures.len() - MAX_LINES));
    }
    format!("{} of {ran} JSONPath Compliance Test Suite cases failed:\n{}", failures.len(), lines.join("\n"))
}

#[test]
fn jsonpath_compliance_test_suite() {
    let tests = load_suite();
    let (ran, failures) = run_cases(tests.iter());
    assert_eq!(ran, tests.len(), "every case in the file must run");
    assert!(failures.is_empty(), "{}", report(&failures, ran));
}

/// The vendored file is the one `tests/data/jsonpath-cts/README.md` describes: same number
/// of cases, of invalid selectors, and of cases with several valid result orders. Guards a
/// partial copy or an update that forgot the README (and with it the source commit).
#[test]
fn the_vendored_suite_is_the_one_its_readme_describes() {
    let readme = include_str!("data/jsonpath-cts/README.md");
    let tests = load_suite();
    // The README's prose with line breaks folded, so a phrase may wrap.
    let prose = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let count_before = |phrase: &str| -> usize {
        let at = prose.find(phrase).unwrap_or_else(|| panic!("the README does not say `{phrase}`"));
        let number = prose[..at].split_whitespace().last().unwrap_or_default();
        number.parse().unwrap_or_else(|_| panic!("the README's `{number} {phrase}` is not a count"))
    };
    let invalid = tests.iter().filter(|c| c["invalid_selector"] == Value::Bool(true)).count();
    let several = tests.iter().filter(|c| c.get("results").is_some()).count();
    assert_eq!(tests.len(), count_before("cases:"), "cases");
    assert_eq!(invalid, count_before("invalid selectors"), "invalid selectors");
    assert_eq!(several, count_before("cases with several"), "cases with several result orders");
}

/// Normalized paths of names that need escapes (RFC 9535 §2.7): the suite's cases whose
/// expected paths hold a backslash. The main test runs them too; this one makes sure they are
/// there and says so by name if they fail.
#[test]
fn normalized_paths_with_escapes_agree_with_the_suite() {
    let tests = load_suite();
    let needs_escape = |case: &&Value| {
        let paths: Vec<&Value> = match (case.get("result_paths"), case.get("results_paths")) {
            (Some(p), _) => p.as_array().map(|a| a.iter().collect()).unwrap_or_default(),
            (None, Some(ps)) => {
                ps.as_array().into_iter().flatten().filter_map(Value::as_array).flatten().collect()
            }
            (None, None) => Vec::new(),
        };
        paths.iter().any(|p| p.as_str().is_some_and(|p| p.contains('\\')))
    };
    let (ran, failures) = run_cases(tests.iter().filter(needs_escape));
    // The suite escapes `'`, `\`, and \b \f \n \r \t, each in single- and double-quoted names.
    assert!(ran >= 10, "expected the suite to hold cases with escaped names, found {ran}");
    assert!(failures.is_empty(), "{}", report(&failures, ran));
}

/// The escapes the suite does not show: other control characters as `\u00XX` (lower-case
/// hex), and characters that stay as they are (`"`, `/`, U+007F, non-ASCII).
#[test]
fn normalized_paths_escape_every_control_character() {
    let doc = Json::parse(r#"{"a\u0001\u001f":1, "q\"/\u007fé☺":2, "it's \\ \b\f\n\r\t":3}"#).unwrap();
    let paths: Vec<String> = resolve("$.*", &doc).unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, [r"$['a\u0001\u001f']", "$['q\"/\u{7f}é☺']", r"$['it\'s \\ \b\f\n\r\t']"]);
    // A normalized path is itself a valid query selecting the same node.
    for path in &paths {
        let again = resolve(path, &doc).unwrap();
        assert_eq!(again.len(), 1, "{path}");
        assert_eq!(&again[0].path, path);
    }
}
