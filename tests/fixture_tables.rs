//! The verdict tables of `fixtures/README.md` were derived by hand from the rules; this checks
//! each one against the fixture's snapshot (`tests/snapshots/`, the program's JSON report),
//! so that neither drifts from the other. The README stays prose and tables written for
//! people; what its cells say is compared, not how they are worded around it.
//!
//! Checked: every row of every `| id | tool | source | status | …` table (tool, source,
//! status, reason, claimed status and agreement, warnings, and each ref's index, outcome,
//! rung, `matched_path`, `in_preview`, `nearest` score and path, `elsewhere` path where the
//! cell gives them), that each fixture's tables list all its invocations and refs, and the
//! Summary table's counts. A row whose id is `〃` continues the refs cell of the row above (so
//! that no cell grows past 200 characters); its other cells are empty.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::harness::repo;

/// The README's section per fixture file: its lines under `### `FILE``.
fn sections(readme: &str) -> BTreeMap<String, Vec<&str>> {
    let mut sections: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut current = None;
    for line in readme.lines() {
        if line.starts_with("## ") {
            current = None;
        }
        if let Some(name) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            current = Some(name.to_string());
            sections.entry(name.to_string()).or_default();
        } else if let Some(name) = &current {
            sections.get_mut(name).unwrap().push(line);
        }
    }
    sections
}

