//! The schema: applying groundcheck's migrations, and finding out what an existing database
//! holds so that reading works on it as it is.
//!
//! groundcheck's migration history lives in a table of its own, [`MIGRATIONS_TABLE`], never
//! in sqlx's default `_sqlx_migrations`, which the agent's own migrator may use: each
//! migrator sees only its own history. Earlier versions of groundcheck kept theirs in
//! `_sqlx_migrations`; [`Store::migrate`] moves those rows (recognised by their version and
//! checksum, the SHA-384 of the file an earlier version applied, and only when migration 100,
//! "create groundcheck tables", is among them) into groundcheck's table and leaves every other
//! row where it is. A row with one of groundcheck's versions (and even its description, as the
//! agent's own V010 has) but another checksum is the agent's: it is never moved or deleted.
//!
//! `tool_invocation` is created only when it is missing and never altered. An agent schema
//! older than the seed's V010 has no `relevance_level` / `dedup_reason`; reads then select
//! NULL in their place ([`Store::missing_columns`] names them). Before anyone has migrated,
//! groundcheck's own tables may be missing too: reads then find no raw outputs, no stored
//! verdicts and no checkpoint.

use sqlx::migrate::{Migrate, Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, Row, SqlSafeStr};

use crate::dialect::{self, Dialect};
use crate::error::ErrorKind;
use crate::error::StoreError;
use crate::holds::{JsonType, Schema, OPTIONAL_COLUMNS, REQUIRED_COLUMNS};
use crate::row::TextColumns;
use crate::store::{with_pool, Pool, Store};
use crate::types::{self, Declared};
use crate::url::Engine;
use crate::wait::Within;

/// The table groundcheck records its applied migrations in (sqlx's layout).
pub const MIGRATIONS_TABLE: &str = "groundcheck_migrations";

/// Where groundcheck before 0.2 recorded them: sqlx's default table, which the agent's own
/// migrator may share.
const EARLIER_TABLE: &str = "_sqlx_migrations";

/// The migrations earlier versions recorded in [`EARLIER_TABLE`], by version and description.
/// Version 10 (the seed's V010, an `ALTER TABLE tool_invocation`) is gone: its columns are in
/// migration 5's `CREATE TABLE`, and an existing table is never altered.
const EARLIER: &[(i64, &str)] = &[
    (5, "create tool invocation"),
    (10, "add relevance level to tool invocation"),
    (100, "create groundcheck tables"),
    (110, "create reverify checkpoint"),
    (120, "add totals to reverify checkpoint"),
];

/// The migration only groundcheck has: its presence in [`EARLIER_TABLE`] says that table holds
/// groundcheck's history (the agent's own migrations may well be called like 5 and 10).
const MARKER: (i64, &str) = (100, "create groundcheck tables");

