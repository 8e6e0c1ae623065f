//! The agent's table as agents declare it, on every engine: PostgreSQL with `jsonb`, `json` or
//! `text` JSON columns, `NUMERIC` integers and `timestamptz`; MariaDB with `JSON` or `LONGTEXT`,
//! `DECIMAL(12,0)` integers, `DATETIME(6)`, `TINYINT(1)` and `BIT(1)` booleans; SQLite with any
//! declared type. Filled by `import`, each table gives through `run`, `reverify --write`,
//! `export` (then `verify`) and MCP `verify_run` exactly the verdicts `verify` gives for a
//! bundle holding the same text (for `jsonb`, the server's text of the value, which rewrites
//! numbers and key order). A column whose type cannot hold its value stops every read with one
//! line naming the table, the column and its type, before any verdict.

use std::collections::BTreeMap;

use serde_json::Value;
use sqlx::{Connection, Row};

use crate::engines::{self, block_on, Engine};
use crate::harness::{self, Outcome};

/// Fixtures whose raw outputs are all JSON (a `jsonb` column holds nothing else), one run each.
const FIXTURES: [&str; 5] = [
    "01_order_svc_5xx_spike",
    "07_pod_status_bracket_keys",
    "09_numbers_as_written",
    "17_claim_agreement_kafka",
    "22_json_encoded_twice",
];

/// One way of declaring the two tables: `{json}`, `{int}`, `{bool}`, `{time}`, `{out}` (the
/// raw output's type) are put into the seed's columns.
struct Declaration {
    name: &'static str,
    json: &'static str,
    int: &'static str,
    boolean: &'static str,
    time: &'static str,
    out: &'static str,
}

fn declarations(engine: &str) -> Vec<Declaration> {
    let d = |name, json, int, boolean, time, out| Declaration { name, json, int, boolean, time, out };
    match engine {
        "postgres" => vec![
            d("jsonb", "JSONB", "NUMERIC", "BOOLEAN", "TIMESTAMPTZ", "JSONB"),
            d("json", "JSON", "NUMERIC(12,0)", "BOOLEAN", "TIMESTAMPTZ(6)", "JSON"),
            d("text", "TEXT", "BIGINT", "BOOLEAN", "TEXT", "TEXT"),
            d("bytea", "VARCHAR(4000)", "INTEGER", "BOOLEAN", "TIMESTAMP", "BYTEA"),
        ],
        "mariadb" => vec![
            d("json", "JSON", "DECIMAL(12,0)", "TINYINT(1)", "DATETIME(6)", "JSON"),
            d("longtext", "LONGTEXT", "DECIMAL(12,0)", "BIT(1)", "DATETIME(6)", "LONGTEXT"),
            d("varchar", "VARCHAR(4000)", "INT", "BOOLEAN", "VARCHAR(32)", "MEDIUMBLOB"),
        ],
        _ => vec![d("declared", "JSONB", "DECIMAL(12,0)", "BIT(1)", "TIMESTAMPTZ", "JSON")],
    }
}

/// The two tables as `declaration` says, by plain SQL (the agent made them).
fn create(engine: &Engine, declaration: &Declaration) -> Vec<String> {
    let Declaration { json, int, boolean, time, out, .. } = declaration;
    let tail = if engine.name == "mariadb" { " DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin" } else { "" };
    vec![
        format!(
            "CREATE TABLE tool_invocation (id {int} PRIMARY KEY, session_id VARCHAR(64) NOT NULL, \
             run_id VARCHAR(64), step_id {int}, tool_name VARCHAR(64) NOT NULL, input_params {json} NOT NULL, \
             output_preview TEXT, output_length {int}, retrieval_layer VARCHAR(8), l0_match_count {int}, \
             l1_match_count {int}, is_truncated {boolean}, relevance_level VARCHAR(20), \
             dedup_reason VARCHAR(32), retrieval_details {json}, duration_ms {int}, success {boolean}, \
             error_message TEXT, created_at {time} NOT NULL){tail}"
        ),
        format!("CREATE TABLE tool_invocation_output (invocation_id {int} PRIMARY KEY, raw_output {out} NOT NULL){tail}"),
    ]
}

/// Drops what a declaration (and groundcheck) made: the next one starts empty.
fn drop_all(engine: &Engine) {
    let tables = [
        "evidence_verification",
        "tool_invocation_output",
        "tool_invocation",
        "reverify_checkpoint",
        "groundcheck_migrations",
    ];
    let cascade = if engine.name == "postgres" { " CASCADE" } else { "" };
    let statements: Vec<String> =
        tables.iter().map(|t| format!("DROP TABLE IF EXISTS {t}{cascade}")).collect();
    engines::exec(engine, &statements);
}

