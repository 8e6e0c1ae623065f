//! The schema groundcheck creates, held here as data and checked two ways.
//!
//! [`AGENT_COLUMNS`], [`AGENT_INDEXES`] and [`AGENT_PRIMARY_KEY`] are the agent's
//! `tool_invocation` table as the agent's own migrations define it (V005 creates the table and
//! its four indexes, V010 adds `relevance_level` and `dedup_reason`): every column's name, type
//! and whether it is required (NOT NULL), the auto-increment key, and each index's columns in
//! order. groundcheck must create exactly that table, so that it can also be pointed at the
//! agent's own database.
//!
//! - `migrations_declare_the_agents_schema` reads the SQL files in `migrations/` (no server
//!   needed, so it always runs) and compares what they declare with these facts.
//! - `migrated_schema_equals_the_agents_schema` runs `groundcheck migrate` on every engine and
//!   reads the result back from the engine's own catalog (types in each engine's spelling),
//!   together with groundcheck's own two tables.
//!
//! Nothing here reads a file outside the repository.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::{Connection, Row};

use crate::engines::{self, Engine};
use crate::harness;

mod ddl;

/// The agent's `tool_invocation` columns in its order (V005's, with V010's two after
/// `is_truncated`): (column, type as the agent declares it, required = NOT NULL).
const AGENT_COLUMNS: &[(&str, &str, bool)] = &[
    ("id", "BIGINT", true),
    ("session_id", "VARCHAR(64)", true),
    ("run_id", "VARCHAR(64)", false),
    ("step_id", "BIGINT", false),
    ("tool_name", "VARCHAR(64)", true),
    ("input_params", "JSON", true),
    ("output_preview", "TEXT", false),
    ("output_length", "INT", false),
    ("retrieval_layer", "VARCHAR(8)", false),
    ("l0_match_count", "INT", false),
    ("l1_match_count", "INT", false),
    ("is_truncated", "BOOLEAN", false),
    ("relevance_level", "VARCHAR(20)", false),
    ("dedup_reason", "VARCHAR(32)", false),
    ("retrieval_details", "JSON", false),
    ("duration_ms", "INT", false),
    ("success", "BOOLEAN", false),
    ("error_message", "TEXT", false),
    ("created_at", "DATETIME", true),
];

/// The agent's indexes on `tool_invocation`: (index, columns in order).
const AGENT_INDEXES: &[(&str, &[&str])] = &[
    ("idx_session_id", &["session_id"]),
    ("idx_tool_invocation_run_id", &["run_id", "id"]),
    ("idx_tool_name", &["tool_name"]),
    ("idx_retrieval_layer", &["retrieval_layer"]),
];

/// The agent's auto-increment primary key.
const AGENT_PRIMARY_KEY: &str = "id";

/// groundcheck's raw outputs: `tool_invocation_output`, `invocation_id` → `raw_output`.
const OUTPUT_COLUMNS: &[&str] = &["invocation_id", "raw_output"];
const OUTPUT_PRIMARY_KEY: &[&str] = &["invocation_id"];

/// groundcheck's verdicts: `evidence_verification`, one row per `(invocation_id, policy)`;
/// at least these columns.
const VERIFICATION_COLUMNS: &[&str] = &[
    "invocation_id",
    "policy",
    "run_id",
    "status",
    "reason",
    "claimed_status",
    "claim_agrees",
    "refs",
    "engine_version",
    "verified_at",
];
const VERIFICATION_PRIMARY_KEY: &[&str] = &["invocation_id", "policy"];

/// SQLite keeps the declared type names. The one exception, `id`, is in [`expected_type`]:
/// `INTEGER PRIMARY KEY` makes it the rowid alias, SQLite's 64-bit auto-increment key.
const SQLITE_TYPES: &[(&str, &str)] = &[
    ("BIGINT", "BIGINT"),
    ("VARCHAR(8)", "VARCHAR(8)"),
    ("VARCHAR(20)", "VARCHAR(20)"),
    ("VARCHAR(32)", "VARCHAR(32)"),
    ("VARCHAR(64)", "VARCHAR(64)"),
    ("INT", "INT"),
    ("JSON", "JSON"),
    ("TEXT", "TEXT"),
    ("BOOLEAN", "BOOLEAN"),
    ("DATETIME", "DATETIME"),
];