/// The checksums (SHA-384, hex) of the migration files earlier versions applied and recorded in
/// [`EARLIER_TABLE`], per engine: what tells groundcheck's rows there from the agent's. Taken
/// from the files as they were in the repository's history before the history moved (the
/// MariaDB migration 100 was changed once, so it has two).
const EARLIER_CHECKSUMS: &[(Engine, i64, &str)] = &[
    (
        Engine::Sqlite,
        5,
        "9dcd8765ac2536849794fe85d4ee7d35203ec68c051dba3189e0c3d89d978c016edbb94ac9b0aad575bcbd9785b63650",
    ),
    (
        Engine::Sqlite,
        10,
        "2eb5abb480732a264ae19b69807c3edaf376bdcec71653c56c1c44a945149115e1e3369cc13920557281ce83ed53fff0",
    ),
    (
        Engine::Sqlite,
        100,
        "8d0bcf526b35391a26070c08a1ccbe8d8b6ff74e14abf0271f56d38caf65d20f339bcfc0058496cc956a0536298f0fad",
    ),
    (
        Engine::Sqlite,
        110,
        "1a5b30081791c61e87467b5129495b2726313cbc025a9040cd957ae80bb93d9ad55e4860ec728bdf391a2ce66e97f317",
    ),
    (
        Engine::Sqlite,
        120,
        "478927df6c2bc43b7bc7872a5f8267b5a4fe64537c84b8f59621ee6b35515968263e74be349a8b3048a17891d98456bf",
    ),
    (
        Engine::MySql,
        5,
        "cd4ba40532a13a1ed6355b507929e9c27b2e114bf9caff8cca941437f293d44e6a9c42e8a1214730c92873a8a7c64878",
    ),
    (
        Engine::MySql,
        10,
        "2081eddadf4dd57082bcb33dbbce2a775a4792fdc9f2e2d65d941d06d79b53286b7c0ca7aeaf544a4588c30397497a12",
    ),
    (
        Engine::MySql,
        100,
        "b622262e01a1dda4c98ddd6339e3b0301be685c44c262ab09c399ed41f1ecee0af6187a6126132063be71146bb4f8078",
    ),
    (
        Engine::MySql,
        100,
        "e9409d4f5dc7c7b7b4ae92c93b0fbd517a19d39c531cb1e7494c73e32bffd5a7fc191920b7fadc5b20d2dc4df02ccb00",
    ),
    (
        Engine::MySql,
        110,
        "079a12fa7c2458c0242e404c64bceed4285aba833681e87e3c8729a694a5ca3191739d3c5d60bbc5bb70e0f20e757b01",
    ),
    (
        Engine::MySql,
        120,
        "478927df6c2bc43b7bc7872a5f8267b5a4fe64537c84b8f59621ee6b35515968263e74be349a8b3048a17891d98456bf",
    ),
    (
        Engine::Postgres,
        5,
        "aacd84b2a51fe8da34bc68deb94fc53938801300b0ad605d8b6ac57a49925094065dc9091cd3998b2eb61eeb8d7f4eb6",
    ),
    (
        Engine::Postgres,
        10,
        "7f254e4d5405d93a7a0ce90393fc896a1f0d610d142b6daf901b50dbba9b45193acbd070330a54b8f5ec765b94671bbd",
    ),
    (
        Engine::Postgres,
        100,
        "6e8d86647e5d75d32a67f8aa7945dea78a3e6388148d9b5a7ae116bff053f2e0ad33a880cce372ec5cb16934ba43a5fe",
    ),
    (
        Engine::Postgres,
        110,
        "72ee4e7515e17a73a44049325ce5295c587ed0571447823517520fd5cb4a17aebb9c4f2a1e26f848c10172a96d4afe7d",
    ),
    (
        Engine::Postgres,
        120,
        "478927df6c2bc43b7bc7872a5f8267b5a4fe64537c84b8f59621ee6b35515968263e74be349a8b3048a17891d98456bf",
    ),
];

/// Whether a row of [`EARLIER_TABLE`] is one an earlier groundcheck wrote on `engine`.
fn earlier_ours(engine: Engine, version: i64, checksum: &[u8]) -> bool {
    let hex: String = checksum.iter().map(|b| format!("{b:02x}")).collect();
    EARLIER_CHECKSUMS.iter().any(|(e, v, sum)| *e == engine && *v == version && *sum == hex)
}

