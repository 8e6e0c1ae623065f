-- Seed V005__create_session_storage.sql with V010__add_relevance_level_to_tool_invocation.sql's
-- two columns (after is_truncated, in the seed's order): tool_invocation and its four indexes.
-- IF NOT EXISTS: groundcheck may be pointed at the agent's own database. A table that exists is
-- never altered (an older agent schema without V010's columns is read with them as NULL), so
-- this is the only migration that touches tool_invocation; the seed's V010 has no file here.
CREATE TABLE IF NOT EXISTS tool_invocation (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,  -- BIGINT: SQLite's rowid is 64-bit
    session_id        VARCHAR(64) NOT NULL,
    run_id            VARCHAR(64),
    step_id           BIGINT,
    tool_name         VARCHAR(64) NOT NULL,
    input_params      JSON NOT NULL,
    output_preview    TEXT,
    output_length     INT,
    retrieval_layer   VARCHAR(8),
    l0_match_count    INT,
    l1_match_count    INT,
    is_truncated      BOOLEAN,
    relevance_level   VARCHAR(20),
    dedup_reason      VARCHAR(32),
    retrieval_details JSON,
    duration_ms       INT,
    success           BOOLEAN,
    error_message     TEXT,
    created_at        DATETIME NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_session_id ON tool_invocation (session_id);
CREATE INDEX IF NOT EXISTS idx_tool_invocation_run_id ON tool_invocation (run_id, id);
CREATE INDEX IF NOT EXISTS idx_tool_name ON tool_invocation (tool_name);
CREATE INDEX IF NOT EXISTS idx_retrieval_layer ON tool_invocation (retrieval_layer);
