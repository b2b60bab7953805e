-- cmem schema v1. Names and meanings follow claude-mem's SQLite schema, without its sync and
-- legacy columns. Times are epoch milliseconds; list-valued columns hold JSON arrays as text.

CREATE TABLE sessions (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    content_session_id   TEXT    NOT NULL,            -- the host's (Claude Code's) session_id
    platform_source      TEXT    NOT NULL DEFAULT 'claude',
    project              TEXT    NOT NULL,
    cwd                  TEXT,
    transcript_path      TEXT,
    user_prompt          TEXT,                        -- first prompt, privacy-stripped
    started_at_epoch     INTEGER NOT NULL,
    completed_at_epoch   INTEGER,
    status               TEXT    NOT NULL DEFAULT 'active'
                                 CHECK (status IN ('active', 'completed', 'failed')),
    end_reason           TEXT,
    prompt_counter       INTEGER NOT NULL DEFAULT 0,
    current_prompt_id    TEXT,                        -- the host's prompt_id of the open turn
    current_turn_private INTEGER NOT NULL DEFAULT 0,  -- 1: the open turn's prompt was all private
    UNIQUE (platform_source, content_session_id)
);
CREATE INDEX idx_sessions_project ON sessions (project COLLATE NOCASE, started_at_epoch DESC);
CREATE INDEX idx_sessions_started ON sessions (started_at_epoch DESC);

-- One row per prompt turn. ended_at_epoch is set by Stop/SessionEnd (or the next prompt);
-- observed_at_epoch by the observer that turns the turn's tool uses into observations.
CREATE TABLE user_prompts (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id             INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    content_session_id     TEXT    NOT NULL,
    prompt_id              TEXT,
    prompt_number          INTEGER NOT NULL,
    prompt_text            TEXT    NOT NULL,
    created_at_epoch       INTEGER NOT NULL,
    ended_at_epoch         INTEGER,
    last_assistant_message TEXT,
    observed_at_epoch      INTEGER
);
CREATE UNIQUE INDEX ux_user_prompts_prompt_id ON user_prompts (content_session_id, prompt_id)
    WHERE prompt_id IS NOT NULL;
CREATE INDEX idx_user_prompts_session ON user_prompts (session_id, prompt_number);
CREATE INDEX idx_user_prompts_created ON user_prompts (created_at_epoch DESC);
CREATE INDEX idx_user_prompts_unobserved ON user_prompts (ended_at_epoch)
    WHERE observed_at_epoch IS NULL;

CREATE TABLE observations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       INTEGER REFERENCES sessions (id) ON DELETE CASCADE,
    project          TEXT    NOT NULL,
    type             TEXT    NOT NULL,
    title            TEXT,
    subtitle         TEXT,
    narrative        TEXT,
    facts            TEXT    NOT NULL DEFAULT '[]',
    concepts         TEXT    NOT NULL DEFAULT '[]',
    files_read       TEXT    NOT NULL DEFAULT '[]',
    files_modified   TEXT    NOT NULL DEFAULT '[]',
    prompt_number    INTEGER,
    discovery_tokens INTEGER NOT NULL DEFAULT 0,
    created_at_epoch INTEGER NOT NULL,
    content_hash     TEXT,
    source           TEXT    NOT NULL DEFAULT 'rules', -- rules | observer | agent | import
    agent_type       TEXT,
    agent_id         TEXT,
    metadata         TEXT
);
CREATE INDEX idx_observations_project ON observations (project COLLATE NOCASE, created_at_epoch DESC, id DESC);
CREATE INDEX idx_observations_created ON observations (created_at_epoch DESC);
CREATE INDEX idx_observations_session ON observations (session_id);
CREATE INDEX idx_observations_type ON observations (type);
CREATE UNIQUE INDEX ux_observations_session_hash ON observations (IFNULL(session_id, -1), content_hash)
    WHERE content_hash IS NOT NULL;

CREATE TABLE session_summaries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       INTEGER REFERENCES sessions (id) ON DELETE CASCADE,
    project          TEXT    NOT NULL,
    request          TEXT,
    investigated     TEXT,
    learned          TEXT,
    completed        TEXT,
    next_steps       TEXT,
    notes            TEXT,
    files_read       TEXT    NOT NULL DEFAULT '[]',
    files_edited     TEXT    NOT NULL DEFAULT '[]',
    prompt_number    INTEGER,
    discovery_tokens INTEGER NOT NULL DEFAULT 0,
    created_at_epoch INTEGER NOT NULL,
    source           TEXT    NOT NULL DEFAULT 'rules'
);
CREATE INDEX idx_summaries_project ON session_summaries (project COLLATE NOCASE, created_at_epoch DESC, id DESC);
CREATE INDEX idx_summaries_session ON session_summaries (session_id);

