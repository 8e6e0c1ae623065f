-- Seed V005__create_session_storage.sql with V010__add_relevance_level_to_tool_invocation.sql's
-- two columns (after is_truncated, in the seed's order): tool_invocation and its four indexes.
-- IF NOT EXISTS: groundcheck may be pointed at the agent's own database. A table that exists is
-- never altered (an older agent schema without V010's columns is read with them as NULL), so
-- this is the only migration that touches tool_invocation; the seed's V010 has no file here.
CREATE TABLE IF NOT EXISTS tool_invocation (
    id                BIGINT NOT NULL AUTO_INCREMENT,
    session_id        VARCHAR(64) NOT NULL,
    run_id            VARCHAR(64) NULL,
    step_id           BIGINT NULL,
    tool_name         VARCHAR(64) NOT NULL,
    input_params      JSON NOT NULL,
    output_preview    TEXT NULL,
    output_length     INT NULL,
    retrieval_layer   VARCHAR(8) NULL,
    l0_match_count    INT NULL,
    l1_match_count    INT NULL,
    is_truncated      BOOLEAN NULL,
    relevance_level   VARCHAR(20) NULL,
    dedup_reason      VARCHAR(32) NULL,
    retrieval_details JSON NULL,
    duration_ms       INT NULL,
    success           BOOLEAN NULL,
    error_message     TEXT NULL,
    created_at        DATETIME(6) NOT NULL,
    PRIMARY KEY (id),
    INDEX idx_session_id (session_id),
    INDEX idx_tool_invocation_run_id (run_id, id),
    INDEX idx_tool_name (tool_name),
    INDEX idx_retrieval_layer (retrieval_layer)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
