-- cmem server schema v3: a scrub travels as an operation every device re-applies. Rows a scrub
-- rewrote travel as revisions already; but a device that had not synced a row yet, or that
-- pushed a revision before it heard of the scrub, would keep (or bring back) the text. So
-- `cmem scrub TEXT` also sends a fingerprint of TEXT (a salted SHA-256 and a 32-bit rolling
-- hash, src/store/fingerprint.rs: enough to find the text, not to read it) with its
-- replacement. Each device re-applies it to its rows of the projects it shares that the
-- scrub's writer may see, and to what it pulls from then on.
CREATE TABLE cmem.scrubs (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint text NOT NULL UNIQUE CHECK (length(fingerprint) <= 200),
    replacement text NOT NULL CHECK (length(replacement) <= 200),
    device      text NOT NULL,
    written_by  name NOT NULL,
    written_at  timestamptz NOT NULL DEFAULT now()
);

-- Every role granted a project reads them (cmem sync grant gives SELECT from now on).
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT DISTINCT role FROM cmem.grants JOIN pg_catalog.pg_roles ON rolname = role LOOP
        EXECUTE format('GRANT SELECT ON cmem.scrubs TO %I', g.role);
    END LOOP;
END $$;

-- Records scrubs made on the calling role's device; a fingerprint already there is left as
-- it is. Returns how many were new.
CREATE FUNCTION cmem.push_scrubs(me text, f text[], r text[]) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM cmem.own_device(me);
    INSERT INTO cmem.scrubs (fingerprint, replacement, device, written_by)
    SELECT u.f, u.r, me, session_user FROM unnest(f, r) AS u (f, r)
    WHERE u.f LIKE 'fp1:%'
    ON CONFLICT (fingerprint) DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END $$;

-- Which of `projects` the role `who` may see: where its scrubs reach.
CREATE FUNCTION cmem.visible_to(projects text[], who name) RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT p FROM unnest(projects) AS p WHERE cmem.may_see(p, who)
$$;

-- push_rows asked `may_see` (a join of the grants with the role catalog) up to twice per row:
-- a first push of 20,000 rows spent most of its time there. A batch names few projects:
-- each is judged once.
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
        SELECT u.k, r.device, r.project, r.rev, r.hash, r.deleted
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
                WHEN c.deleted THEN 'gone'
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
