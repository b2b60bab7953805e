-- cmem schema v7: sync merges instead of overwriting (src/sync/merge.rs).
--
-- `fields` holds the hash of each field of the revision a row was last in step with, so a
-- row changed here and on another device is merged field by field (a scrub on each side
-- keeps both). `seq` is that revision's place in the server's order: the work state folds by
-- it, not by the writers' clocks. `arrived` is when this device received it, by this
-- device's clock: `forget --older-than` ages other devices' rows by that.
ALTER TABLE sync_map ADD COLUMN fields BLOB;
ALTER TABLE sync_map ADD COLUMN seq INTEGER;
ALTER TABLE sync_map ADD COLUMN arrived INTEGER;

-- Rows pulled before arrivals were stamped count as arrived now: kept longer, never forgotten
-- early.
UPDATE sync_map SET arrived = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE device <> COALESCE((SELECT value FROM sync_state WHERE key = 'device'), '');

-- Rows the server holds as forgotten (a pulled tombstone, a push answered `gone`): a pulled
-- row that points at one is stored without the link instead of waiting for it forever.
CREATE TABLE sync_gone (
    tbl       TEXT    NOT NULL,
    device    TEXT    NOT NULL,
    remote_id INTEGER NOT NULL,
    PRIMARY KEY (tbl, device, remote_id)
) WITHOUT ROWID;

-- Literal scrubs as fingerprints (src/store/fingerprint.rs), which sync sends to every device
-- to re-apply: `device` is where a scrub came from (NULL: made here), `scope` the projects
-- it reaches here, one a line (NULL: all), `pushed` whether the server has it.
CREATE TABLE scrub_ops (
    fingerprint TEXT PRIMARY KEY,
    replacement TEXT NOT NULL,
    device      TEXT,
    scope       TEXT,
    at          INTEGER NOT NULL,
    pushed      INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
