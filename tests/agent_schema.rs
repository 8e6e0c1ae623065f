//! groundcheck on the agent's own database, on every engine: `migrate` never
//! alters the agent's `tool_invocation`, keeps its history in a table of its own so that the
//! agent's sqlx migrator and groundcheck's both stay happy, moves the history earlier versions
//! kept in `_sqlx_migrations`, and reading works before anyone has migrated.

use serde_json::Value;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, Connection, Row, SqlSafeStr};

use crate::engines::{self, block_on, Engine};
use crate::harness::{self, Outcome};

fn gc(url: &str, args: &[&str]) -> Outcome {
    let mut all: Vec<&str> = vec![args[0], "--database", url];
    all.extend_from_slice(&args[1..]);
    harness::run(all)
}

fn ok(engine: &Engine, what: &str, out: &Outcome) {
    assert_eq!(out.code, 0, "{}: {what}: {}", engine.name, out.stderr);
}

/// The texts of the first column of a query's rows (`sql` must give text on every engine).
fn strings(engine: &Engine, sql: &str) -> Vec<String> {
    let url = engines::creating(engine);
    block_on(async {
        macro_rules! fetch {
            ($conn:ty, $get:expr) => {{
                let mut conn = <$conn>::connect(&url).await.expect("the database is reachable");
                let rows = sqlx::query(AssertSqlSafe(sql.to_string()))
                    .fetch_all(&mut conn)
                    .await
                    .unwrap_or_else(|e| panic!("{}: {sql}: {e}", engine.name));
                rows.iter().map($get).collect()
            }};
        }
        match engine.name {
            "sqlite" => fetch!(sqlx::SqliteConnection, |r: &sqlx::sqlite::SqliteRow| r.get::<String, _>(0)),
            "mariadb" => fetch!(sqlx::MySqlConnection, |r: &sqlx::mysql::MySqlRow| {
                String::from_utf8_lossy(&r.get::<Vec<u8>, _>(0)).into_owned()
            }),
            _ => fetch!(sqlx::PgConnection, |r: &sqlx::postgres::PgRow| r.get::<String, _>(0)),
        }
    })
}

/// The columns of `table`, in order (empty when it does not exist).
fn columns(engine: &Engine, table: &str) -> Vec<String> {
    let sql = match engine.name {
        "sqlite" => format!("SELECT name FROM pragma_table_info('{table}') ORDER BY cid"),
        "mariadb" => format!(
            "SELECT CAST(column_name AS BINARY) FROM information_schema.columns \
             WHERE table_schema = DATABASE() AND table_name = '{table}' ORDER BY ordinal_position"
        ),
        _ => format!(
            "SELECT column_name::text FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = '{table}' ORDER BY ordinal_position"
        ),
    };
    strings(engine, &sql)
}

/// The agent's table as the seed's V005 made it, before its V010 (no `relevance_level`,
/// `dedup_reason`), by plain SQL, with the two rows of [`BUNDLE`].
fn agent_table_before_v010(engine: &Engine) {
    let (id, created_at, tail) = column_types(engine);
    let create = format!(
        "CREATE TABLE tool_invocation ({id}, session_id VARCHAR(64) NOT NULL, run_id VARCHAR(64), \
         step_id BIGINT, tool_name VARCHAR(64) NOT NULL, input_params JSON NOT NULL, output_preview TEXT, \
         output_length INT, retrieval_layer VARCHAR(8), l0_match_count INT, l1_match_count INT, \
         is_truncated BOOLEAN, retrieval_details JSON, duration_ms INT, success BOOLEAN, \
         error_message TEXT, created_at {created_at} NOT NULL){tail}"
    );
    let preview = r#"{"logs":[{"message":"connection refused"}]}"#;
    let row = |id: i64, text: &str, at: &str| {
        format!(
            "INSERT INTO tool_invocation (id, session_id, run_id, tool_name, input_params, output_preview, \
             output_length, is_truncated, retrieval_details, created_at) VALUES ({id}, 's-1', 'run-a', \
             'query_logs', '{{}}', '{preview}', 43, FALSE, \
             '{{\"evidence_status\":\"supported\",\"evidence_refs\":[{{\"raw_path\":\"$.logs[0].message\",\"text\":\"{text}\"}}]}}', \
             '{at}')"
        )
    };
    engines::exec(
        engine,
        &[
            create,
            row(1, "connection refused", "2026-01-01 00:00:00"),
            row(2, "disk full", "2026-01-01 00:00:01"),
        ],
    );
}

