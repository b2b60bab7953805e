-- cmem schema v4: sentence embeddings for semantic search (src/embed, src/store/vectors.rs).
--
-- One vector per record (kind 0 observation, 1 summary, 2 prompt), with the model that made it
-- so a new model re-embeds. Vectors are derived data: deleting or rewriting a record's text
-- (forget, scrub) deletes its vector in the same statement, and search embeds what is missing.
CREATE TABLE record_vectors (
    kind INTEGER NOT NULL,
    record_id INTEGER NOT NULL,
    project TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (kind, record_id)
) WITHOUT ROWID;
CREATE INDEX idx_record_vectors_project ON record_vectors (project);

-- How many vectors were ever deleted: a process that keeps vectors in memory reloads them when
-- this changes, and otherwise only reads the vectors added since (ids only grow).
CREATE TABLE vector_deletions (n INTEGER NOT NULL);
INSERT INTO vector_deletions (n) VALUES (0);
CREATE TRIGGER record_vectors_ad AFTER DELETE ON record_vectors BEGIN
    UPDATE vector_deletions SET n = n + 1;
END;

CREATE TRIGGER observations_vectors_ad AFTER DELETE ON observations BEGIN
    DELETE FROM record_vectors WHERE kind = 0 AND record_id = old.id;
END;
CREATE TRIGGER observations_vectors_au AFTER UPDATE OF project, title, subtitle, narrative, facts ON observations BEGIN
    DELETE FROM record_vectors WHERE kind = 0 AND record_id = old.id;
END;
CREATE TRIGGER session_summaries_vectors_ad AFTER DELETE ON session_summaries BEGIN
    DELETE FROM record_vectors WHERE kind = 1 AND record_id = old.id;
END;
CREATE TRIGGER session_summaries_vectors_au AFTER UPDATE OF project, request, investigated, learned, completed, next_steps, notes ON session_summaries BEGIN
    DELETE FROM record_vectors WHERE kind = 1 AND record_id = old.id;
END;
CREATE TRIGGER user_prompts_vectors_ad AFTER DELETE ON user_prompts BEGIN
    DELETE FROM record_vectors WHERE kind = 2 AND record_id = old.id;
END;
CREATE TRIGGER user_prompts_vectors_au AFTER UPDATE OF prompt_text, session_id ON user_prompts BEGIN
    DELETE FROM record_vectors WHERE kind = 2 AND record_id = old.id;
END;
