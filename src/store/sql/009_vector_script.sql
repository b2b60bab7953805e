-- The script a record is mostly written in (0: other, 1: Chinese, Japanese or Korean): a
-- multilingual model scores a query nearer to every record of its own script, and search
-- compares each record with the others of its script (store/vectors.rs, `nearest`).
ALTER TABLE record_vectors ADD COLUMN script INTEGER NOT NULL DEFAULT 0;
