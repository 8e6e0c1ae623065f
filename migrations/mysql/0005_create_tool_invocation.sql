-- Seed V005__create_session_storage.sql: tool_invocation and its four indexes.
-- IF NOT EXISTS: groundcheck may be pointed at a database whose table another system made.
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