/// The engine's `id` and `created_at` column types, and the end of its `CREATE TABLE`.
fn column_types(engine: &Engine) -> (&'static str, &'static str, &'static str) {
    match engine.name {
        "sqlite" => ("id INTEGER PRIMARY KEY AUTOINCREMENT", "DATETIME", ""),
        "mariadb" => ("id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY", "DATETIME(6)", " ENGINE = InnoDB"),
        _ => ("id BIGSERIAL PRIMARY KEY", "TIMESTAMP(6)", ""),
    }
}

/// The same two rows as a bundle file: what `verify` says of them is what reading them from
/// the database must say.
const BUNDLE: &str = r#"{"run_id": "run-a", "session_id": "s-1", "invocations": [
 {"id": 1, "tool_name": "query_logs", "created_at": "2026-01-01T00:00:00Z", "input_params": {},
  "output_preview": "{\"logs\":[{\"message\":\"connection refused\"}]}", "output_length": 43, "is_truncated": false,
  "retrieval_details": {"evidence_status": "supported", "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection refused"}]}},
 {"id": 2, "tool_name": "query_logs", "created_at": "2026-01-01T00:00:01Z", "input_params": {},
  "output_preview": "{\"logs\":[{\"message\":\"connection refused\"}]}", "output_length": 43, "is_truncated": false,
  "retrieval_details": {"evidence_status": "supported", "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "disk full"}]}}]}"#;

/// The verdicts `verify` gives [`BUNDLE`]: one supported (from its complete preview), one not.
fn expected_verdicts() -> Value {
    let dir = harness::temp_dir();
    let file = harness::write(dir.path(), "run-a.json", BUNDLE);
    let out = harness::run(["verify", "--format", "json", file.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let statuses: Vec<&str> = report["runs"][0]["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["supported", "unsupported"], "the bundle tells the two apart");
    report["runs"][0]["invocations"].clone()
}

/// The one notice a command gives about the missing columns.
fn assert_one_notice(engine: &Engine, what: &str, out: &Outcome) {
    let notices: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("tool_invocation has no relevance_level, dedup_reason"))
        .collect();
    assert_eq!(notices.len(), 1, "{}: {what}: one notice on stderr:\n{}", engine.name, out.stderr);
    assert!(notices[0].contains("read as NULL"), "{}: {what}: {}", engine.name, notices[0]);
}

const V005_COLUMNS: &[&str] = &[
    "id",
    "session_id",
    "run_id",
    "step_id",
    "tool_name",
    "input_params",
    "output_preview",
    "output_length",
    "retrieval_layer",
    "l0_match_count",
    "l1_match_count",
    "is_truncated",
    "retrieval_details",
    "duration_ms",
    "success",
    "error_message",
    "created_at",
];

/// Regression: `migrate` added `relevance_level` and `dedup_reason` to an agent table
/// that lacked them, although the table is the agent's.
#[test]
fn migrate_leaves_an_older_agent_table_as_it_is_and_reads_its_missing_columns_as_null() {
    let expected = expected_verdicts();
    for engine in engines::all() {
        agent_table_before_v010(&engine);
        let out = gc(&engine.url, &["migrate"]);
        ok(&engine, "migrate", &out);
        assert_one_notice(&engine, "migrate", &out);
        assert!(
            out.stderr.contains("the table is left as the agent made it"),
            "{}: {}",
            engine.name,
            out.stderr
        );
        ok(&engine, "migrate again", &gc(&engine.url, &["migrate"]));
        assert_eq!(
            columns(&engine, "tool_invocation"),
            V005_COLUMNS,
            "{}: the table is unchanged",
            engine.name
        );

        let out = gc(&engine.url, &["run", "--write", "--format", "json", "run-a"]);
        ok(&engine, "run --write", &out);
        assert_one_notice(&engine, "run --write", &out);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["runs"][0]["invocations"], expected, "{}: the verdicts", engine.name);

        // Export reads both columns as NULL.
        let dir = harness::temp_dir();
        let out = gc(&engine.url, &["export", "run-a", "--out", dir.path().to_str().unwrap()]);
        ok(&engine, "export", &out);
        assert_one_notice(&engine, "export", &out);
        let exported = std::fs::read_to_string(dir.path().join("run-a.json")).unwrap();
        let bundle: Value = serde_json::from_str(&exported).unwrap();
        for row in bundle["invocations"].as_array().unwrap() {
            assert!(
                row["relevance_level"].is_null() && row["dedup_reason"].is_null(),
                "{}: {row}",
                engine.name
            );
        }

        // A row with a value for a missing column is refused before anything is written.
        let bundle = r#"{"run_id": "run-b", "session_id": "s-2", "invocations": [
          {"id": 7, "tool_name": "t", "created_at": "2026-01-01T00:00:00Z", "relevance_level": "PRECISE"}]}"#;
        let file = harness::write(dir.path(), "b.json", bundle);
        let out = gc(&engine.url, &["import", file.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{}: {}", engine.name, out.stderr);
        assert!(
            out.stderr.contains("b.json: $.invocations[0].relevance_level: the tool_invocation table of"),
            "{}: {}",
            engine.name,
            out.stderr
        );
        // Rows without those values go in.
        let file =
            harness::write(dir.path(), "c.json", bundle.replace(", \"relevance_level\": \"PRECISE\"", ""));
        ok(&engine, "import", &gc(&engine.url, &["import", file.to_str().unwrap()]));
        assert_eq!(columns(&engine, "tool_invocation"), V005_COLUMNS, "{}: still unchanged", engine.name);
    }
}

/// Regression: `run`, `reverify` and `export` failed on the agent's database until
/// someone ran `migrate`: they read groundcheck's own tables, which did not exist yet.
#[test]
fn reading_works_before_anyone_has_migrated() {
    let expected = expected_verdicts();
    for engine in engines::all() {
        agent_table_before_v010(&engine);
        let out = gc(&engine.url, &["run", "--format", "json", "run-a"]);
        ok(&engine, "run", &out);
        assert_one_notice(&engine, "run", &out);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["runs"][0]["invocations"], expected, "{}: the verdicts", engine.name);

        let out = gc(&engine.url, &["reverify", "--format", "json"]);
        ok(&engine, "reverify", &out);
        assert_one_notice(&engine, "reverify", &out);
        let summary: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(summary["summary"]["invocations"], 2, "{}: {summary}", engine.name);
        assert_eq!(summary["summary"]["supported"], 1, "{}: {summary}", engine.name);
        let changes = summary["changes"].as_array().unwrap();
        assert!(changes.iter().all(|c| c["from"].is_null()), "{}: nothing stored: {summary}", engine.name);

        let dir = harness::temp_dir();
        let out = gc(&engine.url, &["export", "run-a", "--out", dir.path().to_str().unwrap()]);
        ok(&engine, "export", &out);
        let out =
            harness::run(["verify", "--format", "json", dir.path().join("run-a.json").to_str().unwrap()]);
        let report: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(report["runs"][0]["invocations"], expected, "{}: the exported bundle", engine.name);

        // Reading created nothing.
        for table in ["groundcheck_migrations", "evidence_verification", "tool_invocation_output"] {
            assert!(columns(&engine, table).is_empty(), "{}: reading created {table}", engine.name);
        }
    }
}

/// The agent's own sqlx migrations, as its migrator records them in `_sqlx_migrations`: V005
/// without the relevance columns, and a V010 named as groundcheck's old migration 10 was.
fn agent_migrator(engine: &Engine) -> Migrator {
    let (id, tail) = match engine.name {
        "sqlite" => ("id INTEGER PRIMARY KEY AUTOINCREMENT", ""),
        "mariadb" => ("id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY", " ENGINE = InnoDB"),
        _ => ("id BIGSERIAL PRIMARY KEY", ""),
    };
    let created_at = if engine.name == "postgres" { "TIMESTAMP(6)" } else { "DATETIME(6)" };
    let v005 = format!(
        "CREATE TABLE tool_invocation ({id}, session_id VARCHAR(64) NOT NULL, run_id VARCHAR(64), \
         step_id BIGINT, tool_name VARCHAR(64) NOT NULL, input_params JSON NOT NULL, output_preview TEXT, \
         output_length INT, retrieval_layer VARCHAR(8), l0_match_count INT, l1_match_count INT, \
         is_truncated BOOLEAN, retrieval_details JSON, duration_ms INT, success BOOLEAN, \
         error_message TEXT, created_at {created_at} NOT NULL){tail}"
    );
    let v010 = "ALTER TABLE tool_invocation ADD COLUMN relevance_level VARCHAR(20)".to_string();
    let migration = |version: i64, description: &'static str, sql: String| {
        Migration::new(
            version,
            description.into(),
            MigrationType::Simple,
            AssertSqlSafe(sql).into_sql_str(),
            false,
        )
    };
    Migrator::with_migrations(vec![
        migration(5, "create session storage", v005),
        migration(10, "add relevance level to tool invocation", v010),
    ])
}

fn run_agent_migrator(engine: &Engine) -> Result<(), String> {
    let migrator = agent_migrator(engine);
    let url = engines::creating(engine);
    block_on(async {
        let result = match engine.name {
            "sqlite" => migrator.run(&mut sqlx::SqliteConnection::connect(&url).await.unwrap()).await,
            "mariadb" => migrator.run(&mut sqlx::MySqlConnection::connect(&url).await.unwrap()).await,
            _ => migrator.run(&mut sqlx::PgConnection::connect(&url).await.unwrap()).await,
        };
        result.map_err(|e| e.to_string())
    })
}

fn history(engine: &Engine, table: &str) -> Vec<String> {
    let sql = match engine.name {
        "mariadb" => format!(
            "SELECT CAST(CONCAT(version, ' ', description, ' ', HEX(checksum)) AS BINARY) FROM {table} ORDER BY version"
        ),
        "postgres" => {
            format!("SELECT version || ' ' || description || ' ' || upper(encode(checksum, 'hex')) FROM {table} ORDER BY version")
        }
        _ => format!("SELECT version || ' ' || description || ' ' || hex(checksum) FROM {table} ORDER BY version"),
    };
    strings(engine, &sql)
}

fn versions(engine: &Engine, table: &str) -> Vec<i64> {
    history(engine, table).iter().map(|h| h.split(' ').next().unwrap().parse().unwrap()).collect()
}

/// Regression: groundcheck kept its history in sqlx's default `_sqlx_migrations`: on a
/// database the agent migrates with sqlx, `migrate` failed ("migration 5 was previously
/// applied but has been modified"), and afterwards the agent's own migrator would have.
#[test]
fn the_agents_own_sqlx_history_is_left_alone_and_both_migrators_stay_happy() {
    for engine in engines::all() {
        run_agent_migrator(&engine).unwrap_or_else(|e| panic!("{}: the agent's migrator: {e}", engine.name));
        let before = history(&engine, "_sqlx_migrations");
        assert_eq!(before.len(), 2, "{}", engine.name);

        ok(&engine, "migrate", &gc(&engine.url, &["migrate"]));
        assert_eq!(history(&engine, "_sqlx_migrations"), before, "{}: the agent's history", engine.name);
        run_agent_migrator(&engine)
            .unwrap_or_else(|e| panic!("{}: the agent's migrator after: {e}", engine.name));
        ok(&engine, "migrate again", &gc(&engine.url, &["migrate"]));
        assert_eq!(history(&engine, "_sqlx_migrations"), before, "{}: the agent's history", engine.name);
        assert!(versions(&engine, "groundcheck_migrations").contains(&100), "{}", engine.name);
        // The agent's V010 added one of the two columns: it is read, the other is NULL.
        let mut want: Vec<String> = V005_COLUMNS.iter().map(|c| c.to_string()).collect();
        want.push("relevance_level".into());
        assert_eq!(columns(&engine, "tool_invocation"), want, "{}", engine.name);
    }
}

/// A database an earlier groundcheck migrated: its history in `_sqlx_migrations` (beside a
/// row of the agent's) moves to `groundcheck_migrations`, and everything stored stays readable.
#[test]
fn a_history_kept_by_an_earlier_groundcheck_moves_to_its_own_table() {
    for engine in engines::all() {
        ok(&engine, "migrate", &gc(&engine.url, &["migrate"]));
        let ours = versions(&engine, "groundcheck_migrations");
        let fixture = harness::repo("fixtures/01_order_svc_5xx_spike.json");
        ok(&engine, "import", &gc(&engine.url, &["import", fixture.to_str().unwrap()]));
        let before = gc(&engine.url, &["reverify", "--write", "--format", "json"]);
        ok(&engine, "reverify --write", &before);

        // What an earlier version left: its rows in sqlx's default table, version 10 included.
        let (_, ten) = earlier_checksums(&engine);
        as_an_earlier_version_left_it(&engine, ten);
        engines::exec(
            &engine,
            &[format!(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
                 VALUES (20240101, 'the agent''s own', TRUE, {}, 0)",
                blob(&engine, "00")
            )],
        );
        ok(&engine, "migrate an earlier version's database", &gc(&engine.url, &["migrate"]));
        assert_eq!(
            versions(&engine, "_sqlx_migrations"),
            [20240101],
            "{}: only the agent's row stays",
            engine.name
        );
        assert_eq!(versions(&engine, "groundcheck_migrations"), ours, "{}", engine.name);
        ok(&engine, "migrate again", &gc(&engine.url, &["migrate"]));

        let after = gc(&engine.url, &["reverify", "--format", "json"]);
        ok(&engine, "reverify", &after);
        let summary: Value = serde_json::from_str(&after.stdout).unwrap();
        assert_eq!(
            summary["changes"],
            serde_json::json!([]),
            "{}: the stored verdicts are read",
            engine.name
        );
    }
}

/// The checksums (SHA-384, hex) of migrations 5 and 10 as an earlier groundcheck applied them
/// on `engine` (`git show 81bfb3d:migrations/ENGINE/0005_….sql | sha384sum`).
fn earlier_checksums(engine: &Engine) -> (&'static str, &'static str) {
    match engine.name {
        "sqlite" => (
            "9dcd8765ac2536849794fe85d4ee7d35203ec68c051dba3189e0c3d89d978c016edbb94ac9b0aad575bcbd9785b63650",
            "2eb5abb480732a264ae19b69807c3edaf376bdcec71653c56c1c44a945149115e1e3369cc13920557281ce83ed53fff0",
        ),
        "mariadb" => (
            "cd4ba40532a13a1ed6355b507929e9c27b2e114bf9caff8cca941437f293d44e6a9c42e8a1214730c92873a8a7c64878",
            "2081eddadf4dd57082bcb33dbbce2a775a4792fdc9f2e2d65d941d06d79b53286b7c0ca7aeaf544a4588c30397497a12",
        ),
        _ => (
            "aacd84b2a51fe8da34bc68deb94fc53938801300b0ad605d8b6ac57a49925094065dc9091cd3998b2eb61eeb8d7f4eb6",
            "7f254e4d5405d93a7a0ce90393fc896a1f0d610d142b6daf901b50dbba9b45193acbd070330a54b8f5ec765b94671bbd",
        ),
    }
}

/// A checksum as a binary literal of the engine's SQL.
fn blob(engine: &Engine, hex: &str) -> String {
    match engine.name {
        "postgres" => format!("decode('{hex}', 'hex')"),
        _ => format!("X'{hex}'"),
    }
}

/// A migrated database turned back into what an earlier groundcheck left: its history in
/// sqlx's default table (migrations after 120 came with the move; migration 5 as its file
/// was then), and a version 10 row whose checksum is `ten` (hex).
fn as_an_earlier_version_left_it(engine: &Engine, ten: &str) {
    let rename = match engine.name {
        "mariadb" => "RENAME TABLE groundcheck_migrations TO _sqlx_migrations",
        _ => "ALTER TABLE groundcheck_migrations RENAME TO _sqlx_migrations",
    };
    let (five, _) = earlier_checksums(engine);
    engines::exec(
        engine,
        &[
            rename.to_string(),
            "DELETE FROM _sqlx_migrations WHERE version > 120".to_string(),
            "ALTER TABLE reverify_checkpoint DROP COLUMN scope".to_string(),
            format!("UPDATE _sqlx_migrations SET checksum = {} WHERE version = 5", blob(engine, five)),
            format!(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
                 VALUES (10, 'add relevance level to tool invocation', TRUE, {}, 0)",
                blob(engine, ten)
            ),
        ],
    );
}

/// Regression: rows of `_sqlx_migrations` were taken for an earlier groundcheck's by version
/// and description, so the agent's own V010 (named as groundcheck's old migration 10 was) was
/// deleted. Only a row with groundcheck's checksum is moved; the agent's stays as it is. And a
/// row of `groundcheck_migrations` with one of its versions but another checksum is not
/// groundcheck's: `migrate` stops with one line naming it and changes nothing.
#[test]
fn only_rows_with_groundchecks_checksums_are_taken_and_a_foreign_one_is_named() {
    for engine in engines::all() {
        ok(&engine, "migrate", &gc(&engine.url, &["migrate"]));
        let ours = versions(&engine, "groundcheck_migrations");
        // The agent's own V010: groundcheck's old name, the agent's own file.
        as_an_earlier_version_left_it(&engine, "0a0b0c");
        let agents = history(&engine, "_sqlx_migrations").into_iter().filter(|h| h.starts_with("10 "));
        let agents: Vec<String> = agents.collect();
        ok(&engine, "migrate", &gc(&engine.url, &["migrate"]));
        assert_eq!(history(&engine, "_sqlx_migrations"), agents, "{}: the agent's V010 stays", engine.name);
        assert_eq!(versions(&engine, "groundcheck_migrations"), ours, "{}", engine.name);

        // A row of groundcheck's own table that groundcheck did not write.
        let sql = format!(
            "UPDATE groundcheck_migrations SET checksum = {} WHERE version = 100",
            blob(&engine, "0a")
        );
        engines::exec(&engine, &[sql]);
        let before = history(&engine, "groundcheck_migrations");
        let out = gc(&engine.url, &["migrate"]);
        assert_eq!(out.code, 2, "{}: {out:?}", engine.name);
        assert_eq!(out.stderr.lines().count(), 1, "{}: {}", engine.name, out.stderr);
        assert!(
            out.stderr.contains("groundcheck_migrations records version 100 with a checksum other than"),
            "{}: {}",
            engine.name,
            out.stderr
        );
        assert_eq!(history(&engine, "groundcheck_migrations"), before, "{}: left as it is", engine.name);
    }
}

/// An agent's `tool_invocation` without a column every read selects (here
/// `retrieval_details`, and V010's two, which alone would be read as NULL): every command
/// that reads the table fails with one line naming the column and what to do, pointing at
/// the engine's own migration.
#[test]
fn a_tool_invocation_without_a_column_groundcheck_reads_names_it_and_what_to_do() {
    for engine in engines::all() {
        let (id, created_at, tail) = column_types(&engine);
        engines::exec(
            &engine,
            &[format!(
                "CREATE TABLE tool_invocation ({id}, session_id VARCHAR(64) NOT NULL, run_id VARCHAR(64), \
                 step_id BIGINT, tool_name VARCHAR(64) NOT NULL, input_params JSON NOT NULL, output_preview TEXT, \
                 output_length INT, retrieval_layer VARCHAR(8), l0_match_count INT, l1_match_count INT, \
                 is_truncated BOOLEAN, duration_ms INT, success BOOLEAN, error_message TEXT, \
                 created_at {created_at} NOT NULL){tail}"
            )],
        );
        let folder = if engine.name == "mariadb" { "mysql" } else { engine.name };
        let says = format!(
            ": reading tool_invocation: tool_invocation has no column retrieval_details: add it with the type the \
             agent's schema gives (as in groundcheck's migrations/{folder}/0005_create_tool_invocation.sql), or \
             point --database at the agent's own database"
        );
        let out_dir = harness::temp_dir();
        for args in [
            &["run", "run-a"][..],
            &["reverify"],
            &["export", "run-a", "--out", out_dir.path().to_str().unwrap()],
            &["import", "fixtures/01_order_svc_5xx_spike.json"],
        ] {
            let out = gc(&engine.url, args);
            assert_eq!((out.code, out.stdout.as_str()), (2, ""), "{}: {args:?}", engine.name);
            assert_eq!(out.stderr.lines().count(), 1, "{}: {args:?}: {}", engine.name, out.stderr);
            assert!(out.stderr.trim_end().ends_with(&says), "{}: {args:?}: {}", engine.name, out.stderr);
        }
    }
}
