-- Progress of `groundcheck reverify --write` jobs, committed with each batch of verdicts so
-- that `--resume` continues after the last run whose verdicts are stored.
CREATE TABLE IF NOT EXISTS reverify_checkpoint (
    job        VARCHAR(64) PRIMARY KEY,  -- hash of the job's arguments (policy, filters, shard)
    arguments  TEXT NOT NULL,            -- the same arguments, for people
    last_kind  VARCHAR(8) NOT NULL,      -- 'run' or 'session': the last key done
    last_key   TEXT NOT NULL,
    rows_done  BIGINT NOT NULL,
    done       BOOLEAN NOT NULL,
    updated_at DATETIME NOT NULL
);