/// Each raw output as the server's text of the value, read by plain SQL: what a bundle of the
/// same text holds.
fn stored_outputs(engine: &Engine, declaration: &Declaration) -> BTreeMap<i64, String> {
    let url = engines::creating(engine);
    block_on(async {
        macro_rules! fetch {
            ($conn:ty, $sql:expr) => {{
                let mut conn = <$conn>::connect(&url).await.expect("the database is reachable");
                let rows = sqlx::query($sql).fetch_all(&mut conn).await.expect("the outputs are read");
                rows.iter()
                    .map(|r| (r.get::<i64, _>(0), String::from_utf8(r.get::<Vec<u8>, _>(1)).expect("UTF-8")))
                    .collect()
            }};
        }
        match engine.name {
            "sqlite" => fetch!(
                sqlx::SqliteConnection,
                "SELECT invocation_id, CAST(raw_output AS BLOB) FROM tool_invocation_output"
            ),
            "mariadb" => fetch!(
                sqlx::MySqlConnection,
                "SELECT CAST(invocation_id AS SIGNED), CAST(raw_output AS BINARY) FROM tool_invocation_output"
            ),
            _ if declaration.out == "BYTEA" => fetch!(
                sqlx::PgConnection,
                "SELECT invocation_id::bigint, raw_output FROM tool_invocation_output"
            ),
            _ => fetch!(
                sqlx::PgConnection,
                "SELECT invocation_id::bigint, convert_to(raw_output::text, 'UTF8') FROM tool_invocation_output"
            ),
        }
    })
}

fn gc(url: &str, args: &[&str]) -> Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    harness::run(all)
}

fn ok(what: &str, out: &Outcome) {
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
}

