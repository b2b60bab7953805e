-- cmem schema v2: where imported rows came from, and the external observer's progress.
--
-- `origin` names the source row of an imported row (for example
-- `claude-mem:observation:<memory_session_id>:<id>`); a unique index per table makes every
-- import idempotent: running it again adds only rows the source gained since. Rows cmem writes
-- itself have no origin.
ALTER TABLE sessions ADD COLUMN origin TEXT;
ALTER TABLE user_prompts ADD COLUMN origin TEXT;
ALTER TABLE observations ADD COLUMN origin TEXT;
ALTER TABLE session_summaries ADD COLUMN origin TEXT;
ALTER TABLE tool_uses ADD COLUMN origin TEXT;
ALTER TABLE work_state_entries ADD COLUMN origin TEXT;
CREATE UNIQUE INDEX ux_sessions_origin ON sessions (origin) WHERE origin IS NOT NULL;
CREATE UNIQUE INDEX ux_user_prompts_origin ON user_prompts (origin) WHERE origin IS NOT NULL;
CREATE UNIQUE INDEX ux_observations_origin ON observations (origin) WHERE origin IS NOT NULL;
CREATE UNIQUE INDEX ux_session_summaries_origin ON session_summaries (origin) WHERE origin IS NOT NULL;
CREATE UNIQUE INDEX ux_tool_uses_origin ON tool_uses (origin) WHERE origin IS NOT NULL;
CREATE UNIQUE INDEX ux_work_state_entries_origin ON work_state_entries (origin) WHERE origin IS NOT NULL;

-- The external observer (observer.command) runs after the rule-based one, in the background;
-- this marks the turns it has handled (or given up on), so each turn is sent at most once.
ALTER TABLE user_prompts ADD COLUMN external_observed_at_epoch INTEGER;
CREATE INDEX idx_user_prompts_external_pending ON user_prompts (observed_at_epoch)
    WHERE external_observed_at_epoch IS NULL AND observed_at_epoch IS NOT NULL;
