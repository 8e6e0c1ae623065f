-- Seed V010__add_relevance_level_to_tool_invocation.sql.
-- SQLite has no ADD COLUMN IF NOT EXISTS; its database is groundcheck's own (the embedded
-- default), so the columns are always added here.
ALTER TABLE tool_invocation ADD COLUMN relevance_level VARCHAR(20);
ALTER TABLE tool_invocation ADD COLUMN dedup_reason VARCHAR(32);
