-- The model of the vector the server's revision of a synced row carries, as this device last
-- saw it (NULL: none, or seen before this column). The built-in model's vector replaces any
-- other the server keeps (src/sync/vectors.rs), so after a model change a team embeds each
-- record once again, not once per device.
ALTER TABLE sync_map ADD COLUMN vector_model TEXT;
