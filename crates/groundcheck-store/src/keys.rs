//! Reading many rows at once. `reverify` reads a batch in one query for the rows of a list of
//! runs (or run-less sessions) and one for their stored verdicts, instead of two per run: two
//! statements per run were 1,600 round trips through the driver for the 20,000 rows of
//! `benches/reverify.sh`, each a wakeup of its worker thread. `import` reads the rows it
//! would add in one query per list of ids, instead of one per row.
//!
//! A list is bound as `IN (…)` placeholders, padded to a power of two with its last key (a
//! key listed twice selects nothing more), so that a job prepares a handful of statements.
//! The statements are the dialect's constant text and placeholders (hence `AssertSqlSafe`):
//! no value enters the SQL.

use std::collections::HashMap;

use futures_util::TryStreamExt;
use groundcheck_core::{Reason, Status};
use sqlx::AssertSqlSafe;

use crate::dialect::{self, Dialect};
use crate::error::{ErrorKind, StoreError};
use crate::row::{StoredRow, TextColumns};
use crate::store::{id_range, with_pool, Pool, RunKey, Store, Window};
use crate::url::Engine;
use crate::wait::Within;

/// The most keys one statement lists; longer lists take several statements.
pub const MAX_KEYS: usize = 256;

/// The status and reason of a verdict stored for a row: what `reverify` compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredOutcome {
    /// The row's (the invocation's) id.
    pub id: i64,
    /// The stored status.
    pub status: Status,
    /// The stored reason.
    pub reason: Reason,
}

/// One row of a dialect's `select_outcomes_*_in`: `invocation_id, status, reason`, the two
/// names parsed from the bytes, which a name that is not UTF-8 could not be.
fn decode_outcome<R>(row: &R) -> Result<StoredOutcome, String>
where
    R: TextColumns,
    usize: sqlx::ColumnIndex<R>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let name = |i: usize| -> Result<&str, String> {
        let bytes = row.bytes(i).map_err(|e| e.to_string())?.ok_or_else(|| format!("column {i} is NULL"))?;
        std::str::from_utf8(bytes).map_err(|e| format!("column {i}: {e}"))
    };
    Ok(StoredOutcome {
        id: row.try_get(0).map_err(|e| e.to_string())?,
        status: name(1)?.parse::<Status>().map_err(|e| e.to_string())?,
        reason: name(2)?.parse::<Reason>().map_err(|e| e.to_string())?,
    })
}

impl Store {
    /// The rows of each of `keys` (distinct) created within `window`, each key's by `id`, in
    /// the order of `keys`: what [`Store::read_key`] returns for each, in one query per
    /// [`MAX_KEYS`] runs (and one per as many sessions).
    pub async fn read_keys(
        &self,
        keys: &[RunKey],
        window: &Window,
    ) -> Result<Vec<Vec<StoredRow>>, StoreError> {
        let mut found: Vec<Vec<StoredRow>> = keys.iter().map(|_| Vec::new()).collect();
        for (sessions, part) in lists(keys) {
            let slots = self.slots(&part);
            for row in self.select_rows(sessions, &part, window).await? {
                let id =
                    if sessions { row.columns.session_id.as_deref() } else { row.columns.run_id.as_deref() };
                if let Some(&i) = id.and_then(|id| slots.get(self.matched(id))) {
                    found[i].push(row);
                }
            }
        }
        for rows in &mut found {
            rows.sort_by_key(|r| r.columns.id);
        }
        Ok(found)
    }

    /// The invocations of `ids` that exist, by id: one query per [`MAX_KEYS`] ids (what
    /// `import` checks its rows against; a round trip per row was most of an import's time).
    pub async fn read_rows(&self, ids: &[i64]) -> Result<HashMap<i64, StoredRow>, StoreError> {
        let schema = self.schema().await?;
        let mut found = HashMap::new();
        for part in ids.chunks(MAX_KEYS) {
            let list = padded(part.iter().copied());
            let action = || format!("reading invocations: {}", id_range(part.iter().copied()));
            let rows: Vec<StoredRow> = with_pool!(self, pool, sql => {
                let statement = sql.keyed(&sql.rows(sql.select_ids, &schema), 1, list.len());
                let mut query = sqlx::query(AssertSqlSafe(statement));
                for id in &list {
                    query = query.bind(*id);
                }
                let rows = query.fetch_all(pool).within(self.wait).await.map_err(|e| self.error(action(), e))?;
                rows.iter().map(StoredRow::decode).collect::<Result<_, _>>().map_err(|e| self.error(action(), e))?
            });
            found.extend(rows.into_iter().map(|row| (row.columns.id, row)));
        }
        Ok(found)
    }

