-- Words in every script: the full-text tables use cmem's tokenizer (src/store/tokenizer.rs),
-- which splits, folds and stems words as before and cuts Chinese, Japanese and Korean runs into
-- overlapping bigrams, so a word inside unspaced text is found. The triggers that keep the
-- tables in step stay as they are (they name the tables, not the tokenizer); each index is
-- rebuilt from its content table.
DROP TABLE observations_fts;
CREATE VIRTUAL TABLE observations_fts USING fts5(
    title, subtitle, narrative, facts, concepts, files_read, files_modified,
    content = 'observations', content_rowid = 'id',
    tokenize = 'cmem porter unicode61 remove_diacritics 2', prefix = '2 3'
);
INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');

DROP TABLE session_summaries_fts;
CREATE VIRTUAL TABLE session_summaries_fts USING fts5(
    request, investigated, learned, completed, next_steps, notes,
    content = 'session_summaries', content_rowid = 'id',
    tokenize = 'cmem porter unicode61 remove_diacritics 2', prefix = '2 3'
);
INSERT INTO session_summaries_fts (session_summaries_fts) VALUES ('rebuild');

DROP TABLE user_prompts_fts;
CREATE VIRTUAL TABLE user_prompts_fts USING fts5(
    prompt_text,
    content = 'user_prompts', content_rowid = 'id',
    tokenize = 'cmem porter unicode61 remove_diacritics 2', prefix = '2 3'
);
INSERT INTO user_prompts_fts (user_prompts_fts) VALUES ('rebuild');
