-- What an observation saw of each file it names: the file's size, modification time and git
-- blob id when it was observed, so the views can say "changed since this was observed". These
-- are facts about this machine's disk: they do not travel with `cmem sync` (a pulled
-- observation has none and is never marked) and go with their observation.
--
-- `path` is the observation's own spelling (files_read / files_modified); `root` is the
-- directory a relative path is resolved against (the session's project root or cwd). A root
-- missing on this machine (a database copied elsewhere) means the row is not checked.
CREATE TABLE observation_files (
    observation_id INTEGER NOT NULL REFERENCES observations (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    root TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER,
    hash TEXT,
    PRIMARY KEY (observation_id, path)
) WITHOUT ROWID;

-- "superseded by #N" looks, for each decision shown, at the later decisions of its project:
-- this index holds only decisions, so that look walks decisions, not every later row.
CREATE INDEX idx_observations_decisions ON observations (project COLLATE NOCASE, created_at_epoch)
    WHERE type = 'decision';
