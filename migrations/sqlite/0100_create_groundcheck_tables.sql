-- groundcheck's own tables (SPEC §7): raw outputs and stored verdicts.

-- The exact text of each tool output, kept apart from the seed table.
CREATE TABLE IF NOT EXISTS tool_invocation_output (
    invocation_id BIGINT PRIMARY KEY REFERENCES tool_invocation (id) ON DELETE CASCADE,
    raw_output    TEXT NOT NULL
);

-- One verdict per invocation and policy (e.g. 'require=all;match=elided').
CREATE TABLE IF NOT EXISTS evidence_verification (
    invocation_id  BIGINT NOT NULL,
    policy         VARCHAR(64) NOT NULL,
    run_id         VARCHAR(64),
    status         VARCHAR(16) NOT NULL,
    reason         VARCHAR(32) NOT NULL,
    claimed_status TEXT,
    claim_agrees   BOOLEAN,
    source         VARCHAR(16) NOT NULL,
    refs           JSON NOT NULL,
    warnings       JSON NOT NULL,
    engine_version VARCHAR(32) NOT NULL,
    verified_at    DATETIME NOT NULL,
    PRIMARY KEY (invocation_id, policy)
);
CREATE INDEX IF NOT EXISTS idx_evidence_verification_run ON evidence_verification (policy, run_id, invocation_id);