// The files of migrations/<engine>/, embedded by build.rs: SQLITE, MYSQL and POSTGRES.
include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// groundcheck's migrations on `engine`, as `sqlx::migrate!` would embed them (the same
/// versions, descriptions and checksums: the SHA-384 of each file).
fn migrator(engine: Engine) -> Migrator {
    let files = match engine {
        Engine::Sqlite => SQLITE,
        Engine::MySql => MYSQL,
        Engine::Postgres => POSTGRES,
    };
    let migrations = files
        .iter()
        .map(|&(version, description, sql)| {
            Migration::new(version, description.into(), MigrationType::Simple, sql.into_sql_str(), false)
        })
        .collect();
    let mut migrator = Migrator::with_migrations(migrations);
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

/// Moves groundcheck's rows of [`EARLIER_TABLE`] into [`MIGRATIONS_TABLE`], on one connection
/// (`$numbered`: PostgreSQL's `$n` placeholders). Idempotent: a move cut short is finished by
/// the next one.
macro_rules! adopt {
    ($conn:expr, $migrator:expr, $engine:expr, $numbered:expr) => {
        async {
            let select = format!("SELECT version, description, checksum FROM {EARLIER_TABLE}");
            let earlier = match sqlx::query(AssertSqlSafe(select)).fetch_all(&mut *$conn).await {
                Ok(rows) => rows
                    .iter()
                    .map(|r| {
                        Ok((r.try_get::<i64, _>(0)?, r.try_get::<String, _>(1)?, r.try_get::<Vec<u8>, _>(2)?))
                    })
                    .collect::<Result<Vec<(i64, String, Vec<u8>)>, sqlx::Error>>()?,
                Err(e) if missing(&e) => return Ok::<(), sqlx::Error>(()),
                Err(e) => return Err(e),
            };
            // Ours: one of groundcheck's versions, descriptions and checksums. A row with the
            // same version and description but another checksum is the agent's, and stays.
            let ours = |(v, d, sum): &(i64, String, Vec<u8>)| {
                EARLIER.iter().any(|(ev, ed)| ev == v && ed == d) && earlier_ours($engine, *v, sum)
            };
            if !earlier.iter().any(|row| ours(row) && row.0 == MARKER.0 && row.1 == MARKER.1) {
                return Ok(());
            }
            $conn.ensure_migrations_table(MIGRATIONS_TABLE).await.map_err(|e| sqlx::Error::Migrate(Box::new(e)))?;
            let select = format!("SELECT version FROM {MIGRATIONS_TABLE}");
            let rows = sqlx::query(AssertSqlSafe(select)).fetch_all(&mut *$conn).await?;
            let recorded: Vec<i64> = rows.iter().map(|r| r.try_get::<i64, _>(0)).collect::<Result<_, _>>()?;
            let (p1, p2, p3) = if $numbered { ("$1", "$2", "$3") } else { ("?", "?", "?") };
            for (version, description, checksum) in earlier.iter().filter(|row| ours(row)) {
                let current = $migrator.iter().find(|m| m.version == *version && m.description == *description);
                if let (Some(migration), false) = (current, recorded.contains(version)) {
                    // The current checksum: the schema this version made is the one its file
                    // makes now (migration 5 also holds what version 10 added).
                    let insert = format!(
                        "INSERT INTO {MIGRATIONS_TABLE} (version, description, success, checksum, execution_time) \
                         VALUES ({p1}, {p2}, TRUE, {p3}, -1)"
                    );
                    sqlx::query(AssertSqlSafe(insert))
                        .bind(*version)
                        .bind(description.as_str())
                        .bind(&*migration.checksum)
                        .execute(&mut *$conn)
                        .await?;
                }
                let delete = format!("DELETE FROM {EARLIER_TABLE} WHERE version = {p1} AND checksum = {p2}");
                sqlx::query(AssertSqlSafe(delete)).bind(*version).bind(checksum.as_slice()).execute(&mut *$conn).await?;
            }
            Ok(())
        }
    };
}

/// Whether a statement failed because a table or column it names does not exist.
pub(crate) fn missing(err: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = err else { return false };
    if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
        // Undefined table, undefined column.
        return matches!(pg.code(), "42P01" | "42703");
    }
    if let Some(my) = db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>() {
        // No such table, unknown column.
        return matches!(my.number(), 1146 | 1054);
    }
    let message = db.message();
    message.starts_with("no such table") || message.starts_with("no such column")
}

