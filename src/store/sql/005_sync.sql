-- cmem schema v5: `cmem sync` (src/sync). Every row's global identity is (device, id): a
-- row written here is (this data dir's random device id, its id); a row pulled from another
-- device gets a fresh local id and `sync_map` remembers where it came from, so links
-- (tool_uses.observation_id, summaries -> sessions) are rewritten to local ids on the way in.
--
-- What to push is an outbox filled by triggers that the first `cmem sync` creates
-- (src/sync/sql/outbox_triggers.sql), not this migration: every hook parses the whole schema
-- when it opens the database, and 18 triggers cost each hook ~0.13 ms, which only a data dir
-- that syncs should pay. `gen` counts changes of a queued row, so a push removes only the
-- entries it actually sent. A pull turns the outbox off (`sync_state.outbox`) inside its own
-- transaction so the rows it writes are not sent back.
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