/// MariaDB's `information_schema.columns.column_type`. JSON is an alias of LONGTEXT with a
/// `json_valid(col)` check; [`read_mariadb`] appends ` CHECK json_valid` when that check is
/// there. DATETIME is stored with microseconds.
const MARIADB_TYPES: &[(&str, &str)] = &[
    ("BIGINT", "bigint(20)"),
    ("VARCHAR(8)", "varchar(8)"),
    ("VARCHAR(20)", "varchar(20)"),
    ("VARCHAR(32)", "varchar(32)"),
    ("VARCHAR(64)", "varchar(64)"),
    ("INT", "int(11)"),
    ("JSON", "longtext CHECK json_valid"),
    ("TEXT", "text"),
    ("BOOLEAN", "tinyint(1)"),
    ("DATETIME", "datetime(6)"),
];

/// PostgreSQL's `information_schema.columns.data_type`, with `(character_maximum_length)`
/// appended when there is one.
const POSTGRES_TYPES: &[(&str, &str)] = &[
    ("BIGINT", "bigint"),
    ("VARCHAR(8)", "character varying(8)"),
    ("VARCHAR(20)", "character varying(20)"),
    ("VARCHAR(32)", "character varying(32)"),
    ("VARCHAR(64)", "character varying(64)"),
    ("INT", "integer"),
    ("JSON", "json"),
    ("TEXT", "text"),
    ("BOOLEAN", "boolean"),
    ("DATETIME", "timestamp without time zone"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sqlite,
    MariaDb,
    Postgres,
}

fn kind(engine: &Engine) -> Kind {
    match engine.name {
        "sqlite" => Kind::Sqlite,
        "mariadb" => Kind::MariaDb,
        "postgres" => Kind::Postgres,
        other => panic!("unknown engine {other}"),
    }
}

/// One column as the engine reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    name: String,
    /// The engine's spelling (see the mapping tables).
    ty: String,
    nullable: bool,
    /// AUTO_INCREMENT, an identity/serial column, or SQLite's rowid alias.
    auto: bool,
}

/// One table as the engine reports it (no columns: the table does not exist).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Table {
    columns: Vec<Column>,
    primary_key: Vec<String>,
    /// Every index except the primary key's: name → columns in order.
    indexes: BTreeMap<String, Vec<String>>,
}

impl Table {
    fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    fn names(&self) -> BTreeSet<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }
}

/// The engine's spelling of an agent type, from that engine's mapping table.
fn expected_type(kind: Kind, column: &str, agent_type: &str) -> &'static str {
    if kind == Kind::Sqlite && column == AGENT_PRIMARY_KEY {
        return "INTEGER";
    }
    let table = match kind {
        Kind::Sqlite => SQLITE_TYPES,
        Kind::MariaDb => MARIADB_TYPES,
        Kind::Postgres => POSTGRES_TYPES,
    };
    table
        .iter()
        .find(|(agent, _)| *agent == agent_type)
        .map(|(_, live)| *live)
        .unwrap_or_else(|| panic!("{kind:?}: no mapping for type {agent_type} (column {column})"))
}

/// Runs `groundcheck migrate --database URL` and asserts it succeeded.
fn migrate(engine: &Engine, attempt: &str) {
    let out = harness::run(["migrate", "--database", engine.url.as_str()]);
    assert_eq!(
        out.code, 0,
        "{}: {attempt} `groundcheck migrate` exited {}\nstdout: {}\nstderr: {}",
        engine.name, out.code, out.stdout, out.stderr
    );
}

