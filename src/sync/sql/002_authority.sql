-- cmem server schema v2: the server is the authority. v1 trusted what a client wrote: a role
-- could insert a row or a tombstone under another device's identity (and so delete, overwrite
-- or move that device's rows in projects it never shared), pick its own `seq` (one huge value
-- froze every puller's cursor) and rename any device. From v2 on no role but the owner writes
-- a table directly: devices are registered to the role that connects (`cmem.hello`), and rows
-- are written only through `cmem.push_rows` / `cmem.push_tombstones`, which run as the owner
-- and check, row by row, that
--   * the pushing device belongs to the calling role (session_user: a SECURITY DEFINER function
--     sees itself as the owner in current_user),
--   * a new row is the calling device's own,
--   * the project of the row, and of the revision it replaces, is granted to the role,
--   * another device's row (a scrub's revision, a forget's tombstone) keeps its project.
-- `seq` is an identity the server assigns on every insert and update; `rev` counts the
-- revisions of a row, so a push can say which revision it was based on.

-- Forged sequence numbers (above anything the sequence handed out) are renumbered; pullers
-- whose cursor went past the sequence start again from 0 (`cmem.last_seq`, src/sync/mod.rs).
UPDATE cmem.rows SET seq = nextval('cmem.row_seq')
WHERE seq > (SELECT last_value FROM cmem.row_seq);

DO $$
DECLARE
    start bigint := (SELECT GREATEST(COALESCE(MAX(seq), 0), (SELECT last_value FROM cmem.row_seq)) + 1 FROM cmem.rows);
BEGIN
    ALTER TABLE cmem.rows ALTER COLUMN seq DROP DEFAULT;
    DROP SEQUENCE cmem.row_seq;
    EXECUTE format('ALTER TABLE cmem.rows ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (START WITH %s)', start);
END $$;

ALTER TABLE cmem.rows ADD COLUMN rev bigint NOT NULL DEFAULT 1;

-- The schema's owner (and superusers) administer the server and see every project.
CREATE OR REPLACE FUNCTION cmem.may_see(p text, who name) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT pg_catalog.pg_has_role(who, (SELECT nspowner FROM pg_catalog.pg_namespace WHERE nspname = 'cmem'), 'MEMBER')
        OR EXISTS (
        SELECT 1 FROM cmem.grants g JOIN pg_catalog.pg_roles r ON r.rolname = g.role
        WHERE (g.project = lower(p) OR g.project = '*')
          AND pg_catalog.pg_has_role(who, r.oid, 'MEMBER'))
$$;

-- Direct writes go: every role granted so far keeps SELECT and loses INSERT and UPDATE.
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT DISTINCT role FROM cmem.grants JOIN pg_catalog.pg_roles ON rolname = role LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON cmem.rows, cmem.devices FROM %I', g.role);
    END LOOP;
END $$;

ALTER TABLE cmem.devices ENABLE ROW LEVEL SECURITY;
CREATE POLICY devices_select ON cmem.devices FOR SELECT USING (true);
CREATE POLICY devices_insert ON cmem.devices FOR INSERT WITH CHECK (role = current_user);
CREATE POLICY devices_update ON cmem.devices FOR UPDATE USING (role = current_user)
    WITH CHECK (role = current_user);

-- Registers the calling role's device (or refreshes its name); returns the role the device
-- belongs to, which is someone else's when the id was taken by another role first.
CREATE FUNCTION cmem.hello(dev text, dev_name text) RETURNS name
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    owner name;
BEGIN
    INSERT INTO cmem.devices (device, name, role) VALUES (dev, dev_name, session_user)
    ON CONFLICT (device) DO NOTHING;
    SELECT d.role INTO owner FROM cmem.devices d WHERE d.device = dev;
    IF owner = session_user THEN
        UPDATE cmem.devices SET name = dev_name, last_seen = now() WHERE device = dev;
    END IF;
    RETURN owner;
END $$;

CREATE FUNCTION cmem.own_device(dev text) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM cmem.devices WHERE device = dev AND role = session_user) THEN
        RAISE EXCEPTION 'device % is not registered to role %', dev, session_user
            USING HINT = 'each device pushes as the role that registered it';
    END IF;
END $$;

-- The newest sequence number handed out: a cursor past it was moved by a forged row.
CREATE FUNCTION cmem.last_seq() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT COALESCE(MAX(seq), 0) FROM cmem.rows
$$;

-- Writes revisions of one batch; one outcome per input row, by position (1-based):
-- `written:REV`, `same:REV` (the server holds this revision), `gone` (forgotten: a tombstone is
-- final), `conflict:REV` (the row moved on since `base`) or `refused: why`.
CREATE FUNCTION cmem.push_rows(me text, d text[], t text[], i bigint[], p text[], docs text[],
                               h text[], base bigint[])
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
    ), judged AS (
        SELECT u.*, r.rev AS old_rev,
            CASE
                WHEN u.t NOT IN ('sessions', 'user_prompts', 'observations', 'session_summaries',
                                 'tool_uses', 'work_state_entries')
                    THEN 'refused: unknown table ' || u.t
                WHEN u.p IS NULL OR NOT cmem.may_see(u.p, who)
                    THEN 'refused: project ' || COALESCE(u.p, '(none)') || ' is not granted to role ' || who
                WHEN r.device IS NULL AND u.d <> me
                    THEN 'refused: a new row must be the pushing device''s own'
                WHEN r.device IS NOT NULL AND NOT cmem.may_see(r.project, who)
                    THEN 'refused: project ' || r.project || ' is not granted to role ' || who
                WHEN r.device IS NOT NULL AND u.d <> me AND lower(r.project) <> lower(u.p)
                    THEN 'refused: another device''s row cannot move to another project'
                WHEN r.deleted THEN 'gone'
                WHEN r.hash = u.h THEN 'same:' || r.rev
                WHEN u.base IS NOT NULL AND r.rev <> u.base THEN 'conflict:' || r.rev
                ELSE 'write'
            END AS verdict
        FROM u LEFT JOIN cmem.rows r ON r.device = u.d AND r.tbl = u.t AND r.local_id = u.i
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

-- Marks rows forgotten; a row the role may not see, or that is not on the server, is left
-- alone. Returns how many rows it changed.
CREATE FUNCTION cmem.push_tombstones(me text, d text[], t text[], i bigint[])
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    who name := session_user;
    n bigint;
BEGIN
    PERFORM cmem.own_device(me);
    PERFORM pg_advisory_xact_lock(7432650101);
    UPDATE cmem.rows r
    SET deleted = true, doc = NULL, hash = '', seq = DEFAULT, rev = r.rev + 1,
        writer = me, written_by = who, written_at = now()
    FROM unnest(d, t, i) AS u (d, t, i)
    WHERE r.device = u.d AND r.tbl = u.t AND r.local_id = u.i AND NOT r.deleted
      AND cmem.may_see(r.project, who);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END $$;
