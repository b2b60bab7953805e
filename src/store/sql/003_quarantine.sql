-- cmem schema v3: turns an observer could not finish (a crash, a stack overflow, a time-out)
-- are quarantined: skipped by that observer from then on, listed by `cmem doctor`, and tried
-- again only on request (`cmem observe --retry-quarantined`). How a failed attempt is detected
-- is in src/observe/attempt.rs.
CREATE TABLE observe_quarantine (
    prompt_row_id        INTEGER NOT NULL REFERENCES user_prompts (id) ON DELETE CASCADE,
    observer             TEXT    NOT NULL, -- rules | external
    quarantined_at_epoch INTEGER NOT NULL,
    reason               TEXT    NOT NULL,
    PRIMARY KEY (prompt_row_id, observer)
) WITHOUT ROWID;