/// Each run's invocations of a report, by run id.
fn by_run(report: &Value) -> BTreeMap<String, Value> {
    report["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("not a report: {report}"))
        .iter()
        .map(|run| (run["run_id"].as_str().expect("a run id").to_string(), run["invocations"].clone()))
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The fixtures as bundles whose raw outputs are `outputs` (the database's text), written to
/// `dir`; `verify`'s report of them.
fn expected(dir: &std::path::Path, outputs: &BTreeMap<i64, String>) -> BTreeMap<String, Value> {
    let mut files = Vec::new();
    for name in FIXTURES {
        let text =
            std::fs::read_to_string(harness::repo(&format!("fixtures/{name}.json"))).expect("a fixture");
        let mut bundle = json(&text);
        for inv in bundle["invocations"].as_array_mut().expect("invocations") {
            let id = inv["id"].as_i64().expect("an id");
            let object = inv.as_object_mut().expect("an invocation");
            object.remove("raw_output");
            object.insert("raw_output_text".into(), Value::String(outputs[&id].clone()));
        }
        files.push(harness::write(dir, &format!("{name}.json"), bundle.to_string()));
    }
    let mut args = vec!["verify".to_string(), "--format".into(), "json".into()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let out = harness::run(&args);
    assert!(out.code == 0 || out.code == 1, "verify: {}", out.stderr);
    by_run(&json(&out.stdout))
}

/// `(id, status, reason)` of every invocation, in order.
fn outcomes(runs: &BTreeMap<String, Value>) -> Vec<(i64, String, String)> {
    runs.values()
        .flat_map(|invocations| invocations.as_array().expect("invocations").iter())
        .map(|i| {
            (
                i["id"].as_i64().unwrap(),
                i["status"].as_str().unwrap().into(),
                i["reason"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// The stored verdicts of `reverify --write`, in id order.
fn stored_verdicts(engine: &Engine) -> Vec<(i64, String, String)> {
    let url = engines::creating(engine);
    let sql = "SELECT invocation_id, status, reason FROM evidence_verification ORDER BY invocation_id";
    block_on(async {
        macro_rules! fetch {
            ($conn:ty) => {{
                let mut conn = <$conn>::connect(&url).await.expect("the database is reachable");
                let rows = sqlx::query(sql).fetch_all(&mut conn).await.expect("the verdicts are read");
                rows.iter()
                    .map(|r| (r.get::<i64, _>(0), r.get::<String, _>(1), r.get::<String, _>(2)))
                    .collect()
            }};
        }
        match engine.name {
            "sqlite" => fetch!(sqlx::SqliteConnection),
            "mariadb" => fetch!(sqlx::MySqlConnection),
            _ => fetch!(sqlx::PgConnection),
        }
    })
}

/// `verify_run` of each run through `groundcheck mcp --database`, one JSON-RPC message a line,
/// one server per run: calls in flight together may leave a result's `structuredContent` as
/// the transport's placeholder object (seen with six pipelined `verify_run` calls), which is
/// the MCP server's own matter, not the store's.
fn mcp_runs(url: &str, runs: &[String]) -> BTreeMap<String, Value> {
    let mut found = BTreeMap::new();
    for run in runs {
        let call = serde_json::json!({
            "jsonrpc": "2.0", "id": 10, "method": "tools/call",
            "params": {"name": "verify_run", "arguments": {"run_id": run}}
        });
        let input = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            call.to_string(),
        ]
        .join("\n")
            + "\n";
        let out = harness::run_with(["mcp", "--database", url], &[], Some(input.as_bytes()));
        ok("mcp", &out);
        let answer = out.stdout.lines().map(json).find(|m| m["id"] == 10);
        let result = &answer.unwrap_or_else(|| panic!("no answer: {}", out.stdout))["result"];
        assert_ne!(result["isError"], Value::Bool(true), "verify_run: {result}");
        found.extend(by_run(&result["structuredContent"]));
    }
    found
}

#[test]
fn every_door_reads_agent_declared_types_as_verify_reads_the_same_text() {
    for engine in engines::all() {
        for declaration in declarations(engine.name) {
            let what = format!("{} {}", engine.name, declaration.name);
            drop_all(&engine);
            engines::exec(&engine, &create(&engine, &declaration));
            let url = engines::creating(&engine);
            ok(&what, &gc(&url, &["migrate"]));
            let files: Vec<String> = FIXTURES
                .iter()
                .map(|f| harness::repo(&format!("fixtures/{f}.json")).display().to_string())
                .collect();
            let mut import = vec!["import"];
            import.extend(files.iter().map(String::as_str));
            ok(&format!("{what}: import"), &gc(&url, &import));

            let dir = harness::temp_dir();
            let want = expected(dir.path(), &stored_outputs(&engine, &declaration));
            let runs: Vec<String> = want.keys().cloned().collect();

            let mut run = vec!["run", "--format", "json"];
            run.extend(runs.iter().map(String::as_str));
            let out = gc(&url, &run);
            assert!(out.code == 0 || out.code == 1, "{what}: run: {}", out.stderr);
            assert_eq!(by_run(&json(&out.stdout)), want, "{what}: run");

            let out = gc(&url, &["reverify", "--write", "--format", "json"]);
            assert!(out.code == 0 || out.code == 1, "{what}: reverify: {}", out.stderr);
            let mut want_outcomes = outcomes(&want);
            want_outcomes.sort();
            assert_eq!(stored_verdicts(&engine), want_outcomes, "{what}: reverify --write");

            let exported = dir.path().join("exported");
            let mut export = vec!["export", "--out", exported.to_str().unwrap()];
            export.extend(runs.iter().map(String::as_str));
            ok(&format!("{what}: export"), &gc(&url, &export));
            let mut verify = vec!["verify".to_string(), "--format".into(), "json".into()];
            verify.extend(runs.iter().map(|r| exported.join(format!("{r}.json")).display().to_string()));
            let out = harness::run(&verify);
            assert!(out.code == 0 || out.code == 1, "{what}: verify of the export: {}", out.stderr);
            assert_eq!(by_run(&json(&out.stdout)), want, "{what}: export, then verify");

            assert_eq!(mcp_runs(&url, &runs), want, "{what}: mcp verify_run");
        }
    }
}

/// A table whose `column` is declared `bad`, with one row inserted by plain SQL.
fn misdeclared(engine: &Engine, column: &str, bad: &str) {
    drop_all(engine);
    let good = |c: &str| match c {
        "input_params" | "retrieval_details" => "TEXT",
        "created_at" => "TIMESTAMP",
        _ => "BIGINT",
    };
    let ty = |c: &str| if c == column { bad.to_string() } else { good(c).to_string() };
    let create = format!(
        "CREATE TABLE tool_invocation (id BIGINT PRIMARY KEY, session_id VARCHAR(64) NOT NULL, run_id VARCHAR(64), \
         step_id BIGINT, tool_name VARCHAR(64) NOT NULL, input_params {} NOT NULL, output_preview TEXT, \
         output_length {}, retrieval_layer VARCHAR(8), l0_match_count BIGINT, l1_match_count BIGINT, \
         is_truncated BOOLEAN, relevance_level VARCHAR(20), dedup_reason VARCHAR(32), retrieval_details TEXT, \
         duration_ms BIGINT, success BOOLEAN, error_message TEXT, created_at {} NOT NULL)",
        ty("input_params"),
        ty("output_length"),
        ty("created_at"),
    );
    let params = if column == "input_params" { "0" } else { "'{}'" };
    let insert = format!(
        "INSERT INTO tool_invocation (id, session_id, run_id, tool_name, input_params, output_length, created_at) \
         VALUES (1, 's-1', 'run-a', 'query_logs', {params}, 43, '2026-01-01')"
    );
    engines::exec(engine, &[create, insert]);
}

#[test]
fn a_column_type_that_cannot_hold_its_value_stops_every_read_naming_it() {
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        // The type as the catalogue gives it: MariaDB adds INT's display width.
        let (decimal, date, int, int_shown) = match engine.name {
            "postgres" => ("NUMERIC(12,2)", "DATE", "INTEGER", "INTEGER"),
            _ => ("DECIMAL(12,2)", "DATE", "INT", "INT(11)"),
        };
        for (column, bad, shown, kind) in [
            (
                "output_length",
                decimal,
                decimal,
                "an integer column must be an integer type or DECIMAL/NUMERIC with scale 0",
            ),
            ("created_at", date, date, "a time column must be"),
            ("input_params", int, int_shown, "a JSON column must be JSON, JSONB"),
        ] {
            misdeclared(&engine, column, bad);
            let url = engines::creating(&engine);
            let dir = harness::temp_dir();
            let out_dir = dir.path().join("out").display().to_string();
            let named = format!("tool_invocation.{column} is {shown}: {kind}");
            for args in [
                &["run", "--format", "json", "run-a"][..],
                &["reverify", "--format", "json"],
                &["export", "--out", &out_dir, "run-a"],
            ] {
                let what = format!("{} {column} {bad}: {}", engine.name, args[0]);
                let out = gc(&url, args);
                assert_eq!(out.code, 2, "{what}: {}{}", out.stdout, out.stderr);
                assert!(out.stderr.contains(&named), "{what}: {}", out.stderr);
                assert_eq!(out.stderr.trim_end().lines().count(), 1, "{what}: {}", out.stderr);
                assert!(!out.stdout.contains("\"status\""), "{what}: {}", out.stdout);
            }
        }
    }
}

/// Booleans declared as an integer type and as `BIT(1)`, an integer as a scale-0 `NUMERIC`,
/// and `created_at` as `timestamptz` / `DATETIME(6)`, filled by plain SQL (not `import`): the
/// exported bundle holds the values the agent wrote.
#[test]
fn integer_and_bit_booleans_read_as_the_values_written() {
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        drop_all(&engine);
        let (time, decimal) = match engine.name {
            "postgres" => ("TIMESTAMPTZ", "NUMERIC(12,0)"),
            _ => ("DATETIME(6)", "DECIMAL(12,0)"),
        };
        let create = format!(
            "CREATE TABLE tool_invocation (id {decimal} PRIMARY KEY, session_id VARCHAR(64) NOT NULL, \
             run_id VARCHAR(64), step_id SMALLINT, tool_name VARCHAR(64) NOT NULL, input_params TEXT NOT NULL, \
             output_preview TEXT, output_length {decimal}, retrieval_layer VARCHAR(8), l0_match_count BIGINT, \
             l1_match_count BIGINT, is_truncated SMALLINT, retrieval_details TEXT, duration_ms {decimal}, \
             success BIT(1), error_message TEXT, created_at {time} NOT NULL)"
        );
        let insert =
            "INSERT INTO tool_invocation (id, session_id, run_id, step_id, tool_name, input_params, \
             output_length, is_truncated, duration_ms, success, created_at) VALUES \
             (7, 's-1', 'run-a', 3, 'query_logs', '{}', 43, 1, 1250, b'0', '2026-01-01 00:00:01.5'), \
             (8, 's-1', 'run-a', 4, 'query_logs', '{}', 44, 0, 0, b'1', '2026-01-01 00:00:02')"
                .to_string();
        engines::exec(&engine, &[create, insert]);
        let url = engines::creating(&engine);
        let dir = harness::temp_dir();
        let out_dir = dir.path().join("out");
        ok(engine.name, &gc(&url, &["export", "--out", out_dir.to_str().unwrap(), "run-a"]));
        let bundle = json(&std::fs::read_to_string(out_dir.join("run-a.json")).expect("the export"));
        let read: Vec<Value> = bundle["invocations"]
            .as_array()
            .expect("invocations")
            .iter()
            .map(|i| {
                serde_json::json!([
                    i["id"],
                    i["step_id"],
                    i["output_length"],
                    i["is_truncated"],
                    i["duration_ms"],
                    i["success"],
                    i["created_at"]
                ])
            })
            .collect();
        let want = serde_json::json!([
            [7, 3, 43, true, 1250, false, "2026-01-01T00:00:01.5Z"],
            [8, 4, 44, false, 0, true, "2026-01-01T00:00:02Z"]
        ]);
        assert_eq!(Value::Array(read), want, "{}", engine.name);
    }
}
