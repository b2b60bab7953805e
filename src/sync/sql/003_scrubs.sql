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
