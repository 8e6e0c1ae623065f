//! The HTML evidence page in a real browser: Debian's Chromium, headless, driven over
//! WebDriver by ChromeDriver, which the test starts on a free loopback port and stops.
//!
//! The page is opened from a file, as a person opens it. Without Chromium and ChromeDriver
//! these tests fail and say what to install: `.ci/run` installs both.

mod webdriver;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::harness::{self, repo};
use webdriver::{Driver, Session};

/// Log entries at level SEVERE or WARNING.
fn log_problems(client: &Session) -> Vec<Value> {
    let entries = client.browser_log();
    entries.into_iter().filter(|e| matches!(e["level"].as_str(), Some("SEVERE" | "WARNING"))).collect()
}

/// Nothing was fetched, and nothing complained (a CSP violation would).
fn assert_fetched_nothing_and_quiet(client: &Session) {
    let resources = client.execute("return performance.getEntriesByType('resource').length", vec![]);
    assert_eq!(resources, 0, "the page loads nothing");
    assert_eq!(log_problems(client), Vec::<Value>::new(), "console errors or warnings");
}

/// Writes the page and the JSON report of `verify PATHS` to `dir`.
fn page_and_report(dir: &Path, paths: &[&str]) -> (PathBuf, Value) {
    let html = harness::run(["verify", "--format", "html"].iter().copied().chain(paths.iter().copied()));
    assert_eq!(html.code, 0, "{}", html.stderr);
    let json = harness::run(["verify", "--format", "json"].iter().copied().chain(paths.iter().copied()));
    assert_eq!(json.code, 0, "{}", json.stderr);
    let page = harness::write(dir, "page.html", &html.stdout);
    (page, serde_json::from_str(&json.stdout).unwrap())
}

/// How many invocations the page shows, and their statuses, after the filters changed.
fn visible(client: &Session) -> Vec<String> {
    let shown = client.execute(
        "return Array.from(document.querySelectorAll('article.inv')).filter(a => a.offsetParent !== null).map(a => a.dataset.status)",
        vec![],
    );
    serde_json::from_value(shown).unwrap()
}