impl Store {
    /// Applies groundcheck's migrations (idempotent), its history kept in
    /// [`MIGRATIONS_TABLE`]; moves the history earlier versions kept in `_sqlx_migrations`
    /// there first. `tool_invocation` is created when missing, never altered. On SQLite the
    /// whole migration is one transaction, begun by taking the write lock (see
    /// [`Store::on_notice`]).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let migrator = migrator(self.engine());
        let action = "applying the migrations";
        let failed = |e: sqlx::Error| StoreError::query(&self.url, action, &e);
        let result = match &self.pool {
            Pool::Sqlite(pool) => {
                let mut tx = crate::lock::begin_write(pool, &self.listener).await.map_err(failed)?;
                adopt!(tx, migrator, Engine::Sqlite, false).await.map_err(failed)?;
                match migrator.run(&mut *tx).await {
                    Ok(()) => tx.commit().await.map_err(sqlx::migrate::MigrateError::Execute),
                    Err(e) => Err(e),
                }
            }
            Pool::MySql(pool) => {
                let mut conn = pool.acquire().await.map_err(failed)?;
                adopt!(conn, migrator, Engine::MySql, false).await.map_err(failed)?;
                migrator.run(&mut *conn).await
            }
            Pool::Postgres(pool, _) => {
                let mut conn = pool.acquire().await.map_err(failed)?;
                adopt!(conn, migrator, Engine::Postgres, true).await.map_err(failed)?;
                migrator.run(&mut *conn).await
            }
        };
        *self.found.lock().unwrap_or_else(|e| e.into_inner()) = None;
        result.map_err(|e| match e {
            sqlx::migrate::MigrateError::VersionMismatch(version) => StoreError::new(
                ErrorKind::Other,
                &self.url,
                action,
                format!(
                    "{MIGRATIONS_TABLE} records version {version} with a checksum other than that of \
                     groundcheck's migration {version}: that row was not written by this groundcheck (or its \
                     migration file was edited); nothing was migrated and the row was left as it is"
                ),
            ),
            e => StoreError::migrate(&self.url, &e),
        })
    }

    /// The columns of `tool_invocation` this database lacks (an agent schema older than the
    /// seed's V010): reads give them as NULL. Empty for a table made by groundcheck.
    pub async fn missing_columns(&self) -> Result<Vec<&'static str>, StoreError> {
        let schema = self.schema().await?;
        Ok(OPTIONAL_COLUMNS.iter().zip(schema.columns).filter(|(_, there)| !there).map(|(c, _)| *c).collect())
    }

    /// What the database holds of what groundcheck reads, probed on first use.
    pub(crate) async fn schema(&self) -> Result<Schema, StoreError> {
        if let Some(schema) = *self.found.lock().unwrap_or_else(|e| e.into_inner()) {
            return Ok(schema);
        }
        let required = format!("SELECT {} FROM tool_invocation WHERE 1 = 0", REQUIRED_COLUMNS.join(", "));
        let probes = [
            "SELECT relevance_level FROM tool_invocation WHERE 1 = 0",
            "SELECT dedup_reason FROM tool_invocation WHERE 1 = 0",
            "SELECT invocation_id FROM tool_invocation_output WHERE 1 = 0",
            "SELECT invocation_id FROM evidence_verification WHERE 1 = 0",
            "SELECT job FROM reverify_checkpoint WHERE 1 = 0",
            &required,
        ];
        let mut there = self.probe_all(&probes).await?;
        // No tool_invocation at all: the columns' probes failed on the table, and every read
        // will say so itself (with the hint to migrate).
        if !there[0] && !there[1] && !self.has_table("tool_invocation").await? {
            there[0] = true;
            there[1] = true;
        } else if !there[5] {
            return Err(self.lacking_required_columns().await);
        }
        let declared = self.declared_types().await?;
        if let Some(message) = types::first_misfit(&declared, self.engine() == Engine::Postgres) {
            return Err(StoreError::new(ErrorKind::ColumnType, &self.url, "reading the schema", message));
        }
        let bytea = |column: &str| declared.iter().any(|d| d.column == column && d.bytea());
        let schema = Schema {
            columns: [there[0], there[1]],
            outputs: there[2],
            verdicts: there[3],
            checkpoints: there[4],
            bytea: [bytea("input_params"), bytea("retrieval_details"), there[2] && bytea("raw_output")],
            raw_json: declared
                .iter()
                .find(|d| d.column == "raw_output" && d.table == "tool_invocation_output")
                .and_then(|d| match d.base.as_str() {
                    "json" => Some(JsonType::Json),
                    "jsonb" => Some(JsonType::Jsonb),
                    _ => None,
                }),
            text_time: self.engine() == Engine::Postgres
                && declared.iter().any(|d| {
                    d.table == "tool_invocation" && d.column == "created_at" && types::is_text(&d.base)
                }),
        };
        *self.found.lock().unwrap_or_else(|e| e.into_inner()) = Some(schema);
        Ok(schema)
    }

    /// The error naming which of [`REQUIRED_COLUMNS`] `tool_invocation` lacks, once the probe
    /// of all of them together failed: one probe per column to find which.
    async fn lacking_required_columns(&self) -> StoreError {
        let probes: Vec<String> = REQUIRED_COLUMNS
            .iter()
            .map(|column| format!("SELECT {column} FROM tool_invocation WHERE 1 = 0"))
            .collect();
        let probes: Vec<&str> = probes.iter().map(String::as_str).collect();
        let there = match self.probe_all(&probes).await {
            Ok(there) => there,
            Err(e) => return e,
        };
        let lacking: Vec<&str> = REQUIRED_COLUMNS
            .iter()
            .zip(there)
            .filter(|(_, there)| !there)
            .map(|(column, _)| *column)
            .collect();
        let engine = match self.engine() {
            Engine::Sqlite => "sqlite",
            Engine::MySql => "mysql",
            Engine::Postgres => "postgres",
        };
        let (noun, pronoun) = if lacking.len() == 1 { ("column", "it") } else { ("columns", "them") };
        let message = format!(
            "tool_invocation has no {noun} {}: add {pronoun} with the type the agent's schema gives (as in \
             groundcheck's migrations/{engine}/0005_create_tool_invocation.sql), or point --database at the \
             agent's own database",
            lacking.join(", "),
        );
        StoreError::new(ErrorKind::MissingColumn, &self.url, "reading tool_invocation", message)
    }

    /// Whether each of `probes` runs (`false` when a table or column it names is missing), all
    /// on one connection: the pool takes a connection back in a task of its own, so statements
    /// run one after another on the pool each found none idle and opened one (on a server, a
    /// login and a server process each).
    async fn probe_all(&self, probes: &[&str]) -> Result<Vec<bool>, StoreError> {
        let action = "reading the schema";
        with_pool!(self, pool, _sql => {
            let mut connection = pool.acquire().within(self.wait).await.map_err(|e| StoreError::query(&self.url, action, &e))?;
            let mut there = Vec::with_capacity(probes.len());
            for probe in probes {
                match sqlx::query(AssertSqlSafe(probe.to_string())).execute(&mut *connection).within(self.wait).await {
                    Ok(_) => there.push(true),
                    Err(e) if missing(&e) => there.push(false),
                    Err(e) => return Err(StoreError::query(&self.url, action, &e)),
                }
            }
            Ok(there)
        })
    }

    /// The declared types of `tool_invocation` and `tool_invocation_output` (empty on SQLite,
    /// which is dynamically typed, and for a table that does not exist).
    async fn declared_types(&self) -> Result<Vec<Declared>, StoreError> {
        let action = "reading the column types";
        let failed = |e: sqlx::Error| StoreError::query(&self.url, action, &e);
        let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
        macro_rules! declared {
            ($pool:expr, $sql:expr) => {{
                let rows = sqlx::query($sql).fetch_all($pool).within(self.wait).await.map_err(failed)?;
                rows.iter()
                    .map(|r| {
                        Ok(Declared {
                            table: text(r.bytes(0)?),
                            column: text(r.bytes(1)?),
                            base: text(r.bytes(2)?).to_ascii_lowercase(),
                            full: text(r.bytes(3)?).to_ascii_lowercase(),
                            scale: r.try_get::<Option<i64>, _>(4)?,
                        })
                    })
                    .collect::<Result<Vec<Declared>, sqlx::Error>>()
                    .map_err(failed)
            }};
        }
        match &self.pool {
            Pool::Sqlite(_) => Ok(Vec::new()),
            Pool::MySql(pool) => declared!(pool, types::MYSQL_COLUMNS),
            Pool::Postgres(pool, _) => declared!(pool, types::POSTGRES_COLUMNS),
        }
    }

    /// Whether `probe` runs; `false` when a table or column it names is missing.
    async fn probe(&self, probe: &str) -> Result<bool, StoreError> {
        Ok(self.probe_all(&[probe]).await?[0])
    }

    async fn has_table(&self, table: &str) -> Result<bool, StoreError> {
        self.probe(&format!("SELECT 1 FROM {table} WHERE 1 = 0")).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The earlier checksums are SHA-384 of the files, as sqlx computes them: those of the
    /// files unchanged since (110 and 120) are the shipped migrations' own.
    #[test]
    fn earlier_checksums_are_the_files_checksums() {
        for engine in [Engine::Sqlite, Engine::MySql, Engine::Postgres] {
            for m in migrator(engine).iter().filter(|m| m.version == 110 || m.version == 120) {
                assert!(earlier_ours(engine, m.version, &m.checksum), "{engine:?}: {}", m.version);
                assert!(!earlier_ours(engine, m.version + 1, &m.checksum), "{engine:?}: by version too");
            }
            assert!(!earlier_ours(engine, 10, &[0; 48]), "another checksum is not ours");
        }
    }

    #[test]
    fn the_history_moves_to_a_table_of_groundchecks_own() {
        for engine in [Engine::Sqlite, Engine::MySql, Engine::Postgres] {
            let migrator = migrator(engine);
            assert_eq!(migrator.table_name, MIGRATIONS_TABLE);
            // Every migration still shipped keeps the version and description it had.
            for m in migrator.iter().filter(|m| m.version <= 120) {
                assert!(EARLIER.contains(&(m.version, &*m.description)), "{engine:?}: {}", m.version);
            }
            assert!(migrator.iter().any(|m| (m.version, &*m.description) == MARKER));
            assert!(!migrator.version_exists(10), "no migration alters tool_invocation");
        }
    }

    #[test]
    fn no_shipped_migration_alters_tool_invocation() {
        for engine in [Engine::Sqlite, Engine::MySql, Engine::Postgres] {
            for m in migrator(engine).iter() {
                let sql = m.sql.as_str().to_ascii_lowercase();
                assert!(!sql.contains("alter table tool_invocation"), "{engine:?}: {}", m.version);
            }
        }
    }
}