    /// The status and reason stored under `policy` for the rows of `keys`, in one query per
    /// [`MAX_KEYS`] keys: all that `reverify` compares its verdicts with. Whole verdicts
    /// would read every stored ref (on PostgreSQL, out of TOAST) and parse it, to be dropped.
    pub async fn read_keys_outcomes(
        &self,
        policy: &str,
        keys: &[RunKey],
    ) -> Result<Vec<StoredOutcome>, StoreError> {
        let mut found = Vec::new();
        if !self.schema().await?.verdicts {
            return Ok(found);
        }
        for (sessions, part) in lists(keys) {
            let ids: Vec<&str> = padded(part.iter().map(|&(_, id)| id));
            let action = || format!("reading stored outcomes of {}", describe(sessions, &part));
            let statement = |sql: &Dialect| {
                let head =
                    if sessions { sql.select_outcomes_sessions_in } else { sql.select_outcomes_runs_in };
                sql.keyed(head, 2, ids.len())
            };
            let stored: Result<Vec<StoredOutcome>, String> = with_pool!(self, pool, sql => {
                let statement = statement(sql);
                let mut query = sqlx::query(AssertSqlSafe(statement)).bind(policy);
                for id in &ids {
                    query = query.bind(*id);
                }
                let rows = query.fetch_all(pool).within(self.wait).await.map_err(|e| self.error(action(), e))?;
                rows.iter().map(decode_outcome).collect()
            });
            found.extend(stored.map_err(|e| StoreError::new(ErrorKind::Other, &self.url, action(), e))?);
        }
        Ok(found)
    }

    /// The rows of one list of runs or sessions, in no particular order.
    async fn select_rows(
        &self,
        sessions: bool,
        part: &[(usize, &str)],
        window: &Window,
    ) -> Result<Vec<StoredRow>, StoreError> {
        let ids: Vec<&str> = padded(part.iter().map(|&(_, id)| id));
        let action = || format!("reading {}", describe(sessions, part));
        let (since, until) = (window.since.as_deref(), window.until.as_deref());
        let schema = self.schema().await?;
        let statement = |sql: &Dialect| {
            let head = if sessions { sql.select_sessions_in } else { sql.select_runs_in };
            sql.keyed(&sql.rows(head, &schema), 5, ids.len())
        };
        with_pool!(self, pool, sql => {
            let statement = statement(sql);
            let mut query = sqlx::query(AssertSqlSafe(statement)).bind(since).bind(since).bind(until).bind(until);
            for id in &ids {
                query = query.bind(*id);
            }
            // Each row is decoded as it arrives, while the driver reads the next ones (SQLite's
            // worker thread steps ahead; a server's bytes keep coming): read whole first, the
            // two took turns.
            let mut rows = query.fetch(pool);
            let mut decoded = Vec::new();
            while let Some(row) = rows.try_next().within(self.wait).await.map_err(|e| self.error(action(), e))? {
                decoded.push(StoredRow::decode(&row).map_err(|e| self.error(action(), e))?);
            }
            Ok(decoded)
        })
    }

    /// Where each key of a list goes, by its id as the database compares it.
    fn slots<'k>(&self, part: &[(usize, &'k str)]) -> HashMap<&'k str, usize> {
        part.iter().map(|&(i, id)| (self.matched(id), i)).collect()
    }

    /// An id as `=` compares it: MariaDB's collations pad with spaces, so `'a '` is `'a'`
    /// there and a run read by key holds both; elsewhere, the id itself.
    fn matched<'k>(&self, id: &'k str) -> &'k str {
        match self.engine() {
            Engine::MySql => id.trim_end_matches(' '),
            _ => id,
        }
    }
}

/// `keys` as lists of at most [`MAX_KEYS`] runs or sessions, each id with its place in `keys`.
fn lists(keys: &[RunKey]) -> Vec<(bool, Vec<(usize, &str)>)> {
    let mut runs = Vec::new();
    let mut sessions = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        match key {
            RunKey::Run(id) => runs.push((i, id.as_str())),
            RunKey::Session(id) => sessions.push((i, id.as_str())),
        }
    }
    let mut lists = Vec::new();
    for (is_sessions, ids) in [(false, runs), (true, sessions)] {
        lists.extend(ids.chunks(MAX_KEYS).map(|part| (is_sessions, part.to_vec())));
    }
    lists
}

/// A list's ids, padded to a power of two with its last.
fn padded<T: Copy>(ids: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut ids: Vec<T> = ids.into_iter().collect();
    if let Some(&last) = ids.last() {
        ids.resize(ids.len().next_power_of_two(), last);
    }
    ids
}

/// A list of keys for messages: the one key, or the first and how many.
fn describe(sessions: bool, part: &[(usize, &str)]) -> String {
    let key = |id: &str| match sessions {
        true => RunKey::Session(id.to_string()),
        false => RunKey::Run(id.to_string()),
    };
    match part {
        [(_, only)] => key(only).to_string(),
        [(_, first), ..] => format!("{} and {} more", key(first), part.len() - 1),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_listed_by_kind_at_most_max_keys_at_a_time_with_their_places() {
        let mut keys: Vec<RunKey> = (0..MAX_KEYS + 1).map(|i| RunKey::Run(format!("r{i}"))).collect();
        keys.insert(1, RunKey::Session("s".to_string()));
        let lists = lists(&keys);
        let shape: Vec<(bool, usize)> =
            lists.iter().map(|(sessions, part)| (*sessions, part.len())).collect();
        assert_eq!(shape, [(false, MAX_KEYS), (false, 1), (true, 1)]);
        assert_eq!(lists[2].1, [(1, "s")]);
        assert_eq!(lists[1].1, [(MAX_KEYS + 1, "r256")]);
    }

    #[test]
    fn a_list_is_padded_to_a_power_of_two_with_its_last_key() {
        assert_eq!(padded(["a", "b", "c"]), ["a", "b", "c", "c"]);
        assert_eq!(padded(["a", "b"]), ["a", "b"]);
        assert!(padded::<&str>([]).is_empty());
    }
}