#[test]
fn the_fixtures_page_shows_the_report_and_every_quote_where_it_is() {
    let dir = harness::temp_dir();
    let (page, report) = page_and_report(dir.path(), &["fixtures/"]);
    let driver = Driver::start();
    let client = driver.open(&page);
    assert_eq!(
        client.execute("return document.documentElement.dataset.ready", vec![]),
        "true",
        "the page's script ran under its own Content-Security-Policy"
    );

    let sum = |key: &str| harness::summary_total(&report, key);
    let totals =
        client.execute("return Object.assign({}, document.getElementById('totals').dataset)", vec![]);
    for (attr, key) in [
        ("invocations", "invocations"),
        ("supported", "supported"),
        ("unsupported", "unsupported"),
        ("noEvidence", "no_evidence"),
        ("claimMismatches", "claim_mismatches"),
    ] {
        assert_eq!(totals[attr].as_str().unwrap().parse::<u64>().unwrap(), sum(key), "{attr}");
    }
    let invocations = sum("invocations") as usize;
    assert_eq!(client.find_all("article.inv").len(), invocations);

    // Every verified ref has its mark in its own item; every near miss and mis-pointed
    // ref the report names is marked where the report says.
    let mut expected = Vec::new();
    for run in report["runs"].as_array().unwrap() {
        for inv in run["invocations"].as_array().unwrap() {
            for r in inv["refs"].as_array().unwrap() {
                let data_ref = format!("{}:{}", inv["id"], r["index"]);
                let kinds: &[&str] = match (r["outcome"].as_str().unwrap(), r["match"].as_str()) {
                    ("verified", Some("exact")) => &["quote"],
                    ("verified", _) => &["leaf"],
                    _ => &[],
                };
                for kind in kinds
                    .iter()
                    .copied()
                    .chain(r.get("nearest").map(|_| "nearest"))
                    .chain(r.get("elsewhere").map(|_| "elsewhere"))
                {
                    expected.push(json!([format!("inv-{}", inv["id"]), data_ref, kind, r["outcome"]]));
                }
            }
        }
    }
    assert!(expected.len() > 100, "the fixtures have many marks: {}", expected.len());
    let missing = client.execute(
        "return arguments[0].filter(([inv, ref, kind, outcome]) => {
            const item = document.querySelector(`#${inv} [data-ref=\"${ref}\"][data-outcome=\"${outcome}\"]`);
            return !item || !item.querySelector(`mark[data-ref=\"${ref}\"][data-mark=\"${kind}\"]`);
         })",
        vec![Value::Array(expected)],
    );
    assert_eq!(missing, json!([]), "refs without their marks");
    let quote = client
        .execute("return document.querySelector('#inv-101 mark[data-mark=\"quote\"]').textContent", vec![]);
    assert_eq!(
        quote, report["runs"][0]["invocations"][0]["refs"][0]["text"],
        "the exact quote is what is highlighted"
    );

    // The filters hide and show the right invocations, and the runs left empty.
    let statuses = |s: &str| sum(s) as usize;
    assert_eq!(visible(&client).len(), invocations);
    client.find("input[name=status][value=supported]").click();
    let shown = visible(&client);
    assert_eq!(shown.len(), statuses("unsupported") + statuses("no_evidence"));
    assert!(shown.iter().all(|s| s != "supported"));
    let empty_runs = client.execute("return Array.from(document.querySelectorAll('section.run')).filter(s => s.hidden && !s.querySelector('article.inv:not([hidden])')).length", vec![]);
    assert!(empty_runs.as_u64().unwrap() > 0, "a run whose invocations are all supported is hidden");
    client.find("input[name=status][value=supported]").click();
    client.find("#mismatch").click();
    assert_eq!(visible(&client).len(), statuses("claim_mismatches"));
    client.find("#mismatch").click();

    let tool = "query_traces";
    let with_tool = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["invocations"].as_array().unwrap())
        .filter(|i| i["tool_name"] == tool)
        .count();
    assert!(with_tool > 0);
    client.execute("const s = document.getElementById('tool'); s.value = arguments[0]; s.dispatchEvent(new Event('change', {bubbles: true}))", vec![json!(tool)]);
    assert_eq!(visible(&client).len(), with_tool);
    client.execute("const s = document.getElementById('tool'); s.value = ''; s.dispatchEvent(new Event('change', {bubbles: true}))", vec![]);

    client.find("#search").send_keys("q8z1m");
    let found = client.execute(
        "return Array.from(document.querySelectorAll('article.inv:not([hidden])')).map(a => a.id)",
        vec![],
    );
    assert_eq!(found, json!(["inv-103"]), "a quote found by the text search");
    client.execute("const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input', {bubbles: true}))", vec![]);
    assert_eq!(visible(&client).len(), invocations);

    assert_fetched_nothing_and_quiet(&client);

    let shots = repo("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    std::fs::write(shots.join("fixtures.png"), client.screenshot()).unwrap();
}

#[test]
fn hostile_payloads_show_as_text_and_run_nothing() {
    let dir = harness::temp_dir();
    let (page, report) = page_and_report(dir.path(), &["fixtures/hostile/16_html_payloads.json"]);
    let driver = Driver::start();
    let client = driver.open(&page);
    // An alert would have left a dialog open, and this command would fail on it.
    assert_eq!(client.title(), "groundcheck evidence");
    assert_eq!(client.execute("return document.documentElement.dataset.ready", vec![]), "true");
    let elements = client.execute(
        "return ['script', 'style', 'img', 'iframe', 'svg', 'a', 'base', 'meta', 'b', 'link', 'object', 'embed']
            .map(t => t + '=' + document.getElementsByTagName(t).length).join(' ')",
        vec![],
    );
    assert_eq!(
        elements,
        "script=1 style=1 img=0 iframe=0 svg=0 a=0 base=0 meta=4 b=0 link=0 object=0 embed=0"
    );
    assert_eq!(client.execute("return location.protocol", vec![]), "file:");
    let text = client.execute("return document.body.textContent", vec![]);
    let text = text.as_str().unwrap();
    for payload in ["</script><script>document.title='pwned'</script>", "<svg onload=alert(1)>", "<U+2028>"] {
        assert!(text.contains(payload), "{payload} is shown as text");
    }
    let run_id = report["runs"][0]["run_id"].as_str().unwrap();
    let shown = client.execute("return document.querySelector('section.run').dataset.run", vec![]);
    assert_eq!(shown, run_id, "attributes hold the text exactly");
    assert_fetched_nothing_and_quiet(&client);
}

