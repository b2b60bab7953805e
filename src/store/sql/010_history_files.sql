-- How far `cmem import claude-code|codex` has read each transcript: the next run reads only
-- what a file gained since. `head_sha256` is the hash of the file's first line, so a file
-- replaced by another under the same path is read again from its start (rows already stored
-- are matched by session, prompt and tool-use ids and not doubled).
CREATE TABLE history_files (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    read_bytes INTEGER NOT NULL,
    size_bytes INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    head_sha256 TEXT NOT NULL,
    imported_at_epoch INTEGER NOT NULL
);
