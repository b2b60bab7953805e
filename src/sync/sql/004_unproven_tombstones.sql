-- cmem server schema v4: a tombstone the server cannot vouch for no longer hides a row from
-- its own device. Under v1 any role could insert a tombstone for another device's row; from v2
-- on only `cmem.push_tombstones` writes one, for a row already on the server and in a project
-- the role is granted. A tombstone from before v2 is `unproven`: when the row's own device pushes
-- the row, the push writes it again (the device still has it, so it never forgot it) instead of
-- answering `gone`. Every other `gone` is a forget the server vouches for, and the pushing
-- device drops its copy (src/sync/mod.rs).
--
-- v2 gave `seq` an identity that starts above every v1 number, and every write since assigns a
-- new one: a tombstone below that start was last written under v1.
ALTER TABLE cmem.rows ADD COLUMN unproven boolean NOT NULL DEFAULT false;

UPDATE cmem.rows SET unproven = true
WHERE deleted AND seq < (
    SELECT s.seqstart FROM pg_catalog.pg_sequence s
    WHERE s.seqrelid = pg_catalog.pg_get_serial_sequence('cmem.rows', 'seq')::regclass);

CREATE OR REPLACE FUNCTION cmem.push_rows(me text, d text[], t text[], i bigint[], p text[],
                                          docs text[], h text[], base bigint[])
RETURNS TABLE (k integer, outcome text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    who name := session_user;
BEGIN
    PERFORM cmem.own_device(me);
    -- Revisions commit in `seq` order: a pull that saw N saw everything below N.
    PERFORM pg_advisory_xact_lock(7432650101);
    RETURN QUERY
    WITH u AS (
        SELECT * FROM unnest(d, t, i, p, docs, h, base) WITH ORDINALITY
            AS u (d, t, i, p, doc, h, base, k)
    ), cur AS (
        SELECT u.k, r.device, r.project, r.rev, r.hash, r.deleted, r.unproven
        FROM u JOIN cmem.rows r ON r.device = u.d AND r.tbl = u.t AND r.local_id = u.i
    ), vis AS (
        SELECT x.p, cmem.may_see(x.p, who) AS ok
        FROM (SELECT u.p FROM u WHERE u.p IS NOT NULL UNION SELECT cur.project FROM cur) AS x (p)
    ), judged AS (
        SELECT u.*, c.rev AS old_rev,
            CASE
                WHEN u.t NOT IN ('sessions', 'user_prompts', 'observations', 'session_summaries',
                                 'tool_uses', 'work_state_entries')
                    THEN 'refused: unknown table ' || u.t
                WHEN u.p IS NULL OR NOT vu.ok
                    THEN 'refused: project ' || COALESCE(u.p, '(none)') || ' is not granted to role ' || who
                WHEN c.device IS NULL AND u.d <> me
                    THEN 'refused: a new row must be the pushing device''s own'
                WHEN c.device IS NOT NULL AND NOT vc.ok
                    THEN 'refused: project ' || c.project || ' is not granted to role ' || who
                WHEN c.device IS NOT NULL AND u.d <> me AND lower(c.project) <> lower(u.p)
                    THEN 'refused: another device''s row cannot move to another project'
                WHEN c.deleted AND (NOT c.unproven OR u.d <> me) THEN 'gone'
                WHEN c.deleted THEN 'write'
                WHEN c.hash = u.h THEN 'same:' || c.rev
                WHEN u.base IS NOT NULL AND c.rev <> u.base THEN 'conflict:' || c.rev
                ELSE 'write'
            END AS verdict
        FROM u
        LEFT JOIN cur c ON c.k = u.k
        LEFT JOIN vis vu ON vu.p = u.p
        LEFT JOIN vis vc ON vc.p = c.project
    ), written AS (
        INSERT INTO cmem.rows AS r (device, tbl, local_id, project, doc, hash, writer, written_by)
        SELECT j.d, j.t, j.i, j.p, j.doc::jsonb, j.h, me, who FROM judged j WHERE j.verdict = 'write'
        ON CONFLICT (device, tbl, local_id) DO UPDATE
        SET project = EXCLUDED.project, doc = EXCLUDED.doc, hash = EXCLUDED.hash, seq = DEFAULT,
            deleted = false, unproven = false,
            rev = r.rev + 1, writer = EXCLUDED.writer, written_by = EXCLUDED.written_by,
            written_at = now()
        RETURNING r.device, r.tbl, r.local_id, r.rev
    )
    SELECT j.k::integer,
           CASE WHEN j.verdict = 'write' THEN 'written:' || w.rev ELSE j.verdict END
    FROM judged j
    LEFT JOIN written w ON w.device = j.d AND w.tbl = j.t AND w.local_id = j.i
    ORDER BY j.k;
END $$;
