-- Seed V010__add_relevance_level_to_tool_invocation.sql.
ALTER TABLE tool_invocation
    ADD COLUMN IF NOT EXISTS relevance_level VARCHAR(20),
    ADD COLUMN IF NOT EXISTS dedup_reason VARCHAR(32);
