-- cmem schema v5: `cmem sync` (src/sync). Every row's global identity is (device, id): a
-- row written here is (this data dir's random device id, its id); a row pulled from another
-- device gets a fresh local id and `sync_map` remembers where it came from, so links
-- (tool_uses.observation_id, summaries -> sessions) are rewritten to local ids on the way in.
--
-- What to push is an outbox filled by triggers, and only once sync has been set up here
-- (`sync_state.outbox = 'on'`): until then the hooks pay one indexed lookup per row written
-- and nothing is queued. `gen` counts changes of a queued row, so a push removes only the
-- entries it actually sent. A pull turns the outbox off inside its own transaction so the rows
-- it writes are not sent back.
CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE sync_outbox (
    tbl    TEXT    NOT NULL,
    row_id INTEGER NOT NULL,
    gen    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tbl, row_id)
) WITHOUT ROWID;

CREATE TABLE sync_map (
    tbl       TEXT    NOT NULL,
    device    TEXT    NOT NULL,
    remote_id INTEGER NOT NULL,
    local_id  INTEGER NOT NULL,
    PRIMARY KEY (tbl, device, remote_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX ux_sync_map_local ON sync_map (tbl, local_id);

-- Who wrote the rows pulled from other devices (device name and database role).
CREATE TABLE sync_devices (
    device TEXT PRIMARY KEY,
    name   TEXT NOT NULL,
    role   TEXT NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER sync_sessions_ai AFTER INSERT ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_sessions_au AFTER UPDATE ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_sessions_ad AFTER DELETE ON sessions
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('sessions', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_user_prompts_ai AFTER INSERT ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_user_prompts_au AFTER UPDATE ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_user_prompts_ad AFTER DELETE ON user_prompts
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('user_prompts', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_observations_ai AFTER INSERT ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_observations_au AFTER UPDATE ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_observations_ad AFTER DELETE ON observations
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('observations', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_session_summaries_ai AFTER INSERT ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_session_summaries_au AFTER UPDATE ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_session_summaries_ad AFTER DELETE ON session_summaries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('session_summaries', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_tool_uses_ai AFTER INSERT ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_tool_uses_au AFTER UPDATE ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_tool_uses_ad AFTER DELETE ON tool_uses
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('tool_uses', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_work_state_entries_ai AFTER INSERT ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_work_state_entries_au AFTER UPDATE ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', new.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER sync_work_state_entries_ad AFTER DELETE ON work_state_entries
WHEN (SELECT value FROM sync_state WHERE key = 'outbox') = 'on'
BEGIN
    INSERT INTO sync_outbox (tbl, row_id) VALUES ('work_state_entries', old.id)
    ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1;
END;