/// Reads `table` back from the engine's catalog.
fn read_table(engine: &Engine, table: &'static str) -> Table {
    engines::block_on(async {
        match kind(engine) {
            Kind::Sqlite => read_sqlite(&engine.url, table).await,
            Kind::MariaDb => read_mariadb(&engine.url, table).await,
            Kind::Postgres => read_postgres(&engine.url, table).await,
        }
    })
}

async fn read_sqlite(url: &str, table: &'static str) -> Table {
    let mut conn = sqlx::SqliteConnection::connect(url).await.expect("sqlite: the database opens");
    // The table-valued forms of PRAGMA table_info / index_list / index_info.
    let rows = sqlx::query("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")
        .bind(table)
        .fetch_all(&mut conn)
        .await
        .expect("sqlite: PRAGMA table_info");
    let mut out = Table::default();
    let mut pk: Vec<(i64, String)> = Vec::new();
    let raw: Vec<(String, String, bool, i64)> = rows
        .iter()
        .map(|r| (r.get("name"), r.get("type"), r.get::<i64, _>("notnull") != 0, r.get("pk")))
        .collect();
    let single_pk = raw.iter().filter(|c| c.3 > 0).count() == 1;
    for (name, ty, notnull, pk_pos) in raw {
        // Only `INTEGER PRIMARY KEY` (exactly that type name) aliases the rowid.
        let rowid_alias = single_pk && pk_pos == 1 && ty.eq_ignore_ascii_case("INTEGER");
        if pk_pos > 0 {
            pk.push((pk_pos, name.clone()));
        }
        out.columns.push(Column { name, ty, nullable: !notnull && !rowid_alias, auto: rowid_alias });
    }
    pk.sort();
    out.primary_key = pk.into_iter().map(|(_, n)| n).collect();

    let indexes = sqlx::query("SELECT name, origin FROM pragma_index_list(?1)")
        .bind(table)
        .fetch_all(&mut conn)
        .await
        .expect("sqlite: PRAGMA index_list");
    for index in indexes {
        let name: String = index.get("name");
        let origin: String = index.get("origin");
        if origin == "pk" {
            continue; // the primary key's own index (read from table_info above)
        }
        let columns = sqlx::query("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
            .bind(name.clone())
            .fetch_all(&mut conn)
            .await
            .expect("sqlite: PRAGMA index_info");
        out.indexes.insert(name, columns.iter().map(|r| r.get::<String, _>("name")).collect());
    }
    conn.close().await.ok();
    out
}

/// A MariaDB information_schema text value: `String`, else bytes decoded lossily
/// (some catalog columns come back as binary strings).
fn mysql_text(row: &sqlx::mysql::MySqlRow, index: usize) -> String {
    match row.try_get::<Option<String>, _>(index) {
        Ok(v) => v.unwrap_or_default(),
        Err(_) => row
            .try_get::<Option<Vec<u8>>, _>(index)
            .unwrap_or_else(|e| panic!("mariadb: information_schema column {index} is not text: {e}"))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
    }
}

async fn read_mariadb(url: &str, table: &'static str) -> Table {
    let mut conn = sqlx::MySqlConnection::connect(url).await.expect("mariadb reachable");
    let columns = sqlx::query(
        "SELECT column_name, column_type, is_nullable, extra, column_key \
         FROM information_schema.columns \
         WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(&mut conn)
    .await
    .expect("mariadb: information_schema.columns");
    let checks: Vec<String> = sqlx::query(
        "SELECT check_clause FROM information_schema.check_constraints \
         WHERE constraint_schema = DATABASE() AND table_name = ?",
    )
    .bind(table)
    .fetch_all(&mut conn)
    .await
    .expect("mariadb: information_schema.check_constraints")
    .iter()
    .map(|r| mysql_text(r, 0))
    .collect();
    let mut out = Table::default();
    for row in &columns {
        let name = mysql_text(row, 0);
        let mut ty = mysql_text(row, 1).to_ascii_lowercase();
        // MariaDB's JSON: LONGTEXT plus the check it adds, json_valid(`name`).
        if checks.iter().any(|c| c.eq_ignore_ascii_case(&format!("json_valid(`{name}`)"))) {
            ty.push_str(" CHECK json_valid");
        }
        let nullable = mysql_text(row, 2) == "YES";
        let auto = mysql_text(row, 3).to_ascii_lowercase().contains("auto_increment");
        out.columns.push(Column { name, ty, nullable, auto });
    }
    let stats = sqlx::query(
        "SELECT index_name, column_name FROM information_schema.statistics \
         WHERE table_schema = DATABASE() AND table_name = ? ORDER BY index_name, seq_in_index",
    )
    .bind(table)
    .fetch_all(&mut conn)
    .await
    .expect("mariadb: information_schema.statistics");
    for row in &stats {
        let (index, column) = (mysql_text(row, 0), mysql_text(row, 1));
        if index == "PRIMARY" {
            out.primary_key.push(column);
        } else {
            out.indexes.entry(index).or_default().push(column);
        }
    }
    conn.close().await.ok();
    out
}

async fn read_postgres(url: &str, table: &'static str) -> Table {
    let mut conn = sqlx::PgConnection::connect(url).await.expect("postgres reachable");
    // information_schema's domains (sql_identifier, cardinal_number, ...) cast to plain types.
    let columns = sqlx::query(
        "SELECT column_name::text, data_type::text, character_maximum_length::int4, \
                is_nullable::text, is_identity::text, column_default::text \
         FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(&mut conn)
    .await
    .expect("postgres: information_schema.columns");
    let mut out = Table::default();
    for row in &columns {
        let name: String = row.get(0);
        let data_type: String = row.get(1);
        let ty = match row.get::<Option<i32>, _>(2) {
            Some(n) => format!("{data_type}({n})"),
            None => data_type,
        };
        let nullable = row.get::<String, _>(3) == "YES";
        let identity = row.get::<Option<String>, _>(4).as_deref() == Some("YES");
        let serial = row.get::<Option<String>, _>(5).is_some_and(|d| d.starts_with("nextval("));
        out.columns.push(Column { name, ty, nullable, auto: identity || serial });
    }
    let indexes = sqlx::query(
        "SELECT i.relname::text, a.attname::text, ix.indisprimary \
         FROM pg_index ix \
         JOIN pg_class t ON t.oid = ix.indrelid \
         JOIN pg_namespace n ON n.oid = t.relnamespace \
         JOIN pg_class i ON i.oid = ix.indexrelid \
         CROSS JOIN LATERAL unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) \
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
         WHERE n.nspname = current_schema() AND t.relname = $1 \
         ORDER BY i.relname, k.ord",
    )
    .bind(table)
    .fetch_all(&mut conn)
    .await
    .expect("postgres: pg_index");
    for row in &indexes {
        let (index, column, primary): (String, String, bool) = (row.get(0), row.get(1), row.get(2));
        if primary {
            out.primary_key.push(column);
        } else {
            out.indexes.entry(index).or_default().push(column);
        }
    }
    conn.close().await.ok();
    out
}

/// Every difference between the live `tool_invocation` and the agent's schema, one message each.
fn agent_schema_differences(engine: &str, kind: Kind, live: &Table) -> Vec<String> {
    let mut errors = Vec::new();
    if live.columns.is_empty() {
        errors.push(format!("{engine}: table tool_invocation does not exist"));
        return errors;
    }
    let agent_names: BTreeSet<&str> = AGENT_COLUMNS.iter().map(|c| c.0).collect();
    for extra in live.names().difference(&agent_names) {
        errors.push(format!(
            "{engine}: tool_invocation has column `{extra}`, which the agent's schema does not"
        ));
    }
    for &(name, agent_type, required) in AGENT_COLUMNS {
        let Some(column) = live.column(name) else {
            errors
                .push(format!("{engine}: tool_invocation lacks the agent's column `{name}` ({agent_type})"));
            continue;
        };
        let want = expected_type(kind, name, agent_type);
        if column.ty != want {
            errors.push(format!(
                "{engine}: tool_invocation.{name}: type is `{}`, the agent's {agent_type} is `{want}` here",
                column.ty
            ));
        }
        if column.nullable == required {
            errors.push(format!(
                "{engine}: tool_invocation.{name}: {} but the agent's schema says required = {}",
                if column.nullable { "NULL allowed" } else { "NOT NULL" },
                if required { "yes" } else { "no" }
            ));
        }
        let should_be_auto = name == AGENT_PRIMARY_KEY;
        if column.auto != should_be_auto {
            errors.push(format!(
                "{engine}: tool_invocation.{name}: auto-increment is {}, expected {should_be_auto}",
                column.auto
            ));
        }
    }
    if live.primary_key != [AGENT_PRIMARY_KEY] {
        errors.push(format!(
            "{engine}: tool_invocation primary key is {:?}, the agent's is [\"{AGENT_PRIMARY_KEY}\"]",
            live.primary_key
        ));
    }
    for &(index, columns) in AGENT_INDEXES {
        match live.indexes.get(index) {
            None => errors.push(format!("{engine}: tool_invocation lacks index `{index}` {columns:?}")),
            Some(live_columns) if live_columns != columns => errors.push(format!(
                "{engine}: index `{index}` is on {live_columns:?}, the agent's is on {columns:?}"
            )),
            Some(_) => {}
        }
    }
    for (index, columns) in &live.indexes {
        if !AGENT_INDEXES.iter().any(|(name, _)| name == index) {
            errors.push(format!(
                "{engine}: tool_invocation has index `{index}` {columns:?}, which the agent's schema does not"
            ));
        }
    }
    errors
}

/// What groundcheck's own two tables must hold.
fn own_table_differences(engine: &Engine) -> Vec<String> {
    let name = engine.name;
    let mut errors = Vec::new();
    // (table, columns, whether those are all its columns, primary key)
    for (table, columns, exact, key) in [
        ("tool_invocation_output", OUTPUT_COLUMNS, true, OUTPUT_PRIMARY_KEY),
        ("evidence_verification", VERIFICATION_COLUMNS, false, VERIFICATION_PRIMARY_KEY),
    ] {
        let live = read_table(engine, table);
        if live.columns.is_empty() {
            errors.push(format!("{name}: table {table} does not exist"));
            continue;
        }
        for column in columns {
            if live.column(column).is_none() {
                errors.push(format!("{name}: {table} lacks column `{column}`"));
            }
        }
        if exact {
            for column in &live.columns {
                if !columns.contains(&column.name.as_str()) {
                    errors.push(format!(
                        "{name}: {table} has column `{}`, expected only {columns:?}",
                        column.name
                    ));
                }
            }
        }
        if live.primary_key != key {
            errors.push(format!("{name}: {table} primary key is {:?}, expected {key:?}", live.primary_key));
        }
    }
    errors
}

fn assert_none(errors: Vec<String>) {
    assert!(errors.is_empty(), "{} schema difference(s):\n  {}", errors.len(), errors.join("\n  "));
}

#[test]
fn migrated_schema_equals_the_agents_schema() {
    let mut errors = Vec::new();
    for engine in engines::all() {
        migrate(&engine, "first");
        migrate(&engine, "second (idempotent)");
        let live = read_table(&engine, "tool_invocation");
        errors.extend(agent_schema_differences(engine.name, kind(&engine), &live));
        errors.extend(own_table_differences(&engine));
    }
    assert_none(errors);
}

/// Where a migration spells an agent type its own way: (migrations folder, agent type, DDL).
/// SQLite's `id` is the other exception, as in [`expected_type`].
const DDL_SPELLINGS: &[(&str, &str, &str)] = &[
    // Microseconds, so a `created_at` with a fraction keeps it.
    ("mysql", "DATETIME", "DATETIME(6)"),
    // PostgreSQL's DATETIME: no time zone, microseconds.
    ("postgres", "DATETIME", "TIMESTAMP(6)"),
];

/// How `folder`'s migrations should spell `column` of the agent's type `agent_type`.
fn ddl_type(folder: &str, column: &str, agent_type: &str) -> String {
    if folder == "sqlite" && column == AGENT_PRIMARY_KEY {
        return "INTEGER".into();
    }
    DDL_SPELLINGS
        .iter()
        .find(|(f, agent, _)| *f == folder && *agent == agent_type)
        .map_or(agent_type, |(_, _, ddl)| ddl)
        .to_string()
}

/// Every difference between what `migrations/{folder}/` declares and the agent's schema
/// (column order aside: engines without `AFTER` append V010's columns).
fn declared_differences(folder: &str, declared: &ddl::DeclaredTable) -> Vec<String> {
    let mut errors = Vec::new();
    let agent_names: BTreeSet<&str> = AGENT_COLUMNS.iter().map(|c| c.0).collect();
    for column in &declared.columns {
        if !agent_names.contains(column.name.as_str()) {
            errors.push(format!(
                "migrations/{folder}: tool_invocation declares `{}`, which the agent's schema does not",
                column.name
            ));
        }
    }
    for &(name, agent_type, required) in AGENT_COLUMNS {
        let Some(column) = declared.columns.iter().find(|c| c.name == name) else {
            errors
                .push(format!("migrations/{folder}: tool_invocation never declares `{name}` ({agent_type})"));
            continue;
        };
        let want = ddl_type(folder, name, agent_type);
        if column.ty != want {
            errors.push(format!(
                "migrations/{folder}: tool_invocation.{name} is declared `{}`, the agent's {agent_type} is `{want}` here",
                column.ty
            ));
        }
        if column.required != required {
            errors.push(format!(
                "migrations/{folder}: tool_invocation.{name} is declared {} but the agent's schema says required = {}",
                if column.required { "NOT NULL" } else { "nullable" },
                if required { "yes" } else { "no" }
            ));
        }
        if column.auto != (name == AGENT_PRIMARY_KEY) {
            errors.push(format!(
                "migrations/{folder}: tool_invocation.{name}: auto-increment declared {}, expected {}",
                column.auto,
                name == AGENT_PRIMARY_KEY
            ));
        }
    }
    if declared.primary_key != [AGENT_PRIMARY_KEY] {
        errors.push(format!(
            "migrations/{folder}: tool_invocation's primary key is declared {:?}, the agent's is [\"{AGENT_PRIMARY_KEY}\"]",
            declared.primary_key
        ));
    }
    let want: BTreeMap<String, Vec<String>> = AGENT_INDEXES
        .iter()
        .map(|&(n, cols)| (n.to_string(), cols.iter().map(|c| c.to_string()).collect()))
        .collect();
    if declared.indexes != want {
        errors.push(format!(
            "migrations/{folder}: tool_invocation's indexes are declared {:?}, the agent's are {want:?}",
            declared.indexes
        ));
    }
    errors
}

/// The migration files themselves, on every engine, with no server: what they declare is the
/// agent's schema. Catches an edited migration before any database sees it.
#[test]
fn migrations_declare_the_agents_schema() {
    let mut errors = Vec::new();
    for folder in ["sqlite", "mysql", "postgres"] {
        let declared = ddl::read(&harness::repo(&format!("migrations/{folder}")), "tool_invocation");
        errors.extend(declared_differences(folder, &declared));
    }
    assert_none(errors);
}

/// `tool_invocation` as another system (the agent's own V005 + V010) made it, before
/// groundcheck ever ran: every column, the four indexes, and one row.
const FOREIGN_MARIADB: &[&str] = &[
    "CREATE TABLE tool_invocation (
        id BIGINT NOT NULL AUTO_INCREMENT,
        session_id VARCHAR(64) NOT NULL,
        run_id VARCHAR(64) NULL,
        step_id BIGINT NULL,
        tool_name VARCHAR(64) NOT NULL,
        input_params JSON NOT NULL,
        output_preview TEXT NULL,
        output_length INT NULL,
        retrieval_layer VARCHAR(8) NULL,
        l0_match_count INT NULL,
        l1_match_count INT NULL,
        is_truncated BOOLEAN NULL,
        relevance_level VARCHAR(20) NULL,
        dedup_reason VARCHAR(32) NULL,
        retrieval_details JSON NULL,
        duration_ms INT NULL,
        success BOOLEAN NULL,
        error_message TEXT NULL,
        created_at DATETIME NOT NULL,
        PRIMARY KEY (id),
        INDEX idx_session_id (session_id),
        INDEX idx_tool_invocation_run_id (run_id, id),
        INDEX idx_tool_name (tool_name),
        INDEX idx_retrieval_layer (retrieval_layer)
    ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4",
    "INSERT INTO tool_invocation (session_id, run_id, tool_name, input_params, relevance_level, \
     dedup_reason, created_at) VALUES ('s-1', 'run-1', 'lookup_knowledge', '{}', 'PRECISE', \
     'doc_retrieved', '2024-01-01 00:00:00')",
];

const FOREIGN_POSTGRES: &[&str] = &[
    "CREATE TABLE tool_invocation (
        id BIGSERIAL PRIMARY KEY,
        session_id VARCHAR(64) NOT NULL,
        run_id VARCHAR(64),
        step_id BIGINT,
        tool_name VARCHAR(64) NOT NULL,
        input_params JSON NOT NULL,
        output_preview TEXT,
        output_length INT,
        retrieval_layer VARCHAR(8),
        l0_match_count INT,
        l1_match_count INT,
        is_truncated BOOLEAN,
        relevance_level VARCHAR(20),
        dedup_reason VARCHAR(32),
        retrieval_details JSON,
        duration_ms INT,
        success BOOLEAN,
        error_message TEXT,
        created_at TIMESTAMP NOT NULL
    )",
    "CREATE INDEX idx_session_id ON tool_invocation (session_id)",
    "CREATE INDEX idx_tool_invocation_run_id ON tool_invocation (run_id, id)",
    "CREATE INDEX idx_tool_name ON tool_invocation (tool_name)",
    "CREATE INDEX idx_retrieval_layer ON tool_invocation (retrieval_layer)",
    "INSERT INTO tool_invocation (session_id, run_id, tool_name, input_params, relevance_level, \
     dedup_reason, created_at) VALUES ('s-1', 'run-1', 'lookup_knowledge', '{}', 'PRECISE', \
     'doc_retrieved', '2024-01-01 00:00:00')",
];

const FOREIGN_SQLITE: &[&str] = &[
    "CREATE TABLE tool_invocation (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id VARCHAR(64) NOT NULL,
        run_id VARCHAR(64),
        step_id BIGINT,
        tool_name VARCHAR(64) NOT NULL,
        input_params JSON NOT NULL,
        output_preview TEXT,
        output_length INT,
        retrieval_layer VARCHAR(8),
        l0_match_count INT,
        l1_match_count INT,
        is_truncated BOOLEAN,
        relevance_level VARCHAR(20),
        dedup_reason VARCHAR(32),
        retrieval_details JSON,
        duration_ms INT,
        success BOOLEAN,
        error_message TEXT,
        created_at DATETIME NOT NULL
    )",
    "CREATE INDEX idx_session_id ON tool_invocation (session_id)",
    "CREATE INDEX idx_tool_invocation_run_id ON tool_invocation (run_id, id)",
    "CREATE INDEX idx_tool_name ON tool_invocation (tool_name)",
    "CREATE INDEX idx_retrieval_layer ON tool_invocation (retrieval_layer)",
    "INSERT INTO tool_invocation (session_id, run_id, tool_name, input_params, relevance_level, \
     dedup_reason, created_at) VALUES ('s-1', 'run-1', 'lookup_knowledge', '{}', 'PRECISE', \
     'doc_retrieved', '2024-01-01 00:00:00')",
];

/// The marker row inserted with the foreign table, if it is still there.
fn marker_row(engine: &Engine) -> Option<(String, String)> {
    const SQL: &str = "SELECT relevance_level, dedup_reason FROM tool_invocation WHERE run_id = 'run-1'";
    engines::block_on(async {
        match kind(engine) {
            Kind::MariaDb => {
                let mut conn = sqlx::MySqlConnection::connect(&engine.url).await.expect("mariadb reachable");
                let row = sqlx::query(SQL).fetch_optional(&mut conn).await.expect("mariadb: marker row");
                row.map(|r| (mysql_text(&r, 0), mysql_text(&r, 1)))
            }
            Kind::Postgres => {
                let mut conn = sqlx::PgConnection::connect(&engine.url).await.expect("postgres reachable");
                let row = sqlx::query(SQL).fetch_optional(&mut conn).await.expect("postgres: marker row");
                row.map(|r| (r.get(0), r.get(1)))
            }
            Kind::Sqlite => {
                let url = format!("{}?mode=rwc", engine.url);
                let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("sqlite opens");
                let row = sqlx::query(SQL).fetch_optional(&mut conn).await.expect("sqlite: marker row");
                row.map(|r| (r.get(0), r.get(1)))
            }
        }
    })
}

#[test]
fn migrate_adopts_an_existing_tool_invocation_table() {
    let mut errors = Vec::new();
    for engine in engines::all() {
        let name = engine.name;
        let statements = match kind(&engine) {
            // Regression: SQLite was skipped here, because its migration 0010 always ran
            // V010's ALTERs and failed on a table that already had relevance_level.
            Kind::Sqlite => FOREIGN_SQLITE,
            Kind::MariaDb => FOREIGN_MARIADB,
            Kind::Postgres => FOREIGN_POSTGRES,
        };
        engines::block_on(async {
            if kind(&engine) == Kind::Sqlite {
                let url = format!("{}?mode=rwc", engine.url);
                let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("sqlite opens");
                for sql in statements {
                    sqlx::query(*sql)
                        .execute(&mut conn)
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {sql}: {e}"));
                }
            } else if kind(&engine) == Kind::MariaDb {
                let mut conn = sqlx::MySqlConnection::connect(&engine.url).await.expect("mariadb reachable");
                for sql in statements {
                    sqlx::query(*sql)
                        .execute(&mut conn)
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {sql}: {e}"));
                }
            } else {
                let mut conn = sqlx::PgConnection::connect(&engine.url).await.expect("postgres reachable");
                for sql in statements {
                    sqlx::query(*sql)
                        .execute(&mut conn)
                        .await
                        .unwrap_or_else(|e| panic!("{name}: {sql}: {e}"));
                }
            }
        });
        let before = read_table(&engine, "tool_invocation");
        let agent_names: BTreeSet<&str> = AGENT_COLUMNS.iter().map(|c| c.0).collect();
        assert_eq!(before.names(), agent_names, "{name}: the foreign table is not the agent's column set");

        migrate(&engine, "first");
        migrate(&engine, "second (idempotent)");

        let after = read_table(&engine, "tool_invocation");
        for column in &before.columns {
            match after.column(&column.name) {
                None => errors.push(format!("{name}: migrate dropped tool_invocation.{}", column.name)),
                Some(now) if now != column => errors.push(format!(
                    "{name}: migrate changed tool_invocation.{}: {column:?} → {now:?}",
                    column.name
                )),
                Some(_) => {}
            }
        }
        for column in &after.columns {
            if before.column(&column.name).is_none() {
                errors.push(format!("{name}: migrate added tool_invocation.{}", column.name));
            }
        }
        if after.primary_key != before.primary_key {
            errors.push(format!(
                "{name}: migrate changed tool_invocation's primary key: {:?} → {:?}",
                before.primary_key, after.primary_key
            ));
        }
        if after.indexes != before.indexes {
            errors.push(format!(
                "{name}: migrate changed tool_invocation's indexes: {:?} → {:?}",
                before.indexes, after.indexes
            ));
        }
        if marker_row(&engine) != Some(("PRECISE".into(), "doc_retrieved".into())) {
            errors.push(format!("{name}: the row already in tool_invocation did not survive migrate"));
        }
        errors.extend(own_table_differences(&engine));
    }
    assert_none(errors);
}
