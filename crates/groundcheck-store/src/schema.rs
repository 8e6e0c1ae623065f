//! The schema: applying groundcheck's migrations, and finding out what an existing database
//! holds so that reading works on it as it is.
//!
//! groundcheck's migration history lives in a table of its own, [`MIGRATIONS_TABLE`], never
//! in sqlx's default `_sqlx_migrations`, which the agent's own migrator may use: each
//! migrator sees only its own history. Earlier versions of groundcheck kept theirs in
//! `_sqlx_migrations`; [`Store::migrate`] moves those rows (recognised by their versions and
//! descriptions, and only when migration 100, "create groundcheck tables", is among them) into
//! groundcheck's table and leaves every other row where it is.
//!
//! `tool_invocation` is created only when it is missing and never altered. An agent schema
//! older than the seed's V010 has no `relevance_level` / `dedup_reason`; reads then select
//! NULL in their place ([`Store::missing_columns`] names them). Before anyone has migrated,
//! groundcheck's own tables may be missing too: reads then find no raw outputs, no stored
//! verdicts and no checkpoint.

use sqlx::migrate::{Migrate, Migrator};
use sqlx::{AssertSqlSafe, Row};

use crate::dialect::{self, Dialect};
use crate::error::ErrorKind;
use crate::error::StoreError;
use crate::holds::{Schema, OPTIONAL_COLUMNS, REQUIRED_COLUMNS};
use crate::store::{with_pool, Pool, Store};
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

fn migrator(engine: Engine) -> Migrator {
    let mut migrator = match engine {
        Engine::Sqlite => sqlx::migrate!("../../migrations/sqlite"),
        Engine::MySql => sqlx::migrate!("../../migrations/mysql"),
        Engine::Postgres => sqlx::migrate!("../../migrations/postgres"),
    };
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator
}

/// Moves groundcheck's rows of [`EARLIER_TABLE`] into [`MIGRATIONS_TABLE`], on one connection
/// (`$numbered`: PostgreSQL's `$n` placeholders). Idempotent: a move cut short is finished by
/// the next one.
macro_rules! adopt {
    ($conn:expr, $migrator:expr, $numbered:expr) => {
        async {
            let select = format!("SELECT version, description FROM {EARLIER_TABLE}");
            let earlier = match sqlx::query(AssertSqlSafe(select)).fetch_all(&mut *$conn).await {
                Ok(rows) => rows
                    .iter()
                    .map(|r| Ok((r.try_get::<i64, _>(0)?, r.try_get::<String, _>(1)?)))
                    .collect::<Result<Vec<(i64, String)>, sqlx::Error>>()?,
                Err(e) if missing(&e) => return Ok::<(), sqlx::Error>(()),
                Err(e) => return Err(e),
            };
            let ours = |(v, d): &(i64, String)| EARLIER.iter().any(|(ev, ed)| ev == v && ed == d);
            let marker = (MARKER.0, MARKER.1.to_string());
            if !earlier.contains(&marker) {
                return Ok(());
            }
            $conn.ensure_migrations_table(MIGRATIONS_TABLE).await.map_err(|e| sqlx::Error::Migrate(Box::new(e)))?;
            let select = format!("SELECT version FROM {MIGRATIONS_TABLE}");
            let rows = sqlx::query(AssertSqlSafe(select)).fetch_all(&mut *$conn).await?;
            let recorded: Vec<i64> = rows.iter().map(|r| r.try_get::<i64, _>(0)).collect::<Result<_, _>>()?;
            let (p1, p2, p3) = if $numbered { ("$1", "$2", "$3") } else { ("?", "?", "?") };
            for (version, description) in earlier.iter().filter(|row| ours(row)) {
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
                let delete = format!("DELETE FROM {EARLIER_TABLE} WHERE version = {p1} AND description = {p2}");
                sqlx::query(AssertSqlSafe(delete)).bind(*version).bind(description.as_str()).execute(&mut *$conn).await?;
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
                adopt!(tx, migrator, false).await.map_err(failed)?;
                match migrator.run(&mut *tx).await {
                    Ok(()) => tx.commit().await.map_err(sqlx::migrate::MigrateError::Execute),
                    Err(e) => Err(e),
                }
            }
            Pool::MySql(pool) => {
                let mut conn = pool.acquire().await.map_err(failed)?;
                adopt!(conn, migrator, false).await.map_err(failed)?;
                migrator.run(&mut *conn).await
            }
            Pool::Postgres(pool, _) => {
                let mut conn = pool.acquire().await.map_err(failed)?;
                adopt!(conn, migrator, true).await.map_err(failed)?;
                migrator.run(&mut *conn).await
            }
        };
        *self.found.lock().unwrap_or_else(|e| e.into_inner()) = None;
        result.map_err(|e| StoreError::migrate(&self.url, &e))
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
        let schema = Schema {
            columns: [there[0], there[1]],
            outputs: there[2],
            verdicts: there[3],
            checkpoints: there[4],
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