-- Raw tool input/output (layer 4), capped and redacted. No foreign key on purpose: raw I/O is
-- ground truth and is removed explicitly by forget, never by a cascade.
CREATE TABLE tool_uses (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    tool_use_id        TEXT    NOT NULL,
    content_session_id TEXT    NOT NULL,
    session_id         INTEGER,
    project            TEXT    NOT NULL,
    platform_source    TEXT    NOT NULL DEFAULT 'claude',
    tool_name          TEXT    NOT NULL,
    tool_input         TEXT,
    tool_response      TEXT,
    input_bytes        INTEGER NOT NULL DEFAULT 0,   -- size before the cap
    response_bytes     INTEGER NOT NULL DEFAULT 0,
    failed             INTEGER NOT NULL DEFAULT 0,
    error              TEXT,
    is_interrupt       INTEGER,
    cwd                TEXT,
    prompt_number      INTEGER,
    prompt_id          TEXT,
    agent_type         TEXT,
    agent_id           TEXT,
    duration_ms        INTEGER,
    observation_id     INTEGER,
    content_hash       TEXT    NOT NULL,
    created_at_epoch   INTEGER NOT NULL,
    UNIQUE (content_session_id, tool_use_id)
);
CREATE INDEX idx_tool_uses_project ON tool_uses (project COLLATE NOCASE, created_at_epoch DESC, id DESC);
CREATE INDEX idx_tool_uses_session ON tool_uses (session_id, prompt_number);
CREATE INDEX idx_tool_uses_observation ON tool_uses (observation_id);
CREATE INDEX idx_tool_uses_tool_name ON tool_uses (tool_name);

-- Layer 0. Append-only: state is folded on read (src/model/work_state.rs).
CREATE TABLE work_state_entries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    project          TEXT    NOT NULL,
    list_name        TEXT    NOT NULL,
    fields           TEXT    NOT NULL,
    created_at_epoch INTEGER NOT NULL,
    source           TEXT    NOT NULL DEFAULT 'agent',
    session_id       INTEGER
);
CREATE INDEX idx_work_state_entries_project ON work_state_entries (project COLLATE NOCASE, list_name, id);
CREATE TRIGGER work_state_entries_append_only BEFORE UPDATE ON work_state_entries
BEGIN
    SELECT RAISE(ABORT, 'work_state_entries is append-only: add an entry instead');
END;

-- Full-text search: external-content FTS5 tables kept in step by triggers.
CREATE VIRTUAL TABLE observations_fts USING fts5(
    title, subtitle, narrative, facts, concepts, files_read, files_modified,
    content = 'observations', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN
    INSERT INTO observations_fts (rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified)
    VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified);
END;
CREATE TRIGGER observations_ad AFTER DELETE ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified)
    VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts, old.files_read, old.files_modified);
END;
CREATE TRIGGER observations_au AFTER UPDATE OF title, subtitle, narrative, facts, concepts, files_read, files_modified ON observations BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified)
    VALUES ('delete', old.id, old.title, old.subtitle, old.narrative, old.facts, old.concepts, old.files_read, old.files_modified);
    INSERT INTO observations_fts (rowid, title, subtitle, narrative, facts, concepts, files_read, files_modified)
    VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified);
END;

CREATE VIRTUAL TABLE session_summaries_fts USING fts5(
    request, investigated, learned, completed, next_steps, notes,
    content = 'session_summaries', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE TRIGGER session_summaries_ai AFTER INSERT ON session_summaries BEGIN
    INSERT INTO session_summaries_fts (rowid, request, investigated, learned, completed, next_steps, notes)
    VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes);
END;
CREATE TRIGGER session_summaries_ad AFTER DELETE ON session_summaries BEGIN
    INSERT INTO session_summaries_fts (session_summaries_fts, rowid, request, investigated, learned, completed, next_steps, notes)
    VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.notes);
END;
CREATE TRIGGER session_summaries_au AFTER UPDATE OF request, investigated, learned, completed, next_steps, notes ON session_summaries BEGIN
    INSERT INTO session_summaries_fts (session_summaries_fts, rowid, request, investigated, learned, completed, next_steps, notes)
    VALUES ('delete', old.id, old.request, old.investigated, old.learned, old.completed, old.next_steps, old.notes);
    INSERT INTO session_summaries_fts (rowid, request, investigated, learned, completed, next_steps, notes)
    VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes);
END;

CREATE VIRTUAL TABLE user_prompts_fts USING fts5(
    prompt_text,
    content = 'user_prompts', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE TRIGGER user_prompts_ai AFTER INSERT ON user_prompts BEGIN
    INSERT INTO user_prompts_fts (rowid, prompt_text) VALUES (new.id, new.prompt_text);
END;
CREATE TRIGGER user_prompts_ad AFTER DELETE ON user_prompts BEGIN
    INSERT INTO user_prompts_fts (user_prompts_fts, rowid, prompt_text) VALUES ('delete', old.id, old.prompt_text);
END;
CREATE TRIGGER user_prompts_au AFTER UPDATE OF prompt_text ON user_prompts BEGIN
    INSERT INTO user_prompts_fts (user_prompts_fts, rowid, prompt_text) VALUES ('delete', old.id, old.prompt_text);
    INSERT INTO user_prompts_fts (rowid, prompt_text) VALUES (new.id, new.prompt_text);
END;