/// The cells of a table row (`| a | b |`), trimmed; a `|` inside backticks is no separator.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let (mut cells, mut cell, mut code) = (Vec::new(), String::new(), false);
    for c in inner.chars() {
        match c {
            '`' => {
                code = !code;
                cell.push(c);
            }
            '|' if !code => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

/// The text between the first pair of backticks in `s`.
fn code(s: &str) -> Option<&str> {
    let (_, rest) = s.split_once('`')?;
    Some(rest.split_once('`')?.0)
}

/// A path as a cell writes it: `` `$['a']` ``, or for a long one pieces joined by ` + `, each
/// repeated `×N` times (`` `$` + `['children']`×511 + `['name']` ``).
fn path(cell: &str) -> String {
    cell.split(" + ")
        .map(|piece| {
            let times = piece.rsplit_once('×').map_or(1, |(_, n)| n.parse().expect("×N"));
            code(piece).expect("a path in backticks").repeat(times)
        })
        .collect()
}

/// The fixture's report, from its snapshot (the text after insta's header).
fn snapshot(file: &str) -> Value {
    let path =
        repo(&format!("tests/snapshots/integration__snapshots__every_fixture_json_report@{file}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text.splitn(3, "---\n").nth(2).expect("insta header");
    serde_json::from_str(body).unwrap()
}

/// `"—"` or `null` in a cell stands for JSON null.
fn nullable(cell: &str) -> Value {
    match cell.trim_matches('`') {
        "—" | "null" => Value::Null,
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        text => Value::String(text.to_string()),
    }
}

/// Compares one ref item of a refs cell (`0: verified · exact · `$['a']``) with the report's
/// ref; returns what differs.
fn compare_ref(item: &str, got: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut differ = |what: &str, said: Value, got: &Value| {
        if &said != got {
            problems.push(format!("{what}: the README says {said}, the report {got}"));
        }
    };
    // A parenthesised remark explains; it claims nothing to compare.
    let item = item.split(" (").next().unwrap();
    let (index, rest) = item.split_once(": ").expect("`N: outcome`");
    differ("index", Value::from(index.parse::<u64>().expect("index")), &got["index"]);
    let mut parts = rest.split(" · ");
    differ("outcome", Value::from(parts.next().unwrap()), &got["outcome"]);
    for part in parts {
        if let Some(flag) = part.strip_prefix("in_preview=") {
            differ("in_preview", nullable(flag), &got["in_preview"]);
        } else if let Some(nearest) = part.strip_prefix("nearest ") {
            let (said, on) = nearest.split_once(" on ").map_or((nearest, None), |(s, on)| (s, Some(on)));
            let score = format!("{:.3}", got["nearest"]["score"].as_f64().unwrap_or(f64::NAN));
            differ("nearest score", Value::from(said), &Value::from(score));
            if let Some(on) = on {
                differ("nearest path", Value::from(path(on)), &got["nearest"]["path"]);
            }
        } else if let Some(elsewhere) = part.strip_prefix("elsewhere ") {
            let paths: Vec<&Value> = got["elsewhere"]
                .as_array()
                .map(|all| all.iter().map(|e| e.get("path").unwrap_or(e)).collect())
                .unwrap_or_else(|| vec![got["elsewhere"].get("path").unwrap_or(&got["elsewhere"])]);
            let said = Value::from(path(elsewhere));
            let found = paths.iter().find(|p| ***p == said).copied().unwrap_or(&got["elsewhere"]);
            differ("elsewhere", said, found);
        } else if part.starts_with('`') {
            differ("matched_path", Value::from(path(part)), &got["matched_path"]);
        } else {
            differ("rung", Value::from(part), &got["match"]);
        }
    }
    problems
}

/// Compares one invocation row with the report's invocation; returns what differs.
fn compare_row(row: &[String], got: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let said = |cell: &str| Value::from(cell.trim_matches('*'));
    let (claimed, agrees) = row[5].split_once(" / ").expect("`claimed` / agrees");
    let warnings: Vec<Value> = match row[7].as_str() {
        "—" => Vec::new(),
        list => list.split(", ").map(|w| Value::from(w.trim_matches('`'))).collect(),
    };
    for (what, said, field) in [
        ("tool", said(&row[1]), "tool_name"),
        ("source", said(&row[2]), "source"),
        ("status", said(&row[3]), "status"),
        ("reason", said(&row[4]), "reason"),
        ("claimed status", nullable(claimed), "claimed_status"),
        ("claim agrees", nullable(agrees), "claim_agrees"),
        ("warnings", Value::Array(warnings), "warnings"),
    ] {
        if said != got[field] {
            problems.push(format!("{what}: the README says {said}, the report {}", got[field]));
        }
    }
    let refs = got["refs"].as_array().unwrap();
    let items: Vec<&str> = match row[6].as_str() {
        "—" => Vec::new(),
        cell => cell.split("<br>").collect(),
    };
    if items.len() != refs.len() {
        problems.push(format!("the README lists {} refs, the report {}", items.len(), refs.len()));
    }
    for (item, got) in items.iter().zip(refs) {
        problems.extend(compare_ref(item, got).into_iter().map(|p| format!("ref {item:?}: {p}")));
    }
    problems
}

#[test]
fn fixture_readme_verdict_tables_match_the_snapshots() {
    let readme = std::fs::read_to_string(repo("fixtures/README.md")).unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, lines) in sections(&readme) {
        let report = snapshot(&file);
        let invocations: BTreeMap<i64, &Value> = report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|run| run["invocations"].as_array().unwrap())
            .map(|inv| (inv["id"].as_i64().unwrap(), inv))
            .collect();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut in_table = false;
        for line in lines {
            if line.starts_with("| id | tool | source | status | reason |") {
                // An empty row marks a new table: a continuation cannot reach into the last one.
                rows.push(Vec::new());
                in_table = true;
            } else if !line.starts_with('|') {
                in_table = false;
            } else if in_table && !line.starts_with("|---") {
                let row = cells(line);
                if row[0] == "〃" {
                    // The refs of the row above, continued: every other cell is empty.
                    let above = rows.last_mut().filter(|above| !above.is_empty());
                    let above = above.unwrap_or_else(|| panic!("{file}: {line} continues no row"));
                    let empty = row.iter().enumerate().all(|(i, c)| i == 0 || i == 6 || c.is_empty());
                    assert!(row.len() == 8 && empty && row[6] != "—", "{file}: {line}");
                    above[6] = format!("{}<br>{}", above[6], row[6]);
                } else {
                    rows.push(row);
                }
            }
        }
        let mut listed = Vec::new();
        for row in rows.iter().filter(|row| !row.is_empty()) {
            let id: i64 = row[0].parse().unwrap_or_else(|_| panic!("{file}: {row:?}"));
            listed.push(id);
            match invocations.get(&id) {
                None => problems.push(format!("{file} {id}: no such invocation in the report")),
                Some(got) => {
                    problems.extend(compare_row(row, got).into_iter().map(|p| format!("{file} {id}: {p}")));
                }
            }
            checked += 1;
        }
        listed.sort();
        let all: Vec<i64> = invocations.keys().copied().collect();
        if listed != all {
            problems.push(format!("{file}: the README's tables list {listed:?}, the report has {all:?}"));
        }
    }
    assert!(problems.is_empty(), "fixtures/README.md and the snapshots disagree:\n{}", problems.join("\n"));
    assert!(checked >= 150, "only {checked} rows were checked");
}

#[test]
fn fixture_readme_summary_matches_the_snapshots() {
    let readme = std::fs::read_to_string(repo("fixtures/README.md")).unwrap();
    let mut problems = Vec::new();
    let mut rows = 0;
    let summary = readme.split("\n## Summary\n").nth(1).unwrap().split("\n## ").next().unwrap();
    for line in summary.lines().filter(|l| l.starts_with("| `")) {
        let row = cells(line);
        let file = code(&row[0]).unwrap();
        // The run, by its run_id and session_id (`null` · `sess-…`: a run without run_id).
        let (run_id, session) = row[1].split_once(" · ").expect("`run_id` · `session_id`");
        let (run_id, session) = (nullable(run_id), nullable(session));
        let report = snapshot(file);
        let run = report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["run_id"] == run_id && r["session_id"] == session);
        let Some(run) = run else {
            problems.push(format!("{file}: no run {run_id} · {session} in the report"));
            continue;
        };
        let totals: Vec<u64> = ["invocations", "supported", "unsupported", "no_evidence", "claim_mismatches"]
            .iter()
            .map(|field| run["summary"][field].as_u64().unwrap())
            .collect();
        let said: Vec<u64> = row[2..7].iter().map(|c| c.parse().unwrap_or(u64::MAX)).collect();
        if said != totals {
            problems.push(format!("{file}: the README says {said:?}, the report {totals:?}"));
        }
        rows += 1;
    }
    assert!(
        problems.is_empty(),
        "fixtures/README.md's Summary and the snapshots disagree:\n{}",
        problems.join("\n")
    );
    assert_eq!(rows, 29, "the Summary has a row per run of each fixture file");
}