/// How many invocations `many_invocations` writes: the page's budget holds about 2,400 of them,
/// so it leaves most out (the test checks it does), as it would of a report of any size past
/// it, and shows all 600 failures with supported invocations after them.
const MANY: usize = 6_000;

/// `MANY` small invocations (one in ten misquoted, in two runs) as one bundle.
fn many_invocations(dir: &Path) -> PathBuf {
    let invocations: Vec<Value> = (1..=MANY)
        .map(|i| {
            let quote = if i % 10 == 0 { "disk full" } else { "connection refused" };
            let tool = ["query_logs", "query_metrics", "lookup_knowledge"][i % 3];
            json!({
                "id": i,
                "run_id": if i % 2 == 0 { "even" } else { "odd" },
                "tool_name": tool,
                "retrieval_details": {"evidence_status": "supported",
                    "evidence_refs": [{"raw_path": "$.logs[0].message", "text": quote}]},
                "raw_output": {"logs": [{"message": format!("dial tcp 10.0.0.{}:5432: connection refused", i % 250)}]},
            })
        })
        .collect();
    harness::write(dir, "many.json", json!({"invocations": invocations}).to_string())
}

#[test]
fn a_page_of_many_invocations_keeps_to_its_budget_failures_first_and_opens() {
    let dir = harness::temp_dir();
    let bundle = many_invocations(dir.path());
    let bundle = bundle.to_str().unwrap();
    let (page, report) = page_and_report(dir.path(), &[bundle]);
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size <= 5 * 1024 * 1024, "the page is {size} bytes: over its 4 MiB budget of invocations");
    let driver = Driver::start();
    let client = driver.open(&page);
    assert_eq!(client.execute("return document.documentElement.dataset.ready", vec![]), "true");
    let note =
        client.execute("return Object.assign({}, document.getElementById('left-out').dataset)", vec![]);
    let count = |v: &Value| v.as_str().unwrap().parse::<u64>().unwrap();
    let (shown, left_out) = (count(&note["shown"]), count(&note["leftOut"]));
    assert_eq!(shown + left_out, MANY as u64, "every invocation is shown or counted");
    assert!(left_out > MANY as u64 / 2, "the budget left out most: {shown} shown");
    let articles = client.execute(
        "return Array.from(document.querySelectorAll('article.inv')).map(a => a.dataset.status)",
        vec![],
    );
    let articles: Vec<String> = serde_json::from_value(articles).unwrap();
    assert_eq!(articles.len() as u64, shown);
    // The failures come first: no supported invocation is on the page while an
    // unsupported one is left off it.
    let unsupported_shown = articles.iter().filter(|s| *s == "unsupported").count() as u64;
    let unsupported = harness::summary_total(&report, "unsupported");
    assert_eq!(unsupported, MANY as u64 / 10);
    assert!(shown > unsupported, "room for every failure and more: {shown} shown");
    assert_eq!(unsupported_shown, unsupported, "every failure is shown, beside supported ones");
    // Each run counts what it leaves out; the counts add up to the header's.
    let per_run = client.execute(
        "return Array.from(document.querySelectorAll('section.run p.left-out')).map(p => Number(p.dataset.leftOut))",
        vec![],
    );
    let per_run: Vec<u64> = serde_json::from_value(per_run).unwrap();
    assert_eq!(per_run.iter().sum::<u64>(), left_out);
    assert_fetched_nothing_and_quiet(&client);
}
