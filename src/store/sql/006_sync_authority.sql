-- cmem schema v6: sync with the server as the authority (src/sync).
--
-- Rows of this device get an explicit `sync_map` entry too (device = this data dir's id,
-- remote_id = local_id) once the server holds them: a pulled revision touches a local row only
-- when that row is the identity's replica here, never because a device id matches. `rev` is the
-- server revision the local row was last in step with, `hash` the hash of its document then: a
-- row queued again whose document did not change is not pushed again, and a push says which
-- revision it was based on.
ALTER TABLE sync_map ADD COLUMN rev INTEGER;
ALTER TABLE sync_map ADD COLUMN hash TEXT;

-- Pulled rows whose parent (a prompt's session, a tool use's observation, …) has not arrived
-- yet: kept, and stored when the parent comes (pulls are ordered by when rows last changed,
-- not parents first: a session that ended after its prompts were shared comes after them).
CREATE TABLE sync_pending (
    tbl         TEXT    NOT NULL,
    device      TEXT    NOT NULL,
    remote_id   INTEGER NOT NULL,
    wait_tbl    TEXT    NOT NULL,
    wait_device TEXT    NOT NULL,
    wait_remote INTEGER NOT NULL,
    pulled      TEXT    NOT NULL,  -- the pulled revision (src/sync/local.rs `Pulled`) as JSON
    PRIMARY KEY (tbl, device, remote_id)
) WITHOUT ROWID;
CREATE INDEX idx_sync_pending_wait ON sync_pending (wait_tbl, wait_device, wait_remote);

-- Rows the server refused (a project not granted to this role, text it cannot store) and why:
-- shown by `cmem sync` and `cmem doctor`, queued again when what is shared changes.
CREATE TABLE sync_refused (
    tbl    TEXT    NOT NULL,
    row_id INTEGER NOT NULL,
    why    TEXT    NOT NULL,
    at     INTEGER NOT NULL,
    PRIMARY KEY (tbl, row_id)
) WITHOUT ROWID;
