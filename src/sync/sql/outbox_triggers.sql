-- The outbox triggers (see src/store/sql/005_sync.sql): created by the first `cmem sync` of a
-- data dir, in the transaction that gives it its device id and queues every row already there.
CREATE TRIGGER IF NOT EXISTS sync_sessions_ai AFTER INSERT ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_sessions_au AFTER UPDATE ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_sessions_ad AFTER DELETE ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_user_prompts_ai AFTER INSERT ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_user_prompts_au AFTER UPDATE ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_user_prompts_ad AFTER DELETE ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_observations_ai AFTER INSERT ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_observations_au AFTER UPDATE ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_observations_ad AFTER DELETE ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_session_summaries_ai AFTER INSERT ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_session_summaries_au AFTER UPDATE ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_session_summaries_ad AFTER DELETE ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_tool_uses_ai AFTER INSERT ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_tool_uses_au AFTER UPDATE ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_tool_uses_ad AFTER DELETE ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_work_state_entries_ai AFTER INSERT ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_work_state_entries_au AFTER UPDATE ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_work_state_entries_ad AFTER DELETE ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
-- A record's vector travels in its row's document (src/sync/vectors.rs): one made after the row
-- was queued or pushed sends the row again. Pulled vectors are stored with the outbox off.
CREATE TRIGGER IF NOT EXISTS sync_record_vectors_ai AFTER INSERT ON record_vectors
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on' AND new.kind IN (0, 1, 2)
BEGIN
    INSERT INTO sync_outbox (tbl, row_id)
    VALUES (CASE new.kind WHEN 0 THEN 'observations' WHEN 1 THEN 'session_summaries'
                          ELSE 'user_prompts' END, new.record_id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
