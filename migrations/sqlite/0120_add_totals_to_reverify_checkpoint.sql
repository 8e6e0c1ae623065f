-- The running totals of a `groundcheck reverify --write` job (counts by status, reason, tool
-- and retrieval layer, and the transition table), committed with each batch, so that a
-- resumed job reports the whole job's totals, not only what was left. NULL: none recorded.
ALTER TABLE reverify_checkpoint ADD COLUMN totals TEXT;
