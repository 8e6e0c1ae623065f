-- Seed V010__add_relevance_level_to_tool_invocation.sql, in the seed's column order.
-- ADD COLUMN IF NOT EXISTS is MariaDB's (10.0.2+): a table another system already migrated
-- keeps its columns.
ALTER TABLE tool_invocation
    ADD COLUMN IF NOT EXISTS relevance_level VARCHAR(20) NULL AFTER is_truncated,
    ADD COLUMN IF NOT EXISTS dedup_reason VARCHAR(32) NULL AFTER relevance_level;
