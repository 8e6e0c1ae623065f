//! The SQL of each engine. Every statement is a static, fully parameterised string.
//!
//! Reads return the same Rust types from every engine so that one decoder serves all three:
//! text columns as bytes (`row.rs`), so text that is not UTF-8 is seen, not rejected; integers
//! as BIGINT; `created_at` as `YYYY-MM-DD HH:MM:SS.ffffff`. PostgreSQL's rows and verdicts are
//! read as text when the database and the client are UTF8 ([`POSTGRES_UTF8`]), else through
//! `convert_to(…, 'UTF8')` ([`POSTGRES`]).
//!
//! Stored verdicts are looked up from `tool_invocation`'s indexes outward (`CROSS JOIN` is
//! SQLite's join-order hint, `STRAIGHT_JOIN` MariaDB's): driven from the verdict table's
//! `(policy, …)` index instead, every lookup scanned all verdicts of the policy, and
//! `reverify --write` slowed down as the table grew.

use std::borrow::Cow;

use crate::holds::{JsonType, Schema, OPTIONAL_COLUMNS, REQUIRED_COLUMNS};

/// The statements groundcheck runs, in one engine's dialect.
///
/// Statements that take a `created_at` window bind it as `since, since, until, until` after
/// their key: `(? IS NULL OR created_at >= ?) AND (? IS NULL OR created_at < ?)`.
#[derive(Debug)]
pub(crate) struct Dialect {
    pub(crate) select_run: &'static str,
    pub(crate) select_session: &'static str,
    /// The rows of a list of ids: the list is appended (`… IN `, [`Dialect::keyed`]).
    pub(crate) select_ids: &'static str,
    /// How each column of `tool_invocation` is inserted, [`REQUIRED_COLUMNS`] then
    /// [`OPTIONAL_COLUMNS`]: its value expression, `{}` standing for its parameter
    /// ([`Dialect::insert_invocations`]).
    pub(crate) invocation_values: [&'static str; INSERTED],
    pub(crate) upsert_verdict: &'static str,
    pub(crate) select_verdicts_run: &'static str,
    pub(crate) select_verdicts_session: &'static str,
    pub(crate) list_runs: &'static str,
    pub(crate) list_sessions: &'static str,
    /// The runs / run-less sessions (each with a tool) that have a row without a verdict under
    /// a policy: the policy binds first, then the window.
    pub(crate) list_unverified_runs: &'static str,
    pub(crate) list_unverified_sessions: &'static str,
    pub(crate) select_checkpoint: &'static str,
    /// A `reverify` job's checkpoint with its running totals, committed with each batch.
    pub(crate) upsert_checkpoint: &'static str,
    pub(crate) select_checkpoint_totals: &'static str,
    /// Which policies have stored verdicts, to compare with.
    pub(crate) policy_is_stored: &'static str,
    pub(crate) stored_policies: &'static str,
    /// Whether a tool has a row (on `idx_tool_name`), and the tools there are, in order: what
    /// a `--tool` that matches nothing is told.
    pub(crate) tool_exists: &'static str,
    pub(crate) tool_names: &'static str,
    /// The rows of a list of runs / run-less sessions: the window binds first
    /// (`since, since, until, until`), then the list, placed by [`Dialect::keyed`].
    pub(crate) select_runs_in: &'static str,
    pub(crate) select_sessions_in: &'static str,
    /// The stored status and reason of each row of a list of runs / sessions: the policy,
    /// then the list. What `reverify` compares with, looked up row by row on the verdicts'
    /// primary key (PostgreSQL: see [`POSTGRES`]).
    pub(crate) select_outcomes_runs_in: &'static str,
    pub(crate) select_outcomes_sessions_in: &'static str,
    /// The multi-row verdict upsert: `upsert_head`, then [`Dialect::upsert_values`] rows,
    /// then `upsert_tail`.
    pub(crate) upsert_head: &'static str,
    pub(crate) upsert_tail: &'static str,
    /// `$n` placeholders (PostgreSQL) rather than `?`.
    pub(crate) numbered: bool,
    /// The inserts' values take `?n` placeholders (SQLite), so that an expression can use its
    /// parameter more than once.
    pub(crate) indexed: bool,
    /// How the row selects read `relevance_level`, `dedup_reason` and the raw output, and
    /// the NULL that stands in for one the database does not have ([`Dialect::rows`]).
    pub(crate) relevance_level: &'static str,
    pub(crate) dedup_reason: &'static str,
    pub(crate) raw_output: &'static str,
    pub(crate) null: &'static str,
    /// How the row selects join `tool_invocation_output`, removed with it.
    pub(crate) output_join: &'static str,
    /// How the row selects read `input_params`, `retrieval_details` and the raw output (the
    /// server's text of the value), and what stands in for each when it is PostgreSQL `bytea`
    /// (its bytes: `::text` would give their hex escape).
    pub(crate) json: [&'static str; 3],
    pub(crate) json_bytea: [&'static str; 3],
}

/// Where a statement that does not end with its list of keys has it (PostgreSQL's,
/// `postgres_keyed!`): [`Dialect::keyed`] puts the placeholders there, without parentheses.
const KEYS: &str = "{keys}";

/// The values of an insert into `tool_invocation`: [`REQUIRED_COLUMNS`], then
/// [`OPTIONAL_COLUMNS`].
const INSERTED: usize = REQUIRED_COLUMNS.len() + OPTIONAL_COLUMNS.len();

/// `values` with `expression` for the column `name` of [`REQUIRED_COLUMNS`], found when the
/// crate compiles (a name not there fails the build): a dialect names the columns whose value
/// it casts, so their positions follow the list.
const fn with_value(
    mut values: [&'static str; INSERTED],
    name: &str,
    expression: &'static str,
) -> [&'static str; INSERTED] {
    let mut i = 0;
    while i < REQUIRED_COLUMNS.len() {
        if same(REQUIRED_COLUMNS[i].as_bytes(), name.as_bytes()) {
            values[i] = expression;
            return values;
        }
        i += 1;
    }
    panic!("not one of REQUIRED_COLUMNS")
}

/// `a == b`, which a `const fn` cannot write yet for strings.
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// How the row selects join the raw outputs, left out when `tool_invocation_output` is missing
/// ([`Dialect::output_join`]).
const OUTPUT_JOIN: &str = " LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id";

/// PostgreSQL's [`OUTPUT_JOIN`]: the same rows, but each row's output looked up on the primary
/// key of `tool_invocation_output` (`OFFSET 0` keeps the subquery from being flattened into a
/// join the planner may choose). On a table of a few batches, the planner's hash join read
/// every output of the table (not their text) for every batch; at any size, the rows of a batch
/// are each one lookup.
macro_rules! postgres_output_join {
    () => {
        " LEFT JOIN LATERAL (SELECT raw_output FROM tool_invocation_output \
         WHERE invocation_id = t.id OFFSET 0) o ON true"
    };
}

macro_rules! sqlite_select {
    ($where:literal) => {
        concat!(
            "SELECT ",
        // JSON and DATETIME are cast so values decode by their stored type, not the declared one.
        "t.id, t.session_id, t.run_id, t.step_id, t.tool_name, CAST(t.input_params AS TEXT), t.output_preview, \
         t.output_length, t.retrieval_layer, t.l0_match_count, t.l1_match_count, t.is_truncated, \
         t.relevance_level, t.dedup_reason, CAST(t.retrieval_details AS TEXT), t.duration_ms, t.success, \
         t.error_message, CAST(t.created_at AS TEXT), o.raw_output",
            " FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id WHERE ",
            $where
        )
    };
}

macro_rules! mysql_select {
    ($where:literal) => {
        concat!(
            "SELECT ",
            // Integers and booleans as BIGINT whatever their declared type (a scale-0 DECIMAL, a
            // BIT(1)); DATE_FORMAT reads a DATETIME, a TIMESTAMP or a text holding a time.
            "CAST(t.id AS SIGNED), t.session_id, t.run_id, CAST(t.step_id AS SIGNED), t.tool_name, t.input_params, \
         t.output_preview, CAST(t.output_length AS SIGNED), t.retrieval_layer, CAST(t.l0_match_count AS SIGNED), \
         CAST(t.l1_match_count AS SIGNED), CAST(t.is_truncated AS SIGNED), \
         t.relevance_level, t.dedup_reason, t.retrieval_details, CAST(t.duration_ms AS SIGNED), \
         CAST(t.success AS SIGNED), t.error_message, DATE_FORMAT(t.created_at, '%Y-%m-%d %H:%i:%s.%f'), o.raw_output",
            " FROM tool_invocation t LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id WHERE ",
            $where
        )
    };
}

macro_rules! postgres_select {
    // Text columns as bytes (`convert_to`): a database whose encoding is not UTF8.
    (bytes, $from:expr, $where:expr) => {
        concat!(
            "SELECT ",
        "t.id::bigint, convert_to(t.session_id, 'UTF8'), convert_to(t.run_id, 'UTF8'), t.step_id::bigint, \
         convert_to(t.tool_name, 'UTF8'), convert_to(t.input_params::text, 'UTF8'), \
         convert_to(t.output_preview, 'UTF8'), t.output_length::bigint, convert_to(t.retrieval_layer, 'UTF8'), \
         t.l0_match_count::bigint, t.l1_match_count::bigint, t.is_truncated::int::bigint, \
         convert_to(t.relevance_level, 'UTF8'), convert_to(t.dedup_reason, 'UTF8'), \
         convert_to(t.retrieval_details::text, 'UTF8'), t.duration_ms::bigint, t.success::int::bigint, \
         convert_to(t.error_message, 'UTF8'), \
         convert_to(to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), 'UTF8'), \
         convert_to(o.raw_output::text, 'UTF8')",
            " FROM ",
            $from,
            postgres_output_join!(),
            " WHERE ",
            $where
        )
    };
    // Text columns as text: a UTF8 database read by a UTF8 client sends them as UTF-8 already.
    (text, $from:expr, $where:expr) => {
        concat!(
            "SELECT ",
        "t.id::bigint, t.session_id, t.run_id, t.step_id::bigint, t.tool_name, t.input_params::text, \
         t.output_preview, t.output_length::bigint, t.retrieval_layer, t.l0_match_count::bigint, \
         t.l1_match_count::bigint, t.is_truncated::int::bigint, t.relevance_level, t.dedup_reason, \
         t.retrieval_details::text, t.duration_ms::bigint, t.success::int::bigint, t.error_message, \
         to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), o.raw_output::text",
            " FROM ",
            $from,
            postgres_output_join!(),
            " WHERE ",
            $where
        )
    };
}

/// The conditions of PostgreSQL's row selects, the same for both ways of reading text.
macro_rules! postgres_where {
    (run) => {
        "t.run_id = $1 AND (CAST($2 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($3 AS TIMESTAMP)) AND (CAST($4 AS TIMESTAMP) IS NULL OR t.created_at < CAST($5 AS TIMESTAMP)) ORDER BY t.id"
    };
    (session) => {
        "t.run_id IS NULL AND t.session_id = $1 AND (CAST($2 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($3 AS TIMESTAMP)) AND (CAST($4 AS TIMESTAMP) IS NULL OR t.created_at < CAST($5 AS TIMESTAMP)) ORDER BY t.id"
    };
    (ids) => {
        "t.id IN "
    };
    // The lists' rows: which runs or sessions is in their FROM (`postgres_keyed!`).
    (window) => {
        "(CAST($1 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($2 AS TIMESTAMP)) AND (CAST($3 AS TIMESTAMP) IS NULL OR t.created_at < CAST($4 AS TIMESTAMP))"
    };
}

/// PostgreSQL's rows of a list of runs (sessions: run-less sessions) as `t`, with the columns
/// `$cols` of `tool_invocation`: each distinct listed key (the list is padded with repeats of
/// its last) looked up on `idx_tool_invocation_run_id` (`idx_session_id`), in a `LATERAL`
/// subquery that `OFFSET 0` keeps from being flattened. `t.run_id IN (…)` left the plan to
/// the statistics, which could rate a batch's runs so large a share of the table that a
/// sequential scan of the whole table cost about what the index does: every batch then
/// scanned every row, most of the server's time for the batch (`benches/README.md`).
macro_rules! postgres_keyed {
    (runs, $cols:literal) => {
        postgres_keyed!($cols, "run_id = l.k")
    };
    (sessions, $cols:literal) => {
        postgres_keyed!($cols, "run_id IS NULL AND session_id = l.k")
    };
    ($cols:literal, $key:literal) => {
        concat!(
            "(SELECT DISTINCT k FROM unnest(ARRAY[{keys}]::text[]) k) l CROSS JOIN LATERAL (SELECT ",
            $cols,
            " FROM tool_invocation WHERE ",
            $key,
            " OFFSET 0) t"
        )
    };
}

macro_rules! postgres_verdict_columns {
    (bytes) => {
        "SELECT v.invocation_id, convert_to(v.run_id, 'UTF8'), convert_to(t.tool_name, 'UTF8'), \
         convert_to(v.status, 'UTF8'), convert_to(v.reason, 'UTF8'), convert_to(v.claimed_status, 'UTF8'), \
         v.claim_agrees, convert_to(v.source, 'UTF8'), convert_to(v.refs::text, 'UTF8'), \
         convert_to(v.warnings::text, 'UTF8'), convert_to(v.engine_version, 'UTF8') \
         FROM tool_invocation t JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = $1"
    };
    (text) => {
        "SELECT v.invocation_id, v.run_id, t.tool_name, v.status, v.reason, v.claimed_status, \
         v.claim_agrees, v.source, v.refs::text, v.warnings::text, v.engine_version \
         FROM tool_invocation t JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = $1"
    };
}

/// PostgreSQL has no join-order hint, and its plan for the join of the rows listed with their
/// verdicts depends on statistics: before the tables are first analysed (a bulk load, before
/// autovacuum) it scanned every verdict of the policy and probed `tool_invocation` for each,
/// for every batch; with statistics, on a table of a few batches, a hash join over a scan of
/// every verdict. A `LATERAL` subquery with a `LIMIT` (which the primary key
/// `(invocation_id, policy)` makes a no-op) is never flattened into the join, so each listed
/// row (`postgres_keyed!`, only its id: an index-only scan) is looked up on that key, whatever
/// the statistics.
macro_rules! postgres_outcomes {
    (bytes, $keys:ident) => {
        postgres_outcomes!("convert_to(v.status, 'UTF8'), convert_to(v.reason, 'UTF8')", $keys)
    };
    (text, $keys:ident) => {
        postgres_outcomes!("v.status, v.reason", $keys)
    };
    ($names:literal, $keys:ident) => {
        concat!(
            "SELECT v.invocation_id, ",
            $names,
            " FROM ",
            postgres_keyed!($keys, "id"),
            " CROSS JOIN LATERAL (SELECT e.invocation_id, e.status, e.reason \
             FROM evidence_verification e WHERE e.invocation_id = t.id AND e.policy = $1 LIMIT 1) v"
        )
    };
}

pub(crate) static SQLITE: Dialect = Dialect {
    select_run: sqlite_select!("t.run_id = ? AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) ORDER BY t.id"),
    select_session: sqlite_select!("t.run_id IS NULL AND t.session_id = ? AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) ORDER BY t.id"),
    select_ids: sqlite_select!("t.id IN "),
    // A column declared JSON has NUMERIC affinity in SQLite, which turns a JSON text that is
    // a bare number into a REAL or INTEGER (`1.50` comes back `1.5`, `1e3` as `1000`). Such
    // a text (it starts with a digit or `-`) is stored as a BLOB of its bytes, which affinity
    // never converts and `CAST(… AS TEXT)` reads back exactly; every other JSON text stays TEXT.
    invocation_values: {
        const JSON: &str = "CASE WHEN {} GLOB '[0-9-]*' THEN CAST({} AS BLOB) ELSE {} END";
        with_value(with_value(["{}"; INSERTED], "input_params", JSON), "retrieval_details", JSON)
    },
    upsert_verdict: "INSERT INTO evidence_verification (invocation_id, policy, run_id, status, reason, \
        claimed_status, claim_agrees, source, refs, warnings, engine_version, verified_at) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
        ON CONFLICT (invocation_id, policy) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, \
        reason = excluded.reason, claimed_status = excluded.claimed_status, claim_agrees = excluded.claim_agrees, \
        source = excluded.source, refs = excluded.refs, warnings = excluded.warnings, \
        engine_version = excluded.engine_version, verified_at = excluded.verified_at",
    select_verdicts_run: "SELECT v.invocation_id, v.run_id, t.tool_name, v.status, v.reason, v.claimed_status, \
        v.claim_agrees, v.source, CAST(v.refs AS TEXT), CAST(v.warnings AS TEXT), v.engine_version \
        FROM tool_invocation t CROSS JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id = ? ORDER BY t.id",
    select_verdicts_session: "SELECT v.invocation_id, v.run_id, t.tool_name, v.status, v.reason, v.claimed_status, \
        v.claim_agrees, v.source, CAST(v.refs AS TEXT), CAST(v.warnings AS TEXT), v.engine_version \
        FROM tool_invocation t CROSS JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IS NULL AND t.session_id = ? ORDER BY t.id",
    list_runs: "SELECT DISTINCT t.run_id FROM tool_invocation t WHERE t.run_id IS NOT NULL \
        AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?)",
    list_sessions: "SELECT DISTINCT t.session_id FROM tool_invocation t WHERE t.run_id IS NULL \
        AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?)",
    list_unverified_runs: "SELECT DISTINCT t.run_id, t.tool_name FROM tool_invocation t \
        LEFT JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE v.invocation_id IS NULL AND t.run_id IS NOT NULL \
        AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?)",
    list_unverified_sessions: "SELECT DISTINCT t.session_id, t.tool_name FROM tool_invocation t \
        LEFT JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE v.invocation_id IS NULL AND t.run_id IS NULL \
        AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?)",
    select_checkpoint: "SELECT last_kind, last_key, rows_done, done, scope FROM reverify_checkpoint WHERE job = ?",
    upsert_checkpoint:
        "INSERT INTO reverify_checkpoint (job, arguments, last_kind, last_key, rows_done, done, \
        updated_at, totals, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job) DO UPDATE SET \
        arguments = excluded.arguments, last_kind = excluded.last_kind, last_key = excluded.last_key, \
        rows_done = excluded.rows_done, done = excluded.done, updated_at = excluded.updated_at, \
        totals = excluded.totals, scope = excluded.scope",
    select_checkpoint_totals: "SELECT totals FROM reverify_checkpoint WHERE job = ?",
    // Both use the `(policy, run_id, invocation_id)` index.
    policy_is_stored: "SELECT 1 FROM evidence_verification WHERE policy = ? LIMIT 1",
    stored_policies: "SELECT DISTINCT policy FROM evidence_verification ORDER BY policy",
    tool_exists: "SELECT 1 FROM tool_invocation WHERE tool_name = ? LIMIT 1",
    tool_names: "SELECT DISTINCT tool_name FROM tool_invocation ORDER BY tool_name LIMIT ?",
    select_runs_in: sqlite_select!("(? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) AND t.run_id IN "),
    select_sessions_in: sqlite_select!("(? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) AND t.run_id IS NULL AND t.session_id IN "),
    select_outcomes_runs_in: "SELECT v.invocation_id, v.status, v.reason \
        FROM tool_invocation t CROSS JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IN ",
    select_outcomes_sessions_in: "SELECT v.invocation_id, v.status, v.reason \
        FROM tool_invocation t CROSS JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IS NULL AND t.session_id IN ",
    upsert_head: "INSERT INTO evidence_verification (invocation_id, policy, run_id, status, reason, \
        claimed_status, claim_agrees, source, refs, warnings, engine_version, verified_at) VALUES ",
    upsert_tail: " ON CONFLICT (invocation_id, policy) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, \
        reason = excluded.reason, claimed_status = excluded.claimed_status, claim_agrees = excluded.claim_agrees, \
        source = excluded.source, refs = excluded.refs, warnings = excluded.warnings, \
        engine_version = excluded.engine_version, verified_at = excluded.verified_at",
    numbered: false,
    indexed: true,
    relevance_level: "t.relevance_level",
    dedup_reason: "t.dedup_reason",
    raw_output: "o.raw_output",
    null: "NULL",
    output_join: OUTPUT_JOIN,
    json: ["CAST(t.input_params AS TEXT)", "CAST(t.retrieval_details AS TEXT)", "o.raw_output"],
    json_bytea: ["CAST(t.input_params AS TEXT)", "CAST(t.retrieval_details AS TEXT)", "o.raw_output"],
};

pub(crate) static MYSQL: Dialect = Dialect {
    select_run: mysql_select!("t.run_id = ? AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) ORDER BY t.id"),
    select_session: mysql_select!("t.run_id IS NULL AND t.session_id = ? AND (? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) ORDER BY t.id"),
    select_ids: mysql_select!("t.id IN "),
    invocation_values: ["{}"; INSERTED],
    upsert_verdict: "INSERT INTO evidence_verification (invocation_id, policy, run_id, status, reason, \
        claimed_status, claim_agrees, source, refs, warnings, engine_version, verified_at) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
        ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), reason = VALUES(reason), \
        claimed_status = VALUES(claimed_status), claim_agrees = VALUES(claim_agrees), source = VALUES(source), \
        refs = VALUES(refs), warnings = VALUES(warnings), engine_version = VALUES(engine_version), \
        verified_at = VALUES(verified_at)",
    select_verdicts_run: "SELECT v.invocation_id, v.run_id, t.tool_name, v.status, v.reason, v.claimed_status, \
        v.claim_agrees, v.source, v.refs, v.warnings, v.engine_version \
        FROM tool_invocation t STRAIGHT_JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id = ? ORDER BY t.id",
    select_verdicts_session: "SELECT v.invocation_id, v.run_id, t.tool_name, v.status, v.reason, v.claimed_status, \
        v.claim_agrees, v.source, v.refs, v.warnings, v.engine_version \
        FROM tool_invocation t STRAIGHT_JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IS NULL AND t.session_id = ? ORDER BY t.id",
    list_runs: SQLITE.list_runs,
    list_sessions: SQLITE.list_sessions,
    list_unverified_runs: SQLITE.list_unverified_runs,
    list_unverified_sessions: SQLITE.list_unverified_sessions,
    select_checkpoint: SQLITE.select_checkpoint,
    upsert_checkpoint: "INSERT INTO reverify_checkpoint (job, arguments, last_kind, last_key, rows_done, done, \
        updated_at, totals, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE \
        arguments = VALUES(arguments), last_kind = VALUES(last_kind), last_key = VALUES(last_key), \
        rows_done = VALUES(rows_done), done = VALUES(done), updated_at = VALUES(updated_at), totals = VALUES(totals), \
        scope = VALUES(scope)",
    select_checkpoint_totals: SQLITE.select_checkpoint_totals,
    policy_is_stored: SQLITE.policy_is_stored,
    stored_policies: SQLITE.stored_policies,
    tool_exists: SQLITE.tool_exists,
    tool_names: SQLITE.tool_names,
    select_runs_in: mysql_select!("(? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) AND t.run_id IN "),
    select_sessions_in: mysql_select!("(? IS NULL OR t.created_at >= ?) AND (? IS NULL OR t.created_at < ?) AND t.run_id IS NULL AND t.session_id IN "),
    select_outcomes_runs_in: "SELECT v.invocation_id, v.status, v.reason \
        FROM tool_invocation t STRAIGHT_JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IN ",
    select_outcomes_sessions_in: "SELECT v.invocation_id, v.status, v.reason \
        FROM tool_invocation t STRAIGHT_JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = ? \
        WHERE t.run_id IS NULL AND t.session_id IN ",
    upsert_head: SQLITE.upsert_head,
    upsert_tail: " ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), reason = VALUES(reason), \
        claimed_status = VALUES(claimed_status), claim_agrees = VALUES(claim_agrees), source = VALUES(source), \
        refs = VALUES(refs), warnings = VALUES(warnings), engine_version = VALUES(engine_version), \
        verified_at = VALUES(verified_at)",
    numbered: false,
    indexed: false,
    relevance_level: SQLITE.relevance_level,
    dedup_reason: SQLITE.dedup_reason,
    raw_output: SQLITE.raw_output,
    null: SQLITE.null,
    output_join: OUTPUT_JOIN,
    json: ["t.input_params", "t.retrieval_details", "o.raw_output"],
    json_bytea: ["t.input_params", "t.retrieval_details", "o.raw_output"],
};

pub(crate) static POSTGRES: Dialect = Dialect {
    select_run: postgres_select!(bytes, "tool_invocation t", postgres_where!(run)),
    select_session: postgres_select!(bytes, "tool_invocation t", postgres_where!(session)),
    select_ids: postgres_select!(bytes, "tool_invocation t", postgres_where!(ids)),
    invocation_values: {
        let json = with_value(["{}"; INSERTED], "input_params", "CAST({} AS JSON)");
        let json = with_value(json, "retrieval_details", "CAST({} AS JSON)");
        with_value(json, "created_at", "CAST({} AS TIMESTAMP)")
    },
    upsert_verdict: "INSERT INTO evidence_verification (invocation_id, policy, run_id, status, reason, \
        claimed_status, claim_agrees, source, refs, warnings, engine_version, verified_at) \
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CAST($9 AS JSON), CAST($10 AS JSON), $11, CAST($12 AS TIMESTAMP)) \
        ON CONFLICT (invocation_id, policy) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, \
        reason = excluded.reason, claimed_status = excluded.claimed_status, claim_agrees = excluded.claim_agrees, \
        source = excluded.source, refs = excluded.refs, warnings = excluded.warnings, \
        engine_version = excluded.engine_version, verified_at = excluded.verified_at",
    select_verdicts_run: concat!(postgres_verdict_columns!(bytes), " WHERE t.run_id = $2 ORDER BY t.id"),
    select_verdicts_session: concat!(postgres_verdict_columns!(bytes), " WHERE t.run_id IS NULL AND t.session_id = $2 ORDER BY t.id"),
    list_runs: "SELECT DISTINCT convert_to(t.run_id, 'UTF8') FROM tool_invocation t WHERE t.run_id IS NOT NULL \
        AND (CAST($1 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($2 AS TIMESTAMP)) \
        AND (CAST($3 AS TIMESTAMP) IS NULL OR t.created_at < CAST($4 AS TIMESTAMP))",
    list_sessions: "SELECT DISTINCT convert_to(t.session_id, 'UTF8') FROM tool_invocation t WHERE t.run_id IS NULL \
        AND (CAST($1 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($2 AS TIMESTAMP)) \
        AND (CAST($3 AS TIMESTAMP) IS NULL OR t.created_at < CAST($4 AS TIMESTAMP))",
    list_unverified_runs: "SELECT DISTINCT convert_to(t.run_id, 'UTF8'), convert_to(t.tool_name, 'UTF8') \
        FROM tool_invocation t LEFT JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = $1 \
        WHERE v.invocation_id IS NULL AND t.run_id IS NOT NULL \
        AND (CAST($2 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($3 AS TIMESTAMP)) \
        AND (CAST($4 AS TIMESTAMP) IS NULL OR t.created_at < CAST($5 AS TIMESTAMP))",
    list_unverified_sessions: "SELECT DISTINCT convert_to(t.session_id, 'UTF8'), convert_to(t.tool_name, 'UTF8') \
        FROM tool_invocation t LEFT JOIN evidence_verification v ON v.invocation_id = t.id AND v.policy = $1 \
        WHERE v.invocation_id IS NULL AND t.run_id IS NULL \
        AND (CAST($2 AS TIMESTAMP) IS NULL OR t.created_at >= CAST($3 AS TIMESTAMP)) \
        AND (CAST($4 AS TIMESTAMP) IS NULL OR t.created_at < CAST($5 AS TIMESTAMP))",
    select_checkpoint: "SELECT convert_to(last_kind, 'UTF8'), convert_to(last_key, 'UTF8'), rows_done, done, \
        convert_to(scope, 'UTF8') FROM reverify_checkpoint WHERE job = $1",
    upsert_checkpoint: "INSERT INTO reverify_checkpoint (job, arguments, last_kind, last_key, rows_done, done, \
        updated_at, totals, scope) VALUES ($1, $2, $3, $4, $5, $6, CAST($7 AS TIMESTAMP), $8, $9) \
        ON CONFLICT (job) DO UPDATE SET \
        arguments = excluded.arguments, last_kind = excluded.last_kind, last_key = excluded.last_key, \
        rows_done = excluded.rows_done, done = excluded.done, updated_at = excluded.updated_at, \
        totals = excluded.totals, scope = excluded.scope",
    select_checkpoint_totals: "SELECT convert_to(totals, 'UTF8') FROM reverify_checkpoint WHERE job = $1",
    policy_is_stored: "SELECT 1 FROM evidence_verification WHERE policy = $1 LIMIT 1",
    stored_policies: "SELECT DISTINCT convert_to(policy, 'UTF8') FROM evidence_verification ORDER BY 1",
    tool_exists: "SELECT 1 FROM tool_invocation WHERE tool_name = $1 LIMIT 1",
    tool_names: "SELECT DISTINCT convert_to(tool_name, 'UTF8') FROM tool_invocation ORDER BY 1 LIMIT $1",
    select_runs_in: postgres_select!(bytes, postgres_keyed!(runs, "*"), postgres_where!(window)),
    select_sessions_in: postgres_select!(bytes, postgres_keyed!(sessions, "*"), postgres_where!(window)),
    select_outcomes_runs_in: postgres_outcomes!(bytes, runs),
    select_outcomes_sessions_in: postgres_outcomes!(bytes, sessions),
    upsert_head: SQLITE.upsert_head,
    upsert_tail: SQLITE.upsert_tail,
    numbered: true,
    indexed: false,
    relevance_level: "convert_to(t.relevance_level, 'UTF8')",
    dedup_reason: "convert_to(t.dedup_reason, 'UTF8')",
    raw_output: "convert_to(o.raw_output::text, 'UTF8')",
    null: "NULL::bytea",
    output_join: postgres_output_join!(),
    json: [
        "convert_to(t.input_params::text, 'UTF8')",
        "convert_to(t.retrieval_details::text, 'UTF8')",
        "convert_to(o.raw_output::text, 'UTF8')",
    ],
    json_bytea: ["t.input_params", "t.retrieval_details", "o.raw_output"],
};

/// PostgreSQL on a database whose encoding is UTF8, read by a client whose encoding is UTF8
/// (what sqlx asks for; checked once when the store opens, `open.rs`): the rows and verdicts
/// are read as text, not copied by `convert_to` on the server first. The server sends text in
/// the client encoding, so these bytes are the same as `convert_to(…, 'UTF8')`'s; every other
/// statement is [`POSTGRES`]'s.
pub(crate) static POSTGRES_UTF8: Dialect = Dialect {
    select_run: postgres_select!(text, "tool_invocation t", postgres_where!(run)),
    select_session: postgres_select!(text, "tool_invocation t", postgres_where!(session)),
    select_ids: postgres_select!(text, "tool_invocation t", postgres_where!(ids)),
    select_verdicts_run: concat!(postgres_verdict_columns!(text), " WHERE t.run_id = $2 ORDER BY t.id"),
    select_verdicts_session: concat!(
        postgres_verdict_columns!(text),
        " WHERE t.run_id IS NULL AND t.session_id = $2 ORDER BY t.id"
    ),
    select_runs_in: postgres_select!(text, postgres_keyed!(runs, "*"), postgres_where!(window)),
    select_sessions_in: postgres_select!(text, postgres_keyed!(sessions, "*"), postgres_where!(window)),
    select_outcomes_runs_in: postgres_outcomes!(text, runs),
    select_outcomes_sessions_in: postgres_outcomes!(text, sessions),
    relevance_level: "t.relevance_level",
    dedup_reason: "t.dedup_reason",
    raw_output: "o.raw_output::text",
    null: "NULL::text",
    json: ["t.input_params::text", "t.retrieval_details::text", "o.raw_output::text"],
    ..POSTGRES
};

impl Dialect {
    /// A row select (`select_run`, `select_runs_in`, …) as this database can run it: NULL for
    /// each optional column `tool_invocation` lacks, and for the raw output when
    /// `tool_invocation_output` does not exist yet (nobody has migrated).
    pub(crate) fn rows(&self, statement: &'static str, schema: &Schema) -> Cow<'static, str> {
        if schema.full_rows() && schema.outputs && schema.bytea == [false; 3] && !schema.text_time {
            return Cow::Borrowed(statement);
        }
        let mut text = statement.to_string();
        for ((json, bytea), is_bytea) in self.json.iter().zip(self.json_bytea).zip(schema.bytea) {
            if is_bytea {
                text = text.replacen(json, bytea, 1);
            }
        }
        for (column, there) in
            [(self.relevance_level, schema.columns[0]), (self.dedup_reason, schema.columns[1])]
        {
            if !there {
                text = text.replacen(column, self.null, 1);
            }
        }
        if !schema.outputs {
            text = text.replacen(self.raw_output, self.null, 1).replacen(self.output_join, "", 1);
        }
        Cow::Owned(self.times(&text, schema).into_owned())
    }

    /// `statement` as this database compares and reads `created_at`: on PostgreSQL a text
    /// column is cast to `timestamptz` (a time without an offset is UTC, the session's zone),
    /// as no operator compares text with a timestamp. Every other column is left as it is.
    pub(crate) fn times<'a>(&self, statement: &'a str, schema: &Schema) -> Cow<'a, str> {
        if !(self.numbered && schema.text_time) {
            return Cow::Borrowed(statement);
        }
        let cast = "CAST(t.created_at AS TIMESTAMPTZ)";
        Cow::Owned(
            statement
                .replace("t.created_at >=", &format!("{cast} >="))
                .replace("t.created_at <", &format!("{cast} <"))
                .replace("to_char(t.created_at AT", &format!("to_char({cast} AT")),
        )
    }

    /// The insert of `rows` rows into `tool_invocation`, each with the values of
    /// [`REQUIRED_COLUMNS`] then, when `full`, of [`OPTIONAL_COLUMNS`] (an older agent schema
    /// lacks them): one statement for many rows, where one per row took a round trip each.
    pub(crate) fn insert_invocations(&self, full: bool, rows: usize) -> String {
        let optional: &[&str] = if full { &OPTIONAL_COLUMNS } else { &[] };
        let names: Vec<&str> = REQUIRED_COLUMNS.iter().chain(optional).copied().collect();
        let values = self.values(&self.invocation_values[..names.len()], rows);
        format!("INSERT INTO tool_invocation ({}) VALUES {values}", names.join(", "))
    }

    /// The insert of `rows` raw outputs into `tool_invocation_output` as this database declares
    /// `raw_output`: PostgreSQL assigns a text parameter to neither `json`, `jsonb` nor
    /// `bytea`, so the text is cast (a raw output that is not JSON is then refused by the
    /// server) or converted to its UTF-8 bytes.
    pub(crate) fn insert_outputs(&self, schema: &Schema, rows: usize) -> String {
        let raw = match (self.numbered, schema.raw_json, schema.bytea[2]) {
            (false, _, _) | (true, None, false) => "{}",
            (true, Some(JsonType::Json), _) => "CAST({} AS JSON)",
            (true, Some(JsonType::Jsonb), _) => "CAST({} AS JSONB)",
            (true, None, true) => "convert_to({}, 'UTF8')",
        };
        format!(
            "INSERT INTO tool_invocation_output (invocation_id, raw_output) VALUES {}",
            self.values(&["{}", raw], rows)
        )
    }

    /// `(v, v, …), (…)`: `rows` rows of the value expressions `each`, the `{}` of each its
    /// parameter, numbered on from the row before where the engine numbers them.
    fn values(&self, each: &[&str], rows: usize) -> String {
        let mut text = String::new();
        for row in 0..rows {
            text.push_str(if row == 0 { "(" } else { ", (" });
            for (i, value) in each.iter().enumerate() {
                let n = row * each.len() + i + 1;
                let parameter = match (self.numbered, self.indexed) {
                    (true, _) => format!("${n}"),
                    (false, true) => format!("?{n}"),
                    (false, false) => "?".to_string(),
                };
                if i > 0 {
                    text.push_str(", ");
                }
                text.push_str(&value.replace("{}", &parameter));
            }
            text.push(')');
        }
        text
    }

    /// `(p, p, …)`: `n` placeholders, numbered from `first` where the engine numbers them.
    pub(crate) fn list(&self, first: usize, n: usize) -> String {
        format!("({})", self.placeholders(first, n))
    }

    /// `statement` with its list of `n` keys, numbered from `first` where the engine numbers
    /// them: `p, p, …` where it has [`KEYS`], else `(p, p, …)` appended (`… IN `).
    pub(crate) fn keyed(&self, statement: &str, first: usize, n: usize) -> String {
        match statement.split_once(KEYS) {
            Some((head, tail)) => format!("{head}{}{tail}", self.placeholders(first, n)),
            None => format!("{statement}{}", self.list(first, n)),
        }
    }

    /// `p, p, …`: `n` placeholders, numbered from `first` where the engine numbers them.
    fn placeholders(&self, first: usize, n: usize) -> String {
        let each: Vec<String> = match self.numbered {
            true => (first..first + n).map(|i| format!("${i}")).collect(),
            false => vec!["?".to_string(); n],
        };
        each.join(", ")
    }

    /// The values of `n` rows of the verdict upsert, twelve placeholders each (PostgreSQL's
    /// with the casts its single-row statement has).
    pub(crate) fn upsert_values(&self, n: usize) -> String {
        let rows: Vec<String> = (0..n)
            .map(|row| match self.numbered {
                true => {
                    let p = |i: usize| format!("${}", row * 12 + i);
                    format!(
                        "({}, {}, {}, {}, {}, {}, {}, {}, CAST({} AS JSON), CAST({} AS JSON), {}, CAST({} AS TIMESTAMP))",
                        p(1), p(2), p(3), p(4), p(5), p(6), p(7), p(8), p(9), p(10), p(11), p(12)
                    )
                }
                false => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)".to_string(),
            })
            .collect();
        rows.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_select_names_each_replaceable_part_exactly_once() {
        let absent = Schema {
            columns: [false, false],
            outputs: false,
            verdicts: false,
            checkpoints: false,
            bytea: [false; 3],
            raw_json: None,
            text_time: false,
        };
        for sql in [&SQLITE, &MYSQL, &POSTGRES, &POSTGRES_UTF8] {
            for statement in [
                sql.select_run,
                sql.select_session,
                sql.select_ids,
                sql.select_runs_in,
                sql.select_sessions_in,
            ] {
                for part in [sql.relevance_level, sql.dedup_reason, sql.raw_output, sql.output_join] {
                    assert_eq!(statement.matches(part).count(), 1, "{part} in {statement}");
                }
                let adapted = sql.rows(statement, &absent);
                for part in ["relevance_level", "dedup_reason", "raw_output", "tool_invocation_output"] {
                    assert!(!adapted.contains(part), "{part} in {adapted}");
                }
                let nulls = |text: &str| text.matches(sql.null).count();
                assert_eq!(nulls(&adapted), nulls(statement) + 3, "{adapted}");
            }
            assert_eq!(sql.insert_invocations(false, 1).matches("relevance_level").count(), 0);
        }
    }

    #[test]
    fn postgres_reads_json_as_the_servers_text_or_a_byteas_bytes() {
        let bytea = Schema {
            columns: [true, true],
            outputs: true,
            verdicts: true,
            checkpoints: true,
            bytea: [true; 3],
            raw_json: None,
            text_time: true,
        };
        for sql in [&POSTGRES, &POSTGRES_UTF8] {
            for statement in [sql.select_run, sql.select_runs_in, sql.select_ids] {
                for json in sql.json {
                    assert_eq!(statement.matches(json).count(), 1, "{json} in {statement}");
                    assert!(json.contains("::text"), "{json}");
                }
                let adapted = sql.rows(statement, &bytea);
                assert!(!adapted.contains("raw_output::text") && !adapted.contains("input_params::text"));
                let bare = adapted.replace("CAST(t.created_at AS TIMESTAMPTZ)", "");
                assert!(!bare.contains("t.created_at"), "{adapted}");
                assert_eq!(adapted.matches("o.raw_output").count(), 1, "{adapted}");
            }
        }
    }

    #[test]
    fn inserts_number_each_rows_parameters_on_from_the_row_before() {
        let two = SQLITE.insert_invocations(true, 2);
        assert!(
            two.contains("(?20, ?21, ?22, ?23, ?24, CASE WHEN ?25 GLOB '[0-9-]*' THEN CAST(?25 AS BLOB)"),
            "{two}"
        );
        assert!(two.ends_with("?37, ?38)"), "{two}");
        assert_eq!(MYSQL.insert_invocations(true, 3).matches('?').count(), 57);
        let postgres = POSTGRES.insert_invocations(false, 2);
        assert!(postgres.ends_with("$32, $33, CAST($34 AS TIMESTAMP))"), "{postgres}");
        assert!(postgres.contains("CAST($23 AS JSON)") && !postgres.contains("$35"), "{postgres}");
        for sql in [&SQLITE, &MYSQL, &POSTGRES] {
            let v005 = sql.insert_invocations(false, 1);
            assert!(REQUIRED_COLUMNS.iter().all(|c| v005.contains(c)), "{v005}");
            assert!(!OPTIONAL_COLUMNS.iter().any(|c| v005.contains(c)), "{v005}");
        }
    }

    #[test]
    fn raw_outputs_are_inserted_as_postgresql_declares_the_column() {
        let schema = |raw_json, bytea| Schema {
            columns: [true, true],
            outputs: true,
            verdicts: true,
            checkpoints: true,
            bytea: [false, false, bytea],
            raw_json,
            text_time: false,
        };
        let insert = "INSERT INTO tool_invocation_output (invocation_id, raw_output) VALUES ";
        assert_eq!(SQLITE.insert_outputs(&schema(None, false), 2), format!("{insert}(?1, ?2), (?3, ?4)"));
        assert_eq!(MYSQL.insert_outputs(&schema(None, false), 1), format!("{insert}(?, ?)"));
        for (raw_json, bytea, value) in [
            (None, false, "$2"),
            (Some(JsonType::Json), false, "CAST($2 AS JSON)"),
            (Some(JsonType::Jsonb), false, "CAST($2 AS JSONB)"),
            (None, true, "convert_to($2, 'UTF8')"),
        ] {
            assert_eq!(
                POSTGRES.insert_outputs(&schema(raw_json, bytea), 1),
                format!("{insert}($1, {value})")
            );
        }
    }

    #[test]
    fn lists_number_their_placeholders_where_the_engine_does() {
        assert_eq!(SQLITE.list(5, 3), "(?, ?, ?)");
        assert_eq!(POSTGRES.list(5, 3), "($5, $6, $7)");
    }

    #[test]
    fn keyed_statements_take_their_list_where_it_goes() {
        assert!(SQLITE.keyed(SQLITE.select_runs_in, 5, 2).ends_with("t.run_id IN (?, ?)"));
        assert!(MYSQL.keyed(MYSQL.select_outcomes_sessions_in, 2, 1).ends_with("t.session_id IN (?)"));
        for sql in [&POSTGRES, &POSTGRES_UTF8] {
            for (statement, first) in [
                (sql.select_runs_in, 5),
                (sql.select_sessions_in, 5),
                (sql.select_outcomes_runs_in, 2),
                (sql.select_outcomes_sessions_in, 2),
            ] {
                let keyed = sql.keyed(statement, first, 2);
                let list = format!("unnest(ARRAY[${first}, ${}]::text[])", first + 1);
                assert_eq!(keyed.matches(&list).count(), 1, "{keyed}");
                assert!(!keyed.contains(KEYS) && !keyed.contains(" IN "), "{keyed}");
            }
        }
    }

    #[test]
    fn upsert_rows_number_twelve_placeholders_each_in_order() {
        assert_eq!(MYSQL.upsert_values(2).matches('?').count(), 24);
        let pg = POSTGRES.upsert_values(2);
        assert!(pg.starts_with("($1, $2,"), "{pg}");
        assert!(pg.contains("CAST($12 AS TIMESTAMP)), ($13, $14,"), "{pg}");
        assert!(pg.ends_with("CAST($24 AS TIMESTAMP))"), "{pg}");
    }
}
