-- groundcheck's own tables (SPEC §7): raw outputs and stored verdicts.

-- The exact text of each tool output, kept apart from the seed table.
CREATE TABLE IF NOT EXISTS tool_invocation_output (
    invocation_id BIGINT NOT NULL,
    raw_output    LONGTEXT NOT NULL,
    PRIMARY KEY (invocation_id),
    CONSTRAINT fk_tool_invocation_output FOREIGN KEY (invocation_id)
        REFERENCES tool_invocation (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One verdict per invocation and policy (e.g. 'require=all;match=elided').
CREATE TABLE IF NOT EXISTS evidence_verification (
    invocation_id  BIGINT NOT NULL,
    policy         VARCHAR(64) NOT NULL,
    run_id         VARCHAR(64) NULL,
    status         VARCHAR(16) NOT NULL,
    reason         VARCHAR(32) NOT NULL,
    claimed_status TEXT NULL,
    claim_agrees   BOOLEAN NULL,
    source         VARCHAR(16) NOT NULL,
    refs           JSON NOT NULL,
    warnings       JSON NOT NULL,
    engine_version VARCHAR(32) NOT NULL,
    verified_at    DATETIME(6) NOT NULL,
    PRIMARY KEY (invocation_id, policy),
    INDEX idx_evidence_verification_run (policy, run_id, invocation_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
